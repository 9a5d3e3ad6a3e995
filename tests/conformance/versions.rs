//! Reads at a read version set by the caller, as FDB's
//! `set_read_version`: the state as of that version while the database
//! keeps it (FDB's MVCC window), `transaction_too_old` once it does not,
//! `future_version` for a version no commit has reached, and conflicts
//! checked from that version.

use fql::kv::{self, Database, Error, MutationType, RangeOption, StreamingMode, Transaction};

use crate::backend::Backend;
use crate::eventually::eventually;

/// Commits what `write` does in one transaction, and returns its version.
fn commit(db: &dyn Database, write: impl FnOnce(&mut dyn Transaction)) -> u64 {
    let mut tx = db.create_trx().unwrap();
    write(&mut *tx);
    tx.commit().unwrap().version.expect("a commit that wrote")
}

/// A transaction reading at `version`.
fn at(db: &dyn Database, version: u64) -> Box<dyn Transaction> {
    let mut tx = db.create_trx().unwrap();
    tx.set_read_version(version).unwrap();
    tx
}

/// Every row of `[begin, end)` read at `version`, in the direction and
/// up to the limit given, as `key=value` strings.
fn rows(db: &dyn Database, version: u64, reverse: bool, limit: Option<usize>) -> Vec<String> {
    let mut tx = at(db, version);
    let range = RangeOption {
        limit,
        reverse,
        mode: StreamingMode::WantAll,
        ..RangeOption::new(b"a".to_vec(), b"z".to_vec())
    };
    let rows = kv::collect_range(&mut *tx, &range, false).unwrap();
    rows.iter()
        .map(|kv| {
            format!(
                "{}={}",
                String::from_utf8_lossy(&kv.key),
                String::from_utf8_lossy(&kv.value)
            )
        })
        .collect()
}

/// A read version a few commits old reads the state of then, for point
/// and range reads in either direction and with limits: values set,
/// cleared, range-cleared and added to since read as they were, and keys
/// written since are absent; the read version is the one set.
pub fn an_older_read_version_reads_the_state_then(db: &Backend) {
    let first = commit(db, |tx| {
        for (k, v) in [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("e", "5")] {
            tx.set(k.as_bytes(), v.as_bytes()).unwrap();
        }
        tx.atomic_op(b"n", &1u64.to_le_bytes(), MutationType::Add)
            .unwrap();
    });
    let second = commit(db, |tx| {
        tx.set(b"a", b"10").unwrap();
        tx.clear(b"b").unwrap();
        tx.clear_range(b"c", b"e").unwrap();
        tx.atomic_op(b"n", &2u64.to_le_bytes(), MutationType::Add)
            .unwrap();
        tx.set(b"f", b"6").unwrap();
    });
    commit(db, |tx| {
        tx.set(b"c", b"30").unwrap();
        tx.set(b"g", b"7").unwrap();
        tx.clear(b"e").unwrap();
    });

    let mut tx = at(db, first);
    assert_eq!(tx.read_version().unwrap(), first);
    assert_eq!(tx.get(b"a", false).unwrap(), Some(b"1".to_vec()));
    assert_eq!(tx.get(b"b", false).unwrap(), Some(b"2".to_vec()));
    assert_eq!(tx.get(b"c", true).unwrap(), Some(b"3".to_vec()));
    assert_eq!(tx.get(b"f", false).unwrap(), None);
    assert_eq!(tx.get(b"g", false).unwrap(), None);
    assert_eq!(
        tx.get(b"n", false).unwrap(),
        Some(1u64.to_le_bytes().to_vec())
    );
    assert_eq!(tx.read_version().unwrap(), first);

    let n = format!("n={}", String::from_utf8_lossy(&1u64.to_le_bytes()));
    let all = ["a=1", "b=2", "c=3", "d=4", "e=5", n.as_str()];
    assert_eq!(rows(db, first, false, None), all);
    let reversed: Vec<&str> = all.iter().rev().copied().collect();
    assert_eq!(rows(db, first, true, None), reversed);
    assert_eq!(rows(db, first, false, Some(2)), all[..2]);
    assert_eq!(rows(db, first, true, Some(3)), reversed[..3]);

    let n = format!("n={}", String::from_utf8_lossy(&3u64.to_le_bytes()));
    let all = ["a=10", "e=5", "f=6", n.as_str()];
    assert_eq!(rows(db, second, false, None), all);
    let reversed: Vec<&str> = all.iter().rev().copied().collect();
    assert_eq!(rows(db, second, true, Some(2)), reversed[..2]);

    let mut latest = db.create_trx().unwrap();
    assert_eq!(latest.get(b"c", false).unwrap(), Some(b"30".to_vec()));
    assert_eq!(latest.get(b"e", false).unwrap(), None);

    // A second version, after one was set or taken, is refused: at the
    // call (the embedded store) or at the next read (FDB's client).
    let mut twice = at(db, first);
    let refused = match twice.set_read_version(second) {
        Err(e) => e,
        Ok(()) => twice.get(b"a", false).unwrap_err(),
    };
    assert_eq!(refused.code(), 2010, "{refused}");
}

