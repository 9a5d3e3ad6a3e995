//! FDB's report of a conflict: after a commit fails with `not_committed`,
//! a transaction with [`TransactionOption::ReportConflictingKeys`](super::TransactionOption) reads
//! which of its read conflict ranges another commit wrote in the special
//! keys under [`CONFLICTING_KEYS`], one pair of keys a range: the prefix
//! and the range's begin with the value `1`, the prefix and its end with
//! `0`, merged and in order. This module writes and reads that shape, so
//! every backend answers it alike and the callers read it alike.

use super::{KeyValue, RangeOption, Result, StreamingMode, Transaction};

/// Where the conflicting keys' special keys begin.
pub const CONFLICTING_KEYS: &[u8] = b"\xff\xff/transaction/conflicting_keys/";

/// Where they end, as FDB bounds the module.
pub const CONFLICTING_KEYS_END: &[u8] = b"\xff\xff/transaction/conflicting_keys/\xff\xff";

/// The special keys of `ranges` (sorted, merged) that lie in
/// `[begin, end)`, as FDB answers a read of them.
pub fn conflicting_rows(ranges: &[(Vec<u8>, Vec<u8>)], begin: &[u8], end: &[u8]) -> Vec<KeyValue> {
    let row = |key: &[u8], value: &[u8]| KeyValue {
        key: [CONFLICTING_KEYS, key].concat(),
        value: value.to_vec(),
    };
    ranges
        .iter()
        .flat_map(|(b, e)| [row(b, b"1"), row(e, b"0")])
        .filter(|kv| begin <= kv.key.as_slice() && kv.key.as_slice() < end)
        .collect()
}

/// The ranges the special keys `rows` (in order) stand for: each key
/// valued `1` begins a range, the next valued `0` ends it. A range whose
/// end is not among the rows (a read that cut the pairs) is left out.
pub fn conflicting_ranges(rows: &[KeyValue]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut ranges = Vec::new();
    let mut begin = None;
    for kv in rows {
        let Some(key) = kv.key.strip_prefix(CONFLICTING_KEYS) else {
            continue;
        };
        match (kv.value.as_slice(), begin.take()) {
            (b"1", _) => begin = Some(key.to_vec()),
            (b"0", Some(b)) => ranges.push((b, key.to_vec())),
            _ => {}
        }
    }
    ranges
}

/// The conflicting ranges `tx` reports now: after a commit that failed
/// with `not_committed`, before `on_error` or `reset`; none without the
/// option or without a conflict.
pub fn read_conflicting(tx: &mut dyn Transaction) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let range = RangeOption::new(CONFLICTING_KEYS.to_vec(), CONFLICTING_KEYS_END.to_vec())
        .mode(StreamingMode::WantAll);
    let mut rows = Vec::new();
    let mut iteration = 1;
    loop {
        let batch = tx.get_range(&range, iteration, true)?;
        rows.extend(batch.kvs);
        if !batch.more {
            return Ok(conflicting_ranges(&rows));
        }
        iteration += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_round_trip_through_fdb_rows() {
        let ranges = vec![
            (b"a".to_vec(), b"a\x00".to_vec()),
            (b"c".to_vec(), b"d".to_vec()),
        ];
        let rows = conflicting_rows(&ranges, CONFLICTING_KEYS, CONFLICTING_KEYS_END);
        let shown: Vec<(&[u8], &[u8])> = rows
            .iter()
            .map(|kv| (&kv.key[CONFLICTING_KEYS.len()..], kv.value.as_slice()))
            .collect();
        let want: Vec<(&[u8], &[u8])> =
            vec![(b"a", b"1"), (b"a\x00", b"0"), (b"c", b"1"), (b"d", b"0")];
        assert_eq!(shown, want);
        assert_eq!(conflicting_ranges(&rows), ranges);
        let from_c = [CONFLICTING_KEYS, b"c"].concat();
        assert_eq!(
            conflicting_ranges(&conflicting_rows(&ranges, &from_c, CONFLICTING_KEYS_END)),
            ranges[1..]
        );
    }
}
