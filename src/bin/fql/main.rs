//! The `fql` command: a thin shell over the `fql` library.

#![deny(unsafe_code)]

mod analyze;
mod args;
mod cluster_file;
mod dirs;
mod dump;
mod error;
mod explain;
mod fmt;
mod interrupt;
mod man;
mod mutex;
mod output;
mod paint;
mod paths;
mod print;
mod progress;
mod repl;
mod run;
mod schema;
mod session;
mod source;
mod status;
mod store;
mod watch;

use std::io::IsTerminal;
use std::process::ExitCode;

use args::Command;
use error::CliError;

/// A parse builds and frees many small nodes; with mimalloc the parser
/// runs about a tenth fewer instructions than with the system allocator
/// (`benches/parse.rs` uses it too, so its figures are the binary's).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let (args, inputs) = args::parse();
    let color = args.color;
    let stderr_color = color.enabled_for_stderr();
    let result = match args.command {
        Some(Command::Fmt(fmt)) => fmt::run(&fmt, stderr_color),
        Some(Command::Run(run)) => {
            let exec = args.exec.merged(run.exec);
            run::file(run.file.as_deref(), &exec, &args.store, color)
        }
        Some(Command::Scripts { command }) => run::scripts(match &command {
            Some(args::ScriptsCommand::Show { name }) => Some(name),
            None => None,
        }),
        Some(Command::Mutex { command }) => {
            mutex::run(command, &args.store, args.exec.format, args.exec.write)
        }
        // `fql --root R validate` means `fql validate --root R`, as for
        // `run`; so for `infer` and `explain`, and `--format` for
        // `validate`, `status` and `mutex show`.
        Some(Command::Validate(mut v)) => {
            v.root = v.root.or(args.exec.root);
            v.format = v.format.or(args.exec.format);
            schema::validate(&v, &args.store, stderr_color)
        }
        Some(Command::Infer(mut i)) => {
            i.root = i.root.or(args.exec.root);
            schema::infer(&i, &args.store, stderr_color)
        }
        Some(Command::Explain(mut explain)) => {
            explain.root = explain.root.or(args.exec.root);
            explain.format = explain.format.or(args.exec.format);
            explain.write |= args.exec.write;
            explain::run(&explain, &args.store, color)
        }
        Some(Command::Count(mut count)) => {
            count.format = count.format.or(args.exec.format);
            dirs::count(&count, args.exec.root.as_deref(), &args.store, stderr_color)
        }
        Some(Command::Tree(mut tree)) => {
            tree.format = tree.format.or(args.exec.format);
            dirs::tree(&tree, args.exec.root.as_deref(), &args.store, stderr_color)
        }
        Some(Command::Dir { command }) => {
            let write = args.exec.write || command.write();
            dirs::admin(
                &command,
                write,
                args.exec.root.as_deref(),
                &args.store,
                stderr_color,
            )
        }
        Some(Command::Watch(w)) => watch::run(w, args.exec, &args.store, color),
        Some(Command::Dump(dump)) => dump::dump(&dump, &args.store, stderr_color),
        Some(Command::Load(load)) => dump::load(&load, &args.store, stderr_color),
        Some(Command::Status(status)) => {
            status::run(&args.store, status.format.or(args.exec.format))
        }
        Some(Command::ClusterFile) => cluster_file::run(&args.store),
        Some(Command::Completions { shell }) => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut args::command(), "fql", &mut out);
            output::print(&String::from_utf8_lossy(&out))
        }
        Some(Command::Man) => man::run(),
        None if !inputs.is_empty() => run::inputs(
            &inputs,
            args.single_transaction,
            &args.exec,
            &args.store,
            color,
        ),
        None if args.single_transaction => Err(CliError::Usage(
            "-1/--single-transaction needs -q or -f".to_string(),
        )),
        None if std::io::stdin().is_terminal() => {
            repl::run(&args.store, &args.exec, &args.repl, color)
        }
        None => run::file(None, &args.exec, &args.store, color),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            error::report(&error);
            error.exit().code()
        }
    }
}
