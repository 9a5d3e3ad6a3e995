//! The high contention allocator: short, unique prefixes for new
//! directories, allocated by many clients at once with few conflicts.
//!
//! Prefixes are small integers, so directory keys stay short. Counting
//! allocations per window with atomic adds lets any number of transactions
//! allocate without touching a shared key; each picks a random candidate in
//! the current window and conflicts only with a transaction that picked the
//! same one. A window is abandoned once half full, so a random pick needs
//! about two tries; windows grow as the numbers do, keeping that cheap.

use std::sync::{Mutex, PoisonError};

use foundationdb_tuple::{Subspace, pack};
use rand::{RngExt, SeedableRng, rngs::StdRng};

use super::node::add_write_conflict_key;
use super::{Error, Result};
use crate::kv::{self, MutationType, RangeOption, Transaction, TransactionOption};

/// Where the allocator's random candidates come from. Injectable so tests
/// can reproduce exact prefixes.
pub trait Candidates: Send {
    /// A number in `start..start + window`; others are folded into it.
    fn candidate(&mut self, start: i64, window: i64) -> i64;
}

/// Uniform random candidates, as every FDB binding picks them.
#[derive(Debug)]
pub struct RandomCandidates(StdRng);

impl RandomCandidates {
    /// Seeded from the operating system: different in every process, as
    /// concurrent clients must be.
    pub fn new() -> RandomCandidates {
        RandomCandidates(rand::make_rng())
    }

    /// The same sequence on every run.
    pub fn seeded(seed: u64) -> RandomCandidates {
        RandomCandidates(StdRng::seed_from_u64(seed))
    }
}

impl Default for RandomCandidates {
    fn default() -> Self {
        RandomCandidates::new()
    }
}

impl Candidates for RandomCandidates {
    fn candidate(&mut self, start: i64, window: i64) -> i64 {
        let end = start.saturating_add(window);
        if end <= start {
            return start;
        }
        self.0.random_range(start..end)
    }
}

/// Windows grow with the numbers so that large databases need fewer
/// window advances, each of which clears the old window's bookkeeping.
fn window_size(start: i64) -> i64 {
    if start < 255 {
        64
    } else if start < 65535 {
        1024
    } else {
        8192
    }
}

/// Allocates a number unique within this allocator and returns it packed
/// as a one-element tuple, the shape of an allocated prefix.
pub(super) fn allocate(
    tx: &mut dyn Transaction,
    hca: &Subspace,
    candidates: &Mutex<Box<dyn Candidates>>,
) -> Result<Vec<u8>> {
    let counters = hca.subspace(&0i64);
    let recent = hca.subspace(&1i64);
    loop {
        let (start, window) = current_window(tx, &counters, &recent)?;
        loop {
            let picked = {
                let mut source = candidates.lock().unwrap_or_else(PoisonError::into_inner);
                source.candidate(start, window)
            };
            let candidate = start.saturating_add(picked.wrapping_sub(start).rem_euclid(window));
            let latest = latest_start(tx, &counters)?;
            let key = recent.pack(&candidate);
            // Not a snapshot read: a transaction that takes the same
            // candidate and commits first makes this one conflict.
            let taken = tx.get(&key, false)?.is_some();
            tx.set_option(TransactionOption::NextWriteNoWriteConflictRange)?;
            tx.set(&key, b"")?;
            if latest.is_some_and(|latest| latest > start) {
                // Another transaction advanced the window under us; this
                // candidate's window may already be cleared.
                break;
            }
            if !taken {
                add_write_conflict_key(tx, &key)?;
                return Ok(pack(&(candidate,)));
            }
        }
    }
}

/// Counts this allocation in the current window, advancing past windows
/// that are at least half full; returns the window to pick from.
fn current_window(
    tx: &mut dyn Transaction,
    counters: &Subspace,
    recent: &Subspace,
) -> Result<(i64, i64)> {
    let mut start = latest_start(tx, counters)?.unwrap_or(0);
    let mut advanced = false;
    loop {
        if advanced {
            tx.clear_range(counters.bytes(), &counters.pack(&start))?;
            tx.set_option(TransactionOption::NextWriteNoWriteConflictRange)?;
            tx.clear_range(recent.bytes(), &recent.pack(&start))?;
        }
        let key = counters.pack(&start);
        // An atomic add, so concurrent allocations do not conflict here;
        // the count is read as a snapshot for the same reason.
        tx.atomic_op(&key, &1i64.to_le_bytes(), MutationType::Add)?;
        let count = match tx.get(&key, true)? {
            Some(value) => decode_count(&key, &value)?,
            None => 0,
        };
        let window = window_size(start);
        if count.saturating_mul(2) < window {
            return Ok((start, window));
        }
        start = start.saturating_add(window);
        advanced = true;
    }
}

/// The start of the newest window, read as a snapshot.
fn latest_start(tx: &mut dyn Transaction, counters: &Subspace) -> Result<Option<i64>> {
    let (begin, end) = counters.range();
    let range = RangeOption::new(begin, end).rev().limit(1);
    let Some(last) = kv::collect_range(tx, &range, true)?.pop() else {
        return Ok(None);
    };
    counters
        .unpack::<(i64,)>(&last.key)
        .map(|(start,)| Some(start))
        .map_err(|e| Error::corrupt(&last.key, format!("not an allocator counter: {e}")))
}

/// A counter: a little-endian integer of up to eight bytes.
fn decode_count(key: &[u8], value: &[u8]) -> Result<i64> {
    if value.len() > 8 {
        return Err(Error::corrupt(key, "a counter has at most 8 bytes"));
    }
    let mut bytes = [0; 8];
    bytes[..value.len()].copy_from_slice(value);
    Ok(i64::from_le_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_grow_with_the_numbers() {
        assert_eq!(window_size(0), 64);
        assert_eq!(window_size(254), 64);
        assert_eq!(window_size(256), 1024);
        assert_eq!(window_size(65534), 1024);
        assert_eq!(window_size(65535), 8192);
    }

    #[test]
    fn random_candidates_stay_in_the_window() {
        let mut source = RandomCandidates::seeded(7);
        for _ in 0..1000 {
            let c = source.candidate(256, 1024);
            assert!((256..1280).contains(&c));
        }
    }

    #[test]
    fn counters_are_little_endian() {
        assert_eq!(decode_count(b"k", &76i64.to_le_bytes()), Ok(76));
        assert_eq!(decode_count(b"k", &[3]), Ok(3));
        assert!(decode_count(b"k", &[0; 9]).is_err());
    }
}
