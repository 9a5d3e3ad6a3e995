//! FDB's error codes: the ones this library returns, their messages for
//! `fdb_get_error`, and what the C API adds to FDB's predicates on them
//! (`fdb_error_predicate`'s raw tests, and after what delay
//! `fdb_transaction_on_error` retries).
//!
//! Which codes are retryable, maybe committed or retried by `on_error` is
//! decided by fql's table of FDB's codes ([`fql::kv::error_predicate`],
//! [`fql::kv::retried_by_on_error`]), the one table the store, its retry loop,
//! fault injection and this library share, so the library's answers are
//! fql's own backends' answers.

use std::ffi::{CStr, c_char};
use std::time::Duration;

use fql::kv::{ErrorPredicate, error_predicate, retried_by_on_error};

/// An FDB error code; 0 is success.
pub type Code = i32;

pub const SUCCESS: Code = 0;
pub const TRANSACTION_TOO_OLD: Code = 1007;
pub const FUTURE_VERSION: Code = 1009;
pub const COMMIT_UNKNOWN_RESULT: Code = 1021;
pub const TRANSACTION_CANCELLED: Code = 1025;
pub const TRANSACTION_TIMED_OUT: Code = 1031;
pub const TOO_MANY_WATCHES: Code = 1032;
pub const WATCHES_DISABLED: Code = 1034;
pub const CLUSTER_VERSION_CHANGED: Code = 1039;
pub const COMMIT_PROXY_MEMORY_LIMIT_EXCEEDED: Code = 1042;
pub const GRV_PROXY_MEMORY_LIMIT_EXCEEDED: Code = 1078;
pub const OPERATION_CANCELLED: Code = 1101;
pub const FUTURE_RELEASED: Code = 1102;
pub const NO_CLUSTER_FILE_FOUND: Code = 1515;
pub const CLIENT_INVALID_OPERATION: Code = 2000;
pub const KEY_OUTSIDE_LEGAL_RANGE: Code = 2004;
pub const INVERTED_RANGE: Code = 2005;
pub const INVALID_OPTION_VALUE: Code = 2006;
pub const INVALID_OPTION: Code = 2007;
pub const NETWORK_NOT_SETUP: Code = 2008;
pub const NETWORK_ALREADY_SETUP: Code = 2009;
pub const READ_VERSION_ALREADY_SET: Code = 2010;
pub const VERSION_INVALID: Code = 2011;
pub const RANGE_LIMITS_INVALID: Code = 2012;
pub const FUTURE_NOT_SET: Code = 2015;
pub const USED_DURING_COMMIT: Code = 2017;
pub const INVALID_MUTATION_TYPE: Code = 2018;
pub const TRANSACTION_INVALID_VERSION: Code = 2020;
pub const NO_COMMIT_VERSION: Code = 2021;
pub const NETWORK_CANNOT_BE_RESTARTED: Code = 2025;
pub const BLOCKED_FROM_NETWORK_THREAD: Code = 2026;
pub const MAPPER_BAD_INDEX: Code = 2030;
pub const MAPPER_BAD_RANGE_DESCRIPTOR: Code = 2032;
pub const GET_MAPPED_RANGE_READS_YOUR_WRITES: Code = 2039;
pub const KEY_NOT_TUPLE: Code = 2041;
pub const VALUE_NOT_TUPLE: Code = 2042;
pub const MAPPER_NOT_TUPLE: Code = 2043;
pub const KEY_TOO_LARGE: Code = 2102;
pub const CONNECTION_STRING_INVALID: Code = 2104;
pub const UNSUPPORTED_OPERATION: Code = 2108;
pub const TOO_MANY_TAGS: Code = 2109;
pub const TAG_TOO_LONG: Code = 2110;
pub const TRANSACTION_TOO_LARGE: Code = 2101;
pub const TENANTS_DISABLED: Code = 2136;
pub const API_VERSION_UNSET: Code = 2200;
pub const API_VERSION_ALREADY_SET: Code = 2201;
pub const API_VERSION_INVALID: Code = 2202;
pub const API_VERSION_NOT_SUPPORTED: Code = 2203;
pub const EXACT_MODE_WITHOUT_LIMITS: Code = 2210;
pub const UNKNOWN_ERROR: Code = 4000;
pub const INTERNAL_ERROR: Code = 4100;

