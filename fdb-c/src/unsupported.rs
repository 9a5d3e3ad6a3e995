//! The functions of fdb_c.h the embedded store cannot honour. Each exists,
//! so a binding that looks it up finds it, and fails with the error FDB
//! gives where the feature is absent: `unsupported_operation` (2108) for
//! blob granules (a tenant's among them), worker reboots, recoveries and
//! snapshots; and `unsupported_operation` for the cluster object of API
//! versions before 610, which FDB removed.
//!
//! No argument of these calls is read, so a null or stale pointer cannot
//! make them misbehave.

use std::ffi::{c_char, c_int, c_void};
use std::sync::Arc;

use crate::errors::{Code, UNSUPPORTED_OPERATION};
use crate::future::Future;
use crate::guard;
use crate::handle::Handle;
use crate::types::{
    FDBBGEncryptionCtx, FDBBGMutation, FDBBGTenantPrefix, FDBCluster, FDBClusterOption,
    FDBDatabase, FDBFuture, FDBKeyValue, FDBReadBlobGranuleContext, FDBResult, FDBTenant,
    FDBTransaction, FdbBool, FdbError,
};

/// `FDBResult`: the synchronous result of the blob granule readers,
/// here always an error.
struct SyncResult {
    code: Code,
}

impl Handle for SyncResult {
    type Raw = FDBResult;
}

fn result(code: Code) -> *mut FDBResult {
    SyncResult::into_raw(Arc::new(SyncResult { code }))
}

