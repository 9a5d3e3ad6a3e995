//! Reads at older versions: the undo table.
//!
//! The file holds one state, the latest. Each commit also writes, in its
//! own write transaction, what it replaced: for every key its writes
//! change (a set, a clear, each row a range clear removes, the result of
//! an atomic operation), the value the key had before the commit, or
//! NULL where it had none, under `(commit version, key)`. A key written
//! twice by one commit keeps its first entry, the value before the
//! commit.
//!
//! The state at a version `v` older than the latest is then the latest
//! rows, overlaid with, for each key some commit after `v` changed, the
//! entry of the oldest such commit. A snapshot at `v` reads those entries
//! (all of the commits after `v`: the window's writes at most) into
//! memory when it opens, inside the read transaction it reads the rows
//! in, and merges them with the rows of each read. A snapshot at the
//! latest version reads the rows alone, as before.
//!
//! The entries are deleted with the commit log's rows (twice the window),
//! by version, the table's key order, so the table holds the window's
//! writes and no more. The file's `floor` (below which the log has
//! forgotten commits) and `history` (the version the table began at, a
//! new file's first or an older file's latest when it was upgraded) bound
//! the versions a snapshot can open at.

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included};

use rusqlite::{Connection, OptionalExtension};

use super::read_meta;
use crate::kv::embedded::store::{MAX_BATCH, Snapshot, batch};
use crate::kv::{Error, KeyValue, Result};

/// For each key changed after a snapshot's version: its value at that
/// version, `None` where it had none.
pub(super) type Undone = BTreeMap<Vec<u8>, Option<Vec<u8>>>;

/// What a snapshot at `version` overlays on the latest rows, and when the
/// first commit after `version` landed. In the snapshot's read
/// transaction, whose latest version is past `version`.
pub(super) fn load(conn: &Connection, version: u64) -> Result<(Undone, u64)> {
    let start = conn
        .prepare_cached("SELECT value FROM meta WHERE name = 'history'")?
        .query_row([], |r| r.get::<_, i64>(0))
        .optional()?;
    // A file that kept no history (one of the older format opened
    // read-only) reads at its latest version alone.
    let Some(start) = start else {
        return Err(Error::TransactionTooOld);
    };
    if version < start as u64 || version < read_meta(conn, "floor")? {
        return Err(Error::TransactionTooOld);
    }
    let version = i64::try_from(version).map_err(|_| Error::TransactionTooOld)?;
    let next: Option<i64> = conn
        .prepare_cached("SELECT at_ms FROM commits WHERE version > ?1 ORDER BY version LIMIT 1")?
        .query_row([version], |r| r.get(0))
        .optional()?;
    let superseded_ms = next.ok_or(Error::TransactionTooOld)? as u64;
    let mut undone = Undone::new();
    let mut stmt = conn.prepare_cached(
        "SELECT key, value FROM undo WHERE version > ?1 ORDER BY version DESC, key",
    )?;
    let mut rows = stmt.query([version])?;
    // Newest first, so the oldest entry of a key is the one left.
    while let Some(row) = rows.next()? {
        undone.insert(row.get(0)?, row.get(1)?);
    }
    Ok((undone, superseded_ms))
}

/// One key's value at the snapshot's version, or `None`.
type Entry<'a> = (&'a Vec<u8>, &'a Option<Vec<u8>>);

/// A snapshot of the latest rows seen at an older version.
pub(super) struct Past<S> {
    pub(super) latest: S,
    pub(super) undone: Undone,
    pub(super) version: u64,
    pub(super) superseded_ms: u64,
}

impl<S: Snapshot> Snapshot for Past<S> {
    fn version(&self) -> u64 {
        self.version
    }

    fn superseded_ms(&self) -> Option<u64> {
        Some(self.superseded_ms)
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match self.undone.get(key) {
            Some(before) => Ok(before.clone()),
            None => self.latest.get(key),
        }
    }

