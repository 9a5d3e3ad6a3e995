//! The process-wide life cycle, in a process of its own: calls before the
//! API version is selected, the version's checks, the network's set-up,
//! run and stop, and the cluster file's lookup. One test, since each step
//! changes state no later step can undo.

use std::ffi::{CString, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, Ordering};

use fdb_c::api::*;
use fdb_c::database::*;
use fdb_c::future::exports::*;
use fdb_c::network::*;
use fdb_c::transaction::exports::*;
use fdb_c::types::FDBNetworkOption;

static HOOK_RAN: AtomicBool = AtomicBool::new(false);

extern "C" fn hook(_: *mut c_void) {
    HOOK_RAN.store(true, Ordering::SeqCst);
}

fn create(path: Option<&str>) -> i32 {
    let path = path.map(|p| CString::new(p).unwrap());
    let mut db = null_mut();
    let rc = unsafe {
        fdb_create_database(
            path.as_ref().map_or(std::ptr::null(), |p| p.as_ptr()),
            &mut db,
        )
    };
    if rc == 0 {
        unsafe { fdb_database_destroy(db) };
    }
    rc
}

/// What a database's first operation gives, as FDB's C API tester sees
/// it: the error of a read version's future, or 0. The database is
/// created either way, as FDB creates it.
fn first_error(path: Option<&str>) -> i32 {
    let path = path.map(|p| CString::new(p).unwrap());
    let mut db = null_mut();
    let ptr = path.as_ref().map_or(std::ptr::null(), |p| p.as_ptr());
    assert_eq!(unsafe { fdb_create_database(ptr, &mut db) }, 0);
    let mut tx = null_mut();
    assert_eq!(unsafe { fdb_database_create_transaction(db, &mut tx) }, 0);
    let error = unsafe {
        let f = fdb_transaction_get_read_version(tx);
        assert_eq!(fdb_future_block_until_ready(f), 0);
        let error = fdb_future_get_error(f);
        fdb_future_destroy(f);
        fdb_transaction_destroy(tx);
        error
    };
    unsafe { fdb_database_destroy(db) };
    error
}

#[test]
fn api_version_network_and_cluster_files_in_order() {
    assert_eq!(fdb_get_max_api_version(), 730);
    // Nothing works before a version is selected.
    assert_eq!(fdb_setup_network(), 2200);
    assert_eq!(
        unsafe { fdb_network_set_option(30, std::ptr::null(), 0) },
        2200
    );
    assert_eq!(fdb_select_api_version_impl(731, 730), 2202);
    assert_eq!(fdb_select_api_version_impl(731, 731), 2203);
    assert_eq!(fdb_select_api_version_impl(600, 730), 2203);
    assert_eq!(fdb_select_api_version_impl(730, 730), 0);
    assert_eq!(fdb_select_api_version_impl(730, 730), 2201);

    // Network options: known ones are accepted, unknown codes refused.
    assert_eq!(
        unsafe { fdb_network_set_option(30, std::ptr::null(), 0) },
        0
    );
    assert_eq!(
        unsafe { fdb_network_set_option(9999, std::ptr::null(), 0) },
        2007
    );
    assert_eq!(
        unsafe { fdb_network_set_option(31, b"x".as_ptr(), 1) },
        2006
    );
    // A negative code, as C passes it for the header's enum.
    assert_eq!(
        unsafe { fdb_network_set_option(-1i32 as FDBNetworkOption, std::ptr::null(), 0) },
        2007
    );

    // Databases and hooks need the network set up, once.
    assert_eq!(create(Some("/nonexistent")), 2008);
    assert_eq!(fdb_run_network(), 2008);
    assert_eq!(fdb_stop_network(), 2008);
    assert_eq!(fdb_setup_network(), 0);
    assert_eq!(fdb_setup_network(), 2009);
    assert_eq!(
        unsafe { fdb_add_network_thread_completion_hook(Some(hook), null_mut()) },
        0
    );

    // The multi-version client is chosen before the set-up.
    assert_eq!(
        unsafe { fdb_network_set_option(72, std::ptr::null(), 0) },
        2007,
        "disable_client_bypass after fdb_setup_network"
    );

    // Cluster files: missing, malformed, named, and found by default. A
    // database is made for each, as FDB makes it; one that cannot be
    // opened fails its first operation.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.cluster");
    assert_eq!(create(Some(missing.to_str().unwrap())), 0);
    assert_eq!(first_error(Some(missing.to_str().unwrap())), 1515);
    let bad = dir.path().join("bad.cluster");
    std::fs::write(&bad, "abc:xyz@127.0.0.1:4500\n").unwrap();
    assert_eq!(first_error(Some(bad.to_str().unwrap())), 2104);
    let nowhere = dir.path().join("nowhere.cluster");
    let gone = dir.path().join("no/such/dir/x.db");
    std::fs::write(&nowhere, format!("fql:embedded@{}\n", gone.display())).unwrap();
    assert_ne!(
        first_error(Some(nowhere.to_str().unwrap())),
        0,
        "no directory for the file"
    );
    let good = dir.path().join("fdb.cluster");
    let line = format!("fql:embedded@{}\n", dir.path().join("x.db").display());
    std::fs::write(&good, &line).unwrap();
    assert_eq!(create(Some(good.to_str().unwrap())), 0);
    assert_eq!(first_error(Some(good.to_str().unwrap())), 0);
    // SAFETY: this test is the process's only thread reading the
    // environment now.
    unsafe { std::env::set_var("FDB_CLUSTER_FILE", &good) };
    assert_eq!(create(None), 0);
    assert_eq!(create(Some("")), 0);
    unsafe { std::env::set_var("FDB_CLUSTER_FILE", &missing) };
    assert_eq!(first_error(None), 1515);
    unsafe { std::env::remove_var("FDB_CLUSTER_FILE") };
    let cs = CString::new(line.trim()).unwrap();
    let mut db = null_mut();
    assert_eq!(
        unsafe { fdb_create_database_from_connection_string(cs.as_ptr(), &mut db) },
        0
    );
    unsafe { fdb_database_destroy(db) };

    // The network runs once; stopped, it runs its hooks and returns.
    let runner = std::thread::spawn(|| fdb_run_network());
    assert_eq!(fdb_stop_network(), 0);
    assert_eq!(runner.join().unwrap(), 0);
    assert!(HOOK_RAN.load(Ordering::SeqCst));
    assert_eq!(fdb_run_network(), 2025);
}
