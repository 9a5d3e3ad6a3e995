//! The keys a transaction has written in its current attempt, as FDB's
//! client keeps them in its write map.
//!
//! `get_mapped_range` needs them: it reads the store as FDB's storage
//! servers do, and FDB fails it with `get_mapped_range_reads_your_writes`
//! when any of its reads touches a key the transaction wrote, rather than
//! merging the writes into its result. The store's transaction reads its
//! own writes but does not say which keys they were, so the library
//! records them as it passes them on.

use std::collections::BTreeMap;

use fql::kv::key_after;

/// Disjoint ranges `[begin, end)`, merged when they overlap or touch.
#[derive(Debug, Default)]
pub struct Written(BTreeMap<Vec<u8>, Vec<u8>>);

impl Written {
    /// Records a write to `key`.
    pub fn key(&mut self, key: &[u8]) {
        self.range(key, &key_after(key));
    }

    /// Records a write to every key of `[begin, end)`.
    pub fn range(&mut self, begin: &[u8], end: &[u8]) {
        if begin >= end {
            return;
        }
        let mut begin = begin.to_vec();
        let mut end = end.to_vec();
        if let Some((b, e)) = self.0.range(..=begin.clone()).next_back()
            && *e >= begin
        {
            begin = b.clone();
            end = end.max(e.clone());
        }
        let merged: Vec<Vec<u8>> = self
            .0
            .range(begin.clone()..=end.clone())
            .map(|(b, _)| b.clone())
            .collect();
        for b in merged {
            if let Some(e) = self.0.remove(&b) {
                end = end.max(e);
            }
        }
        self.0.insert(begin, end);
    }

    /// Whether any written key lies in `[begin, end)`.
    pub fn intersects(&self, begin: &[u8], end: &[u8]) -> bool {
        begin < end
            && self
                .0
                .range(..end.to_vec())
                .next_back()
                .is_some_and(|(_, e)| e.as_slice() > begin)
    }

    /// Forgets every write, for a new attempt.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_and_intersect_as_sets_of_keys() {
        let mut w = Written::default();
        assert!(!w.intersects(b"", b"\xff"));
        w.key(b"k");
        assert!(w.intersects(b"k", b"k\x00"));
        assert!(w.intersects(b"a", b"z"));
        assert!(!w.intersects(b"k\x00", b"z"));
        assert!(!w.intersects(b"a", b"k"));
        w.range(b"m", b"p");
        w.range(b"c", b"e");
        w.range(b"x", b"y");
        w.range(b"d", b"n");
        // [c, p) and [x, y).
        assert_eq!(w.0.len(), 2, "{w:?}");
        assert!(w.intersects(b"\x00", b"c\x00"));
        assert!(!w.intersects(b"q", b"x"));
        assert!(w.intersects(b"o", b"o\x00"));
        assert!(!w.intersects(b"p", b"q"));
        assert!(!w.intersects(b"z", b"a"));
        w.clear();
        assert!(!w.intersects(b"", b"\xff"));
    }
}
