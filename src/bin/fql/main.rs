//! The `fql` command: a thin shell over the `fql` library.

mod args;
mod fmt;
mod output;

use std::process::ExitCode;

use clap::Parser;

use args::{Args, Command};
use output::Exit;

/// A parse builds many small nodes; mimalloc allocates and frees them at
/// about half the cost of the system allocator (see `benches/parse.rs`).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = Args::parse();
    let color = args.color.enabled_for_stderr();
    let result = match args.command {
        Some(Command::Fmt(fmt)) => fmt::run(&fmt, color),
        None => {
            eprintln!("fql: no command given; try `fql fmt FILE` or `fql --help`");
            Err(Exit::Usage)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(exit) => exit.code(),
    }
}
