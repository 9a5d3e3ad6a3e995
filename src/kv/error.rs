//! Errors of the transaction interface.
//!
//! Where FoundationDB has an error for a situation, the variant carries its
//! name and code, so a message reads the same on every backend and the retry
//! loop can decide what to retry from the code alone.

use std::fmt;
use std::sync::Arc;

/// Shorthand for results of the transaction interface.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error from a backend or from the transaction interface.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// 1007: the transaction read or committed more than five seconds after
    /// its read version was taken. Retryable.
    #[error("transaction_too_old (1007): the transaction is older than the 5 second limit")]
    TransactionTooOld,
    /// 1020: another transaction wrote a key this one read. Retryable.
    #[error(
        "not_committed (1020): the transaction conflicted with another transaction and was not committed"
    )]
    NotCommitted,
    /// 1021: the commit may or may not have been applied. Retryable, but
    /// only by code that is idempotent or checks what happened.
    #[error("commit_unknown_result (1021): the transaction may or may not have committed")]
    CommitUnknownResult,
    /// 1025: the transaction was cancelled, or a watch outlived a
    /// transaction that never committed.
    #[error("transaction_cancelled (1025): the transaction was cancelled")]
    TransactionCancelled,
    /// 1031: the transaction ran past its timeout.
    #[error("transaction_timed_out (1031): the operation timed out")]
    TransactionTimedOut,
    /// 1032: more watches than the database allows are outstanding.
    #[error("too_many_watches (1032): more than {limit} watches are outstanding")]
    TooManyWatches {
        /// The database's watch limit.
        limit: usize,
    },
    /// 1036: a read reached what is only known at commit: a versionstamped
    /// value this transaction wrote, or the range where a versionstamped
    /// key it wrote may land (any stamp from the read version's up).
    #[error(
        "accessed_unreadable (1036): the read reaches a key or value this transaction wrote with a versionstamp, which is unknown until it commits"
    )]
    AccessedUnreadable,
    /// 2000: an operation was used in a way FDB rejects.
    #[error("client_invalid_operation (2000): {0}")]
    InvalidOperation(String),
    /// 2004: keys starting with `0xff` belong to the system.
    #[error("key_outside_legal_range (2004): keys starting with 0xff are reserved for the system")]
    KeyOutsideLegalRange,
    /// 2005: a range whose begin sorts after its end.
    #[error("inverted_range (2005): the range begins after it ends")]
    InvertedRange,
    /// 2101: the transaction's mutations and conflict ranges exceed the limit.
    #[error(
        "transaction_too_large (2101): the transaction's writes and conflict ranges come to {size} bytes; the limit is {limit}"
    )]
    TransactionTooLarge {
        /// Bytes of the transaction's mutations and conflict ranges, as
        /// FDB counts them.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// 2102: a key is longer than the limit.
    #[error("key_too_large (2102): a key of {size} bytes is over the limit of {limit}")]
    KeyTooLarge {
        /// The key's length.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// 2103: a value is longer than the limit.
    #[error("value_too_large (2103): a value of {size} bytes is over the limit of {limit}")]
    ValueTooLarge {
        /// The value's length.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// 2210: `exact` streaming mode needs a limit.
    #[error("exact_mode_without_limits (2210): the exact streaming mode needs a limit")]
    ExactModeWithoutLimits,
    /// Any other FDB error, by code, as the FoundationDB client reported
    /// it (or as fault injection makes it), with FDB's name for the code.
    #[error("{} ({code}): {message}", super::codes::error_name(*code).unwrap_or("unknown_error"))]
    Fdb {
        /// FDB's error code.
        code: i32,
        /// FDB's description.
        message: String,
    },
    /// 1031: another connection held a lock on the embedded database file
    /// for the whole of a wait: the store's timeout (`--timeout`), or what
    /// was left of the transaction's own `Timeout` when that ran out first
    /// (when nothing was left, the error is [`Error::TransactionTimedOut`]).
    /// SQLite answered busy (`SQLITE_BUSY`, `SQLITE_LOCKED` or
    /// `SQLITE_PROTOCOL`) until then. A process stopped (Ctrl-Z, a
    /// debugger) or hung in the middle of a commit holds the lock until it
    /// resumes or dies. Reported as FDB's timeout, since to the caller the
    /// database did not answer in time; not retryable, as the wait is
    /// already spent.
    #[error(
        "transaction_timed_out (1031): another process holds the database {path} and did not release it within {waited_ms} ms (a process stopped with Ctrl-Z or in a debugger, or hung, holds it until it resumes or ends)"
    )]
    Locked {
        /// The database file.
        path: String,
        /// How long this process waited.
        waited_ms: u64,
    },
    /// The embedded database file was deleted or replaced while this
    /// process used it: commits would go to a file no other process sees,
    /// and its versions could repeat those of the new file. The commit is
    /// refused, nothing written.
    #[error(
        "the database file {0} was deleted or replaced while this process had it open; nothing was committed (open it again to use the new file)"
    )]
    Replaced(String),
    /// The storage under a backend failed: an unreadable file, a full disk,
    /// a file that is not an fql database.
    #[error("storage error: {message}")]
    Storage {
        /// What failed, in words that name the file where there is one.
        message: String,
        /// The failure under it (SQLite's, the file system's), kept so a
        /// caller can walk the chain with [`std::error::Error::source`]:
        /// the message says what fql was doing, the cause what the system
        /// said.
        #[source]
        cause: Option<Cause>,
    },
    /// The database can be read but not written: it was opened read-only,
    /// or its file, directory or file system does not let this process
    /// write. Nothing was written. Not retryable: retrying cannot help.
    #[error("{0}")]
    ReadOnly(String),
    /// The database file is damaged: SQLite found a malformed page, or a
    /// table of fql's holds a value of the wrong type. Writes are refused
    /// from then on, so that damage is not built upon.
    #[error("{0}")]
    Corrupt(String),
}

