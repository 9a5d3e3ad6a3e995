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

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print a script in canonical form, keeping its comments.
    ///
    /// Exits 0 and prints the script when it parses and passes the static
    /// checks; otherwise prints every error and exits 3.
    Fmt(FmtArgs),
}

#[derive(Debug, clap::Args)]
pub struct FmtArgs {
    /// The script to format; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,

    /// Print nothing; exit 1 if the script is not already formatted.
    #[arg(long)]
    pub check: bool,
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
