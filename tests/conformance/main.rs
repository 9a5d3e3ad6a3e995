//! One suite for every backend: the transaction interface's behaviour and
//! the whole directory layer, written once and run against the embedded
//! store in memory, in a file, inside a directory (`scoped`), and against a
//! FoundationDB cluster.
//!
//! The `fdb` cases run when `FDB_CLUSTER_FILE` names a cluster and the
//! FoundationDB client library loads (from `FDB_CLIENT_LIB_PATH` or where
//! FDB installs it); otherwise they are listed as ignored, with the
//! reason printed first, so a run without a cluster never passes them
//! silently. The harness is libtest-mimic rather than
//! `#[test]` so that the cluster's network can start once, before the
//! cases, and stop once, after them.

mod atomics;
mod backend;
mod costs;
mod directory;
mod dump;
#[path = "../support/eventually.rs"]
mod eventually;
mod fixtures;
#[path = "../support/hooked.rs"]
mod hooked;
mod kv;
mod partitioned;
mod scoped;
mod versions;
mod watch;
#[path = "../support/window.rs"]
mod window;

use std::process::ExitCode;

use libtest_mimic::{Arguments, Trial};

use backend::{Backend, Kind};

/// A case: its name and what it does to a fresh database.
type Case = (&'static str, fn(&Backend));

/// Every case, by module path.
macro_rules! cases {
    ($($case:path),* $(,)?) => {
        &[$((stringify!($case), $case as fn(&Backend))),*]
    };
}

const CASES: &[Case] = cases![
    kv::keys_sort_as_unsigned_bytes,
    dump::a_subtree_loads_under_another_path_byte_for_byte,
    dump::a_load_refuses_data_outside_and_targets_that_hold_data,
    dump::a_load_resumes_after_the_lines_it_committed,
    dump::a_load_creates_at_most_a_thousand_directories_a_transaction,
    dump::a_whole_dump_loads_into_an_empty_database_byte_for_byte,
    dump::a_whole_load_resumes_after_the_lines_it_committed,
    kv::range_edges_limits_and_reverse,
    kv::range_reads_stream_in_batches,
    kv::range_reads_read_ahead,
    kv::range_errors,
    kv::inverted_ranges_read_nothing_and_fail_to_clear,
    kv::clears_and_range_clears,
    kv::reads_see_own_writes,
    kv::atomic_operations,
    atomics::every_operation_as_fdb_defines_it,
    atomics::append_if_fits_stops_at_the_value_limit,
    atomics::counters_are_kept_with_add,
    atomics::atomic_operations_take_no_read_conflict,
    atomics::concurrent_adds_lose_no_update,
    kv::later_writes_of_a_key_win_at_commit,
    kv::versionstamps_are_shared_within_a_commit_and_increase,
    kv::versions_advance_with_time,
    kv::versionstamped_value_is_unreadable_before_commit,
    kv::versionstamped_key_range_is_unreadable_before_commit,
    kv::watches_fire_on_change,
    kv::watches_see_their_own_transactions_writes,
    kv::watches_of_a_failed_commit_fail_with_its_error,
    kv::watch_of_uncommitted_transaction_is_cancelled,
    watch::a_range_reports_sets_changes_clears_and_new_keys,
    watch::one_key_reports_each_change,
    watch::keys_past_the_bound_on_watches_are_followed_by_the_re_read,
    watch::quiet_watches_end_at_their_time_or_when_stopped,
    watch::writes_and_several_queries_are_refused,
    watch::a_pattern_follows_the_directories_inside_partitions,
    kv::limits_fail_and_write_nothing,
    kv::clears_of_keys_too_long_to_store_do_not_fail,
    kv::transaction_size_counts_what_fdb_counts,
    kv::conflicting_commits_fail_and_retry,
    versions::an_older_read_version_reads_the_state_then,
    versions::a_version_past_the_latest_is_a_future_version,
    versions::a_version_the_window_has_left_is_too_old,
    versions::a_commit_is_checked_from_the_version_it_read_at,
    kv::conflicting_keys_report_the_read_range_written,
    kv::concurrent_increments_lose_no_update,
    kv::snapshot_reads_do_not_conflict,
    kv::manual_conflict_ranges,
    kv::read_only_commit_writes_nothing,
    kv::retry_loop_stops_on_caller_errors,
    kv::retry_limit_and_timeout,
    kv::past_its_timeout_a_transaction_reads_and_commits_nothing,
    kv::system_keys_need_their_options,
    kv::the_metadata_version_is_read_by_anyone_and_only_stamped,
    kv::special_keys_answer_status_json_and_fail_the_rest,
    kv::read_your_writes_disable_reads_past_own_writes,
    kv::snapshot_ryw_disable_hides_writes_from_snapshot_reads,
    kv::special_key_writes_need_the_option_and_a_module,
    kv::estimated_range_size_follows_the_data,
    directory::golden::standard_layout_byte_for_byte,
    directory::golden::partition_layout_byte_for_byte,
    directory::golden::reads_write_nothing_and_the_first_write_adds_the_version,
    directory::golden::windows_advance_as_the_reference_reports,
    directory::golden::moves_removes_and_partitions_byte_for_byte,
    directory::behaviour::create_or_open_creates_missing_parents,
    directory::behaviour::open_and_create_refuse,
    directory::behaviour::list_is_in_byte_order,
    directory::behaviour::remove_clears_contents_and_metadata,
    directory::behaviour::move_relinks_and_keeps_prefix_and_contents,
    directory::behaviour::move_refuses,
    directory::behaviour::version_checks,
    directory::behaviour::allocator_refuses_prefixes_with_keys,
    directory::behaviour::manual_prefixes,
    directory::behaviour::many_operations_share_one_transaction,
    directory::outside::the_root_is_the_gaps_between_prefixes_forward_and_reversed,
    directory::outside::the_prefix_holding_a_key_is_its_directory_or_partition,
    directory::outside::each_space_reads_its_own_keys,
    directory::partitions::directories_inside_share_the_partition_prefix,
    directory::partitions::list_exists_and_create_go_through,
    directory::partitions::moves_stay_inside_one_partition,
    directory::partitions::removing_a_partition_clears_everything_inside,
    partitioned::a_key_named_in_a_partition_fails_before_writing,
    partitioned::counts_of_a_partition_add_up_its_directories,
    partitioned::schemas_read_the_directories_inside,
    partitioned::a_dump_of_a_partition_loads_back_as_partitions,
    directory::survey::tree_shows_layers_prefixes_and_partitions,
    directory::survey::holdings_tell_subdirectories_and_keys,
    directory::survey::count_is_exact_and_leaves_out_subdirectories,
    directory::concurrency::threads_never_share_a_prefix,
    directory::concurrency::the_same_candidate_twice_conflicts,
    directory::concurrency::different_candidates_do_not_conflict,
    costs::reads_are_counted_by_level_and_filtered_rows_apart,
    costs::levels_go_on_inside_a_partition,
    costs::writes_and_retries_are_counted,
    directory::cache::a_cached_path_costs_three_reads,
    directory::cache::other_sessions_changes_are_seen,
    directory::cache::a_writer_that_does_not_stamp,
    costs::a_conflict_is_counted_with_its_range_and_reader,
];

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let cluster = cluster::connect();
    if let Err(why) = &cluster {
        eprintln!("fdb: {} cases skipped: {why}", CASES.len());
    }
    let fixtures = fixtures::all();
    let mut trials = Vec::new();
    let whole = std::env::var_os(backend::WHOLE_KEYSPACE).is_some();
    if cluster.is_ok() && !whole {
        eprintln!(
            "fdb_whole: {} cases skipped: set {} on a database the suite may clear",
            CASES.len(),
            backend::WHOLE_KEYSPACE
        );
    }
    for kind in Kind::ALL {
        let skip = match kind {
            Kind::Fdb => cluster.is_err(),
            Kind::FdbWhole => cluster.is_err() || !whole,
            _ => false,
        };
        for &(name, case) in CASES {
            let trial = Trial::test(format!("{kind}::{name}"), move || {
                case(&Backend::new(kind));
                Ok(())
            });
            trials.push(trial.with_ignored_flag(skip));
        }
        for (name, path) in &fixtures {
            let path = path.clone();
            let trial = Trial::test(format!("{kind}::fixtures::{name}"), move || {
                fixtures::run(kind, &path);
                Ok(())
            });
            trials.push(trial.with_ignored_flag(skip));
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    // The cases are done with the cluster: stop its network before exit.
    drop(cluster);
    conclusion.exit_code()
}

/// Connecting to the cluster named by `FDB_CLUSTER_FILE`.
#[cfg(feature = "fdb")]
mod cluster {
    use std::sync::Arc;
    use std::time::Duration;

    use fql::kv::CLUSTER_FILE_ENV;
    use fql::kv::fdb::{Fdb, Network, cluster_file};

    /// Starts the network and opens the cluster; the network stops when
    /// the returned value is dropped.
    pub fn connect() -> Result<Network, String> {
        let Some(path) = cluster_file(None) else {
            return Err(format!(
                "set {CLUSTER_FILE_ENV} to run them against a cluster"
            ));
        };
        // SAFETY: main drops the network before it exits.
        let network = unsafe { Network::start() }.map_err(|e| e.to_string())?;
        let db = Fdb::open(&network, Some(&path), Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        let _ = super::backend::CLUSTER.set(Arc::new(db));
        Ok(network)
    }
}

/// Without the `fdb` feature (a build without default features) there is
/// no cluster to connect to.
#[cfg(not(feature = "fdb"))]
mod cluster {
    pub fn connect() -> Result<(), String> {
        Err(
            "build with `--features fdb` and set FDB_CLUSTER_FILE to run them against a cluster"
                .into(),
        )
    }
}
