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
//!
//! Built on it: leader election ([`election`](super::election): a
//! candidate is a waiter, the leader the owner, the term the token).

mod breaking;
mod judge;
mod reaper;
mod settings;
mod state;

use std::sync::Arc;
use std::time::{Duration, Instant};

use foundationdb_tuple::TuplePack;

use crate::directory::DirectoryLayer;
use crate::exec::{Engine, Error as ExecError, Output, Part};
use crate::kv::{Committed, Database, Transaction, Watch};
use crate::syntax::ast::ElemKind;

use super::layout::{self, Schema};
use super::runner::{self, Outcome};
use super::{Timing, Token};

pub use breaking::{Broken, break_mutex};
use judge::Judge;
pub use reaper::{Reaped, Reaper};
pub use settings::Settings;
pub use state::{State, Waiter};

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
    /// Another client of the mutex has this client's name: it holds the
    /// mutex or waits for it. A name is a client's identity (a release,
    /// heartbeat or cancel by that name acts for it), so two live clients
    /// with one name would share one grant. Nothing was written.
    #[error(
        "another client named {} {} {dir}: names must be unique among the clients of a mutex",
        crate::syntax::plain_or_quoted(.name),
        if *.holds { "holds" } else { "waits for" }
    )]
    NameInUse {
        /// The mutex's directory.
        dir: String,
        /// The name.
        name: String,
        /// The other client holds the mutex (else it waits for it).
        holds: bool,
    },
    /// The mutex is held or waited for by clients with other settings
    /// (timing or mode), stored in it by the first of them: a reaper
    /// judges every client by those. Nothing was written.
    #[error(
        "{dir} is in use with {stored}, stored in the mutex; this client has {ours}, and every client of a mutex must use the same while it is held or waited for"
    )]
    Settings {
        /// The mutex's directory.
        dir: String,
        /// The settings the mutex stores.
        stored: Settings,
        /// This client's.
        ours: Settings,
    },
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

