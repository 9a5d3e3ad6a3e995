//! The `fql` command: a thin shell over the `fql` library.

mod args;
mod explain;
mod fmt;
mod output;
mod run;
mod status;
mod store;

use std::process::ExitCode;

use clap::Parser;

use args::{Args, Command};
use output::Exit;

/// A parse builds and frees many small nodes; with mimalloc the parser
/// runs about a tenth fewer instructions than with the system allocator
/// (`benches/parse.rs` uses it too, so its figures are the binary's).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = Args::parse();
    let color = args.color.enabled_for_stderr();
    let result = match args.command {
        Some(Command::Fmt(fmt)) => fmt::run(&fmt, color),
        Some(Command::Run(run)) => run::run(&run, &args.store, color),
        Some(Command::Explain(explain)) => explain::run(&explain, color),
        Some(Command::Status) => status::run(&args.store),
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
