//! The state-transition task lock with a lease, driven from Rust: the
//! `task/*` scripts, and a taker that judges a running task's heartbeat
//! on its own clock.
//!
//! A task is `("task", task)` = its state (waiting, running, done,
//! failed), with, while it runs, `("worker", task)` = who took it,
//! `("fence", task)` = the take's versionstamp (its fencing token) and
//! `("beat", task)` = the worker's last heartbeat, a versionstamp. A worker
//! that dies leaves its task running; a taker that watched the heartbeat
//! stand still for the lease, on its own monotonic clock, takes it over in
//! a transaction that checks the heartbeat is still the one it judged. No
//! clocks of two hosts are ever compared, and the new take's token refuses
//! the old worker's beats and finish.

use std::sync::Arc;
use std::time::{Duration, Instant};

use foundationdb_tuple::TuplePack;

use crate::directory::DirectoryLayer;
use crate::exec::Engine;
use crate::kv::{Committed, Database, DatabaseExt, Watch};
use crate::syntax::ast::ElemKind;

use super::Token;
use super::mutex::Error;
use super::runner::{self, Outcome};

/// One worker's handle on one task.
pub struct Task {
    engine: Engine,
    dir: Vec<String>,
    task: String,
    name: String,
}

/// What a take found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Taken {
    /// The task is this worker's, under this fencing token.
    Took(Token),
    /// There is no such task.
    Missing,
    /// The task is done.
    Done,
    /// The task runs, and its worker beat within the lease (or another
    /// worker took it over meanwhile).
    Running,
    /// The task runs with no heartbeat to judge: it was taken before
    /// tasks had leases.
    Unleased,
    /// The task's value is no state a task is taken from: its bytes.
    Other(Vec<u8>),
    /// The caller's `stop` ended the wait.
    Stopped,
}

/// How a worker finishes its task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// `done`: final.
    Done,
    /// `failed`: another worker may take it again.
    Failed,
}

/// What one look at a task found: its state, its heartbeat, and a watch
/// on that heartbeat armed in the same transaction.
struct Look {
    state: Option<Vec<u8>>,
    beat: Option<Vec<u8>>,
    watch: Option<Watch>,
}

impl Task {
    /// Worker `name`'s handle on task `task` of directory `dir`.
    pub fn new(
        db: Arc<dyn Database>,
        dir: Vec<String>,
        task: impl Into<String>,
        name: impl Into<String>,
    ) -> Result<Task, Error> {
        let name = name.into();
        if name.is_empty() {
            return Err(Error::EmptyName);
        }
        Ok(Task {
            engine: Engine::new(db),
            dir,
            task: task.into(),
            name,
        })
    }

    /// Gives up on each transaction, retries included, after `timeout`.
    pub fn timeout(self, timeout: Duration) -> Task {
        Task {
            engine: self.engine.timeout(timeout),
            ..self
        }
    }

    /// Takes the task if it waits or failed; if it runs, watches its
    /// heartbeat for `lease` on this process's clock and takes it over if
    /// the heartbeat stood still all that time. Writes nothing unless it
    /// takes the task. `stop` is asked at least every 100 ms.
    pub fn take(&self, lease: Duration, stop: &dyn Fn() -> bool) -> Result<Taken, Error> {
        // A task that moves back to waiting or failed as it is looked at
        // is tried again, a few times.
        for _ in 0..3 {
            if let Some(committed) = self.run("task/take", &[])? {
                return self.token(committed);
            }
            let look = self.look()?;
            let running = packed("running");
            let (beat, watch) = match look.state {
                None => return Ok(Taken::Missing),
                Some(s) if s == packed("done") => return Ok(Taken::Done),
                Some(s) if s == packed("waiting") || s == packed("failed") => continue,
                Some(s) if s != running => return Ok(Taken::Other(s)),
                Some(_) => match (look.beat, look.watch) {
                    (Some(beat), Some(watch)) => (beat, watch),
                    _ => return Ok(Taken::Unleased),
                },
            };
            if !self.stood_still(&beat, watch, lease, stop)? {
                return Ok(if stop() {
                    Taken::Stopped
                } else {
                    Taken::Running
                });
            }
            let seen = [("seen", ElemKind::Bytes(beat))];
            return match self.run("task/retake", &seen)? {
                Some(committed) => self.token(committed),
                None => Ok(Taken::Running),
            };
        }
        Ok(Taken::Running)
    }

    /// Whether the heartbeat `beat` stays the task's, the task running,
    /// for `lease` from now; `false` as soon as either changes, or `stop`
    /// says so.
    fn stood_still(
        &self,
        beat: &[u8],
        mut watch: Watch,
        lease: Duration,
        stop: &dyn Fn() -> bool,
    ) -> Result<bool, Error> {
        let end = Instant::now() + lease;
        loop {
            let fired = crate::watch::wait::any(&mut [(0, &mut watch)], Some(end), stop);
            if stop() {
                return Ok(false);
            }
            match fired.into_iter().next() {
                None => return Ok(true),
                Some((_, Err(e))) => return Err(e.into()),
                // It may fire with nothing changed: look again.
                Some((_, Ok(()))) => {}
            }
            let look = self.look()?;
            let same = look.state == Some(packed("running")) && look.beat.as_deref() == Some(beat);
            match (same, look.watch) {
                (true, Some(w)) => watch = w,
                _ => return Ok(false),
            }
        }
    }