fn unsupported() -> *mut FDBFuture {
    Future::error(UNSUPPORTED_OPERATION)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_result_destroy(r: *mut FDBResult) {
    guard::quietly(|| {
        // SAFETY: a result of ours, given back.
        drop(unsafe { SyncResult::take(r) });
    })
}

/// The error the result holds.
unsafe fn result_code(r: *mut FDBResult) -> FdbError {
    // SAFETY: a live result of ours, if not null.
    unsafe { SyncResult::borrow(r) }.map_or_else(|code| code, |r| r.code)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_result_get_keyvalue_array(
    r: *mut FDBResult,
    _out_kv: *mut *const FDBKeyValue,
    _out_count: *mut c_int,
    _out_more: *mut FdbBool,
) -> FdbError {
    // SAFETY: forwarded.
    unsafe { result_code(r) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_result_get_bg_mutations_array(
    r: *mut FDBResult,
    _out_mutations: *mut *const FDBBGMutation,
    _out_count: *mut c_int,
) -> FdbError {
    // SAFETY: forwarded.
    unsafe { result_code(r) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_readbg_parse_snapshot_file(
    _file_data: *const u8,
    _file_len: c_int,
    _tenant_prefix: *const FDBBGTenantPrefix,
    _encryption_ctx: *const FDBBGEncryptionCtx,
) -> *mut FDBResult {
    result(UNSUPPORTED_OPERATION)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_readbg_parse_delta_file(
    _file_data: *const u8,
    _file_len: c_int,
    _tenant_prefix: *const FDBBGTenantPrefix,
    _encryption_ctx: *const FDBBGEncryptionCtx,
) -> *mut FDBResult {
    result(UNSUPPORTED_OPERATION)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_reboot_worker(
    _db: *mut FDBDatabase,
    _address: *const u8,
    _address_length: c_int,
    _check: FdbBool,
    _duration: c_int,
) -> *mut FDBFuture {
    unsupported()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_force_recovery_with_data_loss(
    _db: *mut FDBDatabase,
    _dcid: *const u8,
    _dcid_length: c_int,
) -> *mut FDBFuture {
    unsupported()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_create_snapshot(
    _db: *mut FDBDatabase,
    _uid: *const u8,
    _uid_length: c_int,
    _snap_command: *const u8,
    _snap_command_length: c_int,
) -> *mut FDBFuture {
    unsupported()
}

/// Blob-granule administration of a database or tenant: `(db, begin,
/// begin_length, end, end_length, ...)`, each `unsupported_operation`.
macro_rules! unsupported_ranges {
    ($($name:ident($handle:ty $(, $extra:ident: $ty:ty)*);)*) => {$(
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            _handle: *mut $handle,
            _begin_key_name: *const u8,
            _begin_key_name_length: c_int,
            _end_key_name: *const u8,
            _end_key_name_length: c_int,
            $($extra: $ty,)*
        ) -> *mut FDBFuture {
            $(let _ = $extra;)*
            unsupported()
        }
    )*};
}

unsupported_ranges! {
    fdb_database_purge_blob_granules(FDBDatabase, purge_version: i64, force: FdbBool);
    fdb_database_blobbify_range(FDBDatabase);
    fdb_database_blobbify_range_blocking(FDBDatabase);
    fdb_database_unblobbify_range(FDBDatabase);
    fdb_database_list_blobbified_ranges(FDBDatabase, range_limit: c_int);
    fdb_database_verify_blob_range(FDBDatabase, version: i64);
    fdb_database_flush_blob_range(FDBDatabase, compact: FdbBool, version: i64);
    fdb_transaction_get_blob_granule_ranges(FDBTransaction, range_limit: c_int);
    fdb_transaction_summarize_blob_granules(FDBTransaction, summary_version: i64, range_limit: c_int);
    fdb_transaction_read_blob_granules_description(
        FDBTransaction,
        begin_version: i64,
        read_version: i64,
        read_version_out: *mut i64
    );
    fdb_transaction_read_blob_granules_start(
        FDBTransaction,
        begin_version: i64,
        read_version: i64,
        read_version_out: *mut i64
    );
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_wait_purge_granules_complete(
    _db: *mut FDBDatabase,
    _purge_key_name: *const u8,
    _purge_key_name_length: c_int,
) -> *mut FDBFuture {
    unsupported()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_read_blob_granules(
    _tr: *mut FDBTransaction,
    _begin_key_name: *const u8,
    _begin_key_name_length: c_int,
    _end_key_name: *const u8,
    _end_key_name_length: c_int,
    _begin_version: i64,
    _read_version: i64,
    _granule_context: FDBReadBlobGranuleContext,
) -> *mut FDBResult {
    result(UNSUPPORTED_OPERATION)
}

unsupported_ranges! {
    fdb_tenant_purge_blob_granules(FDBTenant, purge_version: i64, force: FdbBool);
    fdb_tenant_blobbify_range(FDBTenant);
    fdb_tenant_blobbify_range_blocking(FDBTenant);
    fdb_tenant_unblobbify_range(FDBTenant);
    fdb_tenant_list_blobbified_ranges(FDBTenant, range_limit: c_int);
    fdb_tenant_verify_blob_range(FDBTenant, version: i64);
    fdb_tenant_flush_blob_range(FDBTenant, compact: FdbBool, version: i64);
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_tenant_wait_purge_granules_complete(
    _tenant: *mut FDBTenant,
    _purge_key_name: *const u8,
    _purge_key_name_length: c_int,
) -> *mut FDBFuture {
    unsupported()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_create_cluster(_cluster_file_path: *const c_char) -> *mut FDBFuture {
    unsupported()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_cluster_destroy(_c: *mut FDBCluster) {}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_cluster_set_option(
    _c: *mut FDBCluster,
    _option: FDBClusterOption,
    _value: *const u8,
    _value_length: c_int,
) -> FdbError {
    UNSUPPORTED_OPERATION
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_cluster_create_database(
    _c: *mut FDBCluster,
    _db_name: *const u8,
    _db_name_length: c_int,
) -> *mut FDBFuture {
    unsupported()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_cluster(
    f: *mut FDBFuture,
    _out_cluster: *mut *mut FDBCluster,
) -> FdbError {
    guard::code(|| {
        // SAFETY: a future of ours, if any.
        match unsafe { Future::borrow(f) }?.error_code() {
            0 => Err(UNSUPPORTED_OPERATION),
            code => Err(code),
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_database(
    f: *mut FDBFuture,
    _out_database: *mut *mut FDBDatabase,
) -> FdbError {
    // SAFETY: forwarded.
    unsafe { fdb_future_get_cluster(f, std::ptr::null_mut()) }
}

/// FDB's shared state between databases of the multi-version client.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_create_shared_state(_db: *mut FDBDatabase) -> *mut FDBFuture {
    unsupported()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_set_shared_state(_db: *mut FDBDatabase, _p: *mut c_void) {}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_shared_state(
    f: *mut FDBFuture,
    _out: *mut *mut c_void,
) -> FdbError {
    // SAFETY: forwarded.
    unsafe { fdb_future_get_cluster(f, std::ptr::null_mut()) }
}