/// A version no commit has reached fails the first read with
/// `future_version`, which the retry loop retries; a retry reads at the
/// latest version again.
pub fn a_version_past_the_latest_is_a_future_version(db: &Backend) {
    let version = commit(db, |tx| tx.set(b"a", b"1").unwrap());
    let mut tx = at(db, version + 1_000_000_000_000);
    let e = tx.get(b"a", false).unwrap_err();
    assert_eq!(e.code(), 1009, "{e}");
    assert!(e.is_retryable(), "{e}");
    tx.on_error(e).unwrap();
    assert_eq!(tx.get(b"a", false).unwrap(), Some(b"1".to_vec()));
}

/// A version whose state a later commit replaced longer than the window
/// ago is `transaction_too_old` at the first read, and `on_error` forgets
/// it, as FDB's does; within the window it reads.
pub fn a_version_the_window_has_left_is_too_old(db: &Backend) {
    let db = db.short_lived();
    let db = &*db;
    let old = commit(db, |tx| tx.set(b"a", b"1").unwrap());
    commit(db, |tx| tx.set(b"a", b"2").unwrap());
    eventually("a replaced version grows too old", || {
        match at(db, old).get(b"a", false) {
            Ok(value) => {
                assert_eq!(value, Some(b"1".to_vec()));
                false
            }
            Err(e) => {
                assert_eq!(e, Error::TransactionTooOld);
                true
            }
        }
    });
    let mut tx = at(db, old);
    let e = tx.get(b"a", false).unwrap_err();
    assert_eq!(e, Error::TransactionTooOld);
    tx.on_error(e).unwrap();
    assert_eq!(tx.get(b"a", false).unwrap(), Some(b"2".to_vec()));
}

/// A commit from an older read version conflicts with what was written
/// after that version, and with nothing before it.
pub fn a_commit_is_checked_from_the_version_it_read_at(db: &Backend) {
    let old = commit(db, |tx| {
        tx.set(b"k", b"1").unwrap();
        tx.set(b"j", b"1").unwrap();
    });
    let newer = commit(db, |tx| tx.set(b"k", b"2").unwrap());

    let mut stale = at(db, old);
    assert_eq!(stale.get(b"k", false).unwrap(), Some(b"1".to_vec()));
    stale.set(b"out", b"stale").unwrap();
    assert_eq!(stale.commit(), Err(Error::NotCommitted));

    let mut untouched = at(db, old);
    assert_eq!(untouched.get(b"j", false).unwrap(), Some(b"1".to_vec()));
    untouched.set(b"out", b"untouched").unwrap();
    untouched.commit().unwrap();

    let mut current = at(db, newer);
    assert_eq!(current.get(b"k", false).unwrap(), Some(b"2".to_vec()));
    current.set(b"k", b"3").unwrap();
    current.commit().unwrap();
    let mut check = db.create_trx().unwrap();
    assert_eq!(check.get(b"k", false).unwrap(), Some(b"3".to_vec()));
    assert_eq!(
        check.get(b"out", false).unwrap(),
        Some(b"untouched".to_vec())
    );
}
