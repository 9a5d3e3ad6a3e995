//! The C types of `fdb_c.h` (API version 730), under bindgen's names and
//! with the header's layouts: those the `foundationdb` crate names, and
//! those of the functions it does not call (blob granules, key ranges),
//! so that every function of the header can be declared with the
//! header's types, and a library serving the API can use the same ones.
//!
//! `FDBKey`, `FDBKeyValue`, `FDBKeyRange` and the blob granule structs
//! sit inside the header's `#pragma pack(4)`: on 64-bit targets a pointer
//! followed by an `int` takes 12 bytes, an `int64_t` may start at any
//! multiple of 4, and an array of them has no padding. The handles are
//! opaque: only the library looks inside them.

use std::ffi::{c_char, c_int, c_uint, c_void};

/// `fdb_error_t`: 0 for success, else an FDB error code.
pub type fdb_error_t = c_int;
/// `fdb_bool_t`: 0 is false, anything else true.
pub type fdb_bool_t = c_int;

/// Declares an opaque C struct and the typedef the header gives it.
macro_rules! opaque {
    ($($name:ident = $typedef:ident;)*) => {$(
        #[doc = concat!("Opaque `struct ", stringify!($name), "`.")]
        #[repr(C)]
        pub struct $name {
            _opaque: [u8; 0],
        }
        #[doc = concat!("`", stringify!($typedef), "`.")]
        pub type $typedef = $name;
    )*};
}

opaque! {
    FDB_future = FDBFuture;
    FDB_result = FDBResult;
    FDB_cluster = FDBCluster;
    FDB_database = FDBDatabase;
    FDB_tenant = FDBTenant;
    FDB_transaction = FDBTransaction;
}

/// `FDBClusterOption`, of the cluster object API versions before 610
/// had: one placeholder of -1, so the enum is an `int`.
pub type FDBClusterOption = c_int;
pub const FDBClusterOption_FDB_CLUSTER_OPTION_DUMMY_DO_NOT_USE: FDBClusterOption = -1;

/// `FDBCallback`: what `fdb_future_set_callback` calls once the future
/// is ready.
pub type FDBCallback = Option<unsafe extern "C" fn(future: *mut FDBFuture, parameter: *mut c_void)>;

/// `FDBKey`.
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct FDBKey {
    pub key: *const u8,
    pub key_length: c_int,
}

/// `FDBKeyValue`.
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct FDBKeyValue {
    pub key: *const u8,
    pub key_length: c_int,
    pub value: *const u8,
    pub value_length: c_int,
}

/// `FDBKeySelector`: outside the packed region, but of 4-aligned fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case)]
pub struct FDBKeySelector {
    pub key: FDBKey,
    pub orEqual: fdb_bool_t,
    pub offset: c_int,
}

/// `FDBGetRangeReqAndResult`: one secondary range read of a mapped
/// range's row.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct FDBGetRangeReqAndResult {
    pub begin: FDBKeySelector,
    pub end: FDBKeySelector,
    pub data: *mut FDBKeyValue,
    pub m_size: c_int,
    pub m_capacity: c_int,
}

/// `FDBMappedKeyValue`: 112 bytes, the header's own count.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case)]
pub struct FDBMappedKeyValue {
    pub key: FDBKey,
    pub value: FDBKey,
    pub getRange: FDBGetRangeReqAndResult,
    pub buffer: [u8; 32],
}

/// `FDBKeyRange`.
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct FDBKeyRange {
    pub begin_key: *const u8,
    pub begin_key_length: c_int,
    pub end_key: *const u8,
    pub end_key_length: c_int,
}

/// `FDBGranuleSummary`.
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct FDBGranuleSummary {
    pub key_range: FDBKeyRange,
    pub snapshot_version: i64,
    pub snapshot_size: i64,
    pub delta_version: i64,
    pub delta_size: i64,
}

