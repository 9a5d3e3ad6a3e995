//! Key selectors, resolved over the store with range reads.
//!
//! A selector `(key, or_equal, offset)` names the key `offset` places
//! after the last key below `key` (at or below it with `or_equal`). FDB
//! first rewrites `or_equal` into the key after `key`, as done here, so a
//! selector is a key and an offset: offset 1 is the first key at or after
//! it, 0 the last key before it. The common selectors of a range read
//! (`first_greater_or_equal`, `first_greater_than`) need no reading at
//! all as range bounds; the others read forward `offset` keys, or back
//! `1 - offset` keys. Past the last key a selector resolves to the end of
//! the readable keyspace (`\xff`, or `\xff\xff` with the system keys),
//! before the first to the empty key, as FDB's do; the keys read are the
//! store's within that keyspace, system keys included when it reaches
//! them.

use fql::kv::{self, RangeCursor, RangeOption, StreamingMode, key_after};

use crate::errors::Code;

/// A selector with `or_equal` folded into its key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    /// The key as given, which FDB checks against the readable keyspace.
    pub given: Vec<u8>,
    pub key: Vec<u8>,
    pub offset: i32,
}

impl Selector {
    /// FDB's `removeOrEqual`: "at or below `key`" is "below the key after
    /// `key`".
    pub fn new(key: &[u8], or_equal: bool, offset: i32) -> Selector {
        Selector {
            given: key.to_vec(),
            key: if or_equal {
                key_after(key)
            } else {
                key.to_vec()
            },
            offset,
        }
    }

    /// The key as a range bound, when that needs no read: offset 1 is the
    /// first key at or after `key`, and the keys from it on are exactly
    /// those from `key` on.
    pub fn as_bound(&self) -> Option<&[u8]> {
        (self.offset == 1).then_some(self.key.as_slice())
    }

    /// The key the selector names among the keys below `max_key`, read in
    /// `tx` (adding read conflicts unless `snapshot`), clamped to
    /// `max_key` and the empty key.
    pub fn resolve(
        &self,
        tx: &mut dyn kv::Transaction,
        snapshot: bool,
        max_key: &[u8],
    ) -> Result<Vec<u8>, Code> {
        let found = if self.offset >= 1 {
            nth(
                tx,
                &self.key,
                max_key,
                false,
                self.offset as usize,
                snapshot,
            )?
        } else {
            let end = self.key.as_slice().min(max_key);
            let back = 1 + self.offset.unsigned_abs() as usize;
            nth(tx, b"", end, true, back, snapshot)?
        };
        Ok(match found {
            Some(key) => key,
            None if self.offset >= 1 => max_key.to_vec(),
            None => Vec::new(),
        })
    }
}

/// The `n`th key (from 1) of `[begin, end)`, counted from the end when
/// `reverse`, or `None` when the range has fewer.
fn nth(
    tx: &mut dyn kv::Transaction,
    begin: &[u8],
    end: &[u8],
    reverse: bool,
    n: usize,
    snapshot: bool,
) -> Result<Option<Vec<u8>>, Code> {
    if begin >= end {
        return Ok(None);
    }
    let mut range = RangeOption::new(begin, end)
        .limit(n)
        .mode(StreamingMode::Iterator);
    range.reverse = reverse;
    let mut cursor = RangeCursor::new(range, snapshot);
    let mut seen = 0;
    while let Some(batch) = cursor.next_batch(tx).map_err(|e| crate::errors::of(&e))? {
        if seen + batch.len() >= n {
            return Ok(Some(batch[n - seen - 1].key.clone()));
        }
        seen += batch.len();
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use fql::kv::embedded::Embedded;
    use fql::kv::{Database, Transaction};

    use super::*;

    fn tx_with(keys: &[&[u8]]) -> Box<dyn Transaction> {
        let db = Embedded::memory();
        let mut tx = db.create_trx().unwrap();
        for k in keys {
            tx.set(k, b"").unwrap();
        }
        tx.commit().unwrap();
        db.create_trx().unwrap()
    }

    #[test]
    fn selectors_resolve_as_fdbs_and_clamp_at_the_ends() {
        let mut tx = tx_with(&[b"a", b"b", b"c"]);
        let at = |tx: &mut Box<dyn Transaction>, k: &[u8], eq: bool, off: i32| {
            Selector::new(k, eq, off)
                .resolve(&mut **tx, true, b"\xff")
                .unwrap()
        };
        // first_greater_or_equal, first_greater_than, last_less_or_equal,
        // last_less_than.
        assert_eq!(at(&mut tx, b"b", false, 1), b"b");
        assert_eq!(at(&mut tx, b"b", true, 1), b"c");
        assert_eq!(at(&mut tx, b"b", true, 0), b"b");
        assert_eq!(at(&mut tx, b"b", false, 0), b"a");
        assert_eq!(at(&mut tx, b"a", false, 3), b"c");
        assert_eq!(at(&mut tx, b"c", false, -1), b"a");
        assert_eq!(at(&mut tx, b"c", true, 1), b"\xff");
        assert_eq!(at(&mut tx, b"a", false, 0), b"");
        assert_eq!(at(&mut tx, b"a", false, -5), b"");
        assert_eq!(at(&mut tx, b"", false, 100), b"\xff");
    }
}
