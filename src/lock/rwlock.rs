//! Read-write locks and semaphores, driven from Rust: one engine for both.
//!
//! A lock of either kind holds a set of holders and a FIFO queue, where
//! each waiter asks for a mode: `read` (shared) or `write` (exclusive) in
//! a read-write lock, or `permit` (one of N numbered permits) in a
//! semaphore. Each operation is one of the named scripts of
//! `src/scripts/rwlock/`, one transaction that reads what it checks; this
//! module only sequences them and waits, as [`super::mutex`] does for
//! the mutex, with the same layout check (of `rwlock/schema`).
//!
//! Only the head of the queue takes the lock, and it takes it itself
//! (`rwlock/claim-*`) when its mode fits the holders: so a reader behind
//! a waiting writer waits, writers never starve, and a release grants
//! nobody and needs to know nothing of the queue. Each grant's
//! versionstamp is its holder's fencing token. The head also takes over
//! from a holder whose heartbeat stood still for the staleness on its own
//! monotonic clock, and each waiter drops the run of dead waiters just
//! ahead of it, so no reaper is needed. `docs/mutex.md` describes the protocol.

mod state;
mod wait;

use std::sync::Arc;
use std::time::Duration;

use crate::directory::DirectoryLayer;
use crate::exec::{Engine, Error as ExecError};
use crate::kv::{Database, Transaction};
use crate::syntax::ast::{ElemKind, Int, Span, Tuple};

use super::layout::{self, Schema};
use super::mutex;
use super::runner::{self, Outcome, elem};
use super::{Timing, Token};

pub use state::{Holder, State, Waiter, inspect, inspect_in};

/// What a lock is: stored in it when first used, and checked against
/// every client that takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Many readers or one writer.
    ReadWrite,
    /// Up to this many holders at once.
    Semaphore(u32),
}

/// What a client asks a lock for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A share of a read-write lock, beside other readers.
    Read,
    /// A read-write lock alone.
    Write,
    /// One permit of a semaphore.
    Permit,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::Read => "read",
            Mode::Write => "write",
            Mode::Permit => "permit",
        }
    }
}

/// Why a lock operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The database, the directory, or the client's own parameters.
    #[error(transparent)]
    Mutex(mutex::Error),
    /// The directory holds a key that no read-write lock or semaphore
    /// holds: a user's data, a mutex, or a mistyped path.
    #[error(
        "{dir} is not a read-write lock or a semaphore: it holds {key}, which is not a key of one (`fql scripts show rwlock/schema` shows those); lock commands change nothing in it"
    )]
    Foreign {
        /// The directory.
        dir: String,
        /// The first key found that is not a lock's, as FQL.
        key: String,
    },
    /// The lock stores another kind, number of permits or timing than
    /// the client asks for.
    #[error(
        "{dir} is {stored}, but this client asks for {asked}; every client of a lock must agree on its kind, permits and timing"
    )]
    Mismatch {
        /// The directory.
        dir: String,
        /// What the lock is.
        stored: String,
        /// What the client asked for.
        asked: String,
    },
    /// A mode that the kind has not: `--read` on a semaphore.
    #[error("a {kind} is not taken in {mode} mode")]
    Mode {
        /// The kind.
        kind: &'static str,
        /// The mode.
        mode: &'static str,
    },
    /// A semaphore of no permits could never be taken.
    #[error("a semaphore needs at least one permit")]
    NoPermits,
}

impl From<mutex::Error> for Error {
    fn from(e: mutex::Error) -> Error {
        match e {
            mutex::Error::Foreign { dir, key } => Error::Foreign { dir, key },
            e => Error::Mutex(e),
        }
    }
}

impl From<layout::Error> for Error {
    fn from(e: layout::Error) -> Error {
        mutex::Error::from(e).into()
    }
}

impl From<crate::kv::Error> for Error {
    fn from(e: crate::kv::Error) -> Error {
        Error::Mutex(e.into())
    }
}

impl From<ExecError> for Error {
    fn from(e: ExecError) -> Error {
        Error::Mutex(e.into())
    }
}

impl crate::kv::AsKvError for Error {
    fn as_kv(&self) -> Option<&crate::kv::Error> {
        match self {
            Error::Mutex(e) => e.as_kv(),
            _ => None,
        }
    }
}

/// One client of one read-write lock or semaphore.
pub struct Lock {
    engine: Engine,
    dir: Vec<String>,
    name: String,
    timing: Timing,
    kind: Kind,
    mode: Mode,
}

impl Lock {
    /// The client `name` of the lock of `kind` in directory `dir`, asking
    /// for `mode`.
    pub fn new(
        db: Arc<dyn Database>,
        dir: Vec<String>,
        name: impl Into<String>,
        timing: Timing,
        (kind, mode): (Kind, Mode),
    ) -> Result<Lock, Error> {
        let name = name.into();
        mutex::check_client(&name, timing)?;
        match (kind, mode) {
            (Kind::Semaphore(0), _) => return Err(Error::NoPermits),
            (Kind::ReadWrite, Mode::Read | Mode::Write) | (Kind::Semaphore(_), Mode::Permit) => {}
            (kind, mode) => {
                return Err(Error::Mode {
                    kind: kind_name(kind),
                    mode: mode.as_str(),
                });
            }
        }
        Ok(Lock {
            engine: Engine::new(db),
            dir,
            name,
            timing,
            kind,
            mode,
        })
    }