/// FDB's message for each code a client of this library can meet: those
/// the library and the store return, and the others of FDB's client
/// errors, so that a code passed through from elsewhere reads as FDB
/// would print it.
const MESSAGES: &[(Code, &CStr)] = &[
    (0, c"Success"),
    (1, c"End of stream"),
    (1000, c"Operation failed"),
    (1004, c"Operation timed out"),
    (1007, c"Transaction is too old to perform reads or be committed"),
    (1009, c"Request for future version"),
    (1020, c"Transaction not committed due to conflict with another transaction"),
    (1021, c"Transaction may or may not have committed"),
    (1025, c"Operation aborted because the transaction was cancelled"),
    (1031, c"Operation aborted because the transaction timed out"),
    (1032, c"Too many watches currently set"),
    (1034, c"Watches cannot be set if read your writes is disabled"),
    (1036, c"Read or wrote an unreadable key"),
    (1037, c"Storage process does not have recent mutations"),
    (1038, c"Database is locked"),
    (1039, c"The protocol version of the cluster has changed"),
    (1042, c"CommitProxy commit memory limit exceeded"),
    (1051, c"Batch GRV request rate limit exceeded"),
    (1078, c"GetReadVersion proxy memory limit exceeded"),
    (1079, c"BlobGranule request failed"),
    (1100, c"Broken promise"),
    (1101, c"Asynchronous operation cancelled"),
    (1102, c"Future has been released"),
    (1213, c"Transaction tag is being throttled"),
    (1223, c"Exceeded maximum proxy tag throttling duration"),
    (1235, c"Transaction throttled due to hot shard"),
    (1242, c"Transaction rejected due to range lock"),
    (1500, c"Platform error"),
    (1510, c"Disk i/o operation failed"),
    (1511, c"File not found"),
    (1513, c"File could not be read"),
    (1514, c"File could not be written"),
    (1515, c"No cluster file found in current directory or default location"),
    (2000, c"Invalid API call"),
    (2002, c"Commit with incomplete read"),
    (2004, c"Key outside legal range"),
    (2005, c"Range begin key larger than end key"),
    (2006, c"Option set with an invalid value"),
    (2007, c"Option not valid in this context"),
    (2008, c"Action not possible before the network is configured"),
    (2009, c"Network can be configured only once"),
    (2010, c"Transaction already has a read version set"),
    (2011, c"Version not valid"),
    (2012, c"Range limits not valid"),
    (2013, c"Database name must be 'DB'"),
    (2014, c"Attribute not found"),
    (2015, c"Future not ready"),
    (2016, c"Future not an error"),
    (2017, c"Operation issued while a commit was outstanding"),
    (2018, c"Unrecognized atomic mutation type"),
    (2019, c"Attribute too large for type int"),
    (2020, c"Transaction does not have a valid commit version"),
    (2021, c"Transaction is read-only and therefore does not have a commit version"),
    (2022, c"Environment variable network option could not be set"),
    (2023, c"Attempted to commit a transaction specified as read-only"),
    (2025, c"Network can only be started once"),
    (2026, c"Detected a deadlock in a callback called from the network thread"),
    (2030, c"The index in K[] or V[] is not a valid number or out of range"),
    (2031, c"A mapped key is not set in database"),
    (2032, c"\"{...}\" must be the last element of the mapper tuple"),
    (2033, c"One of the mapped range queries is too large"),
    (2034, c"Found a mapped key that is not served in the same SS"),
    (2035, c"Found a mapped range that is not served in the same SS"),
    (2038, c"getMappedRange does not support continuation for now"),
    (2039, c"getMappedRange tries to read data that were previously written in the transaction"),
    (2041, c"The key cannot be parsed as a tuple"),
    (2042, c"The value cannot be parsed as a tuple"),
    (2043, c"The mapper cannot be parsed as a tuple"),
    (2100, c"Incompatible protocol version"),
    (2101, c"Transaction exceeds byte limit"),
    (2102, c"Key length exceeds limit"),
    (2103, c"Value length exceeds limit"),
    (2104, c"Connection string invalid"),
    (2108, c"Operation is not supported"),
    (2109, c"Too many tags set on transaction"),
    (2110, c"Tag set on transaction is too long"),
    (2112, c"Special key space range read crosses modules. Refer to the `special_key_space_relaxed' transaction option for more details."),
    (2113, c"Special key space range read does not intersect a module. Refer to the `special_key_space_relaxed' transaction option for more details."),
    (2114, c"Special Key space is not allowed to write by default. Refer to the `special_key_space_enable_writes` transaction option for more details."),
    (2115, c"Special key space key or keyrange in set or clear does not intersect a module"),
    (2116, c"Special key space clear crosses modules"),
    (2117, c"Api call through special keys failed. For more information, call get on special key 0xff0xff/error_message to get a json string of the error message."),
    (2130, c"Tenant name must be specified to access data in the cluster"),
    (2131, c"Tenant does not exist"),
    (2136, c"Tenants have been disabled in the cluster"),
    (2200, c"API version is not set"),
    (2201, c"API version may be set only once"),
    (2202, c"API version not valid"),
    (2203, c"API version not supported"),
    (2210, c"EXACT streaming mode requires limits, but none were given"),
    (4000, c"An unknown error occurred"),
    (4100, c"An internal error occurred"),
    (4200, c"Not implemented yet"),
];