    /// Beats as the task's worker under `token`; `false` if the task is
    /// no longer this worker's take (finished, or taken over).
    pub fn beat(&self, token: Token) -> Result<bool, Error> {
        let token = [("token", ElemKind::Bytes(token.0.to_vec()))];
        Ok(self.run("task/beat", &token)?.is_some())
    }

    /// Finishes the task as `outcome`; `false` if it is no longer this
    /// worker's take under `token`.
    pub fn finish(&self, token: Token, outcome: Finish) -> Result<bool, Error> {
        let state = match outcome {
            Finish::Done => "done",
            Finish::Failed => "failed",
        };
        let params = [
            ("token", ElemKind::Bytes(token.0.to_vec())),
            ("state", ElemKind::Str(state.into())),
        ];
        Ok(self.run("task/finish", &params)?.is_some())
    }

    /// The token of a take that committed: its versionstamp; or, when the
    /// commit's outcome was unknown and a second run found the task taken,
    /// the token the task holds, if this worker holds it.
    fn token(&self, committed: Committed) -> Result<Taken, Error> {
        if let Some(token) = Token::of(&committed) {
            return Ok(Taken::Took(token));
        }
        let fence = self.in_dir(|tx, prefix| {
            let worker = tx.get(&self.key(prefix, "worker"), false)?;
            let mine =
                worker == Some(self.name.as_bytes().to_vec()) || worker == Some(packed(&self.name));
            Ok(if mine {
                tx.get(&self.key(prefix, "fence"), false)?
            } else {
                None
            })
        })?;
        Ok(
            match fence.flatten().and_then(|f| <[u8; 12]>::try_from(f).ok()) {
                Some(token) => Taken::Took(Token(token)),
                None => Taken::Running,
            },
        )
    }

    /// In one transaction: the task's state and heartbeat, with a watch
    /// on the heartbeat.
    fn look(&self) -> Result<Look, Error> {
        let look = self.in_dir(|tx, prefix| {
            let state = tx.get(&self.key(prefix, "task"), false)?;
            let key = self.key(prefix, "beat");
            let beat = tx.get(&key, false)?;
            let watch = match beat {
                Some(_) => Some(tx.watch(&key)?),
                None => None,
            };
            Ok(Look { state, beat, watch })
        })?;
        Ok(look.unwrap_or(Look {
            state: None,
            beat: None,
            watch: None,
        }))
    }

    /// `(kind, task)` in the directory whose prefix is `prefix`.
    fn key(&self, prefix: &[u8], kind: &str) -> Vec<u8> {
        let mut k = prefix.to_vec();
        (kind, self.task.as_str()).pack_into_vec(&mut k);
        k
    }

    /// Runs `f` in a transaction with the directory's prefix; `None` when
    /// the directory does not exist.
    fn in_dir<T>(
        &self,
        mut f: impl FnMut(&mut dyn crate::kv::Transaction, &[u8]) -> Result<T, Error>,
    ) -> Result<Option<T>, Error> {
        let layer = DirectoryLayer::new();
        let (found, _) =
            self.engine
                .database()
                .run_with(self.engine.retry_options(), |tx, _| {
                    match layer.open_if_exists(tx, &self.dir)? {
                        Some(dir) => f(tx, dir.prefix()?).map(Some),
                        None => Ok(None),
                    }
                })?;
        Ok(found)
    }

    /// Runs a task script with this worker's task and name; `None` if a
    /// guard refused it. A run settled after an unknown commit counts as
    /// landed (`Some`, with no versionstamp).
    fn run(
        &self,
        script: &str,
        extra: &[(&str, ElemKind<'static>)],
    ) -> Result<Option<Committed>, Error> {
        let mut params = vec![
            ("task", ElemKind::Str(self.task.clone().into())),
            ("name", ElemKind::Str(self.name.clone().into())),
        ];
        params.extend(extra.iter().cloned());
        // A task's directory holds the user's tasks: no layout to check.
        let unchecked = |_: &mut dyn crate::kv::Transaction| Ok::<_, Error>(());
        Ok(
            match runner::run(&self.engine, script, &self.dir, &params, unchecked)? {
                Outcome::Ran(_, committed) => Some(committed),
                Outcome::Settled => Some(Committed::default()),
                Outcome::Refused => None,
            },
        )
    }
}

/// A string as FQL stores a string value: tuple-encoded.
fn packed(s: &str) -> Vec<u8> {
    s.pack_to_vec()
}
