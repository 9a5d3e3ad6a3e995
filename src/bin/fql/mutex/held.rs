//! What `run` and the printing of a grant need of a lock, whatever its
//! kind: a mutex, a read-write lock, a semaphore.

use std::time::Duration;

use fql::lock::mutex::Mutex;
use fql::lock::rwlock::Lock;
use fql::lock::{Timing, Token};

use crate::error::{CliError, Exit};

/// A client of a lock that can be taken, kept and handed back.
pub trait Held {
    /// Why an operation failed.
    type Error: std::fmt::Display;
    /// Takes the lock, waiting at most `wait` (`None`: as long as it takes).
    fn acquire(&self, wait: Option<Duration>) -> Result<Option<Token>, Self::Error>;
    /// Beats as a holder; `false` once the lock is lost.
    fn heartbeat(&self) -> Result<bool, Self::Error>;
    /// Hands the lock back; `false` if this client did not hold it.
    fn release(&self) -> Result<bool, Self::Error>;
    /// Leaves the queue; `false` if this client was not waiting.
    fn cancel(&self) -> Result<bool, Self::Error>;
    /// The heartbeat interval and staleness.
    fn timing(&self) -> Timing;
    /// The error, with the exit status it calls for.
    fn failed(e: Self::Error) -> CliError;
}

impl Held for Mutex {
    type Error = fql::lock::mutex::Error;
    fn acquire(&self, wait: Option<Duration>) -> Result<Option<Token>, Self::Error> {
        Mutex::acquire(self, wait)
    }
    fn heartbeat(&self) -> Result<bool, Self::Error> {
        Mutex::heartbeat(self)
    }
    fn release(&self) -> Result<bool, Self::Error> {
        Mutex::release(self)
    }
    fn cancel(&self) -> Result<bool, Self::Error> {
        Mutex::cancel(self)
    }
    fn timing(&self) -> Timing {
        Mutex::timing(self)
    }
    fn failed(e: Self::Error) -> CliError {
        super::failed(e)
    }
}

impl Held for Lock {
    type Error = fql::lock::rwlock::Error;
    fn acquire(&self, wait: Option<Duration>) -> Result<Option<Token>, Self::Error> {
        Lock::acquire(self, wait)
    }
    fn heartbeat(&self) -> Result<bool, Self::Error> {
        Lock::heartbeat(self)
    }
    fn release(&self) -> Result<bool, Self::Error> {
        Lock::release(self)
    }
    fn cancel(&self) -> Result<bool, Self::Error> {
        Lock::cancel(self)
    }
    fn timing(&self) -> Timing {
        Lock::timing(self)
    }
    fn failed(e: Self::Error) -> CliError {
        failed(e)
    }
}

/// A read-write lock's or a semaphore's error, with the exit status it
/// calls for: a client whose kind, permits or timing differ from the
/// lock's is a usage error.
pub fn failed(e: fql::lock::rwlock::Error) -> CliError {
    let exit = match &e {
        fql::lock::rwlock::Error::Mismatch { .. } => Exit::Usage,
        e => fql::kv::AsKvError::as_kv(e).map_or(Exit::Failed, crate::store::exit_of),
    };
    CliError::failed(exit, e.to_string())
}