/// FDB's message for `code`, `UNKNOWN_ERROR` for one it does not know, as
/// `fdb_get_error` returns them.
pub fn message(code: Code) -> &'static CStr {
    MESSAGES
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(c"UNKNOWN_ERROR", |(_, m)| *m)
}

/// FDB's `fdb_get_error` pointer for `code`.
pub fn message_ptr(code: Code) -> *const c_char {
    message(code).as_ptr()
}

/// FDB's `fdb_error_predicate`: fql's one table of FDB's predicates
/// ([`error_predicate`]), shared with the store and its retry loop; a test
/// the C API does not define is false, as in FDB.
pub fn predicate(test: i32, code: Code) -> bool {
    ErrorPredicate::from_raw(test).is_some_and(|p| error_predicate(p, code))
}

/// How `on_error` waits before a retry of an error it retries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Retry {
    /// The transaction's growing back-off; `constrained` errors may grow
    /// it up to 30 s instead of the transaction's maximum delay.
    Backoff { constrained: bool },
    /// The short fixed delay of a read version that is too old or too new.
    Short,
    /// At once: FDB's multi-version client retries these without delay.
    Now,
}

/// The delay of [`Retry::Short`], capped by the maximum retry delay.
pub const SHORT_RETRY: Duration = Duration::from_millis(10);
/// The ceiling of a back-off grown by resource-constrained errors.
pub const CONSTRAINED_MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Whether `on_error` retries `code` (as [`retried_by_on_error`]
/// says, for every backend), and after what wait; `None` for errors it
/// returns to the caller.
pub fn retry_of(code: Code) -> Option<Retry> {
    if !retried_by_on_error(code) {
        return None;
    }
    Some(match code {
        COMMIT_PROXY_MEMORY_LIMIT_EXCEEDED | GRV_PROXY_MEMORY_LIMIT_EXCEEDED => {
            Retry::Backoff { constrained: true }
        }
        TRANSACTION_TOO_OLD | FUTURE_VERSION => Retry::Short,
        CLUSTER_VERSION_CHANGED => Retry::Now,
        _ => Retry::Backoff { constrained: false },
    })
}

/// A code as FDB's `Error::fromUnvalidatedCode` takes it: one outside FDB's
/// range is `unknown_error`.
pub fn validated(code: Code) -> Code {
    if (0..=30000).contains(&code) {
        code
    } else {
        UNKNOWN_ERROR
    }
}

/// The FDB code of one of the store's errors. The store's own failures
/// (a file it cannot read or write, damage, a database opened read-only)
/// have no FDB code but `unknown_error`, which says nothing; their message
/// goes to standard error, where FDB's client would log to its trace
/// files.
///
/// A wait for the file's lock that ran out ([`fql::kv::Error::Locked`])
/// is the store being busy, not the client's timeout: FDB answers
/// `transaction_timed_out` only for a timeout the client set (this
/// library ends such a transaction itself when its timer fires). It is
/// what FDB says when it cannot take more work now,
/// `grv_proxy_memory_limit_exceeded`, which `on_error` retries after a
/// growing back-off; [`of_commit`] says it of a commit.
pub fn of(e: &fql::kv::Error) -> Code {
    of_stage(e, GRV_PROXY_MEMORY_LIMIT_EXCEEDED)
}

/// [`of`] for a commit: a lock wait that ran out is
/// `commit_proxy_memory_limit_exceeded`, the commit that could not get in.
pub fn of_commit(e: &fql::kv::Error) -> Code {
    of_stage(e, COMMIT_PROXY_MEMORY_LIMIT_EXCEEDED)
}

fn of_stage(e: &fql::kv::Error, busy: Code) -> Code {
    let code = match e {
        fql::kv::Error::Locked { .. } => busy,
        e => e.code(),
    };
    if code == UNKNOWN_ERROR || code == busy {
        eprintln!("libfdb_c (fql): {e}");
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_fdbs_and_unknown_codes_say_so() {
        assert_eq!(
            message(1020).to_str().unwrap(),
            "Transaction not committed due to conflict with another transaction"
        );
        assert_eq!(message(31337).to_str().unwrap(), "UNKNOWN_ERROR");
    }

    /// `on_error` retries exactly what fql's table says, and every code a
    /// predicate calls retryable among them.
    #[test]
    fn on_error_retries_what_fqls_table_retries() {
        for code in (-1..5000).chain([30001, i32::MAX]) {
            assert_eq!(
                retry_of(code).is_some(),
                retried_by_on_error(code),
                "{code}"
            );
            if predicate(50000, code) {
                assert!(retry_of(code).is_some(), "{code}");
            }
        }
        assert_eq!(retry_of(1078), Some(Retry::Backoff { constrained: true }));
        assert_eq!(retry_of(1009), Some(Retry::Short));
        assert_eq!(retry_of(1039), Some(Retry::Now));
    }

    /// A lock wait on the file that ran out is retried with back-off, not
    /// reported as the client's timeout.
    #[test]
    fn a_lock_wait_that_ran_out_is_busy_not_timed_out() {
        let locked = fql::kv::Error::Locked {
            path: "t.db".into(),
            waited_ms: 10_000,
        };
        assert_eq!(of(&locked), GRV_PROXY_MEMORY_LIMIT_EXCEEDED);
        assert_eq!(of_commit(&locked), COMMIT_PROXY_MEMORY_LIMIT_EXCEEDED);
        for code in [of(&locked), of_commit(&locked)] {
            assert_eq!(retry_of(code), Some(Retry::Backoff { constrained: true }));
        }
        let timed_out = fql::kv::Error::TransactionTimedOut;
        assert_eq!(of(&timed_out), TRANSACTION_TIMED_OUT);
        assert_eq!(of_commit(&timed_out), TRANSACTION_TIMED_OUT);
    }

    /// The C API's raw tests; any other is false.
    #[test]
    fn predicates_take_the_c_apis_values() {
        assert!(predicate(50000, 1242));
        assert!(predicate(50001, 1021));
        assert!(!predicate(50002, 1021));
        assert!(predicate(50002, 1235));
        assert!(!predicate(50000, 2200));
        assert!(!predicate(50003, 1020));
    }
}