    /// Gives up on each transaction, retries included, after `timeout`.
    pub fn timeout(self, timeout: Duration) -> Lock {
        Lock {
            engine: self.engine.timeout(timeout),
            ..self
        }
    }

    /// The timing this client uses.
    pub fn timing(&self) -> Timing {
        self.timing
    }

    /// Takes the lock if nobody waits and the mode fits its holders, in
    /// one transaction; changes nothing otherwise. Holding it already
    /// counts as taking it.
    pub fn try_acquire(&self) -> Result<Option<Token>, Error> {
        self.configure()?;
        let slot = match self.mode {
            Mode::Permit => match self.free_permit()? {
                Some(slot) => Some(slot),
                None => return self.held(),
            },
            _ => None,
        };
        match self.claim("try", slot)? {
            Outcome::Ran(_, committed) => Ok(Token::of(&committed)),
            Outcome::Refused | Outcome::Settled => self.held(),
        }
    }

    /// Takes the lock, waiting in the queue for at most `timeout` (for
    /// ever with `None`); on timeout the client leaves the queue.
    pub fn acquire(&self, timeout: Option<Duration>) -> Result<Option<Token>, Error> {
        wait::acquire(self, timeout)
    }

    /// Releases the lock; `false` if this client did not hold it.
    pub fn release(&self) -> Result<bool, Error> {
        Ok(self.script("release", &[])?.landed())
    }

    /// Beats as a holder; `false` if this client no longer holds the lock.
    pub fn heartbeat(&self) -> Result<bool, Error> {
        Ok(self.script("heartbeat", &[])?.ran())
    }

    /// Leaves the queue; `false` if this client was not waiting.
    pub fn cancel(&self) -> Result<bool, Error> {
        Ok(self.script("cancel", &[])?.landed())
    }

    /// The token of the grant this client holds, or `None`.
    pub fn held(&self) -> Result<Option<Token>, Error> {
        let key = self.key(&["holder"]);
        let value = self.look(|tx, prefix| {
            let Some(prefix) = prefix else {
                return Ok(None);
            };
            Ok(tx.get(&[prefix, &key].concat(), false)?)
        })?;
        Ok(value.and_then(|v| <[u8; 12]>::try_from(v.as_slice()).ok().map(Token)))
    }

    /// Stores this client's kind and timing in a lock that has none, and
    /// refuses a lock that stores others.
    fn configure(&self) -> Result<(), Error> {
        loop {
            let stored = self.look(|tx, prefix| match prefix {
                Some(prefix) => Ok(tx.get(&[prefix, &pack(&("config",))].concat(), false)?),
                None => Ok(None),
            })?;
            let Some(stored) = stored else {
                if self.script("init", &[])?.ran() {
                    return Ok(());
                }
                // Another client stored its own meanwhile: compare.
                continue;
            };
            let stored = crate::codec::decode_untyped(&stored).to_string();
            let asked = self.config().to_string();
            if stored == asked {
                return Ok(());
            }
            return Err(Error::Mismatch {
                dir: crate::directory::show(&self.dir),
                stored: describe_config(&stored),
                asked: describe_config(&asked),
            });
        }
    }