/// The error under an [`Error::Storage`]: shared, so that the error stays
/// `Clone` as the retry loop and the executor need it, and compared by its
/// text, so that two reports of one failure are equal.
#[derive(Clone, Debug)]
pub struct Cause(Arc<dyn std::error::Error + Send + Sync>);

impl Cause {
    /// `error` as a cause.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Cause {
        Cause(Arc::new(error))
    }

    /// The error itself, to downcast or inspect.
    pub fn get(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A cause stands for the error it holds: it has that error's text and
/// that error's own cause.
impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl Eq for Cause {}

impl Error {
    /// A storage failure that fql found itself, with no error under it.
    pub fn storage(message: impl Into<String>) -> Error {
        Error::Storage {
            message: message.into(),
            cause: None,
        }
    }

    /// A storage failure that `cause` (SQLite's error, an I/O error)
    /// explains.
    pub fn storage_caused(
        message: impl Into<String>,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error::Storage {
            message: message.into(),
            cause: Some(Cause::new(cause)),
        }
    }

    /// `future_version` (1009): a read at `version`, which no commit has
    /// reached (the latest is `latest`). Retryable, as FDB's.
    pub fn future_version(version: u64, latest: u64) -> Error {
        Error::Fdb {
            code: 1009,
            message: format!(
                "the read version {version} is newer than the latest commit's, {latest}"
            ),
        }
    }

    /// FDB's numeric code; 4000 (`unknown_error`) for storage failures.
    pub fn code(&self) -> i32 {
        match self {
            Error::TransactionTooOld => 1007,
            Error::NotCommitted => 1020,
            Error::CommitUnknownResult => 1021,
            Error::TransactionCancelled => 1025,
            Error::TransactionTimedOut | Error::Locked { .. } => 1031,
            Error::TooManyWatches { .. } => 1032,
            Error::AccessedUnreadable => 1036,
            Error::InvalidOperation(_) => 2000,
            Error::KeyOutsideLegalRange => 2004,
            Error::InvertedRange => 2005,
            Error::TransactionTooLarge { .. } => 2101,
            Error::KeyTooLarge { .. } => 2102,
            Error::ValueTooLarge { .. } => 2103,
            Error::ExactModeWithoutLimits => 2210,
            Error::Fdb { code, .. } => *code,
            Error::Storage { .. } | Error::ReadOnly(_) | Error::Corrupt(_) | Error::Replaced(_) => {
                4000
            }
        }
    }

    /// FDB's name for the error; `unknown_error` for a code fql does not
    /// know.
    pub fn name(&self) -> &'static str {
        super::codes::error_name(self.code()).unwrap_or("unknown_error")
    }

    /// Whether FDB's `on_error` retries the error: running the
    /// transaction again may succeed. The set is
    /// [`retried_by_on_error`](super::retried_by_on_error)'s (FDB 7.3's,
    /// with 7.4's `transaction_throttled_hot_shard` and
    /// `transaction_rejected_range_locked`); fql's own errors (a file
    /// that cannot be written, a lock wait that ran out) are never
    /// retryable.
    pub fn is_retryable(&self) -> bool {
        self.is_fdb() && super::codes::retried_by_on_error(self.code())
    }

    /// Whether the transaction may have committed although it reported an
    /// error: FDB's `maybe_committed` predicate.
    pub fn is_maybe_committed(&self) -> bool {
        self.is_fdb()
            && super::codes::error_predicate(super::ErrorPredicate::MaybeCommitted, self.code())
    }

    /// Whether the error is one of FoundationDB's, which a backend hands to
    /// FDB's `on_error` to decide on; the others are fql's own (the
    /// embedded file's storage, access and lock waits) and always fatal.
    pub fn is_fdb(&self) -> bool {
        !matches!(
            self,
            Error::Locked { .. }
                | Error::Replaced(_)
                | Error::Storage { .. }
                | Error::ReadOnly(_)
                | Error::Corrupt(_)
        )
    }

    /// The error FDB reports with `code`: its typed variant where the
    /// interface has one that needs no detail, else [`Error::Fdb`] with
    /// the code's description.
    pub fn from_code(code: i32) -> Error {
        match code {
            1007 => Error::TransactionTooOld,
            1020 => Error::NotCommitted,
            1021 => Error::CommitUnknownResult,
            1025 => Error::TransactionCancelled,
            1031 => Error::TransactionTimedOut,
            1036 => Error::AccessedUnreadable,
            2004 => Error::KeyOutsideLegalRange,
            2005 => Error::InvertedRange,
            2210 => Error::ExactModeWithoutLimits,
            code => Error::Fdb {
                code,
                message: super::codes::error_description(code)
                    .unwrap_or("unknown error")
                    .to_string(),
            },
        }
    }
}

