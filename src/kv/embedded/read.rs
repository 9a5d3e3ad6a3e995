//! Range reads that see the transaction's own writes: the store's rows and
//! the write buffer, merged in key order, one batch at a time.

use std::cmp::Ordering;
use std::collections::VecDeque;

use super::buffer::{Entry, WriteBuffer};
use super::store::{MAX_BATCH, Snapshot, batch};
use crate::kv::{KeyValue, Result, key_after};

/// One batch of the merged view of `[begin, end)`.
pub(crate) struct Batch {
    pub rows: Vec<KeyValue>,
    /// Whether rows may remain after the batch.
    pub more: bool,
}

/// Reads up to `want` rows of `[begin, end)` from `snap` as modified by
/// `buffer`.
///
/// A buffer entry is merged in only once the store has been read past its
/// key, so each comparison is against the store's next actual row.
pub(crate) fn read_batch(
    snap: &mut dyn Snapshot,
    buffer: &WriteBuffer,
    begin: &[u8],
    end: &[u8],
    reverse: bool,
    want: usize,
    value_limit: usize,
) -> Result<Batch> {
    let mut rows = batch(want);
    let mut entries = buffer.entries_in(begin, end, reverse).peekable();
    let mut store = StoreCursor {
        lo: begin.to_vec(),
        hi: end.to_vec(),
        reverse,
        chunk: want.clamp(16, MAX_BATCH),
        rows: VecDeque::new(),
        done: false,
    };
    // Orders keys in the read's direction.
    let before = |a: &[u8], b: &[u8]| {
        let o = a.cmp(b);
        if reverse { o.reverse() } else { o }
    };

    while rows.len() < want {
        if store.rows.is_empty() && !store.done {
            store.fetch(snap, buffer)?;
            continue;
        }
        let take_entry = match (store.rows.front(), entries.peek()) {
            (None, None) => break,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(row), Some((k, _))) => before(k, &row.key) != Ordering::Greater,
        };
        if !take_entry {
            rows.extend(store.rows.pop_front());
            continue;
        }
        let (key, entry) = entries.next().expect("peeked");
        let row = store.rows.front().filter(|r| &r.key == key);
        let value = entry.resolve(row.map(|r| r.value.as_slice()), value_limit)?;
        if row.is_some() {
            store.rows.pop_front();
        }
        if let Some(value) = value {
            rows.push(KeyValue {
                key: key.clone(),
                value,
            });
        }
    }
    let more = !(store.rows.is_empty() && store.done && entries.peek().is_none());
    Ok(Batch { rows, more })
}

/// The store's side of a merged read: `[lo, hi)` is still unread, `rows`
/// are read but not yet merged.
struct StoreCursor {
    lo: Vec<u8>,
    hi: Vec<u8>,
    reverse: bool,
    chunk: usize,
    rows: VecDeque<KeyValue>,
    done: bool,
}

impl StoreCursor {
    /// Reads the next chunk of stored rows, keeping only those the buffer
    /// does not decide alone (it overrides or clears the rest).
    ///
    /// A range clear at the read's edge is jumped over, not read row by
    /// row, so reading after clearing a million rows costs one seek.
    fn fetch(&mut self, snap: &mut dyn Snapshot, buffer: &WriteBuffer) -> Result<()> {
        let cleared = buffer.cleared();
        if self.reverse {
            if let Some((b, _)) = cleared.reaching(&self.hi) {
                self.hi = b.max(self.lo.as_slice()).to_vec();
            }
        } else if let Some((_, e)) = cleared.containing(&self.lo) {
            self.lo = e.min(self.hi.as_slice()).to_vec();
        }
        if self.lo >= self.hi {
            self.done = true;
            return Ok(());
        }
        let mut got = snap.scan(&self.lo, &self.hi, self.reverse, self.chunk)?;
        if got.len() < self.chunk {
            self.done = true;
        } else if let Some(last) = got.last() {
            if self.reverse {
                self.hi = last.key.clone();
            } else {
                self.lo = key_after(&last.key);
            }
        }
        // Only called once the rows before are merged: the rows read
        // become the queue, with no copy.
        debug_assert!(self.rows.is_empty());
        got.retain(|r| buffer.lookup(&r.key).is_none_or(Entry::needs_stored));
        self.rows = VecDeque::from(got);
        Ok(())
    }
}
