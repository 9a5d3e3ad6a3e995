//! The embedded backend: FDB's semantics with no server.
//!
//! A database is a SQLite file that any number of processes may open at
//! once, or a private in-memory store. Both give serializable transactions
//! with FDB's optimistic concurrency: reads see one snapshot and the
//! transaction's own writes; a commit fails with `not_committed` if a
//! transaction that committed after the read version wrote a key this one
//! read. Versionstamps come from a commit version kept in the store, so they
//! increase for the life of a file, across restarts and processes.

mod atomic;
mod buffer;
mod cluster;
mod commit;
mod idempotency;
mod memory;
mod ranges;
mod read;
mod ryw;
mod sample;
mod special;
mod sqlite;
mod store;
mod tx;
mod watches;

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::kv::{DEFAULT_TIMEOUT, Database, Error, Limits, Result, Transaction, lock};

pub use cluster::{cluster_line, parse_cluster_line};
pub use watches::{MAX_WATCHES, POLL_INTERVAL};

/// A failure to inject into the next commits, to exercise retry paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The commit fails with `not_committed` and writes nothing.
    NotCommitted,
    /// The commit fails with `commit_unknown_result`; `applied` says
    /// whether its writes were in fact applied.
    UnknownResult {
        /// Whether the writes landed.
        applied: bool,
    },
}

impl Fault {
    fn error(self) -> Error {
        match self {
            Fault::NotCommitted => Error::NotCommitted,
            Fault::UnknownResult { .. } => Error::CommitUnknownResult,
        }
    }
}

/// How [`Embedded::open_with`] opens a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenOptions {
    /// The size limits of keys, values and transactions, and the window a
    /// transaction lives in; FDB's by default.
    pub limits: Limits,
    /// Open the file read-only: reads work, writes fail with
    /// [`Error::ReadOnly`], and a missing file is not created.
    pub read_only: bool,
    /// The longest wait for a lock another process holds on the file
    /// (`--timeout`): a process stopped or hung in the middle of a commit
    /// makes others fail with [`Error::Locked`] after this long instead of
    /// waiting for it. [`DEFAULT_TIMEOUT`] by default, as the retry
    /// loop's deadline.
    pub timeout: Duration,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            limits: Limits::default(),
            read_only: false,
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// What an embedded database lets its users do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reads and writes.
    ReadWrite,
    /// Reads only; writes fail with [`Error::ReadOnly`]. Why, such as
    /// "it was opened read-only".
    ReadOnly(String),
    /// The file is damaged: writes fail with [`Error::Corrupt`], reads may
    /// fail or miss data. What showed the damage.
    Damaged(String),
}

/// An embedded database. Cheap to clone; clones share the store.
#[derive(Clone)]
pub struct Embedded {
    shared: Arc<Shared>,
}

pub(crate) struct Shared {
    store: Box<dyn store::Store>,
    limits: Limits,
    faults: Mutex<VecDeque<Fault>>,
    watches: watches::Watches,
}

impl Shared {
    fn take_fault(&self) -> Option<Fault> {
        lock(&self.faults).pop_front()
    }
}

impl Embedded {
    /// A new, empty database that lives in this process's memory.
    pub fn memory() -> Embedded {
        Embedded::memory_with_limits(Limits::default())
    }

    /// Opens the database file at `path`, creating it if it does not exist.
    /// Its directory must exist.
    pub fn open(path: impl AsRef<Path>) -> Result<Embedded> {
        Embedded::open_with(path, &OpenOptions::default())
    }

    /// [`Embedded::open`] with other limits (sizes, or the window).
    pub fn open_with_limits(path: impl AsRef<Path>, limits: Limits) -> Result<Embedded> {
        Embedded::open_with(
            path,
            &OpenOptions {
                limits,
                ..OpenOptions::default()
            },
        )
    }

    /// Opens the database file at `path` as `options` say.
    ///
    /// `path` is a file name, never a SQLite URI or `:memory:`. A missing
    /// file is created, with mode 0600 (its directory must exist), unless
    /// the database is opened read-only or the `-wal` or `-shm` file of a
    /// database deleted there is left beside it. A file this process may not write,
    /// or one on a read-only file system, opens read-only. A read-only
    /// database refuses writes with [`Error::ReadOnly`]; one found damaged
    /// refuses them with [`Error::Corrupt`]; [`Embedded::access`] says
    /// which.
    ///
    /// Fails with [`Error::Storage`] when the file cannot be opened or is
    /// not an fql database, [`Error::Corrupt`] when it is damaged beyond
    /// reading, and [`Error::Locked`] when another process holds it locked
    /// for longer than `options.timeout`.
    pub fn open_with(path: impl AsRef<Path>, options: &OpenOptions) -> Result<Embedded> {
        let store = sqlite::SqliteStore::open(path.as_ref(), options)?;
        Ok(Embedded::with_store(Box::new(store), options.limits))
    }

    /// Whether the database takes writes now, and if not, why.
    pub fn access(&self) -> Access {
        self.shared.store.access()
    }

    /// [`Embedded::memory`] with other limits (sizes, or the window).
    pub fn memory_with_limits(limits: Limits) -> Embedded {
        Embedded::with_store(Box::<memory::MemoryStore>::default(), limits)
    }

    fn with_store(store: Box<dyn store::Store>, limits: Limits) -> Embedded {
        Embedded {
            shared: Arc::new(Shared {
                store,
                limits,
                faults: Mutex::default(),
                watches: watches::Watches::default(),
            }),
        }
    }

    /// Makes the next `n` commits that write something fail with `fault`.
    pub fn inject_faults(&self, n: usize, fault: Fault) {
        let mut faults = lock(&self.shared.faults);
        faults.extend(std::iter::repeat_n(fault, n));
    }
}

impl Database for Embedded {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        Ok(Box::new(tx::EmbeddedTx::new(self.shared.clone())))
    }

    fn describe(&self) -> String {
        match self.shared.store.describe().as_str() {
            "memory" => "embedded in-memory database".into(),
            path => format!("embedded database {path}"),
        }
    }

    fn window(&self) -> Duration {
        self.shared.limits.window
    }
}

impl std::fmt::Debug for Embedded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Embedded({})", self.shared.store.describe())
    }
}
