//! The `library` examples of `docs/errors.md`: errors shown through calls
//! of the library, one a line, on a new in-memory database, as a program
//! that embeds fql meets them. Each call is its own transaction, tried
//! once.
//!
//! - `create PATH [LAYER]`, `create_or_open PATH [LAYER]`,
//!   `open PATH [LAYER]`, `create_with_prefix PATH HEX`, `remove PATH`,
//!   `move FROM TO`, `list PATH`, `prefix PATH`: the `DirectoryLayer`
//!   methods (`prefix` is `Directory::prefix` of the opened directory);
//! - `set KEY VALUE`: a raw write, both in hex;
//! - `param NAME FQL`: a parameter for the scripts that follow, the
//!   element `FQL` as parsed, holes included;
//! - `run SCRIPT`: `Engine::run_text` with the parameters so far.
//!
//! Settings, anywhere: `with_manual_prefixes` (the directory layer allows
//! them) and `faults PLAN` (the database fails as `FQL_FAULTS` says).

use std::collections::HashMap;
use std::sync::Arc;

use fql::directory::{self, DirectoryLayer, RandomCandidates};
use fql::exec::{Engine, Output, QueryError};
use fql::kv::embedded::Embedded;
use fql::kv::{Database, DatabaseExt, FaultPlan, Faulty, RetryOptions, Transaction};
use fql::syntax::ast::{Elem, Item, Query, Statement};
use fql::syntax::{Sources, render};
use miette::Diagnostic;

use super::Shown;
use super::repo::Block;

/// Runs the calls of `example` up to the first that fails, which one must.
pub fn run(code: &str, example: &Block) -> Shown {
    let lines: Vec<&str> = example.text.lines().collect();
    let db = database(&lines);
    // Seeded, so the prefixes it picks, and what an example prints, are
    // the same on every run.
    let mut layer = DirectoryLayer::new().with_candidates(RandomCandidates::seeded(7));
    if lines.contains(&"with_manual_prefixes") {
        layer = layer.with_manual_prefixes();
    }
    let mut params = HashMap::new();
    for line in lines {
        let (op, args) = line.split_once(' ').unwrap_or((line, ""));
        let failed = match op {
            "faults" | "with_manual_prefixes" => None,
            "param" => {
                let (name, value) = args.split_once(' ').expect("param NAME FQL");
                params.insert(name.to_string(), fql::plan::Param::Data(element(value)));
                None
            }
            "run" => run_script(&db, args, &params),
            _ => call(&db, &layer, op, args).err().map(|e| shown(&e, "")),
        };
        if let Some(shown) = failed {
            return shown;
        }
    }
    panic!(
        "docs/errors.md:{}: the example for {code} succeeds",
        example.line
    )
}

/// A new database, failing as a `faults` line says.
fn database(lines: &[&str]) -> Arc<dyn Database> {
    let plan = lines.iter().find_map(|l| l.strip_prefix("faults "));
    match plan {
        Some(plan) => Arc::new(Faulty::new(
            Embedded::memory(),
            FaultPlan::parse(plan).expect("a fault plan"),
        )),
        None => Arc::new(Embedded::memory()),
    }
}

/// One directory call, or a raw write, in a transaction of its own.
fn call(
    db: &Arc<dyn Database>,
    layer: &DirectoryLayer,
    op: &str,
    args: &str,
) -> directory::Result<()> {
    let words: Vec<&str> = args.split(' ').collect();
    let once = RetryOptions {
        retry_limit: Some(0),
        timeout: None,
    };
    db.run_with(once, |tx, _| apply(tx, layer, op, &words))
        .map(|_| ())
}

fn apply(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    op: &str,
    words: &[&str],
) -> directory::Result<()> {
    let path = path(words[0]);
    let second = words.get(1).copied().unwrap_or("");
    match op {
        "create" => layer.create(tx, &path, second.as_bytes()).map(drop),
        "create_or_open" => layer.create_or_open(tx, &path, second.as_bytes()).map(drop),
        "open" => layer.open(tx, &path, second.as_bytes()).map(drop),
        "create_with_prefix" => layer
            .create_with_prefix(tx, &path, &hex(second), b"")
            .map(drop),
        "remove" => layer.remove(tx, &path),
        "move" => layer.move_to(tx, &path, &self::path(second)).map(drop),
        "list" => layer.list(tx, &path).map(drop),
        "prefix" => layer.open(tx, &path, b"")?.prefix().map(drop),
        "set" => Ok(tx.set(&hex(words[0]), &hex(second))?),
        _ => panic!("unknown call `{op}`"),
    }
}

/// `/a/b` as names; `/` is the root.
fn path(text: &str) -> Vec<String> {
    text.split('/')
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

fn hex(text: &str) -> Vec<u8> {
    const_hex::decode(text).expect("hex")
}

/// The element `text` as the parser reads it, a hole if it is one. The
/// text is kept for the rest of the test run, as the element borrows it.
fn element(text: &str) -> Elem<'static> {
    let src: &'static str = Box::leak(format!("/p({text})").into_boxed_str());
    let script = fql::syntax::parse(src).expect("an element");
    match script.items.as_slice() {
        [
            Item::Statement(Statement {
                query: Query::KeyValue(kv),
                ..
            }),
        ] => kv.key.tuple.elems[0].clone(),
        items => panic!("not one element: {items:?}"),
    }
}

/// Runs `script` through the engine; what it printed, if it failed.
fn run_script(db: &Arc<dyn Database>, script: &str, params: &fql::plan::Params) -> Option<Shown> {
    let engine = Engine::new(db.clone());
    let error = engine
        .run_text(script, params, &mut |_: Output| Ok(()))
        .err()?;
    Some(match error {
        QueryError::Run(e) => shown(&e, script),
        QueryError::Plan(errors) => shown(&errors[0], script),
        QueryError::Invalid(errors) => shown(&errors[0], script),
        e => panic!("{e}"),
    })
}

/// An error as `fql` prints it, and its code.
fn shown(error: &dyn Diagnostic, script: &str) -> Shown {
    Shown {
        printed: render(error, &Sources::single("example.fql", script), false, 80),
        codes: error.code().map(|c| c.to_string()).into_iter().collect(),
    }
}