impl From<layout::Error> for Error {
    fn from(e: layout::Error) -> Error {
        match e {
            layout::Error::Foreign { dir, key } => Error::Foreign { dir, key },
            layout::Error::Directory(e) => Error::Directory(e),
            layout::Error::Kv(e) => e.into(),
        }
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

impl Mutex {
    /// The client `name` of the mutex in directory `dir`.
    pub fn new(
        db: Arc<dyn Database>,
        dir: Vec<String>,
        name: impl Into<String>,
        timing: Timing,
    ) -> Result<Mutex, Error> {
        let name = name.into();
        check_client(&name, timing)?;
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

    /// This client's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The timing and mode this client uses, which every client of the
    /// mutex must share while it is held or waited for.
    pub fn settings(&self) -> Settings {
        Settings {
            timing: self.timing,
            compat: self.compat,
        }
    }

    /// Takes the mutex if it is free and nobody waits, in one transaction;
    /// changes nothing otherwise. A mutex held or waited for by another
    /// client of this name is refused ([`Error::NameInUse`]): the name is
    /// the client's identity. A run retried after an unknown commit and
    /// refused by its own grant answers with that grant's token.
    pub fn try_acquire(&self) -> Result<Option<Token>, Error> {
        match self.script("try-acquire")? {
            Outcome::Ran(..) if self.compat => self.answer(),
            Outcome::Ran(_, committed) => Ok(Token::of(&committed)),
            Outcome::Settled => self.answer(),
            Outcome::Refused => self.unique().map(|()| None),
        }
    }

    /// Joins the queue, unless the mutex came free meanwhile (the caller
    /// tries again) or a client of this name already holds it or waits
    /// ([`Error::NameInUse`]). A run retried after an unknown commit and
    /// refused by its own entry counts as queued. A free mutex with
    /// waiters, which only a crash or an operator leaves, also refuses an
    /// enqueue: it is granted to the head of its queue, as nobody else
    /// would grant it.
    fn enqueue(&self) -> Result<(), Error> {
        match self.script("enqueue")? {
            Outcome::Ran(..) | Outcome::Settled => Ok(()),
            Outcome::Refused => {
                self.unique()?;
                self.act(self.op("grant-head"), &[])?;
                Ok(())
            }
        }
    }

    /// After an acquiring script's guards refused it: refuses a name that
    /// another client holds the mutex or waits with, in one transaction.
    /// What refused the script may have changed since; the name is taken
    /// if it is taken now, and a client that left meanwhile leaves the
    /// caller free to go on, which its next script checks again.
    fn unique(&self) -> Result<(), Error> {
        let name = self.name.as_str();
        let compat = self.compat;
        let (taken, _) = in_mutex(&self.engine, &self.dir, |tx, prefix| {
            let Some(prefix) = prefix else {
                return Ok(None);
            };
            let key = |kind: &str| [prefix, &(kind, name).pack_to_vec()[..]].concat();
            if tx.get(&key("owner"), true)?.is_some() {
                return Ok(Some(true));
            }
            // A waiter is a queue entry of the name (with its waiter key,
            // but for Go clients): a waiter key alone is a leftover, which
            // the client of that name heals by queueing again.
            let keyed = compat || tx.get(&key("waiter"), true)?.is_some();
            let queue = [prefix, &("queue",).pack_to_vec()[..]].concat();
            let range = crate::kv::RangeOption::prefix(&queue);
            let waits = keyed
                && crate::kv::collect_range(tx, &range, true)?
                    .iter()
                    .any(|kv| kv.value == name.as_bytes());
            Ok(waits.then_some(false))
        })?;
        match taken {
            Some(holds) => Err(Error::NameInUse {
                dir: crate::directory::show(&self.dir),
                name: self.name.clone(),
                holds,
            }),
            None => Ok(()),
        }
    }

    /// Takes the mutex, waiting in the queue for at most `timeout` (for
    /// ever with `None`). Waiting blocks on a watch of this client's own
    /// queue entry, beating every heartbeat interval so that others see
    /// it lives; the waiter at the head of the queue also watches the
    /// owner, and takes the mutex over from one that stopped beating
    /// (`Mutex::tend`). On timeout the client leaves the queue.
    pub fn acquire(&self, timeout: Option<Duration>) -> Result<Option<Token>, Error> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut rounds = 0u32;
        loop {
            if let Some(token) = self.try_acquire()? {
                return Ok(Some(token));
            }
            // Queue, unless the mutex came free meanwhile (try again).
            self.enqueue()?;
            if let Waited::Done(token) = self.wait_in_line(deadline)? {
                return Ok(token);
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return self.give_up();
            }
            // Not queued after all: the first time is a race with a
            // release, so try again at once; later rounds pause, so that
            // no state of the mutex makes this loop spin.
            rounds += 1;
            if rounds > 1 {
                let pause = self.timing.heartbeat / 10;
                let left = deadline.map_or(pause, |d| d.saturating_duration_since(Instant::now()));
                std::thread::sleep(pause.min(left));
            }
        }
    }

    /// Waits in the queue until granted, dropped, or out of time. Each
    /// round is one look (a transaction that reads the mutex and arms a
    /// watch), then what the look calls for ([`Mutex::tend`]), then a wait
    /// on the watch: `h` for a waiter behind a live one, `h / 4` for the
    /// head, which watches the owner. A waiter beats every `h`.
    fn wait_in_line(&self, deadline: Option<Instant>) -> Result<Waited, Error> {
        let h = self.timing.heartbeat;
        let mut judge = Judge::new(self.timing, self.compat);
        let mut beat_at = Instant::now() + h;
        loop {
            let (watch, state, position) = match self.look()? {
                Look::Owner => return Ok(Waited::Done(self.answer()?)),
                Look::NotQueued => return Ok(Waited::NotQueued),
                Look::Stray => {
                    // Its waiter key names no queue entry: nothing would
                    // ever grant it. Leave, and queue again.
                    self.cancel()?;
                    return Ok(Waited::NotQueued);
                }
                Look::Queued(watch, state, position) => (watch, state, position),
            };
            let now = Instant::now();
            let left = deadline.map(|d| d.saturating_duration_since(now));
            if left == Some(Duration::ZERO) {
                return Ok(Waited::Done(self.give_up()?));
            }
            judge.observe(&state, now);
            let (acted, head) = self.tend(&judge, &state, position, now)?;
            if acted {
                continue;
            }
            let period = if head { h / 4 } else { h };
            let mut wait = period.min(beat_at.saturating_duration_since(now));
            if let Some(left) = left {
                wait = wait.min(left);
            }
            let fired = match watch {
                Some(mut watch) => watch.wait(Some(wait))?,
                None => {
                    std::thread::sleep(wait);
                    false
                }
            };
            if fired && !self.compat {
                // Granted, most likely: one transaction answers it.
                if let Some(token) = self.answer()? {
                    return Ok(Waited::Done(Some(token)));
                }
            }
            if Instant::now() >= beat_at {
                // Still waiting: show the others this client lives (Go
                // clients keep no such sign, so a compatible one only
                // starts its next period: a period that had ended would
                // make every later wait zero, a spin).
                if !self.compat {
                    self.script("waiting")?;
                }
                beat_at = Instant::now() + h;
            }
        }
    }

    /// What a waiter does about the mutex it looked at; returns whether
    /// it changed anything, and whether this waiter heads the queue.
    ///
    /// - A free mutex with waiters: grant it to the head of the queue.
    /// - The head of the queue, and only it, judges the owner on its own
    ///   clock and takes the mutex over when the [`Judge`] says so, in one
    ///   transaction that re-checks the heartbeat it judged and grants
    ///   the head of the queue, itself. The head is the first waiter that
    ///   lives: a waiter whose every waiter ahead has stood still for `L`
    ///   drops them (each drop guarded by the heartbeat judged) and heads
    ///   the queue.
    /// - In `--compat` no waiter shows a sign of life, so the waiter at
    ///   `position` waits `position` more staleness periods than the
    ///   head: one acts at a time, and a dead head holds nobody up for
    ///   ever.
    fn tend(
        &self,
        judge: &Judge,
        state: &State,
        position: usize,
        now: Instant,
    ) -> Result<(bool, bool), Error> {
        if state.owner.is_none() {
            return Ok((self.act(self.op("grant-head"), &[])?, position == 0));
        }
        if self.compat {
            let behind = u32::try_from(position).unwrap_or(u32::MAX);
            let patience = self.timing.stale.saturating_mul(behind);
            let acted = match judge.owner(state, now, patience) {
                Some(v) => self.act(v.script, &v.params)?,
                None => false,
            };
            return Ok((acted, position == 0));
        }
        let ahead = &state.queue[..position];
        let dead: Vec<_> = ahead
            .iter()
            .filter_map(|w| judge.dead_waiter(w, now))
            .collect();
        if dead.len() < ahead.len() {
            // A waiter ahead lives: it heads the queue.
            return Ok((false, false));
        }
        let mut acted = false;
        for v in &dead {
            acted |= self.act(v.script, &v.params)?;
        }
        if let Some(v) = judge.owner(state, now, Duration::ZERO) {
            acted |= self.act(v.script, &v.params)?;
        }
        Ok((acted, true))
    }

    /// The name of one of this client's scripts, `--compat` or not.
    fn op(&self, op: &str) -> &'static str {
        let name = if self.compat {
            format!("mutex/compat/{op}")
        } else {
            format!("mutex/{op}")
        };
        crate::scripts::find(&name)
            .unwrap_or_else(|| panic!("{name} ships with fql"))
            .name
    }

    /// Runs a script that acts on the mutex rather than as this client
    /// (a grant, a takeover, a drop); whether its guards let it act.
    fn act(&self, script: &str, params: &[(&str, ElemKind<'static>)]) -> Result<bool, Error> {
        Ok(run_script(&self.engine, script, &self.dir, params)?.ran())
    }

    /// Leaves the queue after a timeout; a grant that came just before
    /// is kept.
    fn give_up(&self) -> Result<Option<Token>, Error> {
        self.cancel()?;
        self.answer()
    }

    /// If this client holds the mutex, beats, which tells the judges the
    /// grant reached a live client, and returns the token: one
    /// transaction.
    fn answer(&self) -> Result<Option<Token>, Error> {
        if self.compat {
            return Ok(self.heartbeat()?.then_some(Token([0; 12])));
        }
        let Outcome::Ran(rows, _) = self.script("answer")? else {
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
        Ok(self.script("release")?.landed())
    }

    /// Beats as the owner; `false` if this client no longer holds the
    /// mutex.
    pub fn heartbeat(&self) -> Result<bool, Error> {
        Ok(self.script("heartbeat")?.ran())
    }

    /// Leaves the queue; `false` if this client was not waiting.
    pub fn cancel(&self) -> Result<bool, Error> {
        Ok(self.script("cancel")?.landed())
    }

    /// The token of the grant this client holds, or `None`.
    pub fn held(&self) -> Result<Option<Token>, Error> {
        let state = State::read(&self.engine, &self.dir)?;
        Ok(state.owner.filter(|o| *o == self.name).and(state.token))
    }

    /// Looks at the mutex in one transaction: whether this client holds
    /// it, or where it waits, with the state to judge the others by and a
    /// watch armed in the same transaction, so no grant is missed. The
    /// watch is on this client's waiter key, which only its grant or its
    /// removal changes; in `--compat`, on the owner key, as Go's waiters
    /// watch it (none while the mutex is free).
    fn look(&self) -> Result<Look, Error> {
        let name = self.name.as_str();
        let (look, _) = in_mutex(&self.engine, &self.dir, |tx, prefix| {
            let Some(prefix) = prefix else {
                return Ok(Look::NotQueued);
            };
            let key = |kind: &str, name: &str| {
                let mut k = prefix.to_vec();
                (kind, name).pack_into_vec(&mut k);
                k
            };
            let state = State::read_in(&self.engine, tx, &self.dir, true)?;
            if state.owner.as_deref() == Some(name) {
                return Ok(Look::Owner);
            }
            let position = state.queue.iter().position(|w| w.name == name);
            let watch = if self.compat {
                match &state.owner {
                    Some(owner) if position.is_some() => Some(tx.watch(&key("owner", owner))?),
                    _ => None,
                }
            } else {
                let waiter = key("waiter", name);
                match (tx.get(&waiter, false)?, position) {
                    (None, _) => return Ok(Look::NotQueued),
                    (Some(_), None) => return Ok(Look::Stray),
                    (Some(_), Some(_)) => Some(tx.watch(&waiter)?),
                }
            };
            Ok(match position {
                Some(at) => Look::Queued(watch, Box::new(state), at),
                None => Look::NotQueued,
            })
        })?;
        Ok(look)
    }

    /// Runs a named mutex script with this client's name, checking its
    /// settings against the mutex's in the same transaction: in full for
    /// an operation that takes the mutex or queues (which stores them
    /// where none bind), the mode for the others.
    fn script(&self, op: &str) -> Result<Outcome, Error> {
        let script = self.op(op);
        let expect = if settings::acquiring(op) {
            settings::Expect::All(self.settings())
        } else {
            settings::Expect::Mode(self.settings())
        };
        let name = [("name", ElemKind::Str(self.name.clone().into()))];
        let check = checks(&self.dir, script, expect);
        runner::run(&self.engine, script, &self.dir, &name, check)
    }
}

/// What a waiter's look found.
enum Look {
    /// This client holds the mutex.
    Owner,
    /// Not queued: never was, gave up, or was dropped.
    NotQueued,
    /// Its waiter key names no queue entry, which a crash or an operator
    /// leaves.
    Stray,
    /// Queued at this position (0 heads the queue), with the watch
    /// armed in the same transaction and what the look saw.
    Queued(Option<Watch>, Box<State>, usize),
}

/// How a wait in line ended.
enum Waited {
    /// With this answer for `acquire`: granted, or given up.
    Done(Option<Token>),
    /// Not (or no longer) queued: try again.
    NotQueued,
}

/// Refuses what no client of a lock may be: one without a name, or with
/// a timing it cannot live by.
pub(crate) fn check_client(name: &str, timing: Timing) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::EmptyName);
    }
    check_timing(timing)
}

fn check_timing(timing: Timing) -> Result<(), Error> {
    if !timing.is_valid() {
        return Err(Error::Timing {
            stale: timing.stale,
            heartbeat: timing.heartbeat,
        });
    }
    Ok(())
}

/// Runs a mutex script that acts on the mutex rather than as a client (a
/// grant, a takeover, a drop), with `params` besides `dir`.
fn run_script(
    engine: &Engine,
    script: &str,
    dir: &[String],
    params: &[(&str, ElemKind<'static>)],
) -> Result<Outcome, Error> {
    let check = checks(dir, script, settings::Expect::Nothing);
    runner::run(engine, script, dir, params, check)
}

/// What each transaction of the mutex script `script` checks first: that
/// the directory holds nothing but a mutex's keys, and what `expect` asks
/// of the settings the mutex stores.
fn checks<'a>(
    dir: &'a [String],
    script: &'a str,
    expect: settings::Expect,
) -> impl FnMut(&mut dyn Transaction) -> Result<(), Error> + 'a {
    let layer = DirectoryLayer::new();
    move |tx| {
        let found = layout::of(Schema::Mutex).inspect(tx, &layer, dir)?;
        settings::enforce(tx, found.as_ref(), dir, script, expect)
    }
}

/// A look at the mutex in `dir` ([`Layout::look`](layout::Layout::look)).
pub(super) fn in_mutex<T>(
    engine: &Engine,
    dir: &[String],
    f: impl FnMut(&mut dyn Transaction, Option<&[u8]>) -> Result<T, Error>,
) -> Result<(T, Committed), Error> {
    layout::of(Schema::Mutex).look(engine, dir, f)
}
