//! FoundationDB's C client API (API version 730) for the `foundationdb`
//! crate, bound at run time: `libfdb_c` is found and opened the first
//! time a function is called (or [`load`] is), not linked.
//!
//! # Why a hand-written binding
//!
//! The published `foundationdb-sys` generates its binding with bindgen,
//! which needs libclang at build time, and links `-lfdb_c`, so every
//! program built with it needs the client library to build and will not
//! even start without it. fql is one binary for its embedded store and
//! for FoundationDB clusters: it must build on a machine with neither,
//! start on one without the client library, and reach a cluster where
//! the library is installed, as FoundationDB's Python and Java bindings
//! do. So this package takes `foundationdb-sys`'s place (through the
//! workspace's `[patch.crates-io]`) and declares, by hand, the items of
//! `fdb_c.h` 7.3 under bindgen's names: the types ([`types`]), the option
//! and enum codes ([`options`]), the signature of every function
//! ([`signatures`]), and the functions the `foundationdb` crate uses,
//! each a call through a pointer resolved from the loaded library.
//! fdb-c, the library that serves the API over fql's store, is built on
//! the same declarations, and its tests compare its exported functions
//! with [`signatures`], so the two cannot disagree on a signature.
//!
//! # Finding the library
//!
//! [`load`] searches, in order: what `FDB_CLIENT_LIB_PATH` names (the
//! file, or `libfdb_c.so` in that directory; when it is set, nothing
//! else), the usual install locations (`/usr/lib/libfdb_c.so`,
//! `/usr/lib64/`, `/usr/local/lib/`, `/usr/lib/x86_64-linux-gnu/`; on
//! macOS `/usr/local/lib/libfdb_c.dylib`), then the dynamic loader's own
//! search for the plain name (`LD_LIBRARY_PATH`, its cache). It takes the
//! first library that opens, reports an API version of 730 or more
//! through `fdb_get_max_api_version`, and has every function it binds
//! (those the crate uses; the others are only [`signatures`]); the
//! functions are resolved then, all at once, so a library that lacks one
//! is refused when loading, with its name, rather than failing in the
//! middle of a transaction. The result, library or [`LoadError`], is kept
//! for the life of the process.
//!
//! A program calls [`load`] before `foundationdb::boot` to report a
//! missing library its own way; a function called when no library loads
//! panics with the [`LoadError`]'s message.

#![allow(non_camel_case_types, non_upper_case_globals)]

mod library;
pub mod options;
pub mod types;

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

pub use library::{
    Client, FILE_NAME, LIB_PATH_ENV, LoadError, MIN_API_VERSION, Place, Refusal, places, search,
};
pub use options::*;
pub use types::*;

/// The API version the `foundationdb` crate passes as the header's.
pub const FDB_API_VERSION: u32 = 730;

#[cfg(not(all(
    feature = "fdb-7_3",
    not(any(
        feature = "fdb-5_1",
        feature = "fdb-5_2",
        feature = "fdb-6_0",
        feature = "fdb-6_1",
        feature = "fdb-6_2",
        feature = "fdb-6_3",
        feature = "fdb-7_0",
        feature = "fdb-7_1",
        feature = "fdb-7_4",
    ))
)))]
compile_error!("this foundationdb-sys binds API version 730 only: enable `fdb-7_3` alone");

/// The library, loaded on the first call, from the places [`places`]
/// lists for this process's `FDB_CLIENT_LIB_PATH`.
pub fn load() -> Result<&'static Client, &'static LoadError> {
    static LOADED: OnceLock<Result<Client, LoadError>> = OnceLock::new();
    LOADED
        .get_or_init(|| search(&places(std::env::var_os(LIB_PATH_ENV))))
        .as_ref()
}

/// The functions of the loaded library.
fn functions() -> &'static Functions {
    match load() {
        Ok(client) => &client.functions,
        Err(e) => unloaded(e),
    }
}

#[cold]
fn unloaded(e: &LoadError) -> ! {
    panic!("{e}")
}

