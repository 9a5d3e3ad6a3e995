//! Futures: getters of the right and wrong kind, memory release,
//! callbacks on ready and pending futures, cancellation, and blocking.

use std::ffi::c_void;
use std::sync::mpsc;
use std::time::Duration;

use fdb_c::future::exports::*;
use fdb_c::types::FDBFuture;

use crate::support::{Db, Fut};

#[test]
fn getters_of_another_kind_fail_and_released_memory_is_future_released() {
    let db = Db::new();
    db.write(|tx| tx.set(b"foo", b"bar"));
    let tx = db.tx();
    let f = tx.get(b"foo");
    assert_eq!(f.value(), Ok(Some(b"bar".to_vec())));
    let mut n = 0i64;
    assert_eq!(unsafe { fdb_future_get_int64(f.0, &mut n) }, 2000);
    // FDB's count: memory goes once releases match gets.
    assert!(f.value().is_ok());
    unsafe { fdb_future_release_memory(f.0) };
    assert!(f.value().is_ok());
    unsafe { fdb_future_release_memory(f.0) };
    unsafe { fdb_future_release_memory(f.0) };
    assert_eq!(f.value(), Err(1102));
    assert_eq!(unsafe { fdb_future_get_error(f.0) }, 1102);
    // A ready future cannot be cancelled.
    let g = tx.get(b"foo");
    unsafe { fdb_future_cancel(g.0) };
    assert_eq!(g.value(), Ok(Some(b"bar".to_vec())));
}

#[test]
fn a_pending_future_is_not_set_and_cancelling_it_is_operation_cancelled() {
    let db = Db::new();
    let tx = db.tx();
    let stamp = tx.versionstamp();
    assert!(!stamp.ready());
    assert_eq!(unsafe { fdb_future_get_error(stamp.0) }, 2015);
    let (mut ptr, mut len) = (std::ptr::null(), 0);
    assert_eq!(
        unsafe { fdb_future_get_key(stamp.0, &mut ptr, &mut len) },
        2015
    );
    unsafe { fdb_future_cancel(stamp.0) };
    assert_eq!(stamp.wait_error(), 1101);
}

/// A callback's parameter that outlives the callback: the test may end,
/// and drop what it holds, while the network thread is still inside the
/// callback, so the parameter is leaked (a few bytes a test) rather than
/// borrowed from the test's stack.
fn leaked<T>(value: T) -> *mut c_void {
    Box::into_raw(Box::new(value)) as *mut c_void
}

extern "C" fn send_thread(f: *mut FDBFuture, param: *mut c_void) {
    let tx = unsafe { &*(param as *const mpsc::Sender<(String, i32)>) };
    let name = std::thread::current().name().unwrap_or("").to_string();
    let _ = tx.send((name, unsafe { fdb_future_get_error(f) }));
}

#[test]
fn callbacks_run_at_once_when_ready_and_on_the_network_thread_when_not() {
    let db = Db::new();
    let tx = db.tx();
    let (send, recv) = mpsc::channel::<(String, i32)>();
    let param = leaked(send);
    std::thread::Builder::new()
        .name("caller".into())
        .spawn({
            let ready = tx.get(b"x");
            let param = param as usize;
            move || {
                let ready = ready;
                let param = param as *mut c_void;
                let rc = unsafe { fdb_future_set_callback(ready.0, Some(send_thread), param) };
                assert_eq!(rc, 0);
            }
        })
        .unwrap()
        .join()
        .unwrap();
    let (thread, code) = recv.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!((thread.as_str(), code), ("caller", 0));
    let stamp = tx.versionstamp();
    assert_eq!(
        unsafe { fdb_future_set_callback(stamp.0, Some(send_thread), param) },
        0
    );
    tx.set(b"a", b"1");
    assert_eq!(tx.commit().wait_error(), 0);
    let (thread, code) = recv.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_ne!(thread, "caller");
    assert_eq!(code, 0);
}

#[test]
fn destroying_a_pending_future_runs_its_callback_with_operation_cancelled() {
    let db = Db::new();
    let tx = db.tx();
    let (send, recv) = mpsc::channel::<(String, i32)>();
    let stamp = tx.versionstamp();
    let param = leaked(send);
    assert_eq!(
        unsafe { fdb_future_set_callback(stamp.0, Some(send_thread), param) },
        0
    );
    drop(stamp);
    let (_, code) = recv.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(code, 1101);
}

extern "C" fn block_in_callback(_f: *mut FDBFuture, param: *mut c_void) {
    let (pending, send) = unsafe { &*(param as *const (Fut, mpsc::Sender<i32>)) };
    let _ = send.send(unsafe { fdb_future_block_until_ready(pending.0) });
}

#[test]
fn blocking_on_the_network_thread_is_refused_instead_of_deadlocking() {
    let db = Db::new();
    let tx = db.tx();
    let (send, recv) = mpsc::channel::<i32>();
    let state = (tx.versionstamp(), send);
    let trigger = tx.versionstamp();
    let param = leaked(state);
    assert_eq!(
        unsafe { fdb_future_set_callback(trigger.0, Some(block_in_callback), param) },
        0
    );
    unsafe { fdb_future_cancel(trigger.0) };
    assert_eq!(recv.recv_timeout(Duration::from_secs(10)).unwrap(), 2026);
}

#[test]
fn null_futures_are_invalid_operations() {
    assert_eq!(unsafe { fdb_future_get_error(std::ptr::null_mut()) }, 2000);
    assert_eq!(
        unsafe { fdb_future_block_until_ready(std::ptr::null_mut()) },
        2000
    );
    assert_eq!(unsafe { fdb_future_is_ready(std::ptr::null_mut()) }, 0);
    unsafe { fdb_future_destroy(std::ptr::null_mut()) };
}
