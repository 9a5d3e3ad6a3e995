//! `use_grv_cache` with the multi-version client bypassed, in a process
//! of its own, since network options are chosen once per process before
//! the network is set up (the case without the option is in `capi`).

use std::ffi::CString;
use std::ptr::null_mut;

use fdb_c::api::*;
use fdb_c::database::*;
use fdb_c::future::exports::*;
use fdb_c::network::*;
use fdb_c::transaction::exports::*;

/// Waits for `f`, returns its error and, with `int`, its int64 (0 on
/// error), and destroys it.
unsafe fn outcome(f: *mut fdb_c::types::FDBFuture, int: bool) -> (i32, i64) {
    unsafe {
        assert_eq!(fdb_future_block_until_ready(f), 0);
        let error = fdb_future_get_error(f);
        let mut v = 0;
        if error == 0 && int {
            assert_eq!(fdb_future_get_int64(f, &mut v), 0);
        }
        fdb_future_destroy(f);
        (error, v)
    }
}

/// With the multi-version client bypassed (`disable_multi_version_client_api`),
/// FDB's database has no state for the cache: `use_grv_cache` is
/// `invalid_option`, at the next future, as FDB's client throws it on its
/// network thread; `disable_client_bypass` then contradicts the choice.
#[test]
fn use_grv_cache_is_refused_with_the_multi_version_client_bypassed() {
    assert_eq!(fdb_select_api_version_impl(730, 730), 0);
    let set = |code| unsafe { fdb_network_set_option(code, std::ptr::null(), 0) };
    assert_eq!(set(60), 0, "disable_multi_version_client_api");
    assert_eq!(set(72), 2007, "disable_client_bypass against it");
    assert_eq!(fdb_setup_network(), 0);
    let runner = std::thread::spawn(|| fdb_run_network());

    let dir = tempfile::tempdir().unwrap();
    let line = format!("fql:embedded@{}", dir.path().join("t.db").display());
    let cs = CString::new(line).unwrap();
    let mut db = null_mut();
    assert_eq!(
        unsafe { fdb_create_database_from_connection_string(cs.as_ptr(), &mut db) },
        0
    );
    let mut tx = null_mut();
    assert_eq!(unsafe { fdb_database_create_transaction(db, &mut tx) }, 0);
    unsafe {
        assert_eq!(fdb_transaction_set_option(tx, 1101, std::ptr::null(), 0), 0);
        assert_eq!(outcome(fdb_transaction_get_read_version(tx), true).0, 2007);
        fdb_transaction_reset(tx);
        let (error, version) = outcome(fdb_transaction_get_read_version(tx), true);
        assert_eq!(error, 0);
        assert!(version > 0);
        fdb_transaction_destroy(tx);
        fdb_database_destroy(db);
    }
    assert_eq!(fdb_stop_network(), 0);
    assert_eq!(runner.join().unwrap(), 0);
}