/// Declares the C functions of `fdb_c.h`: for each, its signature in
/// [`signatures`]; for the `bound` ones, which the `foundationdb` crate
/// calls, also a table of pointers, resolved together from one library,
/// and a function of the same name and signature that calls through the
/// table. The `declared` ones are only declared, so a library that lacks
/// them still loads.
macro_rules! functions {
    (
        bound {
            $(fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;)*
        }
        declared {
            $(
                $(#[doc = $doc:literal])*
                fn $dname:ident($($darg:ident: $dty:ty),* $(,)?) $(-> $dret:ty)?;
            )*
        }
    ) => {
        /// The signature of each function `fdb_c.h` 7.3 declares, as a
        /// function pointer type of the function's name: what a library
        /// serving the API must export (fdb-c's tests compare its
        /// functions with these), and what the bound functions are called
        /// through.
        pub mod signatures {
            use super::*;

            $(
                #[doc = concat!("`", stringify!($name), "`.")]
                pub type $name = unsafe extern "C" fn($($arg: $ty),*) $(-> $ret)?;
            )*
            $(
                #[doc = concat!("`", stringify!($dname), "`.")]
                $(#[doc = $doc])*
                pub type $dname = unsafe extern "C" fn($($darg: $dty),*) $(-> $dret)?;
            )*

            /// The name of every function the header declares (the two
            /// `fdb_select_api_version` macros aside), one type above
            /// each.
            pub const NAMES: &[&str] = &[$(stringify!($name),)* $(stringify!($dname),)*];
        }

        /// The library's functions.
        pub(crate) struct Functions {
            $(pub(crate) $name: signatures::$name,)*
        }

        impl Functions {
            /// Every function from `library`, or the name of one it lacks.
            fn resolve(library: &libloading::os::unix::Library) -> Result<Functions, &'static str> {
                Ok(Functions {
                    $($name: {
                        let name = concat!(stringify!($name), "\0");
                        // SAFETY: the declared signature is the header's;
                        // the library is kept loaded with the pointer.
                        #[allow(unsafe_code)]
                        let f = unsafe { library.get(name.as_bytes()) }
                            .map_err(|_| stringify!($name))?;
                        *f
                    },)*
                })
            }
        }

        $(
            #[doc = concat!("`", stringify!($name), "` of `fdb_c.h`.")]
            ///
            /// # Safety
            ///
            /// The C function's contract: its pointers must be what the
            /// header says they are.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the caller keeps the C function's contract.
                unsafe { (functions().$name)($($arg),*) }
            }
        )*
    };
}

