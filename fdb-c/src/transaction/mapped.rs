//! `fdb_transaction_get_mapped_range`: a range of index entries, each
//! mapped (see [`crate::mapper`]) to the key or the range of keys of the
//! record it points to, which is read alongside, as FDB 7.3 does.
//!
//! FDB's storage servers run the secondary reads and its client checks
//! the result, so the rules come from both:
//!
//! - the client's checks first: a range of the special keys is
//!   `client_invalid_operation`; then the transaction's own state, the
//!   legal keys, the limits, an inverted range (empty); snapshot reads and
//!   transactions with read-your-writes disabled are
//!   `unsupported_operation`, since FDB supports neither here;
//! - the store is read as a storage server reads it, without merging the
//!   transaction's writes: if the primary range read or any secondary read
//!   covers a key the transaction wrote, the call fails with
//!   `get_mapped_range_reads_your_writes` instead (the store's reads do
//!   see the writes, so a result that would differ is never returned);
//! - every read adds its read conflict range: the primary range up to its
//!   last row when rows remain, each secondary key, each secondary prefix
//!   range (up to its last row if it held more than a storage server's
//!   2000 rows or 10 MB);
//! - a secondary range read's rows come with the index entry's key and
//!   value; a single-key read's row leaves them empty, except the first
//!   and the last rows, which always carry them so a caller can continue
//!   from them;
//! - the byte target counts each index entry and the rows its secondary
//!   read found: a batch ends at the first entry that reaches it.

use fql::kv::{ConflictRangeType, KeyValue, key_after, strinc};

use super::{State, Tx, special};
use crate::errors::{
    CLIENT_INVALID_OPERATION, Code, GET_MAPPED_RANGE_READS_YOUR_WRITES, KEY_OUTSIDE_LEGAL_RANGE,
    UNSUPPORTED_OPERATION,
};
use crate::future::mapped::{MappedKeyValues, MappedRow};
use crate::future::{Future, Value};
use crate::mapper::{Mapper, Secondary};
use crate::range::{self, Limits, Raw};
use crate::selector::Selector;

/// FDB's limits of one secondary range read
/// (`QUICK_GET_KEY_VALUES_LIMIT`, `QUICK_GET_KEY_VALUES_LIMIT_BYTES`).
const SECONDARY: Limits = Limits {
    rows: Some(2000),
    bytes: Some(10_000_000),
};
/// FDB's longest key: no longer one is stored.
const KEY_SIZE_LIMIT: usize = 10_000;

/// A range a read covered, `[begin, end)`.
type Span = (Vec<u8>, Vec<u8>);

/// One index entry's mapped row, the range its secondary read covered,
/// and what it costs against the byte target.
struct Mapped {
    row: MappedRow,
    read: Span,
    cost: usize,
}

impl Tx {
    /// `fdb_transaction_get_mapped_range`, after the C call's limits were
    /// translated.
    pub fn get_mapped_range(
        &self,
        begin: Selector,
        end: Selector,
        mapper: &[u8],
        limits: Raw,
        snapshot: bool,
        reverse: bool,
    ) -> Result<(Vec<MappedRow>, bool), Code> {
        let mut st = self.lock();
        st.check_deadline();
        if let Some(code) = st.deferred {
            return Err(code);
        }
        if special::holds_range(&begin.given, &end.given) {
            return Err(CLIENT_INVALID_OPERATION);
        }
        st.readable()?;
        let max = st.max_read_key();
        if begin.given.as_slice() > max || end.given.as_slice() > max {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        let limits = limits.valid()?;
        if begin.offset >= end.offset && begin.key >= end.key {
            return Ok((Vec::new(), false));
        }
        if snapshot || st.options.read_your_writes_disabled {
            return Err(UNSUPPORTED_OPERATION);
        }
        let b = st.bound(&begin, false, max)?;
        let e = st.bound(&end, false, max)?;
        if b >= e {
            return Ok((Vec::new(), false));
        }
        let mapper = Mapper::parse(mapper)?;
        st.mapped_range(&b, &e, &mapper, limits, reverse)
    }
}

impl State {
    /// One batch of the mapped range `[begin, end)`.
    fn mapped_range(
        &mut self,
        begin: &[u8],
        end: &[u8],
        mapper: &Mapper,
        limits: Limits,
        reverse: bool,
    ) -> Result<(Vec<MappedRow>, bool), Code> {
        // Snapshot reads that see the transaction's writes: the conflict
        // ranges are added below for exactly what was read, and a read
        // that meets the transaction's writes fails the call anyway.
        let (index, mut more) =
            range::read(&mut *self.inner, begin, end, reverse, limits, true, true)?;
        let mut rows = Vec::with_capacity(index.len());
        let mut reads = Vec::with_capacity(index.len() + 1);
        let mut bytes = 0;
        for (i, kv) in index.iter().enumerate() {
            let mapped = self.map_row(mapper, kv)?;
            bytes += mapped.cost;
            rows.push(mapped.row);
            reads.push(mapped.read);
            if i + 1 < index.len() && limits.bytes.is_some_and(|t| bytes >= t) {
                more = true;
                break;
            }
        }
        for at in [0, rows.len().saturating_sub(1)] {
            if let (Some(row), Some(kv)) = (rows.get_mut(at), index.get(at)) {
                row.key.clone_from(&kv.key);
                row.value.clone_from(&kv.value);
            }
        }
        let last = rows.len().checked_sub(1).map(|at| index[at].key.as_slice());
        reads.insert(0, covered(begin, end, reverse, more, last));
        if reads.iter().any(|(b, e)| self.written.intersects(b, e)) {
            return Err(GET_MAPPED_RANGE_READS_YOUR_WRITES);
        }
        let mut conflict_bytes = 0;
        for (b, e) in &reads {
            self.inner
                .add_conflict_range(b, e, ConflictRangeType::Read)
                .map_err(|e| crate::errors::of(&e))?;
            conflict_bytes += b.len() + e.len();
        }
        self.count_read(conflict_bytes, bytes, false);
        Ok((rows, more))
    }

