//! The distributed mutex, driven from Rust: each operation is one of the
//! named scripts of `src/scripts/mutex/`, run as one transaction that
//! reads what it checks; this module only sequences them and waits.
//!
//! The layout is that of the Go client janderland/fdb-mutex (owner key,
//! versionstamp queue), with fql's state beside it: a fencing token (the
//! grant's versionstamp), heartbeats on keys waiters do not watch, and a
//! per-waiter key that a waiter watches, so that a grant wakes exactly
//! the client it grants. `docs/mutex.md` describes the protocol.
//!
//! Every transaction first checks that the directory holds nothing but a
//! mutex's keys (`layout`), so a mutex command pointed at a user's data
//! refuses it and writes nothing.

mod breaking;
mod layout;
mod list;
mod reaper;
mod state;

use std::sync::Arc;
use std::time::{Duration, Instant};

use foundationdb_tuple::TuplePack;

use crate::directory::DirectoryLayer;
use crate::exec::{Bindings, Engine, Error as ExecError, Output, Part};
use crate::kv::Committed;
use crate::kv::{Database, DatabaseExt, Transaction, Watch};
use crate::syntax::ast::{Elem, ElemKind, Span, Tuple};

pub use breaking::{Broken, break_mutex};
pub use list::{Listed, Lock, Survey, list};
pub use reaper::{Reaped, Reaper};
pub use state::{State, Verdict, Waiter, version_of};

/// Timing of a mutex: how often holders and waiters beat, and how long a
/// reaper lets a heartbeat stand still before it takes the mutex away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// `h`: the heartbeat interval.
    pub heartbeat: Duration,
    /// `L`: the staleness after which an owner is reaped; at least `3h`.
    pub stale: Duration,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            heartbeat: Duration::from_secs(1),
            stale: Duration::from_secs(5),
        }
    }
}

/// Why a mutex operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The client name is empty: Go clients use `""` to mean "no owner".
    #[error("a client name must not be empty: the empty name marks a free mutex")]
    EmptyName,
    /// `L < 3h`.
    #[error("the staleness ({stale:?}) must be at least three heartbeats ({heartbeat:?})")]
    Timing {
        /// `L`.
        stale: Duration,
        /// `h`.
        heartbeat: Duration,
    },
    /// The database failed.
    #[error(transparent)]
    Run(#[from] ExecError),
    /// A directory operation failed.
    #[error(transparent)]
    Directory(#[from] crate::directory::Error),
    /// The directory holds a key that no mutex holds: it is a user's data,
    /// or a mistyped path. The transaction stopped before it wrote
    /// anything.
    #[error(
        "{dir} is not a mutex: it holds {key}, which is not a key of a mutex (`fql scripts show mutex/schema` shows those); mutex commands change nothing in it"
    )]
    Foreign {
        /// The directory.
        dir: String,
        /// The first key found that is not a mutex's, as FQL.
        key: String,
    },
}

impl crate::kv::AsKvError for Error {
    fn as_kv(&self) -> Option<&crate::kv::Error> {
        match self {
            Error::Run(e) => e.as_kv(),
            Error::Directory(e) => e.as_kv(),
            _ => None,
        }
    }
}

impl From<crate::kv::Error> for Error {
    fn from(e: crate::kv::Error) -> Error {
        Error::Run(ExecError::Kv(e))
    }
}

/// A fencing token: the versionstamp of the transaction that granted the
/// mutex, so tokens increase strictly from one grant to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Token(pub [u8; 12]);

impl std::fmt::Display for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&const_hex::encode(self.0))
    }
}

/// One client of one mutex.
pub struct Mutex {
    engine: Engine,
    dir: Vec<String>,
    name: String,
    timing: Timing,
    /// Writes only what Go clients write (`mutex/compat/*`).
    compat: bool,
}

/// What a script found: it ran, or one of its guards stopped it.
enum Outcome {
    Ran(Vec<Output>, Committed),
    Refused,
    /// A commit whose outcome the database could not tell, then a run
    /// that its guards stopped: every script's guards refuse what it has
    /// already done (a release once the client no longer owns the mutex),
    /// so the first run most likely landed.
    Settled,
}

impl Mutex {
    /// The client `name` of the mutex in directory `dir`.
    pub fn new(
        db: Arc<dyn Database>,
        dir: Vec<String>,
        name: impl Into<String>,
        timing: Timing,
    ) -> Result<Mutex, Error> {
        let name = name.into();
        if name.is_empty() {
            return Err(Error::EmptyName);
        }
        check_timing(timing)?;
        Ok(Mutex {
            engine: Engine::new(db),
            dir,
            name,
            timing,
            compat: false,
        })
    }

