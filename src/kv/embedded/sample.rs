//! The byte sample behind [`Transaction::estimated_range_size`]: what
//! lets the embedded store estimate the size of a range without reading it.
//!
//! FDB's storage servers keep a sample of the key-values they hold, about
//! one byte in 250 with larger pairs likelier to be in it, and answer an
//! estimate by adding up the sample inside the range; a range of a few
//! hundred kilobytes or less is often estimated at 0. The embedded store
//! keeps a sample of its own, written by every commit alongside the data:
//! a key-value is in it when a hash of its key falls in one of
//! [`RATE`] buckets, and its entry holds the pair's size. The estimate of a
//! range is the sizes sampled there times [`RATE`]: it reads one entry in
//! [`RATE`], so its cost grows with the range, [`RATE`] times slower than
//! a scan, and no key-value is read.
//!
//! Whether a key is sampled depends on its key alone, so a write of a key
//! that is not sampled costs nothing more, and a key's entry is replaced
//! by each write of it. The estimate is unbiased; for a range of `n` pairs
//! of like size its relative error is about `8 / sqrt(n)` (8% for 10,000
//! pairs, 25% for 1,000), and a range of fewer than a few hundred pairs is
//! often estimated at 0 or at several times its size. It ignores the
//! transaction's own writes, as FDB's does.
//!
//! The entries live past the special keys, at [`PREFIX`], where no read or
//! write of a transaction reaches. Data written by an fql older than the
//! sample is not in it until it is written again.
//!
//! [`Transaction::estimated_range_size`]: crate::kv::Transaction::estimated_range_size

use super::store::{MAX_BATCH, Snapshot, Writer};
use crate::kv::Result;

/// Where the sample's entries live: past `\xff\xff`, out of every
/// transaction's reach.
pub(super) const PREFIX: &[u8] = b"\xff\xff\xff/fql/byte_sample/";

/// One key in this many is sampled.
pub(super) const RATE: u64 = 64;

/// Whether `key` is in the sample: FNV-1a, then a finalizer that spreads
/// its bits, so that keys differing only at the end fall in different
/// buckets. Stable across versions and machines: files keep the sample.
fn sampled(key: &[u8]) -> bool {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h.is_multiple_of(RATE)
}

fn entry_key(key: &[u8]) -> Vec<u8> {
    [PREFIX, key].concat()
}

/// A writer that keeps the sample in step with the writes it passes on.
pub(super) struct Sampling<'w>(pub &'w mut dyn Writer);

impl Writer for Sampling<'_> {
    fn version(&mut self) -> Result<u64> {
        self.0.version()
    }

    fn set_version(&mut self, version: u64) -> Result<()> {
        self.0.set_version(version)
    }

    fn log_floor(&mut self) -> Result<u64> {
        self.0.log_floor()
    }

    fn any_write_since(
        &mut self,
        version: u64,
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<bool> {
        self.0.any_write_since(version, f)
    }

    fn log(
        &mut self,
        version: u64,
        now_ms: u64,
        ranges: &[(Vec<u8>, Vec<u8>)],
        forget_before_ms: u64,
    ) -> Result<()> {
        self.0.log(version, now_ms, ranges, forget_before_ms)
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.0.get(key)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.0.set(key, value)?;
        if sampled(key) {
            let size = (key.len() + value.len()) as u64;
            self.0.set(&entry_key(key), &size.to_le_bytes())?;
        }
        Ok(())
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        self.0.clear(key)?;
        if sampled(key) {
            self.0.clear(&entry_key(key))?;
        }
        Ok(())
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        self.0.clear_range(begin, end)?;
        self.0.clear_range(&entry_key(begin), &entry_key(end))
    }
}

/// The estimated bytes of keys and values in `[begin, end)` at the
/// snapshot's version: the sampled sizes there, times [`RATE`].
pub(super) fn estimate(snap: &mut dyn Snapshot, begin: &[u8], end: &[u8]) -> Result<u64> {
    let end = entry_key(end);
    let mut from = entry_key(begin);
    let mut total = 0u64;
    loop {
        let rows = snap.scan(&from, &end, false, MAX_BATCH)?;
        for row in &rows {
            let size = row.value.get(..8).and_then(|b| b.try_into().ok());
            total = total.saturating_add(size.map_or(0, u64::from_le_bytes));
        }
        match rows.last() {
            Some(last) if rows.len() == MAX_BATCH => from = crate::kv::key_after(&last.key),
            _ => return Ok(total.saturating_mul(RATE)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_one_key_in_rate_is_sampled() {
        let n = 64_000u64;
        let hits = (0..n)
            .filter(|i| sampled(format!("key{i}").as_bytes()))
            .count() as u64;
        let expected = n / RATE;
        assert!(
            hits > expected * 8 / 10 && hits < expected * 12 / 10,
            "{hits} of {n} sampled"
        );
    }
}