    /// The config tuple this client expects: kind, permits, `h` and `L`
    /// in milliseconds.
    fn config(&self) -> ElemKind<'static> {
        let (kind, permits) = match self.kind {
            Kind::ReadWrite => ("rwlock", 0),
            Kind::Semaphore(n) => ("semaphore", i64::from(n)),
        };
        let ms = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        let elems = [
            ElemKind::Str(kind.into()),
            ElemKind::Int(Int::Small(permits)),
            ElemKind::Int(Int::Small(ms(self.timing.heartbeat))),
            ElemKind::Int(Int::Small(ms(self.timing.stale))),
        ];
        ElemKind::Tuple(Box::new(Tuple {
            elems: elems.into_iter().map(elem).collect(),
            rest: None,
            span: Span::default(),
        }))
    }

    /// A free permit's number, read apart from the claim that takes it
    /// (whose guard checks it is still free).
    fn free_permit(&self) -> Result<Option<i64>, Error> {
        let Kind::Semaphore(n) = self.kind else {
            return Ok(None);
        };
        self.look(|tx, prefix| match prefix {
            Some(prefix) => wait::free_permit(tx, prefix, n),
            None => Ok(Some(0)),
        })
    }

    /// Runs `rwlock/{how}-{mode}`: `try` as a newcomer, `claim` as the
    /// head of the queue.
    fn claim(&self, how: &str, slot: Option<i64>) -> Result<Outcome, Error> {
        let slot = slot.map(|s| ("slot", ElemKind::Int(Int::Small(s))));
        let config = ("config", self.config());
        let extra: Vec<_> = [Some(config), slot].into_iter().flatten().collect();
        self.script(&format!("{how}-{}", self.mode.as_str()), &extra)
    }

    /// This client's key `(kind, name)`, packed, without the prefix.
    fn key(&self, kind: &[&str]) -> Vec<u8> {
        pack(&(kind[0], self.name.as_str()))
    }

    /// Runs `f` in a transaction that first checks the directory is a
    /// lock; `f` gets its prefix, or `None` when there is no directory.
    fn look<T>(
        &self,
        f: impl FnMut(&mut dyn Transaction, Option<&[u8]>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let layout = layout::of(Schema::ReadWrite);
        Ok(layout.look(&self.engine, &self.dir, f)?.0)
    }

    /// Runs the named lock script with this client's parameters.
    fn script(&self, op: &str, extra: &[(&str, ElemKind<'static>)]) -> Result<Outcome, Error> {
        let mut params: Vec<(&str, ElemKind<'static>)> = vec![
            ("name", ElemKind::Str(self.name.clone().into())),
            ("mode", ElemKind::Str(self.mode.as_str().into())),
            ("config", self.config()),
        ];
        params.extend(extra.iter().cloned());
        let layer = DirectoryLayer::new();
        let layout = layout::of(Schema::ReadWrite);
        let check = |tx: &mut dyn Transaction| {
            layout.check(tx, &layer, &self.dir)?;
            Ok::<_, Error>(())
        };
        runner::run(
            &self.engine,
            &format!("rwlock/{op}"),
            &self.dir,
            &params,
            check,
        )
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::ReadWrite => "read-write lock",
        Kind::Semaphore(_) => "semaphore",
    }
}

/// A config tuple in words: `a semaphore of 3 permits (h 1000 ms, L 5000 ms)`.
fn describe_config(config: &str) -> String {
    let inner = config.trim_start_matches('(').trim_end_matches(')');
    let parts: Vec<&str> = inner.split(',').collect();
    match parts.as_slice() {
        [kind, permits, h, l] => {
            let what = match kind.trim_matches('"') {
                "rwlock" => "a read-write lock".to_string(),
                "semaphore" => format!("a semaphore of {permits} permits"),
                other => format!("a lock of kind {}", crate::syntax::printable(other)),
            };
            format!("{what} (heartbeat {h} ms, stale {l} ms)")
        }
        _ => crate::syntax::printable(config).to_string(),
    }
}

fn pack<T: foundationdb_tuple::TuplePack>(t: &T) -> Vec<u8> {
    foundationdb_tuple::pack(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(db: &Arc<dyn Database>, name: &str, want: (Kind, Mode)) -> Lock {
        let timing = Timing::default();
        Lock::new(db.clone(), vec!["l".into()], name, timing, want).expect("a client")
    }

    const READ: (Kind, Mode) = (Kind::ReadWrite, Mode::Read);
    const WRITE: (Kind, Mode) = (Kind::ReadWrite, Mode::Write);

    #[test]
    fn readers_share_writers_wait_and_tokens_grow() {
        let db: Arc<dyn Database> = Arc::new(crate::kv::embedded::Embedded::memory());
        let r1 = client(&db, "r1", READ)
            .try_acquire()
            .unwrap()
            .expect("free");
        let r2 = client(&db, "r2", READ)
            .try_acquire()
            .unwrap()
            .expect("shared");
        assert!(r2 > r1);
        let writer = client(&db, "w", WRITE);
        assert_eq!(writer.try_acquire().unwrap(), None);
        assert!(client(&db, "r1", READ).release().unwrap());
        assert!(client(&db, "r2", READ).release().unwrap());
        let w = writer.try_acquire().unwrap().expect("nobody holds it");
        assert!(w > r2);
        // Holding counts as taking: the same token again.
        assert_eq!(writer.try_acquire().unwrap(), Some(w));
        let state = inspect(db.clone(), &["l".into()], Duration::from_secs(5))
            .unwrap()
            .expect("a read-write lock");
        assert_eq!(state.kind, Kind::ReadWrite);
        assert_eq!(state.holders.len(), 1);
        assert_eq!(
            (state.holders[0].mode, state.holders[0].token),
            ("write", Some(w))
        );
    }

    #[test]
    fn another_kind_or_mode_is_refused() {
        let db: Arc<dyn Database> = Arc::new(crate::kv::embedded::Embedded::memory());
        client(&db, "a", READ).try_acquire().unwrap().expect("free");
        let sem = client(&db, "b", (Kind::Semaphore(2), Mode::Permit));
        assert!(matches!(sem.try_acquire(), Err(Error::Mismatch { .. })));
        let timing = Timing::default();
        let dir = vec!["m".to_string()];
        let bad = Lock::new(
            db.clone(),
            dir.clone(),
            "c",
            timing,
            (Kind::Semaphore(2), Mode::Read),
        );
        assert!(matches!(bad, Err(Error::Mode { .. })));
        let none = Lock::new(
            db.clone(),
            dir,
            "c",
            timing,
            (Kind::Semaphore(0), Mode::Permit),
        );
        assert!(matches!(none, Err(Error::NoPermits)));
        assert_eq!(
            inspect(db, &["m".into()], Duration::from_secs(5)).unwrap(),
            None
        );
    }
}
