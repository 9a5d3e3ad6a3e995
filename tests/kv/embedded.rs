//! What only the embedded backend has: fault injection, the file's life
//! across opens, refusing files that are not fql databases, the MVCC window.

use std::time::{Duration, Instant};

use fql::kv::embedded::{Embedded, Fault};
use fql::kv::{Database, DatabaseExt, Error, Limits, MutationType};

use super::support::{Backend, get, set_all};
use crate::support::eventually::eventually;
use crate::support::window;

#[test]
fn injected_faults_exercise_the_retry_loop() {
    for backend in [Backend::memory(), Backend::file()] {
        backend.db.inject_faults(3, Fault::NotCommitted);
        let mut attempts = 0;
        backend
            .run(|tx, _| {
                attempts += 1;
                tx.set(b"k", b"v")
            })
            .unwrap();
        assert_eq!(attempts, 4);
        assert_eq!(get(&backend, b"k"), Some(b"v".to_vec()));

        // An unknown result that did commit: the loop finds the commit's
        // record and does not run the body again, so a write that is not
        // idempotent lands once.
        backend
            .db
            .inject_faults(1, Fault::UnknownResult { applied: true });
        let mut seen = Vec::new();
        backend
            .run(|tx, maybe| {
                seen.push(maybe.0);
                tx.atomic_op(b"once", &1i64.to_le_bytes(), MutationType::Add)
            })
            .unwrap();
        assert_eq!(seen, vec![false]);
        assert_eq!(get(&backend, b"once"), Some(1i64.to_le_bytes().to_vec()));

        backend
            .db
            .inject_faults(1, Fault::UnknownResult { applied: false });
        let r = backend.run_with(
            fql::kv::RetryOptions {
                retry_limit: Some(0),
                timeout: None,
            },
            |tx, _| tx.set(b"lost", b"x"),
        );
        assert_eq!(r.map(|_| ()), Err(Error::CommitUnknownResult));
        assert_eq!(get(&backend, b"lost"), None);
    }
}

#[test]
fn a_file_keeps_its_data_across_opens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kept.db");
    {
        let db = Embedded::open(&path).unwrap();
        set_all(&db, &[(b"a", b"1")]);
    }
    let db = Embedded::open(&path).unwrap();
    assert_eq!(get(&db, b"a"), Some(b"1".to_vec()));
    assert!(db.describe().contains("kept.db"));
}

#[test]
fn files_that_are_not_fql_databases_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    let content = "hello, this is not a database at all, just some text\n".repeat(50);
    std::fs::write(&text, &content).unwrap();
    let err = Embedded::open(&text).unwrap_err().to_string();
    assert!(
        err.contains("notes.txt") && err.contains("not a database"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&text).unwrap(),
        content,
        "left untouched"
    );

    let other = dir.path().join("other.sqlite");
    make_foreign(&other);
    let err = Embedded::open(&other).unwrap_err().to_string();
    assert!(err.contains("another application"), "{err}");

    let missing = dir.path().join("no/such/dir/x.db");
    let err = Embedded::open(&missing).unwrap_err().to_string();
    assert!(err.contains("no/such/dir"), "{err}");
}

/// A file SQLite cannot read is reported in fql's words, naming the file,
/// with SQLite's own error kept as the cause for a caller that walks the
/// chain; a missing directory keeps the file system's error the same way.
#[test]
fn storage_errors_keep_what_the_system_said() {
    use std::error::Error as _;

    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a database, just text\n".repeat(50)).unwrap();
    let err = Embedded::open(&text).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("storage error: cannot open the database "),
        "{err}"
    );
    let Error::Storage {
        cause: Some(cause), ..
    } = &err
    else {
        panic!("{err:?}")
    };
    let sqlite = cause
        .get()
        .downcast_ref::<rusqlite::Error>()
        .expect("SQLite's error");
    assert_eq!(
        sqlite.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase)
    );
    let source = err.source().expect("a source");
    assert_eq!(source.to_string(), sqlite.to_string());

    let missing = dir.path().join("no/such/dir/x.db");
    let err = Embedded::open(&missing).unwrap_err();
    let io = err.source().expect("a source").to_string();
    assert!(io.contains("No such file"), "{io}");
}

/// Makes `path` a SQLite file of some other program: its own application
/// id and table.
fn make_foreign(path: &std::path::Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch("PRAGMA application_id = 305419896; CREATE TABLE notes (body TEXT);")
        .unwrap();
}

#[test]
fn limits_can_be_lowered() {
    let limits = Limits {
        key: 4,
        value: 4,
        transaction: 30,
        ..Limits::default()
    };
    let db = Embedded::memory_with_limits(limits);
    assert_eq!(
        db.run(|tx, _| tx.set(b"12345", b"")),
        Err(Error::KeyTooLarge { size: 5, limit: 4 })
    );
    let r = db.run(|tx, _| {
        for k in [b"a", b"b", b"c", b"d"] {
            tx.set(k, b"1234")?;
        }
        Ok::<_, Error>(())
    });
    assert!(
        matches!(r, Err(Error::TransactionTooLarge { limit: 30, .. })),
        "{r:?}"
    );
}

