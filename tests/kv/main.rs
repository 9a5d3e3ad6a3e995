//! The transaction interface's behaviour, written once and run against
//! every backend: the embedded in-memory store and the embedded file.

mod support;

mod cases;
mod embedded;
mod model;
mod processes;

/// Instantiates every conformance case for every backend.
macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod memory {
            $( #[test] fn $case() { crate::cases::$case(&crate::support::Backend::memory()) } )*
        }
        mod file {
            $( #[test] fn $case() { crate::cases::$case(&crate::support::Backend::file()) } )*
        }
    };
}

conformance!(
    keys_sort_as_unsigned_bytes,
    range_edges_limits_and_reverse,
    range_reads_stream_in_batches,
    range_errors,
    clears_and_range_clears,
    reads_see_own_writes,
    atomic_operations,
    versionstamps_are_shared_within_a_commit_and_increase,
    versionstamped_value_is_unreadable_before_commit,
    watches_fire_on_change,
    watch_of_uncommitted_transaction_is_cancelled,
    limits_fail_and_write_nothing,
    conflicting_commits_fail_and_retry,
    concurrent_increments_lose_no_update,
    snapshot_reads_do_not_conflict,
    manual_conflict_ranges,
    read_only_commit_writes_nothing,
    retry_loop_stops_on_caller_errors,
    retry_limit_and_timeout,
);
