//! The command line, defined once for parsing, `--help` and completions.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// fql: the FQL query language for FoundationDB.
#[derive(Debug, Parser)]
#[command(name = "fql", version, about, max_term_width = 100)]
pub struct Args {
    /// When to color diagnostics.
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    pub color: Color,

    #[command(flatten)]
    pub store: StoreArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Where the data is.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Database")]
pub struct StoreArgs {
    /// The embedded database file [default: fql.db in the user's data
    /// directory, e.g. ~/.local/share/fql/fql.db].
    #[arg(long, value_name = "PATH", global = true, conflicts_with_all = ["memory", "cluster_file", "fdb"])]
    pub db: Option<PathBuf>,

    /// A throw-away in-memory database.
    #[arg(long, global = true, conflicts_with_all = ["cluster_file", "fdb"])]
    pub memory: bool,

    /// FoundationDB, through this cluster file [default: $FDB_CLUSTER_FILE,
    /// else the client library's default]. Setting FDB_CLUSTER_FILE alone
    /// also selects FoundationDB, unless --db or --memory is given.
    #[arg(short = 'C', long, value_name = "PATH", global = true)]
    pub cluster_file: Option<PathBuf>,

    /// FoundationDB, through the default cluster file.
    #[arg(long, global = true)]
    pub fdb: bool,

    /// Give up on a FoundationDB transaction, retries included, after this
    /// many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, global = true)]
    pub timeout: f64,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print a script in canonical form, keeping its comments.
    ///
    /// Exits 0 and prints the script when it parses and passes the static
    /// checks; otherwise prints every error and exits 3.
    Fmt(FmtArgs),

    /// Run a script and print its results, one per line, as FQL.
    ///
    /// The whole script is checked and planned before anything runs.
    /// Exits 0 on success, 2 for a bad argument or a write without
    /// --write, 3 for a script that does not parse or plan, 4 when it
    /// fails while running, 5 when the database does not answer.
    Run(RunArgs),

    /// Print what a script would do, statement by statement, without
    /// running it: the directories, the keys read or written, and what is
    /// filtered on the client.
    Explain(ExplainArgs),

    /// Show which database fql uses and check that it answers.
    ///
    /// Prints the database and its current read version; exits 5 when a
    /// FoundationDB cluster does not answer within the timeout.
    Status,
}

#[derive(Debug, clap::Args)]
pub struct FmtArgs {
    /// The script to format; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,

    /// Print nothing; exit 1 if the script is not already formatted.
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The script; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,

    /// A parameter for the script's references: `-p id=42`. The value is
    /// read as FQL data (`42`, `"ann"`, `0xff`, `(1,2)`) or else taken as a
    /// string.
    #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// Allow sets, clears and removals; without it a script that writes is
    /// refused before anything runs.
    #[arg(short, long)]
    pub write: bool,

    /// Let a range read that outlives a transaction's five seconds go on in
    /// new transactions (the output marks each break).
    #[arg(long)]
    pub split_reads: bool,
}

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The script to explain; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,
}

/// The `--color` choices.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Color {
    /// Color when the stream is a terminal, `NO_COLOR` is unset and `TERM`
    /// is not `dumb`.
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
}

impl Color {
    /// Whether diagnostics on standard error get color.
    pub fn enabled_for_stderr(self) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
                    && std::io::stderr().is_terminal()
            }
        }
    }
}
