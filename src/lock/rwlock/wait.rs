//! Waiting in a lock's queue: each waiter watches the one just ahead of
//! it, and the head watches the lock's `turn` key, which every release
//! and takeover changes. So a release wakes the head alone, and the head
//! taking the lock (which clears its waiter key) wakes the next waiter,
//! which may then take it too (readers behind readers, permits while
//! some are free): no herd.
//!
//! Dead clients are handed on without a reaper, on the waiter's own
//! monotonic clock: the head takes over from a holder whose heartbeat
//! stood still for `L`, and a waiter drops the waiters just ahead of it
//! whose heartbeats stood still for `L`: the whole run of them, up to the
//! nearest live one, which it judged together from the time it queued
//! behind them, so dead waiters in a row cost `L` in all, not `L` each.
//! Each of these is a guarded transaction that checks the heartbeat it
//! judged is still the one stored.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use foundationdb_tuple::Versionstamp;

use super::{Error, Lock, pack};
use crate::kv::{RangeOption, Transaction, Watch, collect_range};
use crate::lock::Token;
use crate::lock::runner::Outcome;
use crate::lock::stillness::Stillness;
use crate::syntax::ast::ElemKind;

/// Where a client stands, from one transaction.
enum Look {
    Holds(Token),
    NotQueued,
    /// The head of the queue: the holders and their heartbeats, a free
    /// permit's number (semaphores), and a watch on `turn`.
    Head {
        holders: Vec<(String, Vec<u8>)>,
        slot: Option<i64>,
        watch: Watch,
    },
    /// Behind the waiters `ahead`, nearest first, with their
    /// heartbeats; the watch is on the nearest one's waiter key.
    Behind {
        ahead: Vec<(String, Vec<u8>)>,
        watch: Watch,
    },
}

/// When each heartbeat was first seen with its value, on this client's
/// clock: a heartbeat that stands still for `L` is its client's death.
#[derive(Default)]
struct Seen(Stillness<String, Vec<u8>>);

impl Seen {
    /// Whether `name`'s heartbeat has stood at `beat` for `stale`.
    fn stale(&mut self, name: &str, beat: &[u8], stale: Duration) -> bool {
        self.0.note(name.to_string(), beat.to_vec(), Instant::now()) >= stale
    }
}

pub(super) fn acquire(lock: &Lock, timeout: Option<Duration>) -> Result<Option<Token>, Error> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        if let Some(token) = lock.try_acquire()? {
            return Ok(Some(token));
        }
        // Queue, unless already queued (a refusal then is harmless).
        lock.script("enqueue", &[])?;
        if let Some(token) = wait(lock, deadline)? {
            return Ok(Some(token));
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            lock.cancel()?;
            return lock.held();
        }
        // Dropped from the queue (paused past the staleness): queue again.
    }
}

/// Waits in the queue until this client holds the lock (its token), is no
/// longer queued, or `deadline` passes (`None` for both).
fn wait(lock: &Lock, deadline: Option<Instant>) -> Result<Option<Token>, Error> {
    let h = lock.timing.heartbeat;
    let mut seen = Seen::default();
    let mut beat = Instant::now();
    loop {
        let mut watch = match look(lock)? {
            Look::Holds(token) => return Ok(Some(token)),
            Look::NotQueued => return Ok(None),
            Look::Head {
                holders,
                slot,
                watch,
            } => {
                let slot_ok = lock.mode != super::Mode::Permit || slot.is_some();
                if slot_ok && let Outcome::Ran(_, c) = lock.claim("claim", slot)? {
                    return Ok(Token::of(&c));
                }
                if take_over(lock, &mut seen, &holders)? {
                    continue;
                }
                watch
            }
            Look::Behind { ahead, watch } => {
                if drop_dead(lock, &mut seen, &ahead)? {
                    continue;
                }
                watch
            }
        };
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left == Some(Duration::ZERO) {
            return Ok(None);
        }
        let until_beat = h.saturating_sub(beat.elapsed());
        watch.wait(Some(left.map_or(until_beat, |l| l.min(until_beat))))?;
        if beat.elapsed() >= h {
            // Show the waiters behind that this one lives.
            if let Outcome::Refused = lock.script("waiting", &[])? {
                return Ok(None);
            }
            beat = Instant::now();
        }
    }
}

/// As the head: takes over from the first holder whose heartbeat stood
/// still for `L` on this client's clock; whether one was taken.
fn take_over(lock: &Lock, seen: &mut Seen, holders: &[(String, Vec<u8>)]) -> Result<bool, Error> {
    for (name, beat) in holders {
        if name != &lock.name && seen.stale(name, beat, lock.timing.stale) {
            let params = [("owner", str(name)), ("seen", bytes(beat))];
            return Ok(lock.script("takeover", &params)?.landed());
        }
    }
    Ok(false)
}

