//! The connections of one open file, and the waits and errors of their
//! work: which file an error is about, and how long a lock wait lasted.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::busy::patiently;
use super::identity::FileId;
use super::read_meta;
use super::target::Target;
use crate::kv::{Error, Result, lock};

/// Idle connections kept for the next snapshot or commit.
const IDLE: usize = 16;

pub(super) struct Pool {
    /// How to connect; its timeout is the longest wait for a lock another
    /// process holds.
    pub(super) target: Arc<Target>,
    idle: Mutex<Vec<Connection>>,
    /// The file opened; a connection to any other is refused.
    file: FileId,
}

/// A lock wait that begins now, and when it must end: at the store's
/// timeout, or at the transaction's own deadline when that comes first.
pub(super) struct Wait {
    began: Instant,
    pub(super) until: Instant,
}

impl Pool {
    /// A pool of connections to `target`, starting with `conn`, which is
    /// the file `file`.
    pub(super) fn new(target: Target, conn: Connection, file: FileId) -> Pool {
        Pool {
            target: Arc::new(target),
            idle: Mutex::new(vec![conn]),
            file,
        }
    }

    /// An idle connection, or a new one to the file opened, made within
    /// `wait`.
    pub(super) fn take(&self, wait: &Wait) -> Result<Connection> {
        if let Some(conn) = lock(&self.idle).pop() {
            return Ok(conn);
        }
        let conn = self
            .target
            .connect(wait.until)
            .map_err(|e| self.error_after(e.into(), wait))?;
        self.check_file().map_err(|e| self.error(e))?;
        Ok(conn)
    }

    /// Keeps `conn` for later, unless it is still inside a transaction
    /// (one that failed to roll back) or enough are kept.
    pub(super) fn give(&self, conn: Connection) {
        let mut idle = lock(&self.idle);
        if conn.is_autocommit() && idle.len() < IDLE {
            idle.push(conn);
        }
    }

    /// Closes every idle connection, so that this process holds no lock on
    /// the file.
    #[cfg(test)]
    pub(super) fn close_idle(&self) {
        lock(&self.idle).clear();
    }

    /// Fails if the file at the path is no longer the one opened. The
    /// error is not yet named after the file ([`Pool::error`] does that).
    pub(super) fn check_file(&self) -> Result<()> {
        match FileId::of(self.target.file()) {
            Ok(id) if id == self.file => Ok(()),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(Error::storage_caused(e.to_string(), e))
            }
            _ => Err(Error::Replaced(self.target.shown.display().to_string())),
        }
    }

    /// The wait for a lock that begins now, ending no later than
    /// `deadline`.
    pub(super) fn wait(&self, deadline: Option<Instant>) -> Wait {
        let began = Instant::now();
        let timeout = began + self.target.timeout;
        Wait {
            began,
            until: deadline.map_or(timeout, |d| d.min(timeout)),
        }
    }

    /// Begins the read transaction that a snapshot is, on `conn`, and
    /// returns its version: the first read fixes the state of the WAL the
    /// snapshot sees. Waits for other processes (a WAL being recovered, a
    /// file held exclusively) within `wait`.
    pub(super) fn begin_read(&self, conn: &Connection, wait: &Wait) -> Result<u64> {
        patiently(wait.until, || {
            let begun = conn
                .execute_batch("BEGIN DEFERRED")
                .and_then(|()| read_meta(conn, "version"));
            if begun.is_err() && !conn.is_autocommit() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            begun
        })
        .map_err(|e| self.error_after(e.into(), wait))
    }

    /// Names the file in a storage error; a lock wait that ran out is
    /// counted as a wait of the store's whole timeout.
    pub(super) fn error(&self, e: Error) -> Error {
        match e {
            Error::Storage { message, cause } => Error::Storage {
                message: format!("{}: {message}", self.target.shown.display()),
                cause,
            },
            Error::Locked { .. } => locked(&self.target.shown, self.target.timeout),
            e => e,
        }
    }

    /// [`Pool::error`] for the work of `wait`: a lock wait that ran out
    /// says how long it waited, or, when the transaction's deadline had
    /// passed before it began, that the transaction timed out.
    pub(super) fn error_after(&self, e: Error, wait: &Wait) -> Error {
        match e {
            Error::Locked { .. } if wait.until <= wait.began => Error::TransactionTimedOut,
            Error::Locked { .. } => locked(&self.target.shown, wait.began.elapsed()),
            e => self.error(e),
        }
    }
}

/// A storage error about the file at `path`.
pub(super) fn storage(path: &Path, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::storage_caused(format!("{}: {e}", path.display()), e)
}

/// A lock wait on the file at `path` that ran out after `waited`.
pub(super) fn locked(path: &Path, waited: Duration) -> Error {
    Error::Locked {
        path: path.display().to_string(),
        waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
    }
}
