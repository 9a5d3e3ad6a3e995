//! The directory layer's tests that need the embedded backend: several
//! real processes on one file, and injected commit failures. Everything
//! else about directories is in the conformance suite, run on every backend.

#[path = "../conformance/directory/clients.rs"]
mod clients;
mod concurrency;

use fql::directory::{DirectoryLayer, Error, ROOT, Subspace};
use fql::kv::{DatabaseExt, Transaction, embedded::Embedded};

fn run<T>(
    db: &Embedded,
    mut f: impl FnMut(&mut dyn Transaction) -> Result<T, Error>,
) -> Result<T, Error> {
    db.run(|tx, _| f(tx))
}

fn path(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[test]
fn errors_carry_codes() {
    use miette::Diagnostic;
    let err = Error::NotFound { path: path(&["x"]) };
    assert_eq!(
        err.code().map(|c| c.to_string()).as_deref(),
        Some("fql::directory::not_found")
    );
    let kv_err: Error = fql::kv::Error::NotCommitted.into();
    assert_eq!(
        fql::kv::AsKvError::as_kv(&kv_err),
        Some(&fql::kv::Error::NotCommitted)
    );
}

#[test]
fn conflicts_are_retried() {
    use fql::kv::embedded::Fault;
    let db = Embedded::memory();
    let dirs = DirectoryLayer::new();
    db.inject_faults(2, Fault::NotCommitted);
    let mut attempts = 0;
    run(&db, |tx| {
        attempts += 1;
        dirs.create(tx, &["app", "users"], b"")
    })
    .unwrap();
    assert_eq!(attempts, 3);
    assert_eq!(run(&db, |tx| dirs.list(tx, ROOT)).unwrap(), ["app"]);
}

#[test]
fn allocated_prefixes_are_packed_integers() {
    // What an allocator number becomes: the content prefix (empty here)
    // followed by the number as a one-element tuple.
    for (n, hex) in [(17i64, "1511"), (8, "1508"), (1157, "160485")] {
        assert_eq!(const_hex::encode(Subspace::all().pack(&(n,))), hex);
    }
}

/// While a path is missing, `creation_key` names the key its creation
/// writes: at any depth of what is missing, and none once it exists or
/// where a partition lies on the way.
#[test]
fn the_creation_key_of_a_missing_path_is_written_by_its_creation() {
    let db = Embedded::memory();
    let dirs = DirectoryLayer::new();
    let target = ["a", "b", "c"];
    for made in [&[][..], &["a"][..], &["a", "b"][..]] {
        run(&db, |tx| {
            dirs.remove_if_exists(tx, &["a"])?;
            if !made.is_empty() {
                dirs.create(tx, made, b"")?;
            }
            Ok(())
        })
        .unwrap();
        let key = run(&db, |tx| dirs.creation_key(tx, &target))
            .unwrap()
            .expect("a missing path has one");
        assert_eq!(run(&db, |tx| Ok(tx.get(&key, false)?)).unwrap(), None);
        run(&db, |tx| dirs.create(tx, &target, b"").map(drop)).unwrap();
        assert!(
            run(&db, |tx| Ok(tx.get(&key, false)?)).unwrap().is_some(),
            "created below {made:?}"
        );
        assert_eq!(run(&db, |tx| dirs.creation_key(tx, &target)).unwrap(), None);
    }
    run(&db, |tx| dirs.create(tx, &["p"], b"partition").map(drop)).unwrap();
    assert_eq!(
        run(&db, |tx| dirs.creation_key(tx, &["p", "x"])).unwrap(),
        None
    );
}
