//! FDB's error codes as the interface's typed errors.

use foundationdb::FdbError;

use crate::kv::Error;

/// The default `MAX_WATCHES` of a database connection.
const MAX_WATCHES: usize = 10_000;

/// The typed error for an FDB error code; codes without a variant keep
/// their code and the client's description.
pub(super) fn from_fdb(e: FdbError) -> Error {
    match e.code() {
        1007 => Error::TransactionTooOld,
        1020 => Error::NotCommitted,
        1021 => Error::CommitUnknownResult,
        1025 => Error::TransactionCancelled,
        1031 => Error::TransactionTimedOut,
        1032 => Error::TooManyWatches { limit: MAX_WATCHES },
        1036 => Error::AccessedUnreadable,
        2000 => Error::InvalidOperation(e.message().to_string()),
        2004 => Error::KeyOutsideLegalRange,
        2005 => Error::InvertedRange,
        2210 => Error::ExactModeWithoutLimits,
        code => Error::Fdb {
            code,
            message: e.message().to_string(),
        },
    }
}

/// The FDB error for a typed one, for the client's `on_error`.
pub(super) fn to_fdb(e: &Error) -> FdbError {
    FdbError::from_code(e.code())
}
