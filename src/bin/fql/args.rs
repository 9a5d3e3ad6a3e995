//! The command line, defined once for parsing, `--help`, the man page and
//! shell completions.

use std::path::PathBuf;

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

mod dump;
mod mutex;

pub use dump::{DumpArgs, LoadArgs};
pub use mutex::{
    Client, JudgeArgs, KindArgs, MutexCommand, TaskArgs, TaskCommand, TaskState, TimingArgs,
    WaitArgs,
};

/// fql: the FQL query language for FoundationDB.
///
/// With no command, fql starts an interactive shell when standard input is
/// a terminal, and otherwise runs the script it reads from standard input.
/// `-q` and `-f` run queries and script files instead.
#[derive(Debug, Parser)]
#[command(
    name = "fql",
    version,
    about,
    long_about,
    max_term_width = 100,
    after_help = "Examples:\n  \
        fql --memory -q '/app/users(1)=\"ann\"' -q '/app/users(<int>)=<str>' -w\n  \
        fql -f load.fql -w --on-error continue\n  \
        fql run backup.fql -p day:str=2026-11-22 --format jsonl\n  \
        fql                      # the interactive shell"
)]
pub struct Args {
    /// When to color output and diagnostics.
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    pub color: Color,

    #[command(flatten)]
    pub store: StoreArgs,

    /// A query to run; repeat for more. Queries and files run in the order
    /// given, each in its own transaction unless -1 is given.
    #[arg(short = 'q', long = "query", value_name = "QUERY")]
    pub queries: Vec<String>,

    /// A script file to run; `-` reads standard input. Repeatable, and
    /// runs in order with -q.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Run every -q and -f in one transaction: all of them commit, or
    /// none. A script that commits (`@commit`) is refused.
    #[arg(short = '1', long)]
    pub single_transaction: bool,

    #[command(flatten)]
    pub exec: ExecArgs,

    #[command(flatten)]
    pub repl: ReplArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Where the data is.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Database")]
pub struct StoreArgs {
    /// The embedded database file [default: $XDG_DATA_HOME/fql/fql.db, else
    /// ~/.local/share/fql/fql.db].
    #[arg(long, value_name = "PATH", global = true, conflicts_with_all = ["memory", "cluster_file", "fdb"])]
    pub db: Option<PathBuf>,

    /// A throw-away in-memory database.
    #[arg(long, global = true, conflicts_with_all = ["cluster_file", "fdb"])]
    pub memory: bool,

    /// Open the embedded database file read-only: reads work, writes are
    /// refused (exit 2), and a missing file is not created. A file this
    /// user may not write opens read-only without it.
    #[arg(long, global = true, conflicts_with_all = ["memory", "cluster_file", "fdb"])]
    pub read_only: bool,

    /// FoundationDB, through this cluster file [default: $FDB_CLUSTER_FILE,
    /// else the client library's default]. Setting FDB_CLUSTER_FILE alone
    /// also selects FoundationDB, unless --db or --memory is given.
    #[arg(short = 'C', long, value_name = "PATH", global = true)]
    pub cluster_file: Option<PathBuf>,

    /// FoundationDB, through the default cluster file.
    #[arg(long, global = true)]
    pub fdb: bool,

    /// Give up on a transaction, retries included, after this many seconds,
    /// on every database; on the embedded file, this is also the longest
    /// wait for a lock another process holds. A transaction whose work
    /// takes longer than the five seconds a transaction may live fails
    /// before that. Waiting in line for a mutex is not a transaction:
    /// `fql mutex acquire --wait` bounds that.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, global = true)]
    pub timeout: f64,
}

/// How scripts run and print; taken by `fql` itself and by `fql run`.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Running")]
pub struct ExecArgs {
    /// A parameter for the script's `:NAME` references; one flag per NAME.
    /// VALUE is FQL data (`42`, `"ann"`, `0xff`, `(1,2)`, `nil`); a
    /// directory path (`/locks/s`, or `./s` from --root), which stands
    /// where a directory path starts (`/:dir(...)`); or a plain word that
    /// starts with a letter (`ann`, `web-2`), taken as a string. Text that
    /// starts like data and is not (`02134`, `0xABC`, `(1,`) is an error;
    /// `-p NAME:str=TEXT` takes any TEXT as a string. A parameter that no
    /// statement uses is an error.
    #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// Allow sets, clears and removals; without it a script that writes is
    /// refused before anything runs.
    #[arg(short, long)]
    pub write: bool,