functions! {
    bound {
        fn fdb_get_max_api_version() -> c_int;
        fn fdb_get_client_version() -> *const c_char;
        fn fdb_select_api_version_impl(runtime_version: c_int, header_version: c_int) -> fdb_error_t;
        fn fdb_get_error(code: fdb_error_t) -> *const c_char;
        fn fdb_error_predicate(predicate_test: c_int, code: fdb_error_t) -> fdb_bool_t;

        fn fdb_network_set_option(option: FDBNetworkOption, value: *const u8, value_length: c_int) -> fdb_error_t;
        fn fdb_setup_network() -> fdb_error_t;
        fn fdb_run_network() -> fdb_error_t;
        fn fdb_stop_network() -> fdb_error_t;

        fn fdb_future_destroy(f: *mut FDBFuture);
        fn fdb_future_is_ready(f: *mut FDBFuture) -> fdb_bool_t;
        fn fdb_future_set_callback(f: *mut FDBFuture, callback: FDBCallback, parameter: *mut c_void) -> fdb_error_t;
        fn fdb_future_get_error(f: *mut FDBFuture) -> fdb_error_t;
        fn fdb_future_get_int64(f: *mut FDBFuture, out: *mut i64) -> fdb_error_t;
        fn fdb_future_get_key(f: *mut FDBFuture, out_key: *mut *const u8, out_key_length: *mut c_int) -> fdb_error_t;
        fn fdb_future_get_value(f: *mut FDBFuture, out_present: *mut fdb_bool_t, out_value: *mut *const u8, out_value_length: *mut c_int) -> fdb_error_t;
        fn fdb_future_get_keyvalue_array(f: *mut FDBFuture, out_kv: *mut *const FDBKeyValue, out_count: *mut c_int, out_more: *mut fdb_bool_t) -> fdb_error_t;
        fn fdb_future_get_mappedkeyvalue_array(f: *mut FDBFuture, out_kv: *mut *const FDBMappedKeyValue, out_count: *mut c_int, out_more: *mut fdb_bool_t) -> fdb_error_t;
        fn fdb_future_get_key_array(f: *mut FDBFuture, out_key_array: *mut *const FDBKey, out_count: *mut c_int) -> fdb_error_t;
        fn fdb_future_get_string_array(f: *mut FDBFuture, out_strings: *mut *mut *const c_char, out_count: *mut c_int) -> fdb_error_t;

        fn fdb_create_database(cluster_file_path: *const c_char, out_database: *mut *mut FDBDatabase) -> fdb_error_t;
        fn fdb_database_destroy(d: *mut FDBDatabase);
        fn fdb_database_set_option(d: *mut FDBDatabase, option: FDBDatabaseOption, value: *const u8, value_length: c_int) -> fdb_error_t;
        fn fdb_database_open_tenant(d: *mut FDBDatabase, tenant_name: *const u8, tenant_name_length: c_int, out_tenant: *mut *mut FDBTenant) -> fdb_error_t;
        fn fdb_database_create_transaction(d: *mut FDBDatabase, out_transaction: *mut *mut FDBTransaction) -> fdb_error_t;
        fn fdb_database_get_main_thread_busyness(d: *mut FDBDatabase) -> f64;
        fn fdb_database_get_client_status(d: *mut FDBDatabase) -> *mut FDBFuture;

        fn fdb_tenant_create_transaction(tenant: *mut FDBTenant, out_transaction: *mut *mut FDBTransaction) -> fdb_error_t;
        fn fdb_tenant_destroy(tenant: *mut FDBTenant);

        fn fdb_transaction_destroy(tr: *mut FDBTransaction);
        fn fdb_transaction_cancel(tr: *mut FDBTransaction);
        fn fdb_transaction_set_option(tr: *mut FDBTransaction, option: FDBTransactionOption, value: *const u8, value_length: c_int) -> fdb_error_t;
        fn fdb_transaction_set_read_version(tr: *mut FDBTransaction, version: i64);
        fn fdb_transaction_get_read_version(tr: *mut FDBTransaction) -> *mut FDBFuture;
        fn fdb_transaction_get(tr: *mut FDBTransaction, key_name: *const u8, key_name_length: c_int, snapshot: fdb_bool_t) -> *mut FDBFuture;
        fn fdb_transaction_get_key(tr: *mut FDBTransaction, key_name: *const u8, key_name_length: c_int, or_equal: fdb_bool_t, offset: c_int, snapshot: fdb_bool_t) -> *mut FDBFuture;
        fn fdb_transaction_get_addresses_for_key(tr: *mut FDBTransaction, key_name: *const u8, key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_transaction_get_range(
            tr: *mut FDBTransaction,
            begin_key_name: *const u8, begin_key_name_length: c_int, begin_or_equal: fdb_bool_t, begin_offset: c_int,
            end_key_name: *const u8, end_key_name_length: c_int, end_or_equal: fdb_bool_t, end_offset: c_int,
            limit: c_int, target_bytes: c_int, mode: FDBStreamingMode, iteration: c_int,
            snapshot: fdb_bool_t, reverse: fdb_bool_t,
        ) -> *mut FDBFuture;
        fn fdb_transaction_get_mapped_range(
            tr: *mut FDBTransaction,
            begin_key_name: *const u8, begin_key_name_length: c_int, begin_or_equal: fdb_bool_t, begin_offset: c_int,
            end_key_name: *const u8, end_key_name_length: c_int, end_or_equal: fdb_bool_t, end_offset: c_int,
            mapper_name: *const u8, mapper_name_length: c_int,
            limit: c_int, target_bytes: c_int, mode: FDBStreamingMode, iteration: c_int,
            snapshot: fdb_bool_t, reverse: fdb_bool_t,
        ) -> *mut FDBFuture;
        fn fdb_transaction_set(tr: *mut FDBTransaction, key_name: *const u8, key_name_length: c_int, value: *const u8, value_length: c_int);
        fn fdb_transaction_atomic_op(tr: *mut FDBTransaction, key_name: *const u8, key_name_length: c_int, param: *const u8, param_length: c_int, operation_type: FDBMutationType);
        fn fdb_transaction_clear(tr: *mut FDBTransaction, key_name: *const u8, key_name_length: c_int);
        fn fdb_transaction_clear_range(tr: *mut FDBTransaction, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int);
        fn fdb_transaction_watch(tr: *mut FDBTransaction, key_name: *const u8, key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_transaction_commit(tr: *mut FDBTransaction) -> *mut FDBFuture;
        fn fdb_transaction_get_committed_version(tr: *mut FDBTransaction, out_version: *mut i64) -> fdb_error_t;
        fn fdb_transaction_get_approximate_size(tr: *mut FDBTransaction) -> *mut FDBFuture;
        fn fdb_transaction_get_versionstamp(tr: *mut FDBTransaction) -> *mut FDBFuture;
        fn fdb_transaction_on_error(tr: *mut FDBTransaction, error: fdb_error_t) -> *mut FDBFuture;
        fn fdb_transaction_reset(tr: *mut FDBTransaction);
        fn fdb_transaction_add_conflict_range(tr: *mut FDBTransaction, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, kind: FDBConflictRangeType) -> fdb_error_t;
        fn fdb_transaction_get_estimated_range_size_bytes(tr: *mut FDBTransaction, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_transaction_get_range_split_points(tr: *mut FDBTransaction, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, chunk_size: i64) -> *mut FDBFuture;
    }

    declared {
        fn fdb_add_network_thread_completion_hook(hook: Option<unsafe extern "C" fn(parameter: *mut c_void)>, hook_parameter: *mut c_void) -> fdb_error_t;

        fn fdb_future_cancel(f: *mut FDBFuture);
        fn fdb_future_release_memory(f: *mut FDBFuture);
        fn fdb_future_block_until_ready(f: *mut FDBFuture) -> fdb_error_t;
        fn fdb_future_get_bool(f: *mut FDBFuture, out: *mut fdb_bool_t) -> fdb_error_t;
        fn fdb_future_get_uint64(f: *mut FDBFuture, out: *mut u64) -> fdb_error_t;
        fn fdb_future_get_double(f: *mut FDBFuture, out: *mut f64) -> fdb_error_t;
        fn fdb_future_get_keyrange_array(f: *mut FDBFuture, out_ranges: *mut *const FDBKeyRange, out_count: *mut c_int) -> fdb_error_t;
        fn fdb_future_get_granule_summary_array(f: *mut FDBFuture, out_summaries: *mut *const FDBGranuleSummary, out_count: *mut c_int) -> fdb_error_t;
        fn fdb_future_readbg_get_descriptions(f: *mut FDBFuture, out: *mut *mut FDBBGFileDescription, desc_count: *mut c_int) -> fdb_error_t;

        fn fdb_readbg_parse_snapshot_file(file_data: *const u8, file_len: c_int, tenant_prefix: *const FDBBGTenantPrefix, encryption_ctx: *const FDBBGEncryptionCtx) -> *mut FDBResult;
        fn fdb_readbg_parse_delta_file(file_data: *const u8, file_len: c_int, tenant_prefix: *const FDBBGTenantPrefix, encryption_ctx: *const FDBBGEncryptionCtx) -> *mut FDBResult;
        fn fdb_result_destroy(r: *mut FDBResult);
        fn fdb_result_get_keyvalue_array(r: *mut FDBResult, out_kv: *mut *const FDBKeyValue, out_count: *mut c_int, out_more: *mut fdb_bool_t) -> fdb_error_t;
        fn fdb_result_get_bg_mutations_array(r: *mut FDBResult, out_mutations: *mut *const FDBBGMutation, out_count: *mut c_int) -> fdb_error_t;

        fn fdb_create_database_from_connection_string(connection_string: *const c_char, out_database: *mut *mut FDBDatabase) -> fdb_error_t;
        fn fdb_database_reboot_worker(db: *mut FDBDatabase, address: *const u8, address_length: c_int, check: fdb_bool_t, duration: c_int) -> *mut FDBFuture;
        fn fdb_database_force_recovery_with_data_loss(db: *mut FDBDatabase, dcid: *const u8, dcid_length: c_int) -> *mut FDBFuture;
        fn fdb_database_create_snapshot(db: *mut FDBDatabase, uid: *const u8, uid_length: c_int, snap_command: *const u8, snap_command_length: c_int) -> *mut FDBFuture;
        fn fdb_database_get_server_protocol(db: *mut FDBDatabase, expected_version: u64) -> *mut FDBFuture;
        fn fdb_database_purge_blob_granules(db: *mut FDBDatabase, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, purge_version: i64, force: fdb_bool_t) -> *mut FDBFuture;
        fn fdb_database_wait_purge_granules_complete(db: *mut FDBDatabase, purge_key_name: *const u8, purge_key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_database_blobbify_range(db: *mut FDBDatabase, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_database_blobbify_range_blocking(db: *mut FDBDatabase, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_database_unblobbify_range(db: *mut FDBDatabase, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_database_list_blobbified_ranges(db: *mut FDBDatabase, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, range_limit: c_int) -> *mut FDBFuture;
        fn fdb_database_verify_blob_range(db: *mut FDBDatabase, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, version: i64) -> *mut FDBFuture;
        fn fdb_database_flush_blob_range(db: *mut FDBDatabase, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, compact: fdb_bool_t, version: i64) -> *mut FDBFuture;

        fn fdb_tenant_purge_blob_granules(tenant: *mut FDBTenant, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, purge_version: i64, force: fdb_bool_t) -> *mut FDBFuture;
        fn fdb_tenant_wait_purge_granules_complete(tenant: *mut FDBTenant, purge_key_name: *const u8, purge_key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_tenant_blobbify_range(tenant: *mut FDBTenant, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_tenant_blobbify_range_blocking(tenant: *mut FDBTenant, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_tenant_unblobbify_range(tenant: *mut FDBTenant, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int) -> *mut FDBFuture;
        fn fdb_tenant_list_blobbified_ranges(tenant: *mut FDBTenant, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, range_limit: c_int) -> *mut FDBFuture;
        fn fdb_tenant_verify_blob_range(tenant: *mut FDBTenant, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, version: i64) -> *mut FDBFuture;
        fn fdb_tenant_flush_blob_range(tenant: *mut FDBTenant, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, compact: fdb_bool_t, version: i64) -> *mut FDBFuture;
        fn fdb_tenant_get_id(tenant: *mut FDBTenant) -> *mut FDBFuture;

        fn fdb_transaction_get_tag_throttled_duration(tr: *mut FDBTransaction) -> *mut FDBFuture;
        fn fdb_transaction_get_total_cost(tr: *mut FDBTransaction) -> *mut FDBFuture;
        fn fdb_transaction_get_blob_granule_ranges(tr: *mut FDBTransaction, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, range_limit: c_int) -> *mut FDBFuture;
        fn fdb_transaction_read_blob_granules(tr: *mut FDBTransaction, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, begin_version: i64, read_version: i64, granule_context: FDBReadBlobGranuleContext) -> *mut FDBResult;
        fn fdb_transaction_summarize_blob_granules(tr: *mut FDBTransaction, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, summary_version: i64, range_limit: c_int) -> *mut FDBFuture;
        fn fdb_transaction_read_blob_granules_description(tr: *mut FDBTransaction, begin_key_name: *const u8, begin_key_name_length: c_int, end_key_name: *const u8, end_key_name_length: c_int, begin_version: i64, read_version: i64, read_version_out: *mut i64) -> *mut FDBFuture;

        /// Declared for API versions before 620.
        fn fdb_future_get_version(f: *mut FDBFuture, out_version: *mut i64) -> fdb_error_t;
        /// Declared for API versions before 610, as are the cluster's.
        fn fdb_future_get_cluster(f: *mut FDBFuture, out_cluster: *mut *mut FDBCluster) -> fdb_error_t;
        /// Declared for API versions before 610.
        fn fdb_future_get_database(f: *mut FDBFuture, out_database: *mut *mut FDBDatabase) -> fdb_error_t;
        /// Declared for API versions before 610.
        fn fdb_create_cluster(cluster_file_path: *const c_char) -> *mut FDBFuture;
        /// Declared for API versions before 610.
        fn fdb_cluster_destroy(c: *mut FDBCluster);
        /// Declared for API versions before 610.
        fn fdb_cluster_set_option(c: *mut FDBCluster, option: FDBClusterOption, value: *const u8, value_length: c_int) -> fdb_error_t;
        /// Declared for API versions before 610.
        fn fdb_cluster_create_database(c: *mut FDBCluster, db_name: *const u8, db_name_length: c_int) -> *mut FDBFuture;
        /// Declared for API versions before 23.
        fn fdb_future_is_error(f: *mut FDBFuture) -> fdb_bool_t;
        /// Declared for API versions before 14.
        fn fdb_transaction_get_range_selector(
            tr: *mut FDBTransaction,
            begin_key_name: *const u8, begin_key_name_length: c_int, begin_or_equal: fdb_bool_t, begin_offset: c_int,
            end_key_name: *const u8, end_key_name_length: c_int, end_or_equal: fdb_bool_t, end_offset: c_int,
            limit: c_int,
        ) -> *mut FDBFuture;
    }
}

/// `if_cfg_api_versions!(min = V, max = W, feature = "..." => code)`, the
/// `foundationdb` crate's guard on code for some API versions: keeps
/// `code` when 730 is in `[V, W]` (or a listed feature of the calling
/// crate is on) and drops it otherwise; `=> { a } else { b }` is `a` or
/// `b`. Every bound the crate names (510 to 740) compares with 730 here,
/// so only a listed feature is left to `cfg`.
#[macro_export]
macro_rules! if_cfg_api_versions {
    (min = 740 $(, max = $max:literal)? $(, feature = $f:literal)* => $($body:tt)*) => {
        $crate::__api_pick! { no [$($f),*] $($body)* }
    };
    (min = $min:literal, max = 730 $(, feature = $f:literal)* => $($body:tt)*) => {
        $crate::__api_pick! { yes [$($f),*] $($body)* }
    };
    (min = $min:literal, max = 740 $(, feature = $f:literal)* => $($body:tt)*) => {
        $crate::__api_pick! { yes [$($f),*] $($body)* }
    };
    (min = $min:literal, max = $max:literal $(, feature = $f:literal)* => $($body:tt)*) => {
        $crate::__api_pick! { no [$($f),*] $($body)* }
    };
    (min = $min:literal $(, feature = $f:literal)* => $($body:tt)*) => {
        $crate::__api_pick! { yes [$($f),*] $($body)* }
    };
    (max = 730 $(, feature = $f:literal)* => $($body:tt)*) => {
        $crate::__api_pick! { yes [$($f),*] $($body)* }
    };
    (max = 740 $(, feature = $f:literal)* => $($body:tt)*) => {
        $crate::__api_pick! { yes [$($f),*] $($body)* }
    };
    (max = $max:literal $(, feature = $f:literal)* => $($body:tt)*) => {
        $crate::__api_pick! { no [$($f),*] $($body)* }
    };
}

/// The code a guard keeps: `yes` when 730 is in range, else `no`, which
/// still keeps it under a listed feature of the calling crate.
#[doc(hidden)]
#[macro_export]
macro_rules! __api_pick {
    (yes [$($f:literal),*] { $($then:tt)* } else { $($else:tt)* }) => {{ $($then)* }};
    (yes [$($f:literal),*] $($then:tt)*) => { $($then)* };
    (no [] { $($then:tt)* } else { $($else:tt)* }) => {{ $($else)* }};
    (no [] $($then:tt)*) => {};
    (no [$($f:literal),+] { $($then:tt)* } else { $($else:tt)* }) => {{
        #[cfg(any($(feature = $f),+))]
        { $($then)* }
        #[cfg(not(any($(feature = $f),+)))]
        { $($else)* }
    }};
    (no [$($f:literal),+] $($then:tt)*) => {
        #[cfg(any($(feature = $f),+))]
        $($then)*
    };
}

#[cfg(test)]
mod tests {
    /// Every function of the header once: 105, the two macros aside.
    #[test]
    fn every_function_of_the_header_has_one_signature() {
        let names: std::collections::BTreeSet<_> = crate::signatures::NAMES.iter().collect();
        assert_eq!(names.len(), crate::signatures::NAMES.len());
        assert_eq!(names.len(), 105);
        assert!(names.iter().all(|n| n.starts_with("fdb_")));
    }
}
