//! `fql dump` and `fql load`.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct DumpArgs {
    /// The directories to dump, each with every directory under it
    /// (`/app`, `./app` from the top).
    #[arg(
        value_name = "DIR",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub dirs: Vec<String>,

    /// Dump the whole database: the directory layer's own keys, every
    /// directory (partitions and layers too) and every key outside the
    /// directories, so that `fql load` into an empty database restores
    /// the same bytes.
    #[arg(long)]
    pub all: bool,

    /// With --all, the system keys too, from 0xff up to the special keys.
    #[arg(long)]
    pub system: bool,

    /// Write the dump to this file (created private, 0600, and put in
    /// place only once the dump is whole) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct LoadArgs {
    /// The dump; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Load the dump's directory here instead of where it was dumped
    /// from; its subdirectories land under this one.
    #[arg(long, value_name = "DIR")]
    pub to: Option<String>,

    /// Load into directories that hold data already.
    #[arg(long)]
    pub force: bool,

    /// Go on after the last line a load of FILE that stopped committed,
    /// as recorded in FILE.resume.
    #[arg(long)]
    pub resume: bool,

    /// Commit once a transaction's writes hold this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1_000_000,
          value_parser = clap::value_parser!(u64).range(1..=9_000_000))]
    pub batch_bytes: u64,

    /// Commit once a transaction holds this many writes.
    #[arg(long, value_name = "N", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub batch_keys: u64,
}
