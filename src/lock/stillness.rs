//! How long each client's sign of life has stood still, on this
//! process's monotonic clock: what every judge of a lock (a waiter, the
//! head of a queue, a reaper) decides by.
//!
//! A sign (a heartbeat, an owner key's value) is only ever compared with
//! its own earlier value, never with anyone's wall clock: what is kept is
//! the value last seen and the instant it was first seen with it. A judge
//! that starts, or restarts, therefore watches a value for a whole
//! threshold before it may act on it.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

/// The values seen of each sign `K`, and since when.
#[derive(Debug)]
pub(crate) struct Stillness<K, V> {
    seen: HashMap<K, (V, Instant)>,
}

impl<K, V> Default for Stillness<K, V> {
    fn default() -> Self {
        Stillness {
            seen: HashMap::new(),
        }
    }
}

impl<K: Eq + Hash, V: PartialEq> Stillness<K, V> {
    /// Notes that `sign` shows `value` at `now`: a value other than the
    /// one seen before starts its time again. Returns how long it has
    /// shown this one.
    pub fn note(&mut self, sign: K, value: V, now: Instant) -> Duration {
        match self.seen.get(&sign) {
            Some((seen, since)) if *seen == value => now.duration_since(*since),
            _ => {
                self.seen.insert(sign, (value, now));
                Duration::ZERO
            }
        }
    }

    /// The value `sign` showed when last noted, and how long before
    /// `now` it was first seen with it.
    pub fn still(&self, sign: &K, now: Instant) -> Option<(&V, Duration)> {
        let (value, since) = self.seen.get(sign)?;
        Some((value, now.duration_since(*since)))
    }

    /// Forgets the signs `keep` refuses, so that a client that comes back
    /// is watched anew.
    pub fn retain(&mut self, keep: impl Fn(&K) -> bool) {
        self.seen.retain(|sign, _| keep(sign));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sign_stands_still_until_its_value_changes() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut seen = Stillness::<&str, u8>::default();
        assert_eq!(seen.note("ann", 1, at(0)), Duration::ZERO);
        assert_eq!(seen.note("ann", 1, at(3)), Duration::from_secs(3));
        assert_eq!(
            seen.still(&"ann", at(5)),
            Some((&1, Duration::from_secs(5)))
        );
        // A beat starts the time again.
        assert_eq!(seen.note("ann", 2, at(6)), Duration::ZERO);
        assert_eq!(seen.note("ann", 2, at(7)), Duration::from_secs(1));
        // Forgotten, a client is watched anew.
        seen.retain(|name| *name != "ann");
        assert_eq!(seen.still(&"ann", at(8)), None);
        assert_eq!(seen.note("ann", 2, at(9)), Duration::ZERO);
    }
}
