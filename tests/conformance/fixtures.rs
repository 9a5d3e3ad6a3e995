//! FQL scripts with their expected output, run through the engine on every
//! backend.
//!
//! A fixture in `tests/fixtures/` is a valid FQL script that ends with its
//! expected output as comments: a line `% expect:`, then one `% ` line per
//! result, or `% error: CODE` for the error that stops the script.
//! Lines `% param: NAME=VALUE` before it supply parameters, as `-p` does,
//! and lines `% partition: PATH` name partitions made before the script
//! runs, parents first, as `fql dir mkdir --partition` makes them (FQL
//! itself creates only plain directories).
//! `FQL_BLESS=1` rewrites the expected output from the `memory` run.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fql::exec::{Each, Engine, Found};
use fql::kv::Database;

use crate::backend::{Backend, Kind};

const MARK: &str = "% expect:";

/// Every fixture, by name; and the scripts of `examples/` that end with
/// their expected output, named `examples::NAME`, so that an example
/// shows what it really prints.
pub fn all() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scripts = |dir: &str| {
        std::fs::read_dir(root.join(dir))
            .expect("a directory of scripts")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "fql"))
            .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
    };
    let mut out: Vec<_> = scripts("tests/fixtures").collect();
    out.extend(
        scripts("examples")
            .filter(|(_, p)| std::fs::read_to_string(p).is_ok_and(|t| t.contains(MARK)))
            .map(|(name, p)| (format!("examples::{name}"), p)),
    );
    out.sort();
    out
}

/// Runs the fixture at `path` on a fresh `kind` database.
pub fn run(kind: Kind, path: &Path) {
    let text = std::fs::read_to_string(path).expect("a readable fixture");
    let (script, expected) = match text.split_once(MARK) {
        Some((script, expect)) => (script, expect),
        None => (text.as_str(), ""),
    };
    let expected: Vec<&str> = expected
        .lines()
        .filter_map(|l| l.strip_prefix("% ").or(l.strip_prefix("%")))
        .collect();
    let backend = Backend::new(kind);
    let got = outputs(&backend, script);
    if std::env::var_os("FQL_BLESS").is_some() && kind == Kind::Memory {
        let mut blessed = format!(
            "{}{MARK}\n",
            script.trim_end_matches('\n').to_owned() + "\n"
        );
        for line in &got {
            blessed.push_str(&format!("% {line}\n"));
        }
        std::fs::write(path, blessed).expect("a writable fixture");
        return;
    }
    assert_eq!(
        got.iter().map(String::as_str).collect::<Vec<_>>(),
        expected,
        "{}: output differs (FQL_BLESS=1 rewrites it)",
        path.display()
    );
}

/// What the script prints, then the code of the error that stopped it.
fn outputs(backend: &Backend, script_text: &str) -> Vec<String> {
    use miette::Diagnostic;
    let code = |d: &dyn Diagnostic| {
        format!(
            "error: {}",
            d.code().map(|c| c.to_string()).unwrap_or_default()
        )
    };
    let script = match fql::check::load(script_text) {
        Ok(s) => s,
        Err(errors) => return errors.iter().map(|e| code(e)).collect(),
    };
    let params = script_text
        .lines()
        .filter_map(|l| l.strip_prefix("% param: "))
        .filter_map(|p| p.split_once('='))
        .map(|(name, value)| {
            let value = fql::plan::parse_param(value).expect("a fixture's parameter is a value");
            (name.to_string(), value)
        })
        .collect();
    let plan = match fql::plan::plan(&script, &params) {
        Ok(p) => p,
        Err(errors) => return errors.iter().map(|e| code(e)).collect(),
    };
    let db: Arc<dyn Database> = backend.handle();
    partitions(&*db, script_text);
    let mut out = Vec::new();
    // Every way of printing a result gives the same text: as found, into
    // bytes, and as an owned result.
    let ran = Engine::new(db).run(
        &plan,
        &mut Each(|found: Found<'_>| {
            let text = found.to_string();
            let mut bytes = Vec::new();
            found.write_to(&mut bytes);
            assert_eq!(String::from_utf8(bytes).unwrap(), text);
            let output = found.into_output();
            let mut bytes = Vec::new();
            output.write_to(&mut bytes);
            assert_eq!(String::from_utf8(bytes).unwrap(), text);
            assert_eq!(output.to_string(), text);
            out.push(text);
            Ok(())
        }),
    );
    if let Err(e) = ran {
        out.push(code(&e));
    }
    out
}

/// Makes the partitions the fixture's `% partition: /a/b` lines name.
fn partitions(db: &dyn Database, script_text: &str) {
    use fql::kv::DatabaseExt;
    let dirs = fql::directory::DirectoryLayer::new();
    for line in script_text.lines() {
        let Some(path) = line.strip_prefix("% partition: ") else {
            continue;
        };
        let names: Vec<&str> = path.trim().trim_start_matches('/').split('/').collect();
        db.run(|tx, _| dirs.create(tx, &names, b"partition"))
            .expect("a fixture's partition is created");
    }
}