/// Drops the run of waiters just ahead (`ahead`, nearest first) whose
/// heartbeats stood still for `L` on this client's clock, up to the
/// nearest live one; whether there were any. Every waiter ahead is timed,
/// so that those beyond a live one are judged from now on too.
fn drop_dead(lock: &Lock, seen: &mut Seen, ahead: &[(String, Vec<u8>)]) -> Result<bool, Error> {
    let stale: Vec<bool> = ahead
        .iter()
        .map(|(name, beat)| seen.stale(name, beat, lock.timing.stale))
        .collect();
    let dead = stale.iter().take_while(|s| **s).count();
    for (name, beat) in &ahead[..dead] {
        let params = [("waiter", str(name)), ("seen", bytes(beat))];
        lock.script("drop-waiter", &params)?;
    }
    Ok(dead > 0)
}

fn str(s: &str) -> ElemKind<'static> {
    ElemKind::Str(s.to_string().into())
}

fn bytes(b: &[u8]) -> ElemKind<'static> {
    ElemKind::Bytes(b.to_vec())
}

/// Where this client stands, in one transaction that also arms the watch
/// it then waits on, so no change after the look is missed.
fn look(lock: &Lock) -> Result<Look, Error> {
    let name = lock.name.as_str();
    let permits = match lock.kind {
        super::Kind::Semaphore(n) => Some(n),
        super::Kind::ReadWrite => None,
    };
    lock.look(|tx, prefix| {
        let Some(prefix) = prefix else {
            return Ok(Look::NotQueued);
        };
        let at = |t: Vec<u8>| [prefix, &t].concat();
        let held = tx.get(&at(pack(&("holder", name))), false)?;
        if let Some(t) = held.and_then(|t| <[u8; 12]>::try_from(t.as_slice()).ok()) {
            return Ok(Look::Holds(Token(t)));
        }
        let Some(since) = tx.get(&at(pack(&("waiter", name))), false)? else {
            return Ok(Look::NotQueued);
        };
        let Ok(since) = foundationdb_tuple::unpack::<Versionstamp>(&since) else {
            return Ok(Look::NotQueued);
        };
        let queue = at(pack(&("queue",)));
        let mine = at(pack(&("queue", since)));
        let before = RangeOption::new(queue, mine).rev();
        let names: Vec<String> = collect_range(tx, &before, true)?
            .into_iter()
            .map(|kv| String::from_utf8_lossy(&kv.value).into_owned())
            .collect();
        // The beats of those ahead in one range read, not a read each.
        let mut beats = if names.is_empty() {
            HashMap::new()
        } else {
            heartbeats(tx, prefix)?
        };
        let ahead: Vec<(String, Vec<u8>)> = names
            .into_iter()
            .map(|name| {
                let beat = beats.remove(&name).unwrap_or_default();
                (name, beat)
            })
            .collect();
        match ahead.first() {
            Some((nearest, _)) => {
                let watch = tx.watch(&at(pack(&("waiter", nearest.as_str()))))?;
                Ok(Look::Behind { ahead, watch })
            }
            None => {
                let holders = holders(tx, prefix)?;
                let slot = match permits {
                    Some(n) => free_permit(tx, prefix, n)?,
                    None => None,
                };
                let watch = tx.watch(&at(pack(&("turn",))))?;
                Ok(Look::Head {
                    holders,
                    slot,
                    watch,
                })
            }
        }
    })
}

/// Every client's last heartbeat, by name.
fn heartbeats(tx: &mut dyn Transaction, prefix: &[u8]) -> Result<HashMap<String, Vec<u8>>, Error> {
    let range = RangeOption::prefix(&[prefix, &pack(&("hb",))].concat());
    Ok(collect_range(tx, &range, true)?
        .into_iter()
        .filter_map(|kv| {
            let (_, name) =
                foundationdb_tuple::unpack::<(String, String)>(&kv.key[prefix.len()..]).ok()?;
            Some((name, kv.value))
        })
        .collect())
}

/// Every holder and its last heartbeat.
fn holders(tx: &mut dyn Transaction, prefix: &[u8]) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let range = RangeOption::prefix(&[prefix, &pack(&("holder",))].concat());
    let mut found = Vec::new();
    for kv in collect_range(tx, &range, true)? {
        let Ok((_, name)) = foundationdb_tuple::unpack::<(String, String)>(&kv.key[prefix.len()..])
        else {
            continue;
        };
        let beat = tx.get(&[prefix, &pack(&("hb", name.as_str()))].concat(), true)?;
        found.push((name, beat.unwrap_or_default()));
    }
    Ok(found)
}

/// The lowest permit number below `n` that nobody holds.
pub(super) fn free_permit(
    tx: &mut dyn Transaction,
    prefix: &[u8],
    n: u32,
) -> Result<Option<i64>, Error> {
    let range = RangeOption::prefix(&[prefix, &pack(&("permit",))].concat());
    let taken: Vec<i64> = collect_range(tx, &range, true)?
        .iter()
        .filter_map(|kv| foundationdb_tuple::unpack::<(String, i64)>(&kv.key[prefix.len()..]).ok())
        .map(|(_, slot)| slot)
        .collect();
    Ok((0..i64::from(n)).find(|slot| !taken.contains(slot)))
}