    /// What to do when a transaction fails: stop there, or report it and
    /// go on with the next one (the exit status still says it failed).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub on_error: Option<OnError>,

    /// Print each transaction's time and result count on standard error.
    #[arg(long)]
    pub timing: bool,

    /// Let a range read that outlives a transaction's five seconds go on in
    /// new transactions (the output marks each break).
    #[arg(long)]
    pub split_reads: bool,

    /// How results print: `text` is canonical FQL, one result per line;
    /// `json` is one array; `jsonl` one JSON object per line.
    #[arg(long, value_enum, value_name = "FORMAT", help_heading = "Output")]
    pub format: Option<Format>,

    /// Bytes in full as hex (`0x...`) or escaped (`b"\x02app"`), both
    /// valid input, or as their length only.
    #[arg(long, value_enum, value_name = "HOW", help_heading = "Output")]
    pub bytes: Option<BytesShown>,

    /// The directory that relative paths (`./users`, `../other`) start
    /// from, such as `/app/tests`; without it they start at `/`. Absolute
    /// paths are not changed. In the shell, `\cd` moves it.
    #[arg(long, value_name = "DIR")]
    pub root: Option<String>,
}

impl ExecArgs {
    /// These flags with `other`'s added: `fql -w run x.fql` and
    /// `fql run x.fql -w` mean the same.
    pub fn merged(mut self, other: ExecArgs) -> ExecArgs {
        self.params.extend(other.params);
        self.write |= other.write;
        self.on_error = other.on_error.or(self.on_error);
        self.timing |= other.timing;
        self.split_reads |= other.split_reads;
        self.format = other.format.or(self.format);
        self.bytes = other.bytes.or(self.bytes);
        self.root = other.root.or(self.root);
        self
    }
}

/// The interactive shell's history.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Interactive shell")]
pub struct ReplArgs {
    /// Keep no history.
    #[arg(long)]
    pub no_history: bool,

    /// The history file [default: $FQL_HISTORY, else
    /// $XDG_STATE_HOME/fql/history, else ~/.local/state/fql/history].
    #[arg(long, value_name = "PATH")]
    pub history_file: Option<PathBuf>,

    /// Keep lines that write in the history too; by default a line that
    /// sets, clears or removes is not kept, so it cannot be re-run by
    /// accident.
    #[arg(long)]
    pub history_writes: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a script file, or a named script that ships with fql, and print
    /// its results, one per line, as FQL.
    ///
    /// The whole script is checked and planned before anything runs.
    Run(RunArgs),

    /// List the named scripts that ship with fql, or print one.
    Scripts {
        #[command(subcommand)]
        command: Option<ScriptsCommand>,
    },

    /// The distributed mutex: acquire, release, inspect and reap it, or
    /// run a command while holding it.
    ///
    /// These are explicit lock operations and need no --write.
    Mutex {
        #[command(subcommand)]
        command: MutexCommand,
    },

    /// Check stored data against a schema: an FQL file, or a named script
    /// such as mutex/schema, whose reads are the allowed patterns.
    ///
    /// Every key-value of every directory a pattern names must match one of
    /// that directory's patterns. Exits 0 when the data conforms, 1 when it
    /// does not, or when no key was read at all (see --allow-empty).
    Validate(ValidateArgs),

    /// Write directories, with every directory under them and their
    /// key-values, as a script that `fql load` (or `fql -w -f`) replays.
    ///
    /// The dump is read in one transaction while it can be; one that
    /// outlives a transaction's five seconds goes on in new ones, and
    /// says so on standard error.
    Dump(DumpArgs),

    /// Write a dump back: in transactions of bounded size, into empty
    /// directories (unless --force), resuming after a load that stopped.
    ///
    /// A FILE is checked whole before anything is written: each line must
    /// be one of a dump's and lie under the directories it holds.
    Load(LoadArgs),

    /// Print the shapes of the data stored in a directory as FQL patterns,
    /// with counts: a schema for `fql validate`.
    Infer(InferArgs),

    /// Print scripts in canonical form, keeping their comments; or check
    /// or rewrite them in place.
    ///
    /// Exits 0 and prints each script when it parses and passes the static
    /// checks; otherwise prints every error and exits 3.
    Fmt(FmtArgs),

    /// Print what a script would do, statement by statement, without
    /// running it: the directories, the keys read or written, and what is
    /// filtered on the client. With --analyze, run it and print what each
    /// statement cost.
    Explain(ExplainArgs),

