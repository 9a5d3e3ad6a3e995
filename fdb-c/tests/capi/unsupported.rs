//! What the store cannot honour fails with FDB's error for it.

use std::ffi::c_int;

use fdb_c::unsupported::*;

use crate::support::{Db, Fut};

#[test]
fn blob_granules_and_cluster_administration_are_unsupported() {
    let db = Db::new();
    let tx = db.tx();
    let f = Fut(unsafe { fdb_database_blobbify_range(db.ptr, b"a".as_ptr(), 1, b"b".as_ptr(), 1) });
    assert_eq!(f.wait_error(), 2108);
    let f = Fut(unsafe { fdb_database_reboot_worker(db.ptr, b"x".as_ptr(), 1, 0, 0) });
    assert_eq!(f.wait_error(), 2108);
    let context = fdb_c::types::FDBReadBlobGranuleContext {
        userContext: std::ptr::null_mut(),
        start_load_f: None,
        get_load_f: None,
        free_load_f: None,
        debugNoMaterialize: 0,
        granuleParallelism: 1,
    };
    let r = unsafe {
        fdb_transaction_read_blob_granules(tx.0, b"a".as_ptr(), 1, b"b".as_ptr(), 1, 0, -2, context)
    };
    let (mut kv, mut n, mut more): (_, c_int, c_int) = (std::ptr::null(), 0, 0);
    assert_eq!(
        unsafe { fdb_result_get_keyvalue_array(r, &mut kv, &mut n, &mut more) },
        2108
    );
    unsafe { fdb_result_destroy(r) };
    assert_eq!(
        Fut(unsafe { fdb_create_cluster(std::ptr::null()) }).wait_error(),
        2108
    );
}