/// Transactions expire after their window: FDB's five seconds by default
/// ([`WINDOW`](fql::kv::WINDOW)), here a short one, which the file's
/// sweeper keeps as well.
#[test]
fn transactions_expire_after_their_window() {
    assert_eq!(Limits::default().window, fql::kv::WINDOW);
    assert_eq!(fql::kv::WINDOW, Duration::from_secs(5));
    let limits = window::short();
    for backend in [Backend::memory_with(limits), Backend::file_with(limits)] {
        assert_eq!(backend.window(), window::SHORT);
        let mut tx = backend.create_trx().unwrap();
        let began = Instant::now();
        tx.get(b"k", false).unwrap();
        tx.set(b"k", b"late").unwrap();
        eventually("the transaction grows too old", || {
            tx.get(b"j", false) == Err(Error::TransactionTooOld)
        });
        // Not before its window is up.
        assert!(began.elapsed() > window::SHORT, "{:?}", began.elapsed());
        assert_eq!(tx.get(b"j", false), Err(Error::TransactionTooOld));
        assert_eq!(tx.commit(), Err(Error::TransactionTooOld));
        assert!(Error::TransactionTooOld.is_retryable());
        tx.on_error(Error::TransactionTooOld).unwrap();
        tx.set(b"k", b"retried").unwrap();
        tx.commit().unwrap();
        assert_eq!(get(&backend, b"k"), Some(b"retried".to_vec()));
    }
}

#[test]
fn watch_fires_for_a_commit_in_another_handle_of_the_file() {
    let backend = Backend::file();
    set_all(&backend, &[(b"k", b"0")]);
    let mut tx = backend.create_trx().unwrap();
    let mut w = tx.watch(b"k").unwrap();
    tx.commit().unwrap();
    let other = backend.reopen();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        set_all(&other, &[(b"k", b"1")]);
    });
    assert!(w.wait(Some(Duration::from_secs(5))).unwrap());
    t.join().unwrap();
}

#[test]
fn a_malformed_commit_log_entry_is_damage_and_stops_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.db");
    let db = Embedded::open(&path).unwrap();
    set_all(&db, &[(b"k", b"1")]);
    // A transaction reads `k`; another commit lands after its read
    // version, and its logged write ranges are then mangled.
    let mut reader = db.create_trx().unwrap();
    reader.get(b"k", false).unwrap();
    set_all(&db, &[(b"other", b"2")]);
    let tamper = rusqlite::Connection::open(&path).unwrap();
    let mangled = tamper
        .execute(
            "UPDATE commits SET ranges = x'ff00' WHERE version = (SELECT max(version) FROM commits)",
            [],
        )
        .unwrap();
    assert_eq!(mangled, 1);
    drop(tamper);
    reader.set(b"k", b"3").unwrap();
    let err = reader.commit().unwrap_err().to_string();
    assert!(
        err.contains("is corrupt") && err.contains("commit log"),
        "{err}"
    );
    // Not this writer, nor a later process's, may build on it.
    let err = db.run(|tx, _| tx.set(b"x", b"y")).unwrap_err().to_string();
    assert!(err.contains("is corrupt"), "{err}");
    drop(db);
    let later = Embedded::open(&path).unwrap();
    let err = later
        .run(|tx, _| tx.set(b"x", b"y"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("is corrupt"), "{err}");
    assert_eq!(get(&later, b"k"), Some(b"1".to_vec()), "reads go on");
}

/// A commit that failed has let go of its snapshot; a commit tried again
/// without a reset checks the same conflicts, rather than none.
#[test]
fn a_commit_tried_again_after_a_conflict_is_checked_again() {
    for backend in [Backend::memory(), Backend::file()] {
        set_all(&backend, &[(b"k", b"0")]);
        let mut tx = backend.create_trx().unwrap();
        assert_eq!(tx.get(b"k", false).unwrap(), Some(b"0".to_vec()));
        tx.set(b"k", b"mine").unwrap();
        set_all(&backend.reopen(), &[(b"k", b"theirs")]);
        assert_eq!(tx.commit(), Err(Error::NotCommitted));
        assert_eq!(
            tx.commit(),
            Err(Error::NotCommitted),
            "{}",
            backend.describe()
        );
        assert_eq!(get(&backend, b"k"), Some(b"theirs".to_vec()));
    }
}

/// A commit's write ranges are logged as at most 64, its versionstamped
/// keys' included, however many it wrote.
#[test]
fn a_commit_logs_at_most_64_write_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.db");
    let db = Embedded::open(&path).unwrap();
    db.run(|tx, _| {
        for i in 0..64u8 {
            tx.set(&[b'k', i], b"v")?;
        }
        for i in 0..10u8 {
            let mut key = vec![b's', i];
            key.extend([0; 10]);
            key.extend(2u32.to_le_bytes());
            tx.atomic_op(&key, b"v", MutationType::SetVersionstampedKey)?;
        }
        Ok::<_, Error>(())
    })
    .unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let blob: Vec<u8> = conn
        .query_row(
            "SELECT ranges FROM commits ORDER BY version DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // Each bound is a little-endian u32 length and its bytes.
    let mut bounds = 0;
    let mut rest = blob.as_slice();
    while let Some(len) = rest.get(..4) {
        let len = u32::from_le_bytes(len.try_into().unwrap()) as usize;
        rest = &rest[4 + len..];
        bounds += 1;
    }
    assert_eq!(bounds % 2, 0);
    assert!((1..=64).contains(&(bounds / 2)), "{} ranges", bounds / 2);
}