    /// Count the key-values of a directory exactly, and their bytes,
    /// reading in as many transactions as it takes; or, with --estimate,
    /// print its estimated size without reading it.
    ///
    /// Subdirectories have prefixes of their own and are not counted; a
    /// partition, which holds no keys of its own, counts every directory
    /// inside it.
    Count(CountArgs),

    /// Draw the directories under DIR (default: all) as a tree, with each
    /// one's layer, prefix and estimated size.
    Tree(TreeArgs),

    /// Create, move and remove directories. Each needs -w/--write.
    Dir {
        #[command(subcommand)]
        command: DirCommand,
    },

    /// Print the key-values a query reads, then each change as it is
    /// committed, until Ctrl-C (exit 130), --count or --for.
    ///
    /// One key is followed by a database watch, with no polling; a range
    /// or pattern by a watch on each key found, and for new keys it is
    /// read again in full every 0.1 to 2 seconds (less often while
    /// nothing is new). A cleared key prints as `KEY=clear`. See
    /// docs/cli.md, "fql watch".
    Watch(WatchArgs),

    /// Show which database fql uses and check that it answers.
    ///
    /// Prints the database and its current read version; exits 5 when a
    /// FoundationDB cluster does not answer within the timeout, 2 when the
    /// database file does not exist (it is not created).
    Status(StatusArgs),

    /// Print the cluster file line that points FoundationDB clients at the
    /// embedded database, creating the database if it is missing.
    ///
    /// `fql --db x.db cluster-file > fdb.cluster`, then any FoundationDB
    /// client that loads fql's libfdb_c reaches x.db through that file (`-C`,
    /// FDB_CLUSTER_FILE, fdb.open). See docs/fdb.md.
    ClusterFile,

    /// Print a shell completion script: `fql completions bash >
    /// ~/.local/share/bash-completion/completions/fql`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },

    /// Print the manual page (roff): `fql man | man -l -`.
    Man,
}

#[derive(Debug, clap::Args)]
pub struct CountArgs {
    /// The directory: absolute (`/app/users`), or relative to --root.
    pub dir: String,

    /// Print the size the database estimates from its sample of the
    /// data instead of counting: nothing is read, so it answers at once at
    /// any size, but roughly, and often 0 below a few hundred kilobytes.
    #[arg(long)]
    pub estimate: bool,

    /// `text` (the default): a line for each figure; `json` or `jsonl`:
    /// one JSON object.
    #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
    pub format: Option<Format>,
}

#[derive(Debug, clap::Args)]
pub struct TreeArgs {
    /// The directory at the top: absolute, or relative to --root
    /// [default: the root, `/`].
    pub dir: Option<String>,

    /// Show this many levels below DIR; deeper ones are counted, not
    /// shown.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,

