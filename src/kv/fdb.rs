//! The FoundationDB backend: the transaction interface over the official
//! client library, through the `foundationdb` crate.
//!
//! Built with the `fdb` cargo feature (part of the binary's `cli`), which
//! brings the `foundationdb` crate over fql's own binding of the C API
//! (fdb-c/loader): `libfdb_c` is loaded at run time, when
//! [`Network::start`] or [`client_library`] first needs it, so a program
//! with the backend starts, and runs the embedded store, on a machine
//! without the library. The adapter is thin:
//! each call of the interface is one call of the client, awaited at once.
//! What it adds is what keeps behaviour identical to the embedded backend:
//! writes are checked against FDB's limits where they are made (the client
//! would only fail the commit, with a bare code), and FDB's errors become
//! the interface's typed errors.
//!
//! The client selects API version [`API_VERSION`] (FDB 7.3), so it needs a
//! `libfdb_c` of 7.3 or later; through the client's multi-version support
//! it can reach clusters of other versions.

mod error;
mod tx;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use foundationdb::api::{FdbApiBuilder, NetworkAutoStop};
use foundationdb::options::DatabaseOption;

use super::{Database, Error, Limits, Result, Transaction};

/// The client API version fql speaks.
pub const API_VERSION: i32 = 730;

static STARTED: AtomicBool = AtomicBool::new(false);

pub use foundationdb_sys::{Client as ClientLibrary, LIB_PATH_ENV, LoadError};

/// The client library, loaded on the first call from `FDB_CLIENT_LIB_PATH`
/// or the usual places (see [`LoadError`] for what was searched when
/// none serves). Loading is kept for the process: later calls answer at
/// once.
pub fn client_library() -> std::result::Result<&'static ClientLibrary, &'static LoadError> {
    foundationdb_sys::load()
}

/// The client's network thread. FDB allows one per process, started once
/// and stopped once; dropping this value stops it.
pub struct Network {
    _stop: NetworkAutoStop,
}

impl Network {
    /// Selects the API version and starts the network thread.
    ///
    /// # Safety
    ///
    /// The value must be dropped before the process exits: not leaked,
    /// not kept in a static, and not outlived by a `process::exit`. The
    /// client library may crash at exit if its network still runs.
    #[allow(unsafe_code)]
    pub unsafe fn start() -> Result<Network> {
        client_library().map_err(|e| Error::storage(e.to_string()))?;
        if STARTED.swap(true, Ordering::SeqCst) {
            return Err(Error::InvalidOperation(
                "the FoundationDB client network runs only once per process".into(),
            ));
        }
        let builder = FdbApiBuilder::default()
            .set_runtime_version(API_VERSION)
            .build()
            .map_err(|e| {
                let mut err = error::from_fdb(e);
                if let Error::Fdb { message, .. } = &mut err {
                    message.push_str(&format!(
                        "; fql needs a libfdb_c that supports API version {API_VERSION} (FDB 7.3 or later)"
                    ));
                }
                err
            })?;
        // SAFETY: the caller promises to drop the guard before exit.
        let stop = unsafe { builder.boot() }.map_err(error::from_fdb)?;
        Ok(Network { _stop: stop })
    }
}

/// Where to find the cluster: the given file, else `FDB_CLUSTER_FILE`,
/// else `None` for the client library's default
/// (`/etc/foundationdb/fdb.cluster` on Linux).
pub fn cluster_file(explicit: Option<&Path>) -> Option<PathBuf> {
    explicit
        .map(Path::to_path_buf)
        .or_else(super::cluster_file_from_env)
}

/// A FoundationDB database.
#[derive(Clone)]
pub struct Fdb {
    db: Arc<foundationdb::Database>,
    cluster_file: Option<PathBuf>,
    limits: Limits,
}

impl Fdb {
    /// Opens the cluster named by `cluster_file` (`None`: the library's
    /// default). With a `timeout`, every transaction, retries included,
    /// fails with `transaction_timed_out` after that long, so an
    /// unreachable cluster gives an error instead of a wait without end.
    pub fn open(
        _network: &Network,
        cluster_file: Option<&Path>,
        timeout: Option<Duration>,
    ) -> Result<Fdb> {
        let path = match cluster_file {
            None => None,
            Some(p) => {
                if !p.is_file() {
                    return Err(Error::storage(format!(
                        "no cluster file at {}",
                        p.display()
                    )));
                }
                Some(p.to_str().ok_or_else(|| {
                    Error::storage(format!(
                        "the cluster file path {} is not UTF-8",
                        p.display()
                    ))
                })?)
            }
        };
        let db = foundationdb::Database::new(path).map_err(|e| {
            let err = error::from_fdb(e);
            let message = format!(
                "cannot open the cluster {}: {err}",
                path.unwrap_or("named by the client's default cluster file")
            );
            Error::storage_caused(message, err)
        })?;
        if let Some(t) = timeout {
            let ms = i32::try_from(t.as_millis()).unwrap_or(i32::MAX).max(1);
            db.set_option(DatabaseOption::TransactionTimeout(ms))
                .map_err(error::from_fdb)?;
        }
        Ok(Fdb {
            db: Arc::new(db),
            cluster_file: cluster_file.map(Path::to_path_buf),
            limits: Limits::default(),
        })
    }
}

impl Database for Fdb {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        Ok(Box::new(tx::FdbTx::new(self.db.clone(), self.limits)?))
    }

    fn describe(&self) -> String {
        match &self.cluster_file {
            Some(p) => format!("FoundationDB cluster {}", p.display()),
            None => "FoundationDB cluster (default cluster file)".into(),
        }
    }
}

impl std::fmt::Debug for Fdb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fdb({})", self.describe())
    }
}
