//! The C types of `fdb_c.h` (API version 730): the ones `foundationdb-sys`
//! (`fdb-c/loader`) declares, with the header's layouts and under
//! bindgen's names. The library and the binding that calls it share one
//! declaration of each type, so their function signatures can be
//! compared by the compiler (`tests/exports.rs`).
//!
//! `FDBKey`, `FDBKeyValue`, `FDBKeyRange` and the blob granule structs
//! sit inside `#pragma pack(4)` in the header: on 64-bit targets a
//! pointer followed by an `int` takes 12 bytes, not 16, and an array of
//! them has no padding; the loader checks each size when compiling. The
//! opaque handle types are never dereferenced by callers; the library
//! casts them to its own objects ([`crate::handle`]).

pub use foundationdb_sys::{
    FDBBGEncryptionCtx, FDBBGEncryptionKey, FDBBGFileDescription, FDBBGFilePointer, FDBBGMutation,
    FDBBGTenantPrefix, FDBCallback, FDBCluster, FDBClusterOption, FDBConflictRangeType,
    FDBDatabase, FDBDatabaseOption, FDBFuture, FDBGetRangeReqAndResult, FDBGranuleSummary, FDBKey,
    FDBKeyRange, FDBKeySelector, FDBKeyValue, FDBMappedKeyValue, FDBMutationType, FDBNetworkOption,
    FDBReadBlobGranuleContext, FDBResult, FDBStreamingMode, FDBTenant, FDBTransaction,
    FDBTransactionOption, fdb_bool_t, fdb_error_t,
};

/// `fdb_error_t`: 0 for success, else an FDB error code.
pub type FdbError = fdb_error_t;
/// `fdb_bool_t`: 0 is false, anything else true.
pub type FdbBool = fdb_bool_t;
/// `FDBCallback`: what `fdb_future_set_callback` calls once the future
/// is ready.
pub type FdbCallback = FDBCallback;
