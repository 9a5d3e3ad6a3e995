//! Judging who stopped beating, on the judge's own clock
//! ([`Stillness`]): one piece that the reaper and the waiter at the head
//! of the queue both use.
//!
//! Each verdict carries the value judged, and the script it names
//! re-checks that value in the transaction that acts, so a beat that
//! lands between the look and the act makes the act change nothing.

use std::time::{Duration, Instant};

use crate::lock::stillness::Stillness;
use crate::syntax::ast::{ElemKind, Vstamp};

use super::{State, Timing, Waiter};

/// What a client's liveness is read from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Sign {
    /// Its `("hb", name)` key, or that key's absence.
    Heartbeat(String),
    /// The value of its owner key, where Go clients beat.
    OwnerValue(String),
}

/// An act the judge found due: a script and its parameters, the value it
/// judged among them.
#[derive(Clone, Debug)]
pub(crate) struct Verdict {
    /// The shipped script that acts, guarded by what was judged.
    pub script: &'static str,
    /// Its parameters besides `dir`.
    pub params: Vec<(&'static str, ElemKind<'static>)>,
}

/// The values a judge has seen, and since when.
#[derive(Debug)]
pub(crate) struct Judge {
    timing: Timing,
    compat: bool,
    seen: Stillness<Sign, Option<Vec<u8>>>,
}

impl Judge {
    pub fn new(timing: Timing, compat: bool) -> Judge {
        Judge {
            timing,
            compat,
            seen: Stillness::default(),
        }
    }

    /// Notes what one snapshot shows: the owner's sign and, outside
    /// `--compat`, each waiter's heartbeat. Clients the snapshot no longer
    /// shows are forgotten, so one that comes back is watched anew.
    pub fn observe(&mut self, state: &State, now: Instant) {
        let mut signs: Vec<(Sign, Option<Vec<u8>>)> = Vec::new();
        if let Some(owner) = &state.owner {
            signs.push(self.owner_sign(state, owner));
        }
        if !self.compat {
            for w in &state.queue {
                let hb = state.heartbeats.get(&w.name).map(|b| b.to_vec());
                signs.push((Sign::Heartbeat(w.name.clone()), hb));
            }
        }
        self.seen
            .retain(|sign| signs.iter().any(|(s, _)| s == sign));
        for (sign, value) in signs {
            self.seen.note(sign, value, now);
        }
    }

    /// The owner's sign: its heartbeat key, or, in `--compat` and for an
    /// owner without a heartbeat key (a Go client's, or one written by
    /// hand), the owner key's value.
    fn owner_sign(&self, state: &State, owner: &str) -> (Sign, Option<Vec<u8>>) {
        match state.heartbeats.get(owner) {
            Some(hb) if !self.compat => (Sign::Heartbeat(owner.into()), Some(hb.to_vec())),
            _ => (
                Sign::OwnerValue(owner.into()),
                Some(state.owner_value.clone()),
            ),
        }
    }

    /// Whether the owner is due to be taken over, with `patience` added
    /// to the threshold: `L` for a heartbeat that stood still, `h` for a
    /// grant nobody answered (the heartbeat still equals the token the
    /// grant wrote; a live client answers at once). `--compat` owners are
    /// judged by the owner key's value, always against `L`: Go clients
    /// granted from the queue may be slow to beat.
    pub fn owner(&self, state: &State, now: Instant, patience: Duration) -> Option<Verdict> {
        let owner = state.owner.as_ref()?;
        let (sign, _) = self.owner_sign(state, owner);
        let (value, stood) = self.seen.still(&sign, now)?;
        let value = value.clone()?;
        let unanswered =
            matches!(sign, Sign::Heartbeat(_)) && state.token.is_some_and(|t| t.0[..] == value[..]);
        let limit = if unanswered {
            self.timing.heartbeat
        } else {
            self.timing.stale
        };
        if stood < limit + patience {
            return None;
        }
        let script = match sign {
            Sign::OwnerValue(_) if self.compat => "mutex/compat/reap",
            Sign::OwnerValue(_) => "mutex/reap-silent",
            Sign::Heartbeat(_) => "mutex/reap",
        };
        Some(Verdict {
            script,
            params: vec![
                ("owner", ElemKind::Str(owner.clone().into())),
                ("seen", ElemKind::Bytes(value)),
            ],
        })
    }

    /// Whether a waiter is surely dead: its heartbeat (or that key's
    /// absence) has stood still for `L`. Waiters beat every `h`; `L` is
    /// the threshold that already keeps a live owner whose beats commit
    /// within `L - h` from being taken over, so a live waiter is not
    /// dropped either. `None` in `--compat`: Go waiters do not beat.
    pub fn dead_waiter(&self, waiter: &Waiter, now: Instant) -> Option<Verdict> {
        if self.compat {
            return None;
        }
        let (value, stood) = self
            .seen
            .still(&Sign::Heartbeat(waiter.name.clone()), now)?;
        if stood < self.timing.stale {
            return None;
        }
        let name = ("waiter", ElemKind::Str(waiter.name.clone().into()));
        Some(match value {
            Some(hb) => Verdict {
                script: "mutex/drop-waiter",
                params: vec![name, ("seen", ElemKind::Bytes(hb.clone()))],
            },
            None => {
                let mut tx = [0; 10];
                tx.copy_from_slice(&waiter.since[..10]);
                let user = u16::from_be_bytes([waiter.since[10], waiter.since[11]]);
                let at = Vstamp { tx: Some(tx), user };
                Verdict {
                    script: "mutex/drop-entry",
                    params: vec![name, ("at", ElemKind::Vstamp(at))],
                }
            }
        })
    }
}
