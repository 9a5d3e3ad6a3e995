//! The retry loop on the embedded store under injected faults: each of
//! FDB's errors is retried or not as FDB's `on_error` would, and a commit
//! reported as `commit_unknown_result` lands once whether it was applied
//! or not.

use std::time::Duration;

use fql::kv::faults::{Fault, FaultPlan, Faulty, Site};
use fql::kv::{
    self, Database, DatabaseExt, Error, MutationType, RangeOption, RetryOptions, Transaction,
    TransactionOption,
};

use super::support::{Backend, get};

fn plan(text: &str) -> FaultPlan {
    FaultPlan::parse(text).expect("a valid plan")
}

/// A transaction that reads a key and appends a row under a new
/// versionstamp, and adds one to a counter: written twice, it leaves two
/// rows and a count of two.
fn append(tx: &mut dyn Transaction) -> kv::Result<()> {
    tx.get(b"c", false)?;
    let mut key = b"row/".to_vec();
    key.extend([0; 10]);
    key.extend(4u32.to_le_bytes());
    tx.atomic_op(&key, b"x", MutationType::SetVersionstampedKey)?;
    tx.atomic_op(b"c", &1u64.to_le_bytes(), MutationType::Add)
}

fn rows(db: &dyn Database) -> usize {
    db.run(|tx, _| kv::collect_range(tx, &RangeOption::new(b"row/", b"row0"), false))
        .unwrap()
        .len()
}

fn count(db: &dyn Database) -> u64 {
    db.run(|tx, _| tx.get(b"c", false))
        .unwrap()
        .map_or(0, |v| u64::from_le_bytes(v.try_into().unwrap()))
}

/// Every fault fql injects, at every site it happens at, every time:
/// FDB's retryable errors are retried until the retry limit (and then
/// returned), the others end the loop at once; nothing is written, but
/// for a commit applied and reported unknown, which the loop finds it
/// made and returns as done.
#[test]
fn each_fault_is_retried_or_not_as_fdb_retries_it() {
    let faults = [
        (Fault::Error(1007), Site::Read, true),
        (Fault::Error(1007), Site::Commit, true),
        (Fault::Error(1009), Site::Read, true),
        (Fault::Error(1020), Site::Commit, true),
        (Fault::UnknownNotApplied, Site::Commit, true),
        (Fault::Error(1031), Site::Read, false),
        (Fault::Error(1031), Site::Commit, false),
        (Fault::Error(1037), Site::Read, true),
        (Fault::Error(1078), Site::Read, true),
        (Fault::Error(1078), Site::Commit, true),
        (Fault::Error(1213), Site::Read, true),
        (Fault::Error(1213), Site::Commit, true),
        (Fault::Error(1235), Site::Commit, true),
        (Fault::Error(1242), Site::Commit, true),
    ];
    let bounded = RetryOptions {
        retry_limit: Some(3),
        timeout: Some(Duration::from_secs(60)),
    };
    for (fault, site, retried) in faults {
        let db = Faulty::new(
            kv::embedded::Embedded::memory(),
            FaultPlan::new(1).with(fault, site, 1.0).unwrap(),
        );
        let mut attempts = 0;
        let r = db.run_with(bounded, |tx, _| {
            attempts += 1;
            append(tx)
        });
        let code = match fault {
            Fault::Error(code) => code,
            _ => 1021,
        };
        assert_eq!(r.map(drop).map_err(|e| e.code()), Err(code), "{fault:?}");
        assert_eq!(
            attempts,
            if retried { 4 } else { 1 },
            "{fault:?} at {site:?}"
        );
        assert_eq!((rows(db.inner()), count(db.inner())), (0, 0), "{fault:?}");
    }

    let db = Faulty::new(
        kv::embedded::Embedded::memory(),
        FaultPlan::new(1)
            .with(Fault::UnknownApplied, Site::Commit, 1.0)
            .unwrap(),
    );
    let mut attempts = 0;
    let (_, committed) = db
        .run_with(bounded, |tx, _| {
            attempts += 1;
            append(tx)
        })
        .unwrap();
    assert_eq!(attempts, 1);
    assert!(committed.versionstamp.is_some());
    assert_eq!((rows(db.inner()), count(db.inner())), (1, 1));
}

