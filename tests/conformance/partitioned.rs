//! A database holding partitions, on every backend: a partition holds no
//! keys of its own, only directories, each with its prefix under the
//! partition's. Patterns with holes read, clear and fold what is in those
//! directories (the fixtures `partitions` and `partition_keys` show the
//! queries); a statement naming a partition itself fails before it writes
//! or hands on anything; counts, schemas and dumps go through partitions
//! as through any directory.

use fql::directory::{DirectoryLayer, Error as DirError, count};
use fql::dump::{self, LoadOptions};
use fql::exec::{Engine, Error, Output, QueryError};
use fql::kv::{self, Database, DatabaseExt, RangeOption, RetryOptions, Transaction};

use crate::backend::Backend;

fn names(path: &[&str]) -> Vec<String> {
    path.iter().map(|s| s.to_string()).collect()
}

fn run<T>(db: &dyn Database, mut f: impl FnMut(&mut dyn Transaction) -> Result<T, DirError>) -> T {
    db.run(|tx, _| f(tx)).unwrap()
}

/// The partition `/p` holding `/p/q` (2 keys), `/p/q/r` (1) and the
/// partition `/p/n`, which holds `/p/n/in` (2); beside it, the plain `/a`
/// (1 key).
fn filled(db: &Backend) -> Engine {
    let dirs = DirectoryLayer::new();
    run(db, |tx| {
        dirs.create(tx, &["p"], b"partition")?;
        dirs.create(tx, &["p", "n"], b"partition")
    });
    let engine = Engine::new(db.handle());
    let script = "/a(1)=\"a\"\n/p/q(1)=2\n/p/q(2)=3\n/p/q/r(\"z\")=3\n\
                  /p/n/in(1)=\"deep\"\n/p/n/in(2)=\"deeper\"";
    texts(&engine, script).unwrap();
    engine
}

/// What `script` hands on, as text, or why it stopped.
fn texts(engine: &Engine, script: &str) -> Result<Vec<String>, QueryError> {
    let mut out = Vec::new();
    engine.run_text(script, &Default::default(), &mut |o: Output| {
        out.push(o.to_string());
        Ok(())
    })?;
    Ok(out)
}

/// Every key-value of the database.
fn everything(db: &dyn Database) -> Vec<kv::KeyValue> {
    let range = RangeOption::new(b"".to_vec(), b"\xff".to_vec());
    db.run(|tx, _| kv::collect_range(tx, &range, false))
        .unwrap()
}

/// Every key-value of the directory at `path`, its prefix taken off.
fn rows(db: &dyn Database, path: &[&str]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let dirs = DirectoryLayer::new();
    run(db, |tx| {
        let prefix = dirs.open(tx, path, b"")?.prefix()?.to_vec();
        let kvs = kv::collect_range(tx, &RangeOption::prefix(&prefix), false)?;
        Ok(kvs
            .into_iter()
            .map(|kv| (kv.key[prefix.len()..].to_vec(), kv.value))
            .collect())
    })
}

/// A statement naming the partition itself, without holes, fails; the
/// writes before it in its transaction, directories created included,
/// land nowhere, and a read hands on nothing.
pub fn a_key_named_in_a_partition_fails_before_writing(db: &Backend) {
    let engine = filled(db);
    let before = everything(db);
    for script in [
        "/a(2)=\"b\"\n/x/y(1)=1\n/p(1)=2",
        "/p/q(3)=4\n/p(<int>)=clear",
        "/p/q(1)=clear\n/p(1)=add(1[i64])",
        "/a(1)=clear\n/p(1)=clear",
        "/p/q(...)=clear\n/p/q(1)\n/p(...)=<count>",
    ] {
        match texts(&engine, script) {
            Err(QueryError::Run(Error::Partition { path, .. })) => assert_eq!(path, "/p"),
            other => panic!("{script}: {other:?}"),
        }
        assert!(everything(db) == before, "{script} wrote");
    }
    let mut seen = Vec::new();
    let read = engine.run_text("/p(...)", &Default::default(), &mut |o: Output| {
        seen.push(o.to_string());
        Ok(())
    });
    assert!(matches!(
        read,
        Err(QueryError::Run(Error::Partition { .. }))
    ));
    assert!(seen.is_empty(), "{seen:?}");
    // A pattern reaching it passes over it, and its holes may be its own.
    assert_eq!(
        texts(&engine, "/<>(...)\n/<x:str>/<>/<>(...)").unwrap(),
        [
            "/a(1)=\"a\"",
            "/p/n/in(1)=\"deep\"",
            "/p/n/in(2)=\"deeper\"",
            "/p/q/r(\"z\")=3"
        ]
    );
}