/// Whether SQLite gave up on a lock another connection holds: it answered
/// busy (`SQLITE_BUSY`, `SQLITE_LOCKED`), or found the WAL index changing
/// under it for as long as it tried (`SQLITE_PROTOCOL`). Waiting longer
/// may succeed.
pub(crate) fn sqlite_busy(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode;
    matches!(
        e.sqlite_error_code(),
        Some(
            ErrorCode::DatabaseBusy
                | ErrorCode::DatabaseLocked
                | ErrorCode::FileLockingProtocolFailed
        )
    )
}

/// SQLite's errors by what they mean to a caller: damage to the file
/// (malformed pages, or a value of fql's tables that is NULL or of the
/// wrong type, which fql never writes), a refused write, a lock wait that
/// ran out, or some other failure of the storage.
impl From<rusqlite::Error> for Error {
    /// A lock wait that ran out (`sqlite_busy`) keeps its meaning; the
    /// store that waited fills in the file and the wait (see
    /// `Error::Locked`).
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        if sqlite_busy(&e) {
            return Error::Locked {
                path: String::new(),
                waited_ms: 0,
            };
        }
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
                return Error::Corrupt(e.to_string());
            }
            Some(ErrorCode::ReadOnly) => return Error::ReadOnly(e.to_string()),
            _ => {}
        }
        match e {
            rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::IntegralValueOutOfRange(..) => {
                Error::Corrupt(format!("a value of the wrong type in fql's tables: {e}"))
            }
            e => Error::storage_caused(e.to_string(), e),
        }
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::ffi;

    use super::*;

    fn failure(code: i32) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(ffi::Error::new(code), None)
    }

    /// The retry loop and `on_error` retry exactly FDB's set: the memory
    /// limit of the read version proxies (1078), proxy tag throttling
    /// (1223), 7.4's hot shard throttling (1235) and range locks (1242)
    /// included, whatever variant carries the code; and no error of fql's
    /// own, whatever its code.
    #[test]
    fn retryable_errors_are_fdbs() {
        for code in 0..5000 {
            let e = Error::from_code(code);
            assert_eq!(e.code(), code);
            assert_eq!(
                e.is_retryable(),
                crate::kv::codes::retried_by_on_error(code),
                "{code}"
            );
        }
        for code in [1078, 1223, 1235, 1242, 1009, 1037] {
            assert!(Error::from_code(code).is_retryable(), "{code}");
            let reported = Error::Fdb {
                code,
                message: "from the client".into(),
            };
            assert!(reported.is_retryable(), "{code}");
            assert!(!reported.is_maybe_committed(), "{code}");
        }
        assert!(Error::CommitUnknownResult.is_maybe_committed());
        assert!(Error::from_code(1039).is_maybe_committed());
        for own in [
            Error::Locked {
                path: "x.db".into(),
                waited_ms: 5,
            },
            Error::storage("disk full"),
            Error::ReadOnly("read-only".into()),
            Error::Corrupt("damaged".into()),
            Error::Replaced("x.db".into()),
        ] {
            assert!(!own.is_fdb() && !own.is_retryable(), "{own}");
        }
        assert_eq!(
            Error::from_code(1078).to_string(),
            "grv_proxy_memory_limit_exceeded (1078): a read version proxy ran out of memory"
        );
    }

    /// Every answer the store waits out is a lock wait to the caller, and
    /// no other is: the two must agree, or a wait that ran out on
    /// `SQLITE_PROTOCOL` would read as a storage failure.
    #[test]
    fn the_answers_waited_out_are_the_lock_waits() {
        for code in [
            ffi::SQLITE_BUSY,
            ffi::SQLITE_LOCKED,
            ffi::SQLITE_PROTOCOL,
            ffi::SQLITE_BUSY_RECOVERY,
            ffi::SQLITE_BUSY_SNAPSHOT,
            ffi::SQLITE_IOERR,
            ffi::SQLITE_CORRUPT,
            ffi::SQLITE_READONLY,
            ffi::SQLITE_FULL,
        ] {
            let waited = sqlite_busy(&failure(code));
            let locked = matches!(Error::from(failure(code)), Error::Locked { .. });
            assert_eq!(waited, locked, "code {code}");
        }
        assert!(sqlite_busy(&failure(ffi::SQLITE_PROTOCOL)));
    }
}
