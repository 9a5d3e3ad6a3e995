//! FoundationDB's error codes, and its predicates over them: which errors
//! running the transaction again may cure, and which leave a commit's
//! outcome unknown.
//!
//! One table for every backend: the embedded store's `on_error`, the
//! FoundationDB adapter, the retry loop, fault injection and a C library
//! answering `fdb_error_predicate` all decide from here, so they cannot
//! drift apart.
//!
//! The sets are those of FoundationDB 7.3's client (`fdb_error_predicate`
//! in `bindings/c/fdb_c.cpp`, `Transaction::onError` in
//! `fdbclient/NativeAPI.actor.cpp`), with the two codes 7.4's client adds
//! to both: `transaction_throttled_hot_shard` (1235) and
//! `transaction_rejected_range_locked` (1242). A 7.3 client never sees
//! either (1235 is a data distributor's internal error there, 1242 does
//! not exist), and a 7.4 client at API version 730 retries both, so the
//! union is right for each.

/// The tests of FDB's `fdb_error_predicate`, with the C API's values
/// (`FDBErrorPredicate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum ErrorPredicate {
    /// The transaction may succeed if run again: maybe committed, or
    /// retryable and not committed.
    Retryable = 50000,
    /// The transaction may have committed although it reported the error.
    MaybeCommitted = 50001,
    /// The transaction did not commit, and running it again may succeed.
    RetryableNotCommitted = 50002,
}

impl ErrorPredicate {
    /// The predicate of the C API's value, if it is one.
    pub fn from_raw(raw: i32) -> Option<ErrorPredicate> {
        [
            ErrorPredicate::Retryable,
            ErrorPredicate::MaybeCommitted,
            ErrorPredicate::RetryableNotCommitted,
        ]
        .into_iter()
        .find(|p| *p as i32 == raw)
    }
}

/// Codes after which the commit may or may not have been applied:
/// `commit_unknown_result`, `cluster_version_changed`.
const MAYBE_COMMITTED: [i32; 2] = [1021, 1039];

/// Codes that say the transaction did not commit and may if run again:
/// too old, future version, conflict, a storage server behind, a locked
/// database, proxies out of memory, throttling, a locked range.
const RETRYABLE_NOT_COMMITTED: [i32; 12] = [
    1007, 1009, 1020, 1037, 1038, 1042, 1051, 1078, 1213, 1223, 1235, 1242,
];

/// `blob_granule_request_failed`: `on_error` retries it, though
/// `fdb_error_predicate` does not call it retryable.
const RETRIED_ONLY_BY_ON_ERROR: i32 = 1079;

/// FDB's `fdb_error_predicate(predicate, code)`.
pub fn error_predicate(predicate: ErrorPredicate, code: i32) -> bool {
    match predicate {
        ErrorPredicate::Retryable => {
            MAYBE_COMMITTED.contains(&code) || RETRYABLE_NOT_COMMITTED.contains(&code)
        }
        ErrorPredicate::MaybeCommitted => MAYBE_COMMITTED.contains(&code),
        ErrorPredicate::RetryableNotCommitted => RETRYABLE_NOT_COMMITTED.contains(&code),
    }
}

/// Whether FDB's `on_error` retries `code` (resets the transaction after a
/// backoff) rather than returning it: the predicate's retryable codes and
/// `blob_granule_request_failed` (1079).
pub fn retried_by_on_error(code: i32) -> bool {
    error_predicate(ErrorPredicate::Retryable, code) || code == RETRIED_ONLY_BY_ON_ERROR
}

