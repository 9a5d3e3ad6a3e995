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

/// `fql run NAME|FILE` and `fql < FILE`. A path that is not a file but
/// names a shipped script runs that script.
pub fn file(
    path: Option<&std::path::Path>,
    exec: &ExecArgs,
    store_args: &StoreArgs,
    color: Color,
) -> Result<(), Exit> {
    if let Some(named) = path
        .filter(|p| !p.exists())
        .and_then(|p| p.to_str())
        .and_then(fql::scripts::find)
    {
        let sources = Sources::single(named.name, named.source);
        return script(&sources, exec, store_args, color);
    }
    let (name, src) = read_source(path)?;
    script(&Sources::single(name, src), exec, store_args, color)
}

/// `fql scripts`: the named scripts with what each does, or one's text.
pub fn scripts(show: Option<&str>) -> Result<(), Exit> {
    match show {
        None => {
            let mut out = String::new();
            for s in fql::scripts::ALL {
                let params = s.params().join(", ");
                out.push_str(&format!("{:<20} {}\n", s.name, s.description()));
                if !params.is_empty() {
                    out.push_str(&format!("{:<20}   parameters: {params}\n", ""));
                }
            }
            crate::output::print(&out)
        }
        Some(name) => match fql::scripts::find(name) {
            Some(s) => crate::output::print(s.source),
            None => {
                eprintln!("fql: there is no script named {name}; `fql scripts` lists them");
                Err(Exit::Usage)
            }
        },
    }
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
    let session = Session::new(opened.db, settings, exec.split_reads, opened.timeout);
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