/// `FDBReadBlobGranuleContext`, passed by value to
/// `fdb_transaction_read_blob_granules`: the caller's loader of granule
/// files.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case)]
pub struct FDBReadBlobGranuleContext {
    pub userContext: *mut c_void,
    pub start_load_f: Option<
        unsafe extern "C" fn(
            filename: *const c_char,
            filenameLength: c_int,
            offset: i64,
            length: i64,
            fullFileLength: i64,
            context: *mut c_void,
        ) -> i64,
    >,
    pub get_load_f: Option<unsafe extern "C" fn(loadId: i64, context: *mut c_void) -> *mut u8>,
    pub free_load_f: Option<unsafe extern "C" fn(loadId: i64, context: *mut c_void)>,
    pub debugNoMaterialize: fdb_bool_t,
    pub granuleParallelism: c_int,
}

/// `FDBBGMutationType`, the `type` of an [`FDBBGMutation`].
pub type FDBBGMutationType = c_uint;
pub const FDBBGMutationType_FDB_BG_MUTATION_TYPE_SET_VALUE: FDBBGMutationType = 0;
pub const FDBBGMutationType_FDB_BG_MUTATION_TYPE_CLEAR_RANGE: FDBBGMutationType = 1;

/// `FDBBGTenantPrefix`.
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct FDBBGTenantPrefix {
    pub present: fdb_bool_t,
    pub prefix: FDBKey,
}

/// `FDBBGEncryptionKey`.
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct FDBBGEncryptionKey {
    pub domain_id: i64,
    pub base_key_id: u64,
    pub base_kcv: u32,
    pub random_salt: u64,
    pub base_key: FDBKey,
}

/// `FDBBGEncryptionCtx`.
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case)]
pub struct FDBBGEncryptionCtx {
    pub present: fdb_bool_t,
    pub textKey: FDBBGEncryptionKey,
    pub textKCV: u32,
    pub headerKey: FDBBGEncryptionKey,
    pub headerKCV: u32,
    pub iv: FDBKey,
}

/// `FDBBGFilePointer`.
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct FDBBGFilePointer {
    pub filename_ptr: *const u8,
    pub filename_length: c_int,
    pub file_offset: i64,
    pub file_length: i64,
    pub full_file_length: i64,
    pub file_version: i64,
    pub encryption_ctx: FDBBGEncryptionCtx,
}

/// `FDBBGMutation`; `type_` is the header's `type`, an
/// [`FDBBGMutationType`] in one byte.
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct FDBBGMutation {
    pub type_: u8,
    pub version: i64,
    pub param1_ptr: *const u8,
    pub param1_length: c_int,
    pub param2_ptr: *const u8,
    pub param2_length: c_int,
}

/// `FDBBGFileDescription`.
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct FDBBGFileDescription {
    pub key_range: FDBKeyRange,
    pub snapshot_present: fdb_bool_t,
    pub snapshot_file_pointer: FDBBGFilePointer,
    pub delta_file_count: c_int,
    pub delta_files: *mut FDBBGFilePointer,
    pub memory_mutation_count: c_int,
    pub memory_mutations: *mut FDBBGMutation,
    pub tenant_prefix: FDBBGTenantPrefix,
}

// The header's layouts, checked when compiling: the sizes a C compiler
// gives the header's structs on a 64-bit target.
const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<FDBKey>() == 12 && align_of::<FDBKey>() == 4);
    assert!(size_of::<FDBKeyValue>() == 24 && align_of::<FDBKeyValue>() == 4);
    assert!(size_of::<FDBKeySelector>() == 20);
    assert!(size_of::<FDBGetRangeReqAndResult>() == 56);
    assert!(size_of::<FDBMappedKeyValue>() == 112);
    assert!(size_of::<FDBKeyRange>() == 24 && align_of::<FDBKeyRange>() == 4);
    assert!(size_of::<FDBGranuleSummary>() == 56);
    assert!(size_of::<FDBReadBlobGranuleContext>() == 40);
    assert!(size_of::<FDBBGTenantPrefix>() == 16);
    assert!(size_of::<FDBBGEncryptionKey>() == 40);
    assert!(size_of::<FDBBGEncryptionCtx>() == 104);
    assert!(size_of::<FDBBGFilePointer>() == 148);
    assert!(size_of::<FDBBGMutation>() == 36);
    assert!(size_of::<FDBBGFileDescription>() == 216);
};
