//! Key-value storage: one transaction interface, several backends.
//!
//! Everything above this module (directories, planner, executor, mutex,
//! schema checks) talks to a [`Database`] and its [`Transaction`]s and cannot
//! tell which backend it runs on. The interface is shaped after FoundationDB's
//! client API, so the FoundationDB backend is a thin adapter and the embedded
//! backend has to earn FDB's semantics: serializable optimistic transactions
//! with read-your-writes, byte-ordered keys, versionstamps, watches, FDB's size
//! limits and FDB's error codes.
//!
//! A wrapper that changes a few operations of every transaction (the meter
//! of `fql explain --analyze`, the stop and progress of [`Observed`],
//! injected faults) is a [`Layer`], which a [`LayeredDb`] puts over each
//! transaction of the database below: the layer says what it changes, and
//! everything else passes through.
//!
//! ```
//! use fql::kv::{self, DatabaseExt, RangeOption};
//!
//! let db = kv::embedded::Embedded::memory();
//! db.run(|tx, _| {
//!     tx.set(b"a", b"1")?;
//!     tx.set(b"b", b"2")
//! })
//! .unwrap();
//! let rows = db
//!     .run(|tx, _| kv::collect_range(tx, &RangeOption::new(b"a", b"z"), false))
//!     .unwrap();
//! assert_eq!(rows.len(), 2);
//! ```

mod admit;
mod ahead;
mod codes;
mod conflicting;
pub mod embedded;
mod error;
pub mod faults;
#[cfg(feature = "fdb")]
pub mod fdb;
mod layer;
mod metered;
mod observed;
mod range;
mod retry;
mod transaction;
mod watch;

pub use admit::{
    METADATA_VERSION_KEY, METADATA_VERSION_STAMP, check_key, check_range, check_read_range,
};
pub use ahead::Fetched;
pub use codes::{
    ErrorPredicate, error_description, error_name, error_predicate, retried_by_on_error,
};
pub use conflicting::{
    CONFLICTING_KEYS, CONFLICTING_KEYS_END, conflicting_ranges, conflicting_rows, read_conflicting,
};
pub use error::{Cause, Error, Result};
pub use faults::{FaultPlan, Faulty};
pub use layer::{Layer, LayerFn, Layered, LayeredDb, MakeLayer, Op, layer_fn};
pub use metered::{Meter, Metered};
pub use observed::{Activity, Observed};
pub use range::{
    KeyValue, RangeCursor, RangeOption, RangeResult, StreamingMode, collect_range, key_after,
    strinc,
};
pub use retry::{
    AsKvError, DEFAULT_TIMEOUT, MaybeCommitted, RetryOptions, read_resuming, run, run_with,
};
pub use transaction::{
    CommitStatus, Committed, ConflictRangeType, Database, DatabaseExt, IdempotencyId, Limits,
    MutationType, Transaction, TransactionOption, WINDOW,
};
pub(crate) use watch::thread_waker;
pub use watch::{Watch, WatchFuture};

/// Locks `mutex`, whatever a thread that panicked while holding it left.
/// No critical section of this module leaves its state half-changed (a
/// queue, a flag, a cache of connections), so a panic in one thread must
/// not make the database unusable for the others.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The environment variable that names a FoundationDB cluster file, as
/// FDB's own tools read it.
pub const CLUSTER_FILE_ENV: &str = "FDB_CLUSTER_FILE";

/// The cluster file `FDB_CLUSTER_FILE` names, when it is set and not empty.
pub fn cluster_file_from_env() -> Option<std::path::PathBuf> {
    std::env::var_os(CLUSTER_FILE_ENV)
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
}
