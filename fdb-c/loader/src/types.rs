//! The C types of `fdb_c.h` (API version 730) that the `foundationdb`
//! crate names, under bindgen's names and with the header's layouts.
//!
//! `FDBKey` and `FDBKeyValue` sit inside the header's `#pragma pack(4)`:
//! on 64-bit targets a pointer followed by an `int` takes 12 bytes, and an
//! array of them has no padding. The handles are opaque: only the library
//! looks inside them.

use std::ffi::{c_int, c_void};

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

// The header's layouts, checked when compiling.
const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<FDBKey>() == 12 && align_of::<FDBKey>() == 4);
    assert!(size_of::<FDBKeyValue>() == 24 && align_of::<FDBKeyValue>() == 4);
    assert!(size_of::<FDBKeySelector>() == 20);
    assert!(size_of::<FDBGetRangeReqAndResult>() == 56);
    assert!(size_of::<FDBMappedKeyValue>() == 112);
};