    /// `text` (the default): a tree drawn with box-drawing characters;
    /// `json`: one nested JSON document; `jsonl`: one JSON object per
    /// directory.
    #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
    pub format: Option<Format>,
}

#[derive(Debug, Subcommand)]
pub enum DirCommand {
    /// Create a directory, and any missing parents.
    Mkdir {
        /// The new directory: absolute, or relative to --root.
        path: String,
        /// The layer to give it (its parents get none).
        #[arg(long, value_name = "LAYER", conflicts_with = "partition")]
        layer: Option<String>,
        /// Make it a partition: a directory layer of its own, whose
        /// directories all lie under its prefix.
        #[arg(long)]
        partition: bool,
        /// Allow the write (also before the command: `fql -w dir ...`).
        #[arg(short, long)]
        write: bool,
    },
    /// Move or rename a directory: only its link changes; its prefix,
    /// keys and subdirectories stay as they are. The new parent must exist.
    Mv {
        /// The directory to move.
        src: String,
        /// Its new path, which must not exist.
        dst: String,
        /// Allow the write (also before the command: `fql -w dir ...`).
        #[arg(short, long)]
        write: bool,
    },
    /// Remove a directory with its keys and subdirectories. One that holds
    /// subdirectories or key-values is refused without --force.
    Rm {
        /// The directory to remove.
        path: String,
        /// Remove it even if it holds subdirectories or key-values.
        #[arg(long)]
        force: bool,
        /// Allow the write (also before the command: `fql -w dir ...`).
        #[arg(short, long)]
        write: bool,
    },
}

impl DirCommand {
    /// Whether -w/--write was given after the command.
    pub fn write(&self) -> bool {
        match self {
            DirCommand::Mkdir { write, .. }
            | DirCommand::Mv { write, .. }
            | DirCommand::Rm { write, .. } => *write,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum ScriptsCommand {
    /// Print a named script.
    Show {
        /// The script's name, such as `mutex/release`.
        name: String,
    },
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The script: a file, a named script (`fql scripts` lists them), or
    /// `-` or nothing for standard input.
    #[arg(value_name = "NAME|FILE")]
    pub file: Option<PathBuf>,

    #[command(flatten)]
    pub exec: ExecArgs,
}

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The schema: a file, or a named script (`fql scripts`).
    #[arg(value_name = "SCHEMA")]
    pub schema: PathBuf,

    /// A parameter for the schema's references, as for `fql run`: FQL
    /// data, a directory path, a plain word, or `NAME:str=TEXT`.
    #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// Stop after this many violations.
    #[arg(long, value_name = "N")]
    pub max_violations: Option<u64>,

    /// `text` (the default): each violation as FQL with a comment saying
    /// why, then a summary on standard error; `json`: one JSON document,
    /// the violations and the summary; `jsonl`: one JSON object per
    /// violation, then the summary's.
    #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
    pub format: Option<Format>,

    /// Succeed when the schema's directories hold no keys at all; without
    /// it such a validation, which checked nothing, exits 1.
    #[arg(long)]
    pub allow_empty: bool,

    /// The directory the schema's relative paths (`./users`, `../other`)
    /// start from, as for `fql run`: one schema of relative paths checks
    /// the data under any root given (`--root /tenants/acme`).
    #[arg(long, value_name = "DIR")]
    pub root: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// `text` (the default): a line for each fact; `json` or `jsonl`: one
    /// JSON object.
    #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
    pub format: Option<Format>,
}

#[derive(Debug, clap::Args)]
pub struct InferArgs {
    /// The directory: absolute (`/app/users`), or relative to --root
    /// (`./users`, `../other`, `.`); `/` is the keys outside every
    /// directory, and raw bytes (`0xab01`, `b"\xab\x01"`) the keys after
    /// them.
    pub dir: String,

    /// The directory relative paths start from, as for `fql run`. With a
    /// root other than `/`, or a relative DIR, the patterns print relative
    /// to the root
    /// (`./users(<int>)=<str>`), a schema for `fql validate --root`;
    /// otherwise they print absolute.
    #[arg(long, value_name = "DIR")]
    pub root: Option<String>,

    /// Also this many levels of subdirectories.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub depth: usize,

    /// Read at most this many key-values of each directory.
    #[arg(long, value_name = "N")]
    pub sample: Option<u64>,
}

#[derive(Debug, clap::Args)]
pub struct FmtArgs {
    /// The scripts to format; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Print nothing; exit 1 if any script is not already in canonical
    /// form.
    #[arg(long, conflicts_with = "write")]
    pub check: bool,

    /// Rewrite each file that is not in canonical form in place; a file
    /// that does not parse is left as it is.
    #[arg(long)]
    pub write: bool,
}

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The script to explain: a file, a named script (`fql scripts`), or
    /// `-` or nothing for standard input.
    #[arg(value_name = "NAME|FILE")]
    pub file: Option<PathBuf>,

    /// A parameter for the script's references, as for `fql run`: FQL
    /// data, a directory path, a plain word, or `NAME:str=TEXT`.
    #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// The directory relative paths start from, as for `fql run`.
    #[arg(long, value_name = "DIR")]
    pub root: Option<String>,

    /// Run the script, its results counted and not printed, and print
    /// under each statement what it cost: directory reads per level of
    /// its path, round trips, keys and bytes read, rows returned and
    /// filtered on the client, writes, time; and under each transaction
    /// its commit, retries and conflicts.
    #[arg(long)]
    pub analyze: bool,

    /// Allow the analyzed script to write, as `fql run -w` does.
    #[arg(short, long, requires = "analyze")]
    pub write: bool,

    /// With --analyze: `text` (the default), the plan with the figures
    /// under each statement; `json` or `jsonl`, one JSON document.
    #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
    pub format: Option<Format>,
}

#[derive(Debug, clap::Args)]
pub struct WatchArgs {
    /// The query: one read of key-values, such as '/app/users(<int>)=<str>'
    /// or '/app/config("mode")'.
    #[arg(value_name = "QUERY")]
    pub query: String,

    /// Stop after N changes (the key-values found first are not changes).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,

    /// Stop after this many seconds (a decimal, such as 0.5).
    #[arg(long = "for", value_name = "SECONDS", value_parser = seconds)]
    pub for_secs: Option<std::time::Duration>,

