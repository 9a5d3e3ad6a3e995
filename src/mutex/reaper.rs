//! The reaper: hands on a mutex whose owner stopped beating, and drops
//! waiters that stopped beating from the queue.
//!
//! Staleness is measured on the reaper's own monotonic clock: a heartbeat
//! is a versionstamp, only ever compared with itself ("has it changed since
//! I last looked?"), never with anyone's wall clock. A reaper that starts
//! (or restarts) must therefore watch a heartbeat for a whole threshold
//! before it may act on it.
//!
//! A reaper judges every mutex by the timing and mode its clients stored
//! in it ([`Settings`](super::Settings)), looked up at each look: its own
//! apply only to a mutex that stores none (one only Go clients use).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::exec::Engine;
use crate::kv::Database;
use crate::syntax::ast::ElemKind;

use super::{Error, Outcome, State, Timing, check_timing, run_script};

/// What the reaper did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reaped {
    /// Took the mutex from this owner and handed it on.
    Owner(String),
    /// Dropped this waiter from the queue.
    Waiter(String),
}

/// The reaper of one mutex.
pub struct Reaper {
    engine: Engine,
    dir: Vec<String>,
    timing: Timing,
    /// Each client's heartbeat as last seen, and when it was first seen
    /// with that value.
    seen: HashMap<String, (Vec<u8>, Instant)>,
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
            seen: HashMap::new(),
            compat: false,
            own: (timing, false),
        })
    }

    /// Watches the owner key's value, where Go clients beat, and reaps with
    /// `mutex/compat/reap`, writing only what Go clients write.
    pub fn compat(mut self, on: bool) -> Reaper {
        self.compat = on;
        self.own.1 = on;
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
            self.seen.clear();
        }
        (self.timing, self.compat) = (timing, compat);
        Ok(())
    }

    /// Looks once, and reaps what has stood still too long, by the timing
    /// and mode the mutex stores:
    ///
    /// - an owner whose heartbeat has not moved for the staleness `L`;
    /// - an owner that has not beaten at all since its grant (its
    ///   heartbeat still equals the grant's token) within one heartbeat
    ///   interval `h`: a live client answers a grant at once, so a dead
    ///   waiter that reached the head of the queue costs `h`, not `L`;
    /// - a waiter whose heartbeat has not moved for `L`.
    pub fn tick(&mut self) -> Result<Vec<Reaped>, Error> {
        self.adopt()?;
        let state = State::read(&self.engine, &self.dir)?;
        let now = Instant::now();
        let beats: HashMap<String, Vec<u8>> = if self.compat {
            let owner = state
                .owner
                .iter()
                .map(|o| (o.clone(), state.owner_value.clone()));
            owner.collect()
        } else {
            let beats = state.heartbeats.iter();
            beats.map(|(n, hb)| (n.clone(), hb.to_vec())).collect()
        };
        self.seen.retain(|name, _| beats.contains_key(name));
        for (name, hb) in beats {
            match self.seen.get(&name) {
                Some((seen, _)) if *seen == hb => {}
                _ => {
                    self.seen.insert(name, (hb, now));
                }
            }
        }
        let mut reaped = Vec::new();
        if let Some(owner) = &state.owner
            && let Some((hb, since)) = self.seen.get(owner)
        {
            let unanswered = !self.compat && state.token.is_some_and(|t| t.0[..] == hb[..]);
            let limit = if unanswered {
                self.timing.heartbeat
            } else {
                self.timing.stale
            };
            if now.duration_since(*since) >= limit {
                let params = [
                    ("owner", ElemKind::Str(owner.clone().into())),
                    ("seen", ElemKind::Bytes(hb.clone())),
                ];
                let script = if self.compat {
                    "mutex/compat/reap"
                } else {
                    "mutex/reap"
                };
                if let Outcome::Ran(..) =
                    run_script(&self.engine, script, &self.dir, None, &params)?
                {
                    reaped.push(Reaped::Owner(owner.clone()));
                }
            }
        }
        if self.compat {
            // Go waiters show no sign of life to judge them by.
            return Ok(reaped);
        }
        for waiter in &state.queue {
            let Some((hb, since)) = self.seen.get(&waiter.name) else {
                continue;
            };
            if now.duration_since(*since) >= self.timing.stale {
                let params = [
                    ("waiter", ElemKind::Str(waiter.name.clone().into())),
                    ("seen", ElemKind::Bytes(hb.clone())),
                ];
                let dropped =
                    run_script(&self.engine, "mutex/drop-waiter", &self.dir, None, &params)?;
                if let Outcome::Ran(..) = dropped {
                    reaped.push(Reaped::Waiter(waiter.name.clone()));
                }
            }
        }
        Ok(reaped)
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
