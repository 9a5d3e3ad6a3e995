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

/// The tables of a file made by an fql of storage format 1, before the
/// undo table, with one key and one logged commit.
const FORMAT_1: &str = "
    PRAGMA application_id = 1179733041;
    PRAGMA journal_mode = WAL;
    CREATE TABLE kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
    CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE commits (version INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL,
                          ranges BLOB NOT NULL);
    CREATE INDEX commits_by_age ON commits (at_ms);
    INSERT INTO meta VALUES ('format', 1), ('floor', 0), ('version', 1000);
    INSERT INTO kv VALUES (x'61', x'31');
    INSERT INTO commits VALUES (1000, 0, x'');
";

fn read_at(db: &crate::kv::embedded::Embedded, version: u64) -> Result<Option<Vec<u8>>> {
    use crate::kv::Database;
    let mut tx = db.create_trx()?;
    tx.set_read_version(version)?;
    tx.get(b"a", false)
}

/// A file of the format before opens read-only as it was, reading at its
/// latest version alone; opened for writing it gains the undo table, its
/// history starting at its latest version, in one step, and a commit
/// the old way (three columns into the log) no longer lands.
#[test]
fn an_older_file_gains_its_history_when_opened_for_writing() {
    use crate::kv::embedded::Embedded;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch(FORMAT_1)
        .unwrap();
    let read_only = OpenOptions {
        read_only: true,
        ..OpenOptions::default()
    };
    let db = Embedded::open_with(&path, &read_only).unwrap();
    assert_eq!(read_at(&db, 1000).unwrap(), Some(b"1".to_vec()));
    assert_eq!(read_at(&db, 999), Err(Error::TransactionTooOld));
    drop(db);

    let db = Embedded::open(&path).unwrap();
    let conn = Connection::open(&path).unwrap();
    let format: i64 = conn
        .query_row("SELECT value FROM meta WHERE name = 'format'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(format, 2);
    let old_commit = conn.execute("INSERT INTO commits VALUES (1, 1, x'')", []);
    assert!(old_commit.is_err(), "{old_commit:?}");
    let mut tx = crate::kv::Database::create_trx(&db).unwrap();
    tx.set(b"a", b"2").unwrap();
    let version = tx.commit().unwrap().version.unwrap();
    assert_eq!(read_at(&db, 1000).unwrap(), Some(b"1".to_vec()));
    assert_eq!(read_at(&db, version).unwrap(), Some(b"2".to_vec()));
    assert_eq!(read_at(&db, 999), Err(Error::TransactionTooOld));
}

/// The undo entries of a commit go when the log forgets it, so the table
/// holds the window's writes and no more.
#[test]
fn undo_entries_go_with_the_commit_log() {
    use crate::kv::Database;
    use crate::kv::embedded::Embedded;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("undo.db");
    let limits = crate::kv::Limits {
        window: Duration::from_millis(20),
        ..crate::kv::Limits::default()
    };
    let db = Embedded::open_with_limits(&path, limits).unwrap();
    let commit = |value: &[u8]| {
        let mut tx = db.create_trx().unwrap();
        tx.set(b"a", value).unwrap();
        tx.set(b"b", value).unwrap();
        tx.commit().unwrap().version.unwrap()
    };
    let first = commit(b"1");
    let conn = Connection::open(&path).unwrap();
    let kept = |version: u64| -> i64 {
        conn.query_row(
            "SELECT count(*) FROM undo WHERE version <= ?1",
            [version as i64],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(kept(first), 2);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = first;
    while kept(first) > 0 {
        assert!(Instant::now() < deadline, "the entries of {first} stay");
        std::thread::sleep(Duration::from_millis(5));
        last = commit(b"2");
    }
    let logged: i64 = conn
        .query_row(
            "SELECT count(*) FROM commits WHERE version <= ?1",
            [first as i64],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(logged, 0);
    assert_eq!(
        kept(last),
        conn.query_row("SELECT sum(kept) FROM commits", [], |r| r.get::<_, i64>(0))
            .unwrap()
    );
}