    /// Maps one index entry and runs its secondary read, as a snapshot
    /// read: the caller adds the conflict range.
    fn map_row(&mut self, mapper: &Mapper, kv: &KeyValue) -> Result<Mapped, Code> {
        let index_cost = row_cost(kv);
        match mapper.map(&kv.key, &kv.value)? {
            Secondary::Prefix(prefix) => {
                let end = strinc(&prefix);
                let (found, more) = if prefix < end {
                    range::read(
                        &mut *self.inner,
                        &prefix,
                        &end,
                        false,
                        SECONDARY,
                        true,
                        true,
                    )?
                } else {
                    (Vec::new(), false)
                };
                let last = found.last().map(|r| r.key.as_slice());
                let read = covered(&prefix, &end, false, more, last);
                Ok(Mapped {
                    cost: index_cost + found.iter().map(row_cost).sum::<usize>(),
                    read,
                    row: MappedRow {
                        key: kv.key.clone(),
                        value: kv.value.clone(),
                        begin: prefix,
                        end,
                        rows: found,
                    },
                })
            }
            Secondary::Key(key) => {
                let value = if key.len() > KEY_SIZE_LIMIT {
                    None
                } else {
                    self.inner
                        .get(&key, true)
                        .map_err(|e| crate::errors::of(&e))?
                };
                let end = key_after(&key);
                let rows: Vec<KeyValue> = value
                    .map(|value| KeyValue {
                        key: key.clone(),
                        value,
                    })
                    .into_iter()
                    .collect();
                Ok(Mapped {
                    cost: index_cost + rows.iter().map(row_cost).sum::<usize>(),
                    read: (key.clone(), end.clone()),
                    row: MappedRow {
                        key: Vec::new(),
                        value: Vec::new(),
                        begin: key,
                        end,
                        rows,
                    },
                })
            }
        }
    }
}

/// What a row costs against the byte target, as in a range read.
fn row_cost(kv: &KeyValue) -> usize {
    8 + kv.key.len() + kv.value.len()
}

/// The part of `[begin, end)` a read covered: all of it, or, when rows
/// may remain, up to and including its last row.
fn covered(begin: &[u8], end: &[u8], reverse: bool, more: bool, last: Option<&[u8]>) -> Span {
    match (more, last) {
        (true, Some(last)) if reverse => (last.to_vec(), end.to_vec()),
        (true, Some(last)) => (begin.to_vec(), key_after(last)),
        _ => (begin.to_vec(), end.to_vec()),
    }
}

/// The future of a mapped range's result.
pub fn mapped_future(r: Result<(Vec<MappedRow>, bool), Code>) -> std::sync::Arc<Future> {
    Future::ready(r.map(|(rows, more)| Value::MappedKeyValues(MappedKeyValues::new(&rows, more))))
}
