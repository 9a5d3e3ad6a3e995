//! Watches: they fire on another transaction's change, fail with their
//! transaction's error before its commit, and count against the
//! database's limit.

use crate::support::{Db, int};

#[test]
fn a_watch_fires_when_another_transaction_changes_the_key() {
    let db = Db::new();
    db.write(|tx| tx.set(b"w", b"0"));
    let tx = db.tx();
    let w = tx.watch(b"w");
    assert_eq!(tx.commit().wait_error(), 0);
    assert!(!w.ready());
    db.write(|tx| tx.set(b"w", b"1"));
    assert_eq!(w.wait_error(), 0);
}

#[test]
fn a_watch_of_a_transaction_reset_before_its_commit_is_cancelled() {
    let db = Db::new();
    let tx = db.tx();
    let w = tx.watch(b"w");
    tx.reset();
    assert_eq!(w.wait_error(), 1025);
    let w = tx.watch(b"w");
    drop(tx);
    assert_eq!(w.wait_error(), 1025);
}

#[test]
fn a_watch_of_a_failed_commit_fails_with_its_error() {
    let db = Db::new();
    let (t1, t2) = (db.tx(), db.tx());
    t1.get(b"k").value().unwrap();
    t2.get(b"k").value().unwrap();
    t1.set(b"k", b"1");
    t2.set(b"k", b"2");
    let w = t2.watch(b"other");
    assert_eq!(t1.commit().wait_error(), 0);
    assert_eq!(t2.commit().wait_error(), 1020);
    assert_eq!(w.wait_error(), 1020);
}

#[test]
fn a_cancelled_watch_is_operation_cancelled_and_frees_its_place() {
    let db = Db::new();
    assert_eq!(db.option(20, Some(&int(1))), 0);
    let tx = db.tx();
    let w = tx.watch(b"a");
    assert_eq!(tx.watch(b"b").wait_error(), 1032);
    unsafe { fdb_c::future::exports::fdb_future_cancel(w.0) };
    assert_eq!(w.wait_error(), 1101);
    let again = tx.watch(b"b");
    assert!(!again.ready());
}

#[test]
fn a_watch_fires_on_a_commit_through_another_handle_of_the_file() {
    use std::ffi::CString;
    let db = Db::new();
    let line = format!("fql:embedded@{}", db.dir.path().join("test.db").display());
    let cs = CString::new(line).unwrap();
    let mut other = std::ptr::null_mut();
    let rc = unsafe {
        fdb_c::database::fdb_create_database_from_connection_string(cs.as_ptr(), &mut other)
    };
    assert_eq!(rc, 0);
    let other = Db {
        ptr: other,
        dir: tempfile::tempdir().unwrap(),
    };
    let tx = db.tx();
    let w = tx.watch(b"w");
    assert_eq!(tx.commit().wait_error(), 0);
    other.write(|tx| tx.set(b"w", b"changed"));
    assert_eq!(w.wait_error(), 0);
}