    /// The latest rows of the range, a chunk at a time, merged in key
    /// order (or reverse) with the entries in the range: an entry replaces
    /// the row of its key, or stands for a row the key no longer has, or
    /// hides the row of a key that did not exist yet.
    fn scan(
        &mut self,
        begin: &[u8],
        end: &[u8],
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<KeyValue>> {
        let mut out = batch(limit);
        if begin >= end || limit == 0 {
            return Ok(out);
        }
        let bounds = (Included(begin), Excluded(end));
        let range = self.undone.range::<[u8], _>(bounds);
        let entries: Box<dyn Iterator<Item = Entry<'_>>> = if reverse {
            Box::new(range.rev())
        } else {
            Box::new(range)
        };
        let mut entries = entries.peekable();
        let before = |a: &[u8], b: &[u8]| if reverse { a > b } else { a < b };
        let (mut lo, mut hi) = (begin.to_vec(), end.to_vec());
        loop {
            let chunk = (limit - out.len()).clamp(16, MAX_BATCH);
            let rows = self.latest.scan(&lo, &hi, reverse, chunk)?;
            let exhausted = rows.len() < chunk;
            if let Some(last) = rows.last() {
                if reverse {
                    hi = last.key.clone();
                } else {
                    lo = crate::kv::key_after(&last.key);
                }
            }
            for row in rows {
                while let Some((key, value)) = entries.next_if(|(k, _)| before(k, &row.key)) {
                    push(&mut out, key, value);
                    if out.len() == limit {
                        return Ok(out);
                    }
                }
                match entries.next_if(|(k, _)| **k == row.key) {
                    Some((key, value)) => push(&mut out, key, value),
                    None => out.push(row),
                }
                if out.len() == limit {
                    return Ok(out);
                }
            }
            if exhausted {
                for (key, value) in entries {
                    push(&mut out, key, value);
                    if out.len() == limit {
                        break;
                    }
                }
                return Ok(out);
            }
        }
    }
}

/// Adds the entry's row, if the key had a value.
fn push(out: &mut Vec<KeyValue>, key: &[u8], value: &Option<Vec<u8>>) {
    if let Some(value) = value {
        out.push(KeyValue {
            key: key.to_vec(),
            value: value.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows held in a vector, scanned as a store would.
    struct Rows(Vec<(Vec<u8>, Vec<u8>)>);

    impl Snapshot for Rows {
        fn version(&self) -> u64 {
            0
        }

        fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
            Ok(self
                .0
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone()))
        }

        fn scan(
            &mut self,
            b: &[u8],
            e: &[u8],
            reverse: bool,
            limit: usize,
        ) -> Result<Vec<KeyValue>> {
            let rows = self
                .0
                .iter()
                .filter(|(k, _)| b <= k.as_slice() && k.as_slice() < e);
            let rows = rows.map(|(k, v)| KeyValue {
                key: k.clone(),
                value: v.clone(),
            });
            Ok(if reverse {
                rows.rev().take(limit).collect()
            } else {
                rows.take(limit).collect()
            })
        }
    }

    /// Every range, direction and limit over rows and entries that
    /// replace, restore and hide keys, across chunk boundaries, reads as
    /// the state the entries describe.
    #[test]
    fn a_scan_merges_the_entries_with_the_rows() {
        let latest: Vec<(Vec<u8>, Vec<u8>)> = (0..60u8)
            .filter(|i| i % 3 != 0)
            .map(|i| (vec![i], vec![i, 1]))
            .collect();
        let mut undone = Undone::new();
        for i in 0..60u8 {
            match i % 5 {
                0 => drop(undone.insert(vec![i], Some(vec![i, 0]))),
                1 => drop(undone.insert(vec![i], None)),
                _ => {}
            }
        }
        let mut want: BTreeMap<Vec<u8>, Vec<u8>> = latest.iter().cloned().collect();
        for (k, v) in &undone {
            match v {
                Some(v) => drop(want.insert(k.clone(), v.clone())),
                None => drop(want.remove(k)),
            }
        }
        let mut past = Past {
            latest: Rows(latest),
            undone,
            version: 1,
            superseded_ms: 0,
        };
        for (b, e) in [(0u8, 60u8), (5, 40), (7, 8), (0, 1), (59, 60)] {
            for reverse in [false, true] {
                for limit in [1, 2, 17, 40, 1000] {
                    let got = past.scan(&[b], &[e], reverse, limit).unwrap();
                    let inside = want.range(vec![b]..vec![e]).map(|(k, v)| KeyValue {
                        key: k.clone(),
                        value: v.clone(),
                    });
                    let expected: Vec<KeyValue> = if reverse {
                        inside.rev().take(limit).collect()
                    } else {
                        inside.take(limit).collect()
                    };
                    assert_eq!(got, expected, "[{b}, {e}) reverse {reverse} limit {limit}");
                }
            }
        }
        for i in 0..60u8 {
            assert_eq!(past.get(&[i]).unwrap(), want.get(&vec![i]).cloned(), "{i}");
        }
    }
}
