//! `fql run`: run a script and print its results.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Arc;

use fql::exec::{self, Engine};
use fql::syntax::Diagnostics;

use crate::args::{RunArgs, StoreArgs};
use crate::fmt::read_source;
use crate::output::{self, Exit};
use crate::store;

pub fn run(args: &RunArgs, store_args: &StoreArgs, color: bool) -> Result<(), Exit> {
    let params = params(&args.params)?;
    let (name, src) = read_source(args.file.as_deref())?;
    let report = |e: miette::Report| {
        let e = e.with_source_code(miette::NamedSource::new(name.clone(), src.clone()));
        eprintln!("{e:?}");
    };
    let script = match fql::syntax::load(&src) {
        Ok(script) => script,
        Err(errors) => {
            let diagnostics = Diagnostics::new(name.clone(), src.clone(), errors);
            eprint!("{}", diagnostics.render(color, output::width()));
            return Err(Exit::Invalid);
        }
    };
    let plan = fql::plan::plan(&script, &params).map_err(|errors| {
        errors.into_iter().for_each(|e| report(e.into()));
        Exit::Invalid
    })?;
    if !args.write
        && let Some(step) = plan.steps.iter().find(|s| s.kind.writes())
    {
        eprintln!(
            "fql: refusing to write: the script has a {} at line {}; pass -w/--write to allow writes",
            step.kind.noun(),
            src[..step.span.start as usize].matches('\n').count() + 1
        );
        return Err(Exit::Usage);
    }
    let opened = store::open(store_args)?;
    let engine = Engine::new(Arc::new(opened.db)).split_reads(args.split_reads);
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut closed = false;
    let ran = engine.run(&plan, &mut |row| {
        if writeln!(out, "{row}").is_err() {
            closed = true;
            return Err(exec::Error::Kv(fql::kv::Error::TransactionCancelled));
        }
        Ok(())
    });
    let flushed = out.flush();
    if closed
        || flushed
            .as_ref()
            .is_err_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    {
        return Ok(());
    }
    match ran {
        Ok(()) => Ok(()),
        Err(e) => {
            let exit = match &e {
                exec::Error::Kv(kv) if kv.code() == 1031 => Exit::Unreachable,
                _ => Exit::Failed,
            };
            report(e.into());
            Err(exit)
        }
    }
}

/// `-p name=value` pairs; each value is FQL data, else a string.
fn params(pairs: &[String]) -> Result<HashMap<String, fql::syntax::ast::Elem<'static>>, Exit> {
    pairs
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !name.is_empty() => {
                Ok((name.to_string(), fql::plan::parse_param(value)))
            }
            _ => {
                eprintln!("fql: a parameter is NAME=VALUE, not `{pair}`");
                Err(Exit::Usage)
            }
        })
        .collect()
}
