//! Range reads as `fdb_transaction_get_range` defines them: FDB's checks
//! of limits and streaming modes, and one batch of rows read to a row
//! limit and a byte target.
//!
//! The byte target is FDB's: each streaming mode (and each iteration of
//! `ITERATOR`) asks for about so many bytes, a row costing its key, its
//! value and 8 bytes; a batch ends at the first row that reaches the
//! target, so it always holds at least one row when any is left.
//!
//! Rows are read as snapshot reads and the read conflict range is added
//! afterwards for exactly the part of the range the batch covered, so
//! that reading a little ahead in the store never adds conflicts FDB
//! would not have; but when the store's snapshot reads skip the
//! transaction's writes (`snapshot_ryw_disable`), a non-snapshot read
//! reads its rows as one, which sees them, at the cost of a conflict
//! range up to the store's last batch.

use fql::kv::{self, ConflictRangeType, KeyValue, RangeOption, StreamingMode, key_after};

use crate::errors::{
    CLIENT_INVALID_OPERATION, Code, EXACT_MODE_WITHOUT_LIMITS, RANGE_LIMITS_INVALID,
};
use crate::option_codes::mode::{EXACT, ITERATOR, SERIAL, WANT_ALL};
use crate::types::FDBStreamingMode;

/// Bytes per batch of `EXACT`, `SMALL`, `MEDIUM`, `LARGE`, `SERIAL`
/// (`None`: no target).
const MODE_BYTES: [Option<usize>; 5] = [None, Some(256), Some(1000), Some(4096), Some(80000)];

/// Bytes per batch of `ITERATOR`, by iteration: each half again the last.
const ITERATION_BYTES: [usize; 10] = [
    4096, 6144, 9216, 13824, 20736, 31104, 46656, 69984, 80000, 120000,
];

/// What a batch may hold; `None` is no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub rows: Option<usize>,
    pub bytes: Option<usize>,
}

/// FDB's translation of the C call's limits, in FDB's order: 0 is no
/// limit; `EXACT` needs one (`exact_mode_without_limits`); an unknown
/// mode, or `ITERATOR` without an iteration, is
/// `client_invalid_operation`.
pub fn limits(
    limit: i32,
    target_bytes: i32,
    mode: FDBStreamingMode,
    iteration: i32,
) -> Result<Raw, Code> {
    let rows = if limit == 0 { -1 } else { limit };
    let mut bytes = if target_bytes == 0 { -1 } else { target_bytes };
    if rows == -1 && bytes == -1 && mode == EXACT {
        return Err(EXACT_MODE_WITHOUT_LIMITS);
    }
    let mode = if mode == WANT_ALL { SERIAL } else { mode };
    let mode_bytes = match mode {
        ITERATOR if iteration <= 0 => return Err(CLIENT_INVALID_OPERATION),
        ITERATOR => Some(ITERATION_BYTES[(iteration as usize).min(ITERATION_BYTES.len()) - 1]),
        EXACT..=SERIAL => MODE_BYTES[mode as usize],
        _ => return Err(CLIENT_INVALID_OPERATION),
    };
    if let Some(m) = mode_bytes {
        bytes = if bytes == -1 {
            m as i32
        } else {
            bytes.min(m as i32)
        };
    }
    Ok(Raw { rows, bytes })
}

/// Limits as FDB holds them before its validity check: -1 is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Raw {
    rows: i32,
    bytes: i32,
}

impl Raw {
    /// FDB's `GetRangeLimits::isValid`: negative limits other than "none"
    /// are `range_limits_invalid`.
    pub fn valid(self) -> Result<Limits, Code> {
        let get = |v: i32| match v {
            -1 => Ok(None),
            v if v >= 0 => Ok(Some(v as usize)),
            _ => Err(RANGE_LIMITS_INVALID),
        };
        Ok(Limits {
            rows: get(self.rows)?,
            bytes: get(self.bytes)?,
        })
    }
}

/// What a row costs against the byte target.
fn cost(kv: &KeyValue) -> usize {
    8 + kv.key.len() + kv.value.len()
}