/// Many transactions under every fault at once, on a file: each lands
/// exactly once, whatever was retried and however its commit was
/// reported; and the same seed makes the same attempts.
#[test]
fn writes_land_once_under_every_fault() {
    let text = "1020:0.1,1021:0.3,1007:0.02,1009:0.02,1037:0.02,1078:0.02,1213:0.02,1235:0.02,1242:0.02;seed=11";
    let mut runs = Vec::new();
    for _ in 0..2 {
        let backend = Backend::file();
        let db = Faulty::new(backend.db.clone(), plan(text));
        let mut attempts = Vec::new();
        for _ in 0..30 {
            let mut n = 0;
            db.run(|tx, _| {
                n += 1;
                append(tx)
            })
            .unwrap();
            attempts.push(n);
        }
        assert_eq!((rows(&backend), count(&backend)), (30, 30));
        assert!(attempts.iter().any(|n| *n > 1), "faults happened");
        runs.push(attempts);
    }
    assert_eq!(runs[0], runs[1], "the seed repeats the faults");
}

/// A commit applied and reported unknown lands once even when the loop
/// may not retry: it looks the commit up as it gives up.
#[test]
fn a_loop_that_gives_up_finds_a_commit_that_landed() {
    let backend = Backend::file();
    let db = Faulty::new(backend.db.clone(), plan("1021-applied:1"));
    let no_retry = RetryOptions {
        retry_limit: Some(0),
        timeout: None,
    };
    db.run_with(no_retry, |tx, _| append(tx)).unwrap();
    assert_eq!((rows(&backend), count(&backend)), (1, 1));
    // Not applied, it is reported as not committed... by its error.
    let db = Faulty::new(backend.db.clone(), plan("1021-unapplied:1"));
    let r = db.run_with(no_retry, |tx, _| append(tx));
    assert_eq!(r.map(drop), Err(Error::CommitUnknownResult));
    assert_eq!((rows(&backend), count(&backend)), (1, 1));
}

/// On a database that records no commits (`ids=off`, as FoundationDB
/// here), the loop cannot tell, and tells the body: a body that checks
/// writes once.
#[test]
fn without_ids_the_body_is_told_to_check() {
    let backend = Backend::memory();
    let db = Faulty::new(backend.db.clone(), plan("1021-applied:1;ids=off"));
    let mut seen = Vec::new();
    db.run(|tx, maybe| {
        seen.push(maybe.0);
        if maybe.0 && tx.get(b"c", false)?.is_some() {
            return Ok(());
        }
        append(tx)
    })
    .unwrap();
    assert_eq!(seen, [false, true]);
    assert_eq!((rows(&backend), count(&backend)), (1, 1));
}

/// A transaction that wrote nothing commits without a fault, as FDB's
/// read-only commits never reach the cluster; a read fault leaves the
/// transaction's writes unapplied.
#[test]
fn only_commits_that_write_fail() {
    let backend = Backend::memory();
    let db = Faulty::new(backend.db.clone(), plan("1020:1,1021:0"));
    let mut attempts = 0;
    db.run(|tx, _| {
        attempts += 1;
        tx.get(b"k", false)
    })
    .unwrap();
    assert_eq!(attempts, 1);

    let db = Faulty::new(backend.db.clone(), plan("1037:1"));
    let mut tx = db.create_trx().unwrap();
    tx.set(b"k", b"v").unwrap();
    assert_eq!(tx.get(b"k", false).map_err(|e| e.code()), Err(1037));
    tx.on_error(Error::from_code(1037)).unwrap();
    tx.commit().unwrap();
    assert_eq!(get(&backend, b"k"), None, "the retry dropped the write");
}

/// `1020-real` makes a real conflict: another transaction writes the key
/// read last, its value unchanged, so the commit fails by itself, the
/// store reports that key's range, and the retry commits once.
#[test]
fn a_real_conflict_reports_the_key_read_and_the_retry_commits() {
    let backend = Backend::memory();
    backend.db.run(|tx, _| tx.set(b"k", b"v")).unwrap();
    let db = Faulty::new(backend.db.clone(), plan("1020-real:1"));
    let mut tx = db.create_trx().unwrap();
    tx.set_option(TransactionOption::ReportConflictingKeys)
        .unwrap();
    tx.get(b"a", false).unwrap();
    tx.get(b"k", false).unwrap();
    tx.set(b"w", b"1").unwrap();
    assert_eq!(tx.commit().map(drop), Err(Error::NotCommitted));
    let ranges = kv::read_conflicting(&mut *tx).unwrap();
    assert_eq!(ranges, vec![(b"k".to_vec(), b"k\x00".to_vec())]);
    assert_eq!(get(&backend.db, b"k"), Some(b"v".to_vec()));
    // A transaction that read nothing has nothing to conflict on.
    let mut blind = db.create_trx().unwrap();
    blind.set(b"w", b"2").unwrap();
    blind.commit().unwrap();
    let plan = plan("1020-real:0.5;seed=1");
    assert_eq!(FaultPlan::parse(&plan.to_string()).unwrap(), plan);
}
