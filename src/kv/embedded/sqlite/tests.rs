//! The file store below the transaction: statements, lock waits and the
//! errors they end in, with another connection holding the file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::StatementStatus;

use super::*;

/// A store on a new file in `dir`, waiting `timeout` for locks.
fn store(dir: &Path, timeout: Duration) -> (Guarded, PathBuf) {
    let path = dir.join("s.db");
    let options = OpenOptions {
        timeout,
        ..OpenOptions::default()
    };
    (SqliteStore::open(&path, &options).unwrap(), path)
}

/// Another connection that holds the file so that no other connection
/// can read it (SQLite's exclusive locking mode), once the store has let
/// go of its own connections: while one is open, this process holds a
/// shared lock that an exclusive one must wait for.
fn hold_exclusively(store: &SqliteStore, path: &Path) -> Connection {
    store.pool.close_idle();
    let holder = Connection::open(path).unwrap();
    holder
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; SELECT * FROM meta;")
        .unwrap();
    holder
}

/// Reads of many ranges in one transaction run one compiled statement:
/// compiling it again for each range made the parser a large part of
/// every read.
#[test]
fn range_reads_compile_their_statement_once() {
    let dir = tempfile::tempdir().unwrap();
    let (guarded, _) = store(dir.path(), Duration::from_secs(5));
    let store = guarded.inner();
    let mut snap = store.snapshot(None).unwrap();
    for i in 0..50u8 {
        snap.scan(&[i], &[i, 1], false, usize::from(i) + 1).unwrap();
        snap.scan(&[i], &[i + 1], true, 10).unwrap();
    }
    drop(snap);
    let conn = store.pool.take(&store.pool.wait(None)).unwrap();
    for sql in [SCAN, SCAN_REVERSE] {
        let stmt = conn.prepare_cached(sql).unwrap();
        assert_eq!(stmt.get_status(StatementStatus::Run), 50, "{sql}");
        assert_eq!(stmt.get_status(StatementStatus::RePrepare), 0, "{sql}");
    }
}

/// A snapshot waits for a lock no longer than the transaction's own
/// deadline, when that comes before the store's timeout, and says how long
/// it waited; a deadline already passed is the transaction's timeout.
#[test]
fn a_snapshot_waits_no_longer_than_its_transactions_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let (guarded, path) = store(dir.path(), Duration::from_secs(30));
    let store = guarded.inner();
    let _holder = hold_exclusively(store, &path);
    let began = Instant::now();
    let waited = store.snapshot(Some(began + Duration::from_millis(200)));
    assert!(
        began.elapsed() < Duration::from_secs(15),
        "waited the store's timeout"
    );
    match waited.map(|_| ()) {
        Err(Error::Locked {
            path: shown,
            waited_ms,
        }) => {
            assert_eq!(shown, path.display().to_string());
            assert!((150..15_000).contains(&waited_ms), "{waited_ms} ms");
        }
        other => panic!("{other:?}"),
    }
    let late = store.snapshot(Some(Instant::now())).map(|_| ());
    assert_eq!(late, Err(Error::TransactionTimedOut));
}

/// A commit whose transaction's deadline passed before it could wait for
/// the write lock has timed out; it says nothing of a wait of 0 ms.
#[test]
fn a_commit_past_its_deadline_times_out_instead_of_waiting_0_ms() {
    let dir = tempfile::tempdir().unwrap();
    let (guarded, path) = store(dir.path(), Duration::from_secs(30));
    let store = guarded.inner();
    let holder = Connection::open(&path).unwrap();
    holder
        .execute_batch("BEGIN IMMEDIATE; UPDATE meta SET value = value WHERE name = 'format';")
        .unwrap();
    let write = |deadline| store.write(Some(deadline), &mut |w| w.set(b"k", b"v"));
    assert_eq!(write(Instant::now()), Err(Error::TransactionTimedOut));
    match write(Instant::now() + Duration::from_millis(100)) {
        Err(Error::Locked { waited_ms, .. }) => assert!(waited_ms >= 50, "{waited_ms} ms"),
        other => panic!("{other:?}"),
    }
    holder.execute_batch("ROLLBACK").unwrap();
    write(Instant::now() + Duration::from_secs(30)).unwrap();
}

/// What watches poll fails as every other lock wait does: naming the file
/// and the wait. (Here the wait is for the watcher's new connection; a busy
/// answer to an open one cannot be had while this process holds the file
/// open, and takes the same path.)
#[test]
fn the_change_token_names_the_file_when_its_wait_runs_out() {
    let dir = tempfile::tempdir().unwrap();
    let (guarded, path) = store(dir.path(), Duration::from_millis(200));
    let store = guarded.inner();
    let _holder = hold_exclusively(store, &path);
    match store.change_token() {
        Err(Error::Locked {
            path: shown,
            waited_ms,
        }) => {
            assert_eq!(shown, path.display().to_string());
            assert!(waited_ms >= 150, "{waited_ms} ms");
        }
        other => panic!("{other:?}"),
    }
}
