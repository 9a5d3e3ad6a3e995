//! The C types of `fdb_c.h` (API version 730), laid out byte for byte as
//! the header declares them, so that bindings compiled against FDB's header
//! read our arrays correctly.
//!
//! `FDBKey`, `FDBKeyValue` and `FDBKeyRange` sit inside `#pragma pack(4)`
//! in the header: on 64-bit targets a pointer followed by an `int` takes 12
//! bytes, not 16, and an array of them has no padding. The opaque handle
//! types are never dereferenced by callers; the library casts them to its
//! own objects.

use std::ffi::{c_int, c_void};

/// `fdb_error_t`: 0 for success, else an FDB error code.
pub type FdbError = c_int;
/// `fdb_bool_t`: 0 is false, anything else true.
pub type FdbBool = c_int;
/// `FDBCallback`.
pub type FdbCallback = Option<unsafe extern "C" fn(*mut FDBFuture, *mut c_void)>;

/// Opaque `FDBFuture`: the library's pointer is an `Arc<future::Future>`.
#[repr(C)]
pub struct FDBFuture {
    _opaque: [u8; 0],
}

/// Opaque `FDBResult`: a synchronous result, only ever an error here.
#[repr(C)]
pub struct FDBResult {
    _opaque: [u8; 0],
}

/// Opaque `FDBDatabase`.
#[repr(C)]
pub struct FDBDatabase {
    _opaque: [u8; 0],
}

/// Opaque `FDBTenant`; the embedded store has no tenants, so the library
/// never hands one out.
#[repr(C)]
pub struct FDBTenant {
    _opaque: [u8; 0],
}

/// Opaque `FDBTransaction`.
#[repr(C)]
pub struct FDBTransaction {
    _opaque: [u8; 0],
}

/// Opaque `FDBCluster` of the API before 610.
#[repr(C)]
pub struct FDBCluster {
    _opaque: [u8; 0],
}

/// `FDBKey`.
#[repr(C, packed(4))]
#[derive(Clone, Copy)]
pub struct FDBKey {
    pub key: *const u8,
    pub key_length: c_int,
}

/// `FDBKeyValue`.
#[repr(C, packed(4))]
#[derive(Clone, Copy)]
pub struct FDBKeyValue {
    pub key: *const u8,
    pub key_length: c_int,
    pub value: *const u8,
    pub value_length: c_int,
}

/// `FDBKeyRange`.
#[repr(C, packed(4))]
#[derive(Clone, Copy)]
pub struct FDBKeyRange {
    pub begin_key: *const u8,
    pub begin_key_length: c_int,
    pub end_key: *const u8,
    pub end_key_length: c_int,
}

/// `FDBKeySelector` (outside the packed region, but made of 4-aligned
/// fields).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct FDBKeySelector {
    pub key: FDBKey,
    pub or_equal: FdbBool,
    pub offset: c_int,
}

/// `FDBGetRangeReqAndResult`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct FDBGetRangeReqAndResult {
    pub begin: FDBKeySelector,
    pub end: FDBKeySelector,
    pub data: *mut FDBKeyValue,
    pub m_size: c_int,
    pub m_capacity: c_int,
}

/// `FDBMappedKeyValue`: 112 bytes, as the header's comment says.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct FDBMappedKeyValue {
    pub key: FDBKey,
    pub value: FDBKey,
    pub get_range: FDBGetRangeReqAndResult,
    pub buffer: [u8; 32],
}

/// `FDBGranuleSummary`.
#[repr(C, packed(4))]
#[derive(Clone, Copy)]
pub struct FDBGranuleSummary {
    pub key_range: FDBKeyRange,
    pub snapshot_version: i64,
    pub snapshot_size: i64,
    pub delta_version: i64,
    pub delta_size: i64,
}

/// `FDBReadBlobGranuleContext`, passed by value to
/// `fdb_transaction_read_blob_granules`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct FDBReadBlobGranuleContext {
    pub user_context: *mut c_void,
    pub start_load_f: Option<
        unsafe extern "C" fn(*const std::ffi::c_char, c_int, i64, i64, i64, *mut c_void) -> i64,
    >,
    pub get_load_f: Option<unsafe extern "C" fn(i64, *mut c_void) -> *mut u8>,
    pub free_load_f: Option<unsafe extern "C" fn(i64, *mut c_void)>,
    pub debug_no_materialize: FdbBool,
    pub granule_parallelism: c_int,
}

/// `FDBBGTenantPrefix`.
#[repr(C, packed(4))]
#[derive(Clone, Copy)]
pub struct FDBBGTenantPrefix {
    pub present: FdbBool,
    pub prefix: FDBKey,
}

/// `FDBBGEncryptionKey`.
#[repr(C, packed(4))]
#[derive(Clone, Copy)]
pub struct FDBBGEncryptionKey {
    pub domain_id: i64,
    pub base_key_id: u64,
    pub base_kcv: u32,
    pub random_salt: u64,
    pub base_key: FDBKey,
}

/// `FDBBGEncryptionCtx`.
#[repr(C, packed(4))]
#[derive(Clone, Copy)]
pub struct FDBBGEncryptionCtx {
    pub present: FdbBool,
    pub text_key: FDBBGEncryptionKey,
    pub text_kcv: u32,
    pub header_key: FDBBGEncryptionKey,
    pub header_kcv: u32,
    pub iv: FDBKey,
}

/// `FDBBGFileDescription`, only ever named by pointer here.
#[repr(C)]
pub struct FDBBGFileDescription {
    _opaque: [u8; 0],
}

/// `FDBBGMutation`, only ever named by pointer here.
#[repr(C)]
pub struct FDBBGMutation {
    _opaque: [u8; 0],
}

// The header's layouts, checked at compile time.
const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<FDBKey>() == 12 && align_of::<FDBKey>() == 4);
    assert!(size_of::<FDBKeyValue>() == 24 && align_of::<FDBKeyValue>() == 4);
    assert!(size_of::<FDBKeyRange>() == 24);
    assert!(size_of::<FDBKeySelector>() == 20);
    assert!(size_of::<FDBGetRangeReqAndResult>() == 56);
    assert!(size_of::<FDBMappedKeyValue>() == 112);
    assert!(size_of::<FDBGranuleSummary>() == 56);
};
