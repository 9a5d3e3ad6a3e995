//! Range reads that see the transaction's own writes: the store's rows and
//! the write buffer, merged in key order, one batch at a time.

use std::cmp::Ordering;
use std::collections::VecDeque;

use super::buffer::WriteBuffer;
use super::store::Snapshot;
use crate::kv::{Error, KeyValue, Result};

/// One batch of the merged view of `[begin, end)`.
pub(crate) struct Batch {
    pub rows: Vec<KeyValue>,
    /// Whether rows may remain after the batch.
    pub more: bool,
}

/// Reads up to `want` rows of `[begin, end)` from `snap` as modified by
/// `buffer`.
///
/// The store is read in chunks from a moving position. A buffer entry is
/// merged in only once the store has been read past its key, so each
/// comparison is against the store's next actual row. Stored rows under a
/// range clear are skipped by jumping the position past the clear, not row
/// by row, so reading after clearing a million rows costs one seek.
pub(crate) fn read_batch(
    snap: &mut dyn Snapshot,
    buffer: &WriteBuffer,
    begin: &[u8],
    end: &[u8],
    reverse: bool,
    want: usize,
    value_limit: usize,
) -> Result<Batch> {
    let mut rows = Vec::new();
    let mut entries = buffer.entries_in(begin, end, reverse).peekable();
    let mut stored: VecDeque<KeyValue> = VecDeque::new();
    // The unread part of the store's range.
    let (mut lo, mut hi) = (begin.to_vec(), end.to_vec());
    let mut store_done = false;
    let chunk = want.clamp(16, 4096);
    // Orders keys in the read's direction.
    let before = |a: &[u8], b: &[u8]| {
        let o = a.cmp(b);
        if reverse { o.reverse() } else { o }
    };

    while rows.len() < want {
        if stored.is_empty() && !store_done {
            fetch(
                snap,
                buffer,
                &mut lo,
                &mut hi,
                reverse,
                chunk,
                &mut stored,
                &mut store_done,
            )?;
            continue;
        }
        let next_entry = entries.peek().map(|(k, _)| k.as_slice());
        let take_entry = match (stored.front(), next_entry) {
            (None, None) => break,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(row), Some(k)) => before(k, &row.key) != Ordering::Greater,
        };
        if !take_entry {
            rows.extend(stored.pop_front());
            continue;
        }
        let (key, entry) = entries.next().expect("peeked");
        let row = stored.front().filter(|r| &r.key == key);
        let value = entry
            .resolve(row.map(|r| r.value.as_slice()), value_limit)
            .map_err(|()| Error::AccessedUnreadable)?;
        if row.is_some() {
            stored.pop_front();
        }
        if let Some(value) = value {
            rows.push(KeyValue {
                key: key.clone(),
                value,
            });
        }
    }
    let more = !(stored.is_empty() && store_done && entries.peek().is_none());
    Ok(Batch { rows, more })
}

/// Reads the next chunk of stored rows, skipping range clears and keys the
/// buffer overrides (those come from the buffer instead).
#[allow(clippy::too_many_arguments)]
fn fetch(
    snap: &mut dyn Snapshot,
    buffer: &WriteBuffer,
    lo: &mut Vec<u8>,
    hi: &mut Vec<u8>,
    reverse: bool,
    chunk: usize,
    out: &mut VecDeque<KeyValue>,
    done: &mut bool,
) -> Result<()> {
    let cleared = buffer.cleared();
    // Jump over a clear at the read's edge of the unread part.
    if reverse {
        if let Some((b, _)) = cleared.reaching(hi) {
            *hi = b.max(lo.as_slice()).to_vec();
        }
    } else if let Some((_, e)) = cleared.containing(lo) {
        *lo = e.min(hi.as_slice()).to_vec();
    }
    if lo >= hi {
        *done = true;
        return Ok(());
    }
    let got = snap.scan(lo, hi, reverse, chunk)?;
    if got.len() < chunk {
        *done = true;
    } else if let Some(last) = got.last() {
        if reverse {
            *hi = last.key.clone();
        } else {
            *lo = crate::kv::key_after(&last.key);
        }
    }
    out.extend(got.into_iter().filter(|r| {
        !cleared.contains(&r.key) && buffer.lookup(&r.key).is_none_or(|e| e.needs_stored())
    }));
    Ok(())
}
