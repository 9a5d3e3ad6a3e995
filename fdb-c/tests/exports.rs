//! `libfdb_c.so` exports every function `fdb_c.h` (API 730, the legacy
//! declarations included) declares, each with the header's signature: a
//! binding resolves the functions it uses by name and calls them as the
//! header declares them, so one missing name makes the library unusable
//! to it, and one wrong signature corrupts its calls.
//!
//! The signatures are checked when this test compiles: each exported
//! function must coerce to the function pointer type `foundationdb-sys`
//! declares for it (`foundationdb_sys::signatures`), built from the same
//! types, so a parameter or result of another type is a compile error.

use std::process::Command;

use fdb_c::api::*;
use fdb_c::database::*;
use fdb_c::future::exports::*;
use fdb_c::network::*;
use fdb_c::transaction::exports::*;
use fdb_c::transaction::tenant_handle::*;
use fdb_c::unsupported::*;
use foundationdb_sys::signatures;

/// Lists the functions of the header as `DECLARED`, and checks each
/// library function against its declared signature.
macro_rules! declared {
    ($($name:ident,)*) => {
        const DECLARED: &[&str] = &[$(stringify!($name)),*];

        /// Compiles only if every function has the header's signature.
        #[test]
        fn every_function_has_the_header_s_signature() {
            $(let _: signatures::$name = $name;)*
            let mut declared = DECLARED.to_vec();
            let mut signatures = signatures::NAMES.to_vec();
            declared.sort_unstable();
            signatures.sort_unstable();
            // The loader declares the header's functions, no others.
            assert_eq!(declared, signatures);
        }
    };
}

// The functions of FoundationDB 7.3's `fdb_c.h`, less the two macros
// (`fdb_select_api_version`, `fdb_select_api_version_capped`).
declared! {
    fdb_add_network_thread_completion_hook,
    fdb_cluster_create_database,
    fdb_cluster_destroy,
    fdb_cluster_set_option,
    fdb_create_cluster,
    fdb_create_database,
    fdb_create_database_from_connection_string,
    fdb_database_blobbify_range,
    fdb_database_blobbify_range_blocking,
    fdb_database_create_snapshot,
    fdb_database_create_transaction,
    fdb_database_destroy,
    fdb_database_flush_blob_range,
    fdb_database_force_recovery_with_data_loss,
    fdb_database_get_client_status,
    fdb_database_get_main_thread_busyness,
    fdb_database_get_server_protocol,
    fdb_database_list_blobbified_ranges,
    fdb_database_open_tenant,
    fdb_database_purge_blob_granules,
    fdb_database_reboot_worker,
    fdb_database_set_option,
    fdb_database_unblobbify_range,
    fdb_database_verify_blob_range,
    fdb_database_wait_purge_granules_complete,
    fdb_error_predicate,
    fdb_future_block_until_ready,
    fdb_future_cancel,
    fdb_future_destroy,
    fdb_future_get_bool,
    fdb_future_get_cluster,
    fdb_future_get_database,
    fdb_future_get_double,
    fdb_future_get_error,
    fdb_future_get_granule_summary_array,
    fdb_future_get_int64,
    fdb_future_get_key,
    fdb_future_get_key_array,
    fdb_future_get_keyrange_array,
    fdb_future_get_keyvalue_array,
    fdb_future_get_mappedkeyvalue_array,
    fdb_future_get_string_array,
    fdb_future_get_uint64,
    fdb_future_get_value,
    fdb_future_get_version,
    fdb_future_is_error,
    fdb_future_is_ready,
    fdb_future_readbg_get_descriptions,
    fdb_future_release_memory,
    fdb_future_set_callback,
    fdb_get_client_version,
    fdb_get_error,
    fdb_get_max_api_version,
    fdb_network_set_option,
    fdb_readbg_parse_delta_file,
    fdb_readbg_parse_snapshot_file,
    fdb_result_destroy,
    fdb_result_get_bg_mutations_array,
    fdb_result_get_keyvalue_array,
    fdb_run_network,
    fdb_select_api_version_impl,
    fdb_setup_network,
    fdb_stop_network,
    fdb_tenant_blobbify_range,
    fdb_tenant_blobbify_range_blocking,
    fdb_tenant_create_transaction,
    fdb_tenant_destroy,
    fdb_tenant_flush_blob_range,
    fdb_tenant_get_id,
    fdb_tenant_list_blobbified_ranges,
    fdb_tenant_purge_blob_granules,
    fdb_tenant_unblobbify_range,
    fdb_tenant_verify_blob_range,
    fdb_tenant_wait_purge_granules_complete,
    fdb_transaction_add_conflict_range,
    fdb_transaction_atomic_op,
    fdb_transaction_cancel,
    fdb_transaction_clear,
    fdb_transaction_clear_range,
    fdb_transaction_commit,
    fdb_transaction_destroy,
    fdb_transaction_get,
    fdb_transaction_get_addresses_for_key,
    fdb_transaction_get_approximate_size,
    fdb_transaction_get_blob_granule_ranges,
    fdb_transaction_get_committed_version,
    fdb_transaction_get_estimated_range_size_bytes,
    fdb_transaction_get_key,
    fdb_transaction_get_mapped_range,
    fdb_transaction_get_range,
    fdb_transaction_get_range_selector,
    fdb_transaction_get_range_split_points,
    fdb_transaction_get_read_version,
    fdb_transaction_get_tag_throttled_duration,
    fdb_transaction_get_total_cost,
    fdb_transaction_get_versionstamp,
    fdb_transaction_on_error,
    fdb_transaction_read_blob_granules,
    fdb_transaction_read_blob_granules_description,
    fdb_transaction_reset,
    fdb_transaction_set,
    fdb_transaction_set_option,
    fdb_transaction_set_read_version,
    fdb_transaction_summarize_blob_granules,
    fdb_transaction_watch,
}

#[test]
fn every_function_of_the_header_is_exported() {
    // Integration tests run from target/<profile>/deps, beside the library.
    let exe = std::env::current_exe().unwrap();
    let so = exe.parent().unwrap().join("libfdb_c.so");
    assert!(so.is_file(), "{} is missing", so.display());
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&so)
        .output()
        .expect("nm (binutils) lists the library's symbols");
    assert!(out.status.success());
    let listing = String::from_utf8_lossy(&out.stdout);
    let exported: std::collections::HashSet<&str> = listing
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let missing: Vec<_> = DECLARED
        .iter()
        .filter(|n| !exported.contains(**n))
        .collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
}
