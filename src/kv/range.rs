//! Range reads: what to read, and how to page through it in batches.
//!
//! A range read returns one batch at a time, as FDB's `get_range` does; the
//! caller asks for the next batch with [`RangeOption::next_range`]. Holding
//! only one batch at a time is what lets a read of any size run in constant
//! memory, and since no borrow of the transaction outlives a batch, the caller
//! may write between batches. A caller that does not write can read ahead
//! instead (see [`ahead`](super::ahead)).

use super::{Result, Transaction};

/// A key and its value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KeyValue {
    /// The key.
    pub key: Vec<u8>,
    /// The value.
    pub value: Vec<u8>,
}

/// How many rows a batch should hold, as FDB's streaming modes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StreamingMode {
    /// Batches that grow as the caller keeps reading: the right choice when
    /// the caller may stop early.
    #[default]
    Iterator,
    /// As much as possible per batch: the caller wants everything.
    WantAll,
    /// Exactly `limit` rows in one batch; needs a limit.
    Exact,
    /// Small batches.
    Small,
    /// Medium batches.
    Medium,
    /// Large batches.
    Large,
    /// The largest batches, for a caller that reads everything serially.
    Serial,
}

impl StreamingMode {
    /// Rows per batch for the embedded backends at the given iteration
    /// (1-based). The sizes follow FDB's byte targets for rows of about
    /// 100 bytes, capped so a batch stays small in memory.
    pub fn batch_rows(self, iteration: usize) -> usize {
        match self {
            StreamingMode::Iterator => {
                let step = iteration.clamp(1, 8) - 1;
                16usize << step
            }
            StreamingMode::Small => 16,
            StreamingMode::Medium => 128,
            StreamingMode::Large => 1024,
            StreamingMode::WantAll | StreamingMode::Serial => 4096,
            StreamingMode::Exact => usize::MAX,
        }
    }
}

/// A range to read: keys from `begin` (inclusive) to `end` (exclusive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeOption {
    /// First key of the range.
    pub begin: Vec<u8>,
    /// The key after the range.
    pub end: Vec<u8>,
    /// At most this many rows over the whole read.
    pub limit: Option<usize>,
    /// Read from the end backwards.
    pub reverse: bool,
    /// Batch sizes.
    pub mode: StreamingMode,
}

impl RangeOption {
    /// The keys `begin <= key < end`.
    pub fn new(begin: impl Into<Vec<u8>>, end: impl Into<Vec<u8>>) -> Self {
        RangeOption {
            begin: begin.into(),
            end: end.into(),
            limit: None,
            reverse: false,
            mode: StreamingMode::Iterator,
        }
    }

    /// Every key that starts with `prefix`, the prefix itself included.
    pub fn prefix(prefix: &[u8]) -> Self {
        RangeOption::new(prefix, strinc(prefix))
    }

    /// The same range read backwards.
    pub fn rev(mut self) -> Self {
        self.reverse = true;
        self
    }

    /// The same range with a row limit.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// The same range with another streaming mode.
    pub fn mode(mut self, mode: StreamingMode) -> Self {
        self.mode = mode;
        self
    }

    /// The rest of this range after `batch`, or `None` when the read is done.
    pub fn next_range(&self, batch: &RangeResult) -> Option<RangeOption> {
        if !batch.more {
            return None;
        }
        let last = batch.kvs.last()?;
        let limit = match self.limit {
            Some(n) if n <= batch.kvs.len() => return None,
            Some(n) => Some(n - batch.kvs.len()),
            None => None,
        };
        let mut next = self.clone();
        next.limit = limit;
        if self.reverse {
            next.end = last.key.clone();
        } else {
            next.begin = key_after(&last.key);
        }
        Some(next)
    }
}

/// One batch of a range read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeResult {
    /// Rows in the read's order.
    pub kvs: Vec<KeyValue>,
    /// Whether the range may hold more rows after this batch.
    pub more: bool,
}

/// Pages through a range, one batch per call, without borrowing the
/// transaction between calls.
#[derive(Debug)]
pub struct RangeCursor {
    next: Option<RangeOption>,
    iteration: usize,
    snapshot: bool,
}

impl RangeCursor {
    /// A cursor over `range`; `snapshot` reads add no read conflicts.
    pub fn new(range: RangeOption, snapshot: bool) -> Self {
        RangeCursor {
            next: Some(range),
            iteration: 0,
            snapshot,
        }
    }

    /// The next batch, or `None` when the range is exhausted. After an
    /// error the cursor still points at the batch that failed, so a caller
    /// may continue the read, in a new transaction if need be.
    pub fn next_batch(&mut self, tx: &mut dyn Transaction) -> Result<Option<Vec<KeyValue>>> {
        let Some(range) = self.next.take() else {
            return Ok(None);
        };
        if range.limit == Some(0) {
            return Ok(None);
        }
        self.iteration += 1;
        let batch = match tx.get_range(&range, self.iteration, self.snapshot) {
            Ok(batch) => batch,
            Err(e) => {
                // Kept, so a caller may go on in a new transaction.
                self.next = Some(range);
                return Err(e);
            }
        };
        self.next = range.next_range(&batch);
        if batch.kvs.is_empty() && self.next.is_none() {
            return Ok(None);
        }
        Ok(Some(batch.kvs))
    }
}

/// Reads a whole range into memory. For tests and small ranges; streaming
/// code uses a [`RangeCursor`].
pub fn collect_range(
    tx: &mut dyn Transaction,
    range: &RangeOption,
    snapshot: bool,
) -> Result<Vec<KeyValue>> {
    let mut cursor = RangeCursor::new(range.clone(), snapshot);
    let mut out = Vec::new();
    while let Some(batch) = cursor.next_batch(tx)? {
        out.extend(batch);
    }
    Ok(out)
}

/// The first key after every key that starts with `prefix`: the prefix with
/// trailing `0xff` bytes dropped and its last byte incremented. A prefix of
/// only `0xff` bytes (or none) has no such key; the end of the user keyspace,
/// `0xff`, is returned.
pub fn strinc(prefix: &[u8]) -> Vec<u8> {
    match prefix.iter().rposition(|&b| b != 0xff) {
        Some(i) => {
            let mut out = prefix[..=i].to_vec();
            out[i] += 1;
            out
        }
        None => vec![0xff],
    }
}

/// The first key after `key`: `key` followed by a zero byte.
pub fn key_after(key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len() + 1);
    out.extend_from_slice(key);
    out.push(0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strinc_drops_trailing_ff() {
        assert_eq!(strinc(b"ab"), b"ac");
        assert_eq!(strinc(b"a\xff\xff"), b"b");
        assert_eq!(strinc(b"\xff"), b"\xff");
        assert_eq!(strinc(b""), b"\xff");
    }

    #[test]
    fn next_range_continues_after_the_last_key() {
        let range = RangeOption::new(b"a", b"z").limit(3);
        let batch = RangeResult {
            kvs: vec![KeyValue {
                key: b"b".to_vec(),
                value: vec![],
            }],
            more: true,
        };
        let next = range.next_range(&batch).unwrap();
        assert_eq!(next.begin, b"b\0");
        assert_eq!(next.limit, Some(2));
        let rev = range.clone().rev().next_range(&batch).unwrap();
        assert_eq!(
            (rev.begin.as_slice(), rev.end.as_slice()),
            (&b"a"[..], &b"b"[..])
        );
        let done = RangeResult {
            more: false,
            ..batch
        };
        assert!(range.next_range(&done).is_none());
    }
}