    /// Writes only what the Go client janderland/fdb-mutex writes, so Go
    /// clients can share the mutex: no token (it reads as zeros), no
    /// waiter keys, heartbeats on the owner key. Waiters then watch the
    /// owner key as Go's do, and wake at every heartbeat.
    pub fn compat(mut self, on: bool) -> Mutex {
        self.compat = on;
        self
    }

    /// Gives up on each transaction, retries included, after `timeout`
    /// ([`kv::DEFAULT_TIMEOUT`](crate::kv::DEFAULT_TIMEOUT) unless set).
    /// Waiting for the mutex is not a transaction: [`Mutex::acquire`]
    /// has its own timeout.
    pub fn timeout(self, timeout: Duration) -> Mutex {
        Mutex {
            engine: self.engine.timeout(timeout),
            ..self
        }
    }

    /// The timing this client uses.
    pub fn timing(&self) -> Timing {
        self.timing
    }

    /// Takes the mutex if it is free and nobody waits, in one transaction;
    /// changes nothing otherwise. Holding it already counts as taking it,
    /// so a retried or repeated call agrees with the first.
    pub fn try_acquire(&self) -> Result<Option<Token>, Error> {
        match self.script("try-acquire", &[])? {
            Outcome::Ran(..) if self.compat => self.answer(),
            Outcome::Ran(_, committed) => Ok(committed.versionstamp.map(|stamp| {
                let mut token = [0; 12];
                token[..10].copy_from_slice(&stamp);
                Token(token)
            })),
            Outcome::Refused | Outcome::Settled => self.answer(),
        }
    }

