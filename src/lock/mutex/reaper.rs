//! The reaper: hands on a mutex whose owner stopped beating, drops
//! waiters that stopped beating from the queue, and grants a free mutex
//! with waiters to its head.
//!
//! Waiters take over a dead owner themselves (the head of the queue
//! does); a reaper is still what drops dead waiters behind a live head,
//! and what moves a queue in which nobody lives. It judges with the same
//! [`Judge`] as the waiters: staleness on its own monotonic clock, so a
//! reaper that starts (or restarts) watches a heartbeat for a whole
//! threshold before it acts on it.
//!
//! A reaper judges every mutex by the timing and mode its clients stored
//! in it ([`Settings`](super::Settings)), looked up at each look: its own
//! apply only to a mutex that stores none (one only Go clients use).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::exec::Engine;
use crate::kv::Database;

use super::judge::{Judge, Verdict};
use super::{Error, State, Timing, check_timing, run_script};

/// What the reaper did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reaped {
    /// Took the mutex from this owner and handed it on.
    Owner(String),
    /// Dropped this waiter from the queue.
    Waiter(String),
    /// Found the mutex free with waiters (an owner key cleared by hand,
    /// or a crash) and granted it to this head of the queue.
    Granted(String),
}

/// The reaper of one mutex.
pub struct Reaper {
    engine: Engine,
    dir: Vec<String>,
    timing: Timing,
    /// What it has seen of each client, and since when.
    judge: Judge,
    /// Reaps as Go clients expect: by the owner key's value.
    compat: bool,
    /// The timing and mode given to the reaper, for a mutex that stores
    /// none; `timing` and `compat` are those in force.
    own: (Timing, bool),
}

impl Reaper {
    /// A reaper of the mutex in `dir`.
    pub fn new(db: Arc<dyn Database>, dir: Vec<String>, timing: Timing) -> Result<Reaper, Error> {
        check_timing(timing)?;
        Ok(Reaper {
            engine: Engine::new(db),
            dir,
            timing,
            judge: Judge::new(timing, false),
            compat: false,
            own: (timing, false),
        })
    }

    /// Watches the owner key's value, where Go clients beat, and reaps with
    /// `mutex/compat/reap`, writing only what Go clients write.
    pub fn compat(mut self, on: bool) -> Reaper {
        self.compat = on;
        self.own.1 = on;
        self.judge = Judge::new(self.timing, on);
        self
    }

    /// Takes the timing and mode the mutex stores, or the reaper's own
    /// when it stores none. A change starts every judgement again: a
    /// heartbeat seen under one mode or timing proves nothing under
    /// another.
    fn adopt(&mut self) -> Result<(), Error> {
        let (timing, compat) = match super::settings::read(&self.engine, &self.dir)? {
            Some(stored) => (stored.timing, stored.compat),
            None => self.own,
        };
        if (timing, compat) != (self.timing, self.compat) {
            self.judge = Judge::new(timing, compat);
        }
        (self.timing, self.compat) = (timing, compat);
        Ok(())
    }

    /// Looks once, and reaps what has stood still too long, by the timing
    /// and mode the mutex stores, as the judge (`mutex::judge`) rules:
    ///
    /// - an owner whose heartbeat has not moved for the staleness `L`;
    /// - an owner that has not beaten at all since its grant (its
    ///   heartbeat still equals the grant's token) within one heartbeat
    ///   interval `h`: a live client answers a grant at once, so a dead
    ///   waiter that reached the head of the queue costs `h`, not `L`;
    /// - a waiter whose heartbeat has not moved for `L`;
    ///
    /// and grants a free mutex with waiters to the head of its queue.
    pub fn tick(&mut self) -> Result<Vec<Reaped>, Error> {
        self.adopt()?;
        let state = State::read(&self.engine, &self.dir)?;
        let now = Instant::now();
        self.judge.observe(&state, now);
        let mut reaped = Vec::new();
        if state.owner.is_none() && !state.queue.is_empty() {
            let script = if self.compat {
                "mutex/compat/grant-head"
            } else {
                "mutex/grant-head"
            };
            if run_script(&self.engine, script, &self.dir, &[])?.ran() {
                reaped.push(Reaped::Granted(state.queue[0].name.clone()));
            }
        }
        if let Some(verdict) = self.judge.owner(&state, now, Duration::ZERO)
            && self.act(&verdict)?
        {
            reaped.push(Reaped::Owner(state.owner.clone().unwrap_or_default()));
        }
        for waiter in &state.queue {
            if let Some(verdict) = self.judge.dead_waiter(waiter, now)
                && self.act(&verdict)?
            {
                reaped.push(Reaped::Waiter(waiter.name.clone()));
            }
        }
        Ok(reaped)
    }

    /// Runs a verdict's script; whether its guards let it act.
    fn act(&self, verdict: &Verdict) -> Result<bool, Error> {
        let ran = run_script(&self.engine, verdict.script, &self.dir, &verdict.params)?;
        Ok(ran.ran())
    }

    /// Gives up on each transaction, retries included, after `timeout`
    /// ([`kv::DEFAULT_TIMEOUT`](crate::kv::DEFAULT_TIMEOUT) unless set).
    pub fn timeout(self, timeout: std::time::Duration) -> Reaper {
        Reaper {
            engine: self.engine.timeout(timeout),
            ..self
        }
    }

    /// Looks four times per heartbeat interval until `stop` is set,
    /// telling `report` what it reaped, or what went wrong: an error ends
    /// one look, not the reaper (a reaper that stopped at its first error
    /// would leave every later dead owner in place). A directory that is
    /// not a mutex ends it with [`Error::Foreign`].
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        report: &mut dyn FnMut(Result<&Reaped, &Error>),
    ) -> Result<(), Error> {
        while !stop.load(Ordering::SeqCst) {
            match self.tick() {
                Ok(reaped) => reaped.iter().for_each(|r| report(Ok(r))),
                Err(e @ Error::Foreign { .. }) => return Err(e),
                Err(e) => report(Err(&e)),
            }
            // The timing in force, which the mutex may store.
            std::thread::sleep(self.timing.heartbeat / 4);
        }
        Ok(())
    }
}
