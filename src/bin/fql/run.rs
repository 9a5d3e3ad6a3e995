//! Running scripts without a prompt: `fql -q/-f`, `fql run FILE`, and a
//! script piped into `fql`.

use crate::args::{Color, ExecArgs, Input, StoreArgs};
use crate::error::CliError;
use crate::session::{Session, Settings};
use crate::source::Script;
use crate::store;

/// `fql -q ... -f ...`: the inputs in order, each its own transaction
/// unless `single`.
pub fn inputs(
    inputs: &[Input],
    single: bool,
    exec: &ExecArgs,
    store_args: &StoreArgs,
    color: Color,
) -> Result<(), CliError> {
    let script = Script::open(inputs, single)?;
    run(&script, exec, store_args, color)
}

/// `fql run NAME|FILE` and `fql < FILE`. A path that is not a file but
/// names a shipped script runs that script.
pub fn file(
    path: Option<&std::path::Path>,
    exec: &ExecArgs,
    store_args: &StoreArgs,
    color: Color,
) -> Result<(), CliError> {
    if let Some(named) = path
        .filter(|p| !p.exists())
        .and_then(|p| p.to_str())
        .and_then(fql::scripts::find)
    {
        return run(
            &Script::text(named.name, named.source),
            exec,
            store_args,
            color,
        );
    }
    run(&Script::file(path)?, exec, store_args, color)
}

/// `fql scripts`: the named scripts with what each does, or one's text.
pub fn scripts(show: Option<&str>) -> Result<(), CliError> {
    match show {
        None => crate::output::print(&script_list()),
        Some(name) => match fql::scripts::find(name) {
            Some(s) => crate::output::print(s.source),
            None => Err(CliError::Usage(format!(
                "there is no script named {}; `fql scripts` lists them",
                fql::syntax::printable(name)
            ))),
        },
    }
}

/// The named scripts, one to a line, each description starting in the
/// same column, past the longest name, with its parameters on the line
/// below.
fn script_list() -> String {
    let width = fql::scripts::ALL
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for s in fql::scripts::ALL {
        out.push_str(&format!("{:<width$}  {}\n", s.name, s.description()));
        let params = s.params().join(", ");
        if !params.is_empty() {
            out.push_str(&format!("{:<width$}    parameters: {params}\n", ""));
        }
    }
    out
}

/// Checks and plans a script as a whole, then runs it a transaction at
/// a time.
fn run(
    script: &Script,
    exec: &ExecArgs,
    store_args: &StoreArgs,
    color: Color,
) -> Result<(), CliError> {
    let settings = Settings::from_args(exec, color)?;
    // Check everything that needs no database before opening one; a
    // script of comments alone needs none at all.
    let checked = crate::session::check(script, &settings, true)?;
    if checked.statements == 0 {
        return Ok(());
    }
    let opened = store::open(store_args)?;
    let session = Session::new(opened.db, settings, exec.split_reads, opened.timeout);
    session.stop_on_interrupt();
    Ok(session.run_checked(script, &checked, None)?)
}