    /// A parameter for the query's references, as for `fql run`.
    #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// The directory relative paths start from, as for `fql run`.
    #[arg(long, value_name = "DIR")]
    pub root: Option<String>,

    /// text (canonical FQL, a cleared key as `KEY=clear`) or jsonl (each
    /// object with "change": found, set or clear).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
}

/// A positive, finite number of seconds.
fn seconds(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => Ok(std::time::Duration::from_secs_f64(s)),
        _ => Err(format!("`{text}` is not a number of seconds above 0")),
    }
}

/// `--on-error`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OnError {
    /// Stop at the first failed transaction.
    #[default]
    Stop,
    /// Report a failed transaction and run the next.
    Continue,
}

/// `--format`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Canonical FQL, one result per line: every line can be pasted back.
    #[default]
    Text,
    /// One JSON array of result objects.
    Json,
    /// One JSON object per line.
    Jsonl,
}

/// `--bytes`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum BytesShown {
    /// `0x` and every byte in hex.
    #[default]
    Full,
    /// Only the length, `<12 bytes>`; such output is not valid input.
    Len,
    /// `b"\x02app\x00"`, as fdbcli prints keys: printable ASCII as it is,
    /// every other byte `\xNN`; valid input, the same bytes.
    Escaped,
}

/// The `--color` choices.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Color {
    /// Color a stream that is a terminal with colours (`TERM` set and not
    /// `dumb`), unless `NO_COLOR` is set; `CLICOLOR_FORCE` or
    /// `FORCE_COLOR` color any stream.
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
}

impl Color {
    /// Whether `stream` gets color. `auto` asks supports-color, except
    /// that any non-empty `NO_COLOR` turns color off, as the NO_COLOR
    /// convention says (supports-color takes `NO_COLOR=0` as unset), even
    /// when forced.
    pub fn enabled(self, stream: supports_color::Stream) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && supports_color::on(stream).is_some()
            }
        }
    }

    /// Whether diagnostics on standard error get color.
    pub fn enabled_for_stderr(self) -> bool {
        self.enabled(supports_color::Stream::Stderr)
    }

    /// Whether results on standard output get color.
    pub fn enabled_for_stdout(self) -> bool {
        self.enabled(supports_color::Stream::Stdout)
    }
}

/// One input of `fql -q ... -f ...`, in command-line order.
#[derive(Debug)]
pub enum Input {
    Query(String),
    File(PathBuf),
}

/// The command's definition. Its defaults are written as the variables
/// they come from (`$XDG_DATA_HOME/fql/fql.db`), never as this machine's
/// paths, so that the help and the manual say the same for every user.
pub fn command() -> clap::Command {
    Args::command()
}

/// Parses the command line; exits with clap's message and status 2 on a
/// usage error, and after printing [`version`] for `-V` and `--version`.
pub fn parse() -> (Args, Vec<Input>) {
    let matches = command()
        .try_get_matches()
        .unwrap_or_else(|e| match e.kind() {
            clap::error::ErrorKind::DisplayVersion => {
                let shown = crate::output::print(&version());
                std::process::exit(shown.err().map_or(0, |e| e.tell().status()))
            }
            _ => e.exit(),
        });
    let args = Args::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let inputs = inputs(&matches, &args);
    (args, inputs)
}

/// fql's version, then the FoundationDB client library it would use for a
/// cluster and that library's version, or why there is none: asking is
/// the one reason `--version` loads the library.
pub fn version() -> String {
    let client = match fql::kv::fdb::client_library() {
        Ok(client) => crate::output::describe_client(client),
        Err(e) if e.not_found() => format!("not found ({})", e.reasons()),
        Err(e) => format!("none usable ({})", e.reasons()),
    };
    format!(
        "fql {}\nFoundationDB client: {client}\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// `-q` and `-f` in the order they were given.
fn inputs(matches: &ArgMatches, args: &Args) -> Vec<Input> {
    let indices = |id| matches.indices_of(id).into_iter().flatten();
    let mut inputs: Vec<(usize, Input)> = indices("queries")
        .zip(&args.queries)
        .map(|(i, q)| (i, Input::Query(q.clone())))
        .chain(
            indices("files")
                .zip(&args.files)
                .map(|(i, f)| (i, Input::File(f.clone()))),
        )
        .collect();
    inputs.sort_by_key(|(i, _)| *i);
    inputs.into_iter().map(|(_, input)| input).collect()
}