    /// Takes the mutex, waiting in the queue for at most `timeout` (for
    /// ever with `None`). Waiting blocks on a watch of this client's own
    /// queue entry, beating every heartbeat interval so that a reaper
    /// keeps it queued. On timeout the client leaves the queue.
    pub fn acquire(&self, timeout: Option<Duration>) -> Result<Option<Token>, Error> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            if let Some(token) = self.try_acquire()? {
                return Ok(Some(token));
            }
            // Queue, unless the mutex came free meanwhile (try again) or
            // this client is queued already (wait on).
            self.script("enqueue", &[])?;
            loop {
                let state = if self.compat {
                    self.wait_state_compat()?
                } else {
                    self.wait_state()?
                };
                match state {
                    Wait::Owner => return self.answer(),
                    Wait::NotQueued => break,
                    Wait::Free => {
                        if let Outcome::Ran(..) = self.script("claim", &[])? {
                            return self.answer();
                        }
                        // A client ahead in the queue claims it: give it
                        // a moment rather than spin.
                        if deadline.is_some_and(|d| Instant::now() >= d) {
                            return self.give_up();
                        }
                        std::thread::sleep(self.timing.heartbeat / 10);
                    }
                    Wait::Queued(mut watch) => {
                        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
                        if left == Some(Duration::ZERO) {
                            return self.give_up();
                        }
                        let wait =
                            left.map_or(self.timing.heartbeat, |l| l.min(self.timing.heartbeat));
                        if !watch.wait(Some(wait))? {
                            // Still waiting: show the reaper this client
                            // lives (Go clients keep no such sign).
                            if !self.compat {
                                self.script("waiting", &[])?;
                            }
                        } else if self.compat {
                            // Any change of the owner key: look again.
                        } else if let Some(token) = self.answer()? {
                            // Granted: one transaction answers it.
                            return Ok(Some(token));
                        }
                    }
                }
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return self.give_up();
            }
        }
    }

    /// Leaves the queue after a timeout; a grant that came just before
    /// is kept.
    fn give_up(&self) -> Result<Option<Token>, Error> {
        self.cancel()?;
        self.answer()
    }

    /// If this client holds the mutex, beats, which tells a reaper the
    /// grant reached a live client, and returns the token: one
    /// transaction.
    fn answer(&self) -> Result<Option<Token>, Error> {
        if self.compat {
            return Ok(self.heartbeat()?.then_some(Token([0; 12])));
        }
        let Outcome::Ran(rows, _) = self.script("answer", &[])? else {
            return Ok(None);
        };
        let fence = rows.iter().find_map(|o| match o {
            Output::KeyValue(row) => match row.value.as_ref().map(|(v, _)| v) {
                Some(Part::Data(ElemKind::Bytes(b))) => <[u8; 12]>::try_from(b.as_slice()).ok(),
                _ => None,
            },
            _ => None,
        });
        // A grant by a Go client keeps no token.
        Ok(Some(Token(fence.unwrap_or([0; 12]))))
    }

    /// Releases the mutex, handing it to the longest-waiting client;
    /// `false` if this client did not hold it.
    pub fn release(&self) -> Result<bool, Error> {
        Ok(matches!(
            self.script("release", &[])?,
            Outcome::Ran(..) | Outcome::Settled
        ))
    }

    /// Beats as the owner; `false` if this client no longer holds the
    /// mutex.
    pub fn heartbeat(&self) -> Result<bool, Error> {
        Ok(matches!(self.script("heartbeat", &[])?, Outcome::Ran(..)))
    }

    /// Leaves the queue; `false` if this client was not waiting.
    pub fn cancel(&self) -> Result<bool, Error> {
        Ok(matches!(
            self.script("cancel", &[])?,
            Outcome::Ran(..) | Outcome::Settled
        ))
    }

    /// The token of the grant this client holds, or `None`.
    pub fn held(&self) -> Result<Option<Token>, Error> {
        let state = State::read(&self.engine, &self.dir)?;
        Ok(state.owner.filter(|o| *o == self.name).and(state.token))
    }

    /// In one transaction: whether this client holds the mutex, or is
    /// queued (with a watch on its queue entry, armed in the same
    /// transaction, so no grant is missed), or neither.
    fn wait_state(&self) -> Result<Wait, Error> {
        let name = self.name.as_str();
        self.in_dir(|tx, prefix| {
            let key = |kind: &str| {
                let mut k = prefix.to_vec();
                (kind, name).pack_into_vec(&mut k);
                k
            };
            let owner = key("owner");
            if tx.get(&owner, false)?.is_some() {
                return Ok(Wait::Owner);
            }
            let waiter = key("waiter");
            if tx.get(&waiter, false)?.is_none() {
                return Ok(Wait::NotQueued);
            }
            Ok(Wait::Queued(tx.watch(&waiter)?))
        })
    }

    /// Runs `f` in a transaction with the prefix of the mutex's directory;
    /// with no directory, nobody is queued.
    fn in_dir(
        &self,
        mut f: impl FnMut(&mut dyn Transaction, &[u8]) -> Result<Wait, Error>,
    ) -> Result<Wait, Error> {
        let (wait, _) = in_mutex(&self.engine, &self.dir, |tx, prefix| match prefix {
            Some(prefix) => f(tx, prefix),
            None => Ok(Wait::NotQueued),
        })?;
        Ok(wait)
    }

    /// Runs a named mutex script with this client's parameters.
    fn script(&self, op: &str, extra: &[(&str, ElemKind<'static>)]) -> Result<Outcome, Error> {
        let name = if self.compat {
            format!("mutex/compat/{op}")
        } else {
            format!("mutex/{op}")
        };
        run_script(&self.engine, &name, &self.dir, Some(&self.name), extra)
    }

    /// [`Mutex::wait_state`] as a Go client sees the mutex: the first
    /// owner key is the owner (none, or the name `""`, is free), and the
    /// queue holds names as values. A free mutex with this client queued
    /// is claimed ([`Wait::Free`]); otherwise the watch is on the owner's
    /// key, as Go's waiters watch it.
    fn wait_state_compat(&self) -> Result<Wait, Error> {
        let name = self.name.as_str();
        self.in_dir(|tx, prefix| {
            // Every key whose tuple starts with `kind`.
            let range = |kind: &str| {
                let mut p = prefix.to_vec();
                (kind,).pack_into_vec(&mut p);
                crate::kv::RangeOption::prefix(&p)
            };
            let owners = crate::kv::collect_range(tx, &range("owner").limit(1), false)?;
            let owner_key = owners.first().map(|kv| kv.key.clone());
            let owner = owner_key
                .as_deref()
                .and_then(|k| {
                    foundationdb_tuple::unpack::<(String, String)>(&k[prefix.len()..]).ok()
                })
                .map(|(_, n)| n)
                .unwrap_or_default();
            if owner == name {
                return Ok(Wait::Owner);
            }
            let queue = crate::kv::collect_range(tx, &range("queue"), false)?;
            if !queue.iter().any(|kv| kv.value == name.as_bytes()) {
                return Ok(Wait::NotQueued);
            }
            match owner_key {
                Some(key) if !owner.is_empty() => Ok(Wait::Queued(tx.watch(&key)?)),
                _ => Ok(Wait::Free),
            }
        })
    }
}

enum Wait {
    Owner,
    /// Free, with this client queued (a Go client released to an empty
    /// queue as this one queued).
    Free,
    Queued(Watch),
    NotQueued,
}

fn check_timing(timing: Timing) -> Result<(), Error> {
    if timing.stale < timing.heartbeat * 3 || timing.heartbeat.is_zero() {
        return Err(Error::Timing {
            stale: timing.stale,
            heartbeat: timing.heartbeat,
        });
    }
    Ok(())
}

/// The FQL value of a directory path: a tuple of names.
pub fn dir_param(dir: &[String]) -> ElemKind<'static> {
    ElemKind::Tuple(Box::new(Tuple {
        elems: dir
            .iter()
            .map(|n| elem(ElemKind::Str(n.clone().into())))
            .collect(),
        rest: None,
        span: Span::default(),
    }))
}