/// The codes fql names, with FDB's names and a description of each.
const KNOWN: &[(i32, &str, &str)] = &[
    (
        1007,
        "transaction_too_old",
        "the transaction is too old to read or commit",
    ),
    (
        1009,
        "future_version",
        "a read asked for a version the storage server does not have yet",
    ),
    (
        1020,
        "not_committed",
        "the transaction conflicted with another and was not committed",
    ),
    (
        1021,
        "commit_unknown_result",
        "the transaction may or may not have committed",
    ),
    (
        1022,
        "commit_unknown_result_fatal",
        "whether the transaction committed can no longer be found out",
    ),
    (
        1025,
        "transaction_cancelled",
        "the transaction was cancelled",
    ),
    (1031, "transaction_timed_out", "the operation timed out"),
    (1032, "too_many_watches", "too many watches are outstanding"),
    (
        1034,
        "watches_disabled",
        "watches are disabled: the transaction does not read its own writes",
    ),
    (
        1036,
        "accessed_unreadable",
        "the read touched a key written with a versionstamp",
    ),
    (
        1037,
        "process_behind",
        "a storage server is behind the transaction's read version",
    ),
    (1038, "database_locked", "the database is locked"),
    (
        1039,
        "cluster_version_changed",
        "the cluster's protocol version changed",
    ),
    (
        1042,
        "commit_proxy_memory_limit_exceeded",
        "a commit proxy ran out of memory for commits",
    ),
    (
        1051,
        "batch_transaction_throttled",
        "batch-priority transactions are throttled",
    ),
    (
        1078,
        "grv_proxy_memory_limit_exceeded",
        "a read version proxy ran out of memory",
    ),
    (
        1079,
        "blob_granule_request_failed",
        "a blob granule request failed",
    ),
    (1213, "tag_throttled", "the transaction's tag is throttled"),
    (
        1223,
        "proxy_tag_throttled",
        "the transaction's tag was throttled for too long",
    ),
    (
        1235,
        "transaction_throttled_hot_shard",
        "the transaction writes a shard that is throttled as hot",
    ),
    (
        1242,
        "transaction_rejected_range_locked",
        "the transaction touches a locked range",
    ),
    (2000, "client_invalid_operation", "the operation is invalid"),
    (
        2004,
        "key_outside_legal_range",
        "the key is outside the legal range",
    ),
    (2005, "inverted_range", "the range begins after it ends"),
    (
        2010,
        "read_version_already_set",
        "the transaction already has a read version",
    ),
    (2011, "version_invalid", "the version is not valid"),
    (
        2101,
        "transaction_too_large",
        "the transaction exceeds the size limit",
    ),
    (2102, "key_too_large", "a key exceeds the size limit"),
    (2103, "value_too_large", "a value exceeds the size limit"),
    (
        2108,
        "unsupported_operation",
        "the operation is not supported",
    ),
    (
        2112,
        "special_keys_cross_module_read",
        "the special-key read crosses the bounds of its module",
    ),
    (
        2113,
        "special_keys_no_module_found",
        "no module of the special keys answers this key",
    ),
    (
        2114,
        "special_keys_write_disabled",
        "special keys may be written only with special_key_space_enable_writes",
    ),
    (
        2115,
        "special_keys_no_write_module_found",
        "no module of the special keys writes this key",
    ),
    (
        2116,
        "special_keys_cross_module_clear",
        "the special-key clear crosses the bounds of its module",
    ),
    (
        2117,
        "special_keys_api_failure",
        "a call through the special keys failed",
    ),
    (
        2136,
        "tenants_disabled",
        "tenants are disabled in the cluster",
    ),
    (
        2210,
        "exact_mode_without_limits",
        "the exact streaming mode needs a limit",
    ),
    (4000, "unknown_error", "an unknown error"),
];

/// FDB's name for `code`, when fql knows it.
pub fn error_name(code: i32) -> Option<&'static str> {
    KNOWN.iter().find(|k| k.0 == code).map(|k| k.1)
}

/// A description of `code`, when fql knows it.
pub fn error_description(code: i32) -> Option<&'static str> {
    KNOWN.iter().find(|k| k.0 == code).map(|k| k.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FDB 7.3's `fdb_error_predicate`, code by code, with 7.4's two
    /// additions; every other code of the table is neither.
    #[test]
    fn the_predicates_are_fdbs() {
        let maybe = [1021, 1039];
        let not_committed = [
            1007, 1009, 1020, 1037, 1038, 1042, 1051, 1078, 1213, 1223, 1235, 1242,
        ];
        for code in (0..5000).chain([-1, i32::MAX]) {
            let m = maybe.contains(&code);
            let n = not_committed.contains(&code);
            assert_eq!(
                error_predicate(ErrorPredicate::MaybeCommitted, code),
                m,
                "{code}"
            );
            assert_eq!(
                error_predicate(ErrorPredicate::RetryableNotCommitted, code),
                n,
                "{code}"
            );
            assert_eq!(
                error_predicate(ErrorPredicate::Retryable, code),
                m || n,
                "{code}"
            );
            assert_eq!(retried_by_on_error(code), m || n || code == 1079, "{code}");
        }
    }

    #[test]
    fn predicates_have_the_c_apis_values() {
        assert_eq!(
            ErrorPredicate::from_raw(50000),
            Some(ErrorPredicate::Retryable)
        );
        assert_eq!(
            ErrorPredicate::from_raw(50001),
            Some(ErrorPredicate::MaybeCommitted)
        );
        assert_eq!(
            ErrorPredicate::from_raw(50002),
            Some(ErrorPredicate::RetryableNotCommitted)
        );
        assert_eq!(ErrorPredicate::from_raw(50003), None);
        assert_eq!(ErrorPredicate::from_raw(0), None);
    }

    /// Every code a predicate names has a name, so an injected or reported
    /// error reads as FDB's.
    #[test]
    fn retryable_codes_are_named() {
        for code in MAYBE_COMMITTED.iter().chain(&RETRYABLE_NOT_COMMITTED) {
            assert!(error_name(*code).is_some(), "{code}");
            assert!(error_description(*code).is_some(), "{code}");
        }
        assert_eq!(error_name(1078), Some("grv_proxy_memory_limit_exceeded"));
        assert_eq!(error_name(1242), Some("transaction_rejected_range_locked"));
        assert_eq!(error_name(1), None);
    }
}