/// A partition's count is that of every directory inside it, at every
/// depth, nested partitions' too; a directory inside counts its own keys.
pub fn counts_of_a_partition_add_up_its_directories(db: &Backend) {
    filled(db);
    let retry = RetryOptions::default();
    let each = |path: &[&str]| count(db, retry, path, |_| {}).unwrap();
    let (q, r, inner) = (
        each(&["p", "q"]),
        each(&["p", "q", "r"]),
        each(&["p", "n", "in"]),
    );
    assert_eq!((q.keys, r.keys, inner.keys), (2, 1, 2));
    let p = each(&["p"]);
    assert_eq!((p.keys, p.bytes), (5, q.bytes + r.bytes + inner.bytes));
    assert_eq!(p.transactions, 1);
    let n = each(&["p", "n"]);
    assert_eq!((n.keys, n.bytes), (2, inner.bytes));
    let dirs = DirectoryLayer::new();
    run(db, |tx| dirs.create(tx, &["empty"], b"partition"));
    assert_eq!(each(&["empty"]).keys, 0);
}

/// `infer` and `validate` read the directories inside a partition; a
/// schema pattern naming the partition itself is refused, as the query is.
pub fn schemas_read_the_directories_inside(db: &Backend) {
    filled(db);
    let retry = RetryOptions::default();
    let shapes = fql::schema::infer(db, retry, &names(&["p"]), 3, None).unwrap();
    let shown: Vec<(String, u64)> = shapes.iter().map(|s| (s.to_string(), s.count)).collect();
    assert_eq!(
        shown,
        [
            ("/p/n/in(<int>)=<str>".to_string(), 2),
            ("/p/q(<int>)=<int>".to_string(), 2),
            ("/p/q/r(\"z\")=<int>".to_string(), 1),
        ]
    );
    let mut violations = Vec::new();
    let schema = "/...(<int>)=<int>\n/...(<int>)=<str>";
    let params = Default::default();
    let summary = fql::schema::validate(db, retry, schema, &params, None, &mut |v| {
        violations.push(format!("{} % {}", v.key, v.reason))
    })
    .unwrap();
    assert_eq!((summary.directories, summary.keys), (4, 6));
    assert_eq!(summary.subspaces, 0, "the root holds no keys");
    assert_eq!(
        violations,
        ["/p/q/r(\"z\")=3 % element 1: expected int, found str \"z\""]
    );
    let refused = fql::schema::validate(db, retry, "/p(...)", &params, None, &mut |_| {});
    assert!(
        matches!(
            refused,
            Err(fql::schema::Error::Run(Error::Partition { .. }))
        ),
        "{refused:?}"
    );
}

/// A dump of a partition writes it and the partitions inside as such;
/// loaded elsewhere, or where it was once it is gone, each is a partition
/// again, its directories inside with the same keys and values.
pub fn a_dump_of_a_partition_loads_back_as_partitions(db: &Backend) {
    let engine = filled(db);
    let retry = RetryOptions::default();
    let mut text = Vec::new();
    dump::dump(db, &[names(&["p"])], retry, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("\n% layer \"partition\" /p\n% layer \"partition\" /p/n\n"),
        "{text}"
    );
    let load = |options: &LoadOptions| {
        dump::check(text.as_bytes(), options).unwrap();
        dump::load(db, text.as_bytes(), options, &mut |_| {}).unwrap()
    };
    let elsewhere = LoadOptions {
        to: Some(names(&["copy"])),
        ..LoadOptions::default()
    };
    assert_eq!(load(&elsewhere).key_values, 5);
    let dirs = DirectoryLayer::new();
    for (from, to) in [
        (&["p", "q"][..], &["copy", "q"][..]),
        (&["p", "q", "r"], &["copy", "q", "r"]),
        (&["p", "n", "in"], &["copy", "n", "in"]),
    ] {
        assert_eq!(rows(db, to), rows(db, from), "{to:?}");
    }
    let before = texts(&engine, "/p/...(...)").unwrap();
    run(db, |tx| dirs.remove(tx, &["p"]));
    assert_eq!(load(&LoadOptions::default()).key_values, 5);
    for path in [&["copy"][..], &["copy", "n"], &["p"], &["p", "n"]] {
        assert!(run(db, |tx| dirs.open(tx, path, b"partition")).is_partition());
    }
    assert_eq!(texts(&engine, "/p/...(...)").unwrap(), before);
    let copied = texts(&engine, "/copy/...(...)").unwrap();
    let renamed: Vec<String> = before
        .iter()
        .map(|l| l.replacen("/p/", "/copy/", 1))
        .collect();
    assert_eq!(copied, renamed);
}