fn elem(kind: ElemKind<'static>) -> Elem<'static> {
    Elem {
        kind,
        span: Span::default(),
    }
}

/// Runs a shipped script with `dir`, `name` and `extra` as parameters.
///
/// A run whose commit the database could not tell about (it reports
/// `commit_unknown_result` and keeps no record of commits) is run
/// again, until its outcome is known or the engine's timeout has passed
/// since the first: each script's guards refuse what it has already done,
/// so a second run never does it twice, and its refusal then says the
/// first landed ([`Outcome::Settled`]).
fn run_script(
    engine: &Engine,
    script: &str,
    dir: &[String],
    name: Option<&str>,
    extra: &[(&str, ElemKind<'static>)],
) -> Result<Outcome, Error> {
    let began = Instant::now();
    let mut unknown = false;
    loop {
        match run_script_once(engine, script, dir, name, extra) {
            Ok(Outcome::Refused) if unknown => return Ok(Outcome::Settled),
            Err(e) if unknown_result(&e) => {
                let timeout = engine.retry_options().timeout;
                if timeout.is_some_and(|t| began.elapsed() >= t) {
                    return Err(e);
                }
                unknown = true;
            }
            other => return other,
        }
    }
}

/// Whether a run failed without knowing whether its commit landed.
fn unknown_result(e: &Error) -> bool {
    matches!(e, Error::Run(ExecError::UnknownResult))
        || crate::kv::AsKvError::as_kv(e).is_some_and(crate::kv::Error::is_maybe_committed)
}

fn run_script_once(
    engine: &Engine,
    script: &str,
    dir: &[String],
    name: Option<&str>,
    extra: &[(&str, ElemKind<'static>)],
) -> Result<Outcome, Error> {
    let source = crate::scripts::find(script)
        .unwrap_or_else(|| panic!("{script} ships with fql"))
        .source;
    let mut params = crate::plan::Params::new();
    params.insert("dir".into(), elem(dir_param(dir)).into());
    if let Some(name) = name {
        params.insert("name".into(), ElemKind::Str(name.to_string().into()).into());
    }
    for (k, v) in extra {
        params.insert(k.to_string(), v.clone().into());
    }
    let script = crate::check::load(source).expect("shipped scripts load");
    let plan = crate::plan::plan(&script, &params).expect("shipped scripts plan");
    let layer = DirectoryLayer::new();
    let mut rows = Vec::new();
    let mut committed = Committed::default();
    let mut bindings = Bindings::default();
    for steps in plan.transactions() {
        let ran = engine.run_transaction_with(
            steps,
            &mut bindings,
            &mut |row: Output| {
                rows.push(row);
                Ok(())
            },
            |tx| layout::layout().check(tx, &layer, dir).map(drop),
        );
        match ran {
            Ok(c) => committed = c,
            Err(Error::Run(ExecError::Guard { .. })) => return Ok(Outcome::Refused),
            Err(e) => return Err(e),
        }
    }
    Ok(Outcome::Ran(rows, committed))
}

/// Runs `f` in the engine's retry loop, in a transaction that first
/// checks that `dir` holds nothing but a mutex's keys: a look at the
/// mutex. `f` gets the prefix of the directory, or `None` when there is
/// none yet (a fresh mutex).
fn in_mutex<T>(
    engine: &Engine,
    dir: &[String],
    mut f: impl FnMut(&mut dyn Transaction, Option<&[u8]>) -> Result<T, Error>,
) -> Result<(T, Committed), Error> {
    let layer = DirectoryLayer::new();
    engine.database().run_with(engine.retry_options(), |tx, _| {
        let prefix = layout::layout().check(tx, &layer, dir)?;
        f(tx, prefix.as_deref())
    })
}