/// One batch of `[begin, end)` within `limits`, and whether rows may
/// remain. `begin < end` and both lie in the user keyspace.
pub fn read(
    tx: &mut dyn kv::Transaction,
    begin: &[u8],
    end: &[u8],
    reverse: bool,
    limits: Limits,
    snapshot: bool,
    snapshot_sees_writes: bool,
) -> Result<(Vec<KeyValue>, bool), Code> {
    let rows_snapshot = snapshot || snapshot_sees_writes;
    let mut rows: Vec<KeyValue> = Vec::new();
    let mut bytes = 0;
    let mut chunk = 16;
    let mut next = Some((begin.to_vec(), end.to_vec()));
    let mut more = false;
    'read: while let Some((b, e)) = next.take() {
        let want = limits
            .rows
            .map_or(chunk, |r| chunk.min(r - rows.len()))
            .max(1);
        let mut range = RangeOption::new(b.clone(), e.clone())
            .limit(want)
            .mode(StreamingMode::Exact);
        range.reverse = reverse;
        let batch = tx
            .get_range(&range, 1, rows_snapshot)
            .map_err(|e| crate::errors::of(&e))?;
        let n = batch.kvs.len();
        let last = batch.kvs.last().map(|kv| kv.key.clone());
        for (i, kv) in batch.kvs.into_iter().enumerate() {
            bytes += cost(&kv);
            rows.push(kv);
            let full = limits.rows.is_some_and(|r| rows.len() >= r)
                || limits.bytes.is_some_and(|t| bytes >= t);
            if full {
                more = i + 1 < n || batch.more;
                break 'read;
            }
        }
        if let (true, Some(last)) = (batch.more && n > 0, last) {
            next = Some(if reverse {
                (b, last)
            } else {
                (key_after(&last), e)
            });
        }
        chunk = (chunk * 2).min(4096);
    }
    if !snapshot {
        let (b, e) = match (more, rows.last()) {
            (true, Some(last)) if reverse => (last.key.clone(), end.to_vec()),
            (true, Some(last)) => (begin.to_vec(), key_after(&last.key)),
            _ => (begin.to_vec(), end.to_vec()),
        };
        tx.add_conflict_range(&b, &e, ConflictRangeType::Read)
            .map_err(|e| crate::errors::of(&e))?;
    }
    Ok((rows, more))
}

#[cfg(test)]
mod tests {
    use fql::kv::Database;
    use fql::kv::embedded::Embedded;

    use super::*;

    #[test]
    fn limits_follow_fdbs_rules() {
        assert_eq!(limits(0, 0, EXACT, 0), Err(EXACT_MODE_WITHOUT_LIMITS));
        assert_eq!(limits(-1, 0, EXACT, 0), Err(EXACT_MODE_WITHOUT_LIMITS));
        assert_eq!(limits(0, 0, ITERATOR, 0), Err(CLIENT_INVALID_OPERATION));
        assert_eq!(limits(0, 0, 7, 1), Err(CLIENT_INVALID_OPERATION));
        assert_eq!(
            limits(-2, 0, WANT_ALL, 0).unwrap().valid(),
            Err(RANGE_LIMITS_INVALID)
        );
        assert_eq!(
            limits(5, 0, EXACT, 0).unwrap().valid(),
            Ok(Limits {
                rows: Some(5),
                bytes: None
            })
        );
        assert_eq!(
            limits(0, 100_000, ITERATOR, 20).unwrap().valid(),
            Ok(Limits {
                rows: None,
                bytes: Some(100_000)
            })
        );
        assert_eq!(
            limits(0, 0, 1, 0).unwrap().valid().unwrap().bytes,
            Some(256)
        );
    }

    #[test]
    fn a_batch_stops_at_its_row_limit_or_byte_target() {
        let db = Embedded::memory();
        let mut tx = db.create_trx().unwrap();
        for i in 0..100u8 {
            tx.set(&[b'k', i], &[0; 92]).unwrap();
        }
        tx.commit().unwrap();
        let mut tx = db.create_trx().unwrap();
        let all = Limits {
            rows: None,
            bytes: None,
        };
        let (rows, more) = read(&mut *tx, b"k", b"l", false, all, false, true).unwrap();
        assert_eq!((rows.len(), more), (100, false));
        let ten = Limits {
            rows: Some(10),
            bytes: None,
        };
        let (rows, more) = read(&mut *tx, b"k", b"l", true, ten, false, true).unwrap();
        assert_eq!((rows.len(), more, rows[0].key[1]), (10, true, 99));
        // Rows cost 8 + 2 + 92 bytes: the 256-byte target of SMALL ends
        // at the third.
        let small = Limits {
            rows: None,
            bytes: Some(256),
        };
        let (rows, more) = read(&mut *tx, b"k", b"l", false, small, true, true).unwrap();
        assert_eq!((rows.len(), more), (3, true));
    }
}
