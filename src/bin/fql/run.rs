//! Running scripts without a prompt: `fql -q/-f`, `fql run FILE`, and a
//! script piped into `fql`.

use fql::syntax::Sources;

use crate::args::{Color, ExecArgs, Input, StoreArgs};
use crate::output::Exit;
use crate::session::{Session, Settings};
use crate::source::{read_inputs, read_source};
use crate::store;

/// `fql -q ... -f ...`: the inputs in order, each its own transaction
/// unless `single`.
pub fn inputs(
    inputs: &[Input],
    single: bool,
    exec: &ExecArgs,
    store_args: &StoreArgs,
    color: Color,
) -> Result<(), Exit> {
    let sources = read_inputs(inputs, single)?;
    if single {
        refuse_commits(&sources)?;
    }
    script(&sources, exec, store_args, color)
}

/// `fql run FILE` and `fql < FILE`.
pub fn file(
    path: Option<&std::path::Path>,
    exec: &ExecArgs,
    store_args: &StoreArgs,
    color: Color,
) -> Result<(), Exit> {
    let (name, src) = read_source(path)?;
    script(&Sources::single(name, src), exec, store_args, color)
}

fn script(
    sources: &Sources,
    exec: &ExecArgs,
    store_args: &StoreArgs,
    color: Color,
) -> Result<(), Exit> {
    let settings = Settings::from_args(exec, color)?;
    // Check everything that needs no database before opening one; a
    // script of comments alone needs none at all.
    let empty = crate::session::with_plan(sources, &settings.params, settings.color, |plan| {
        Ok(plan.steps.is_empty())
    })?;
    if empty {
        return Ok(());
    }
    let opened = store::open(store_args)?;
    let session = Session::new(opened.db, settings, exec.split_reads);
    session.stop_on_interrupt();
    session.run(sources, None)
}

/// `-1` promises that everything commits or nothing does; a script that
/// commits on its own would break that promise.
fn refuse_commits(sources: &Sources) -> Result<(), Exit> {
    let Ok(script) = fql::syntax::parse(sources.text()) else {
        // The checks report it.
        return Ok(());
    };
    for item in &script.items {
        if let fql::syntax::ast::Item::Meta(meta) = item {
            let (name, line) = sources.locate(meta.span.start as usize);
            eprintln!(
                "fql: --single-transaction runs everything in one transaction, but {name} commits at line {line}"
            );
            return Err(Exit::Usage);
        }
    }
    Ok(())
}
