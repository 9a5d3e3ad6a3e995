//! Sets of key ranges: conflict ranges and cleared ranges.

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included, Unbounded};

use crate::kv::admit::range_size;

/// A set of half-open key ranges `[begin, end)`, kept merged (no two
/// overlap or touch) in an ordered map from begin to end, so that adding,
/// membership and overlap cost a logarithm of the set's size whatever
/// order ranges come in: a transaction that reads or writes keys out of
/// order (directory names, random prefixes) stays linear.
///
/// It keeps the size its ranges add to a transaction as conflict ranges
/// ([`range_size`] of each), so a transaction's read conflict ranges are
/// counted merged, as FDB's client sends them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RangeSet {
    ranges: BTreeMap<Vec<u8>, Vec<u8>>,
    size: usize,
}

impl RangeSet {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
        self.size = 0;
    }

    /// What the ranges add to a transaction's size as conflict ranges.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Adds a range that touches no other, unmerged.
    fn put(&mut self, begin: Vec<u8>, end: Vec<u8>) {
        self.size += range_size(begin.len(), end.len());
        self.ranges.insert(begin, end);
    }

    /// Takes out the range that begins at `begin`, if any.
    fn take(&mut self, begin: &[u8]) -> Option<Vec<u8>> {
        let end = self.ranges.remove(begin)?;
        self.size -= range_size(begin.len(), end.len());
        Some(end)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.ranges
            .iter()
            .map(|(b, e)| (b.as_slice(), e.as_slice()))
    }

    /// The range that begins at or before `key`, if any.
    fn at_or_before(&self, key: &[u8]) -> Option<(&[u8], &[u8])> {
        self.ranges
            .range::<[u8], _>((Unbounded, Included(key)))
            .next_back()
            .map(|(b, e)| (b.as_slice(), e.as_slice()))
    }

    /// Adds `[begin, end)`, merging it with the ranges it touches.
    pub fn insert(&mut self, begin: &[u8], end: &[u8]) {
        if begin >= end {
            return;
        }
        // Keys written in order (a load, a range cleared) land past every
        // range so far: one look at the last range, and no search for
        // ranges the new one swallows.
        if let Some(mut last) = self.ranges.last_entry() {
            if begin > last.get().as_slice() {
                self.put(begin.to_vec(), end.to_vec());
                return;
            }
            if begin >= last.key().as_slice() {
                if end > last.get().as_slice() {
                    self.size = self.size - last.get().len() + end.len();
                    *last.get_mut() = end.to_vec();
                }
                return;
            }
        }
        // The range reaching `begin` from before it, if any, and every range
        // that begins inside the new one, merge into it.
        let mut merged = (begin.to_vec(), end.to_vec());
        if let Some((b, e)) = self.at_or_before(begin).filter(|(_, e)| *e >= begin) {
            if e >= end {
                return;
            }
            merged.0 = b.to_vec();
        }
        let swallowed: Vec<Vec<u8>> = self
            .ranges
            .range::<[u8], _>((Included(merged.0.as_slice()), Included(end)))
            .map(|(b, _)| b.clone())
            .collect();
        for b in &swallowed {
            if let Some(e) = self.take(b) {
                merged.1 = merged.1.max(e);
            }
        }
        self.put(merged.0, merged.1);
    }

    /// Takes `[begin, end)` out of the set: ranges inside it go, ranges
    /// across its edges are cut at them.
    pub fn remove(&mut self, begin: &[u8], end: &[u8]) {
        if begin >= end || self.ranges.is_empty() {
            return;
        }
        // Ranges are disjoint and sorted, so their ends are too: walking
        // back from `end`, the overlapping ones are those that end after
        // `begin`.
        let hit: Vec<Vec<u8>> = self
            .ranges
            .range::<[u8], _>((Unbounded, Excluded(end)))
            .rev()
            .take_while(|(_, e)| e.as_slice() > begin)
            .map(|(b, _)| b.clone())
            .collect();
        for b in hit {
            let e = self.take(&b).expect("listed");
            if b.as_slice() < begin {
                self.put(b, begin.to_vec());
            }
            if e.as_slice() > end {
                self.put(end.to_vec(), e);
            }
        }
    }

    /// The range holding `key`, if any.
    pub fn containing(&self, key: &[u8]) -> Option<(&[u8], &[u8])> {
        self.at_or_before(key).filter(|(_, e)| key < *e)
    }

    /// At most `max` ranges covering every range of the set (see
    /// [`coarsen`]).
    pub fn coarsened(&self, max: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
        coarsen(self.ranges.iter(), max)
    }

    /// The range that holds the keys just below `end`: it begins before
    /// `end` and reaches it. What a reverse read skips.
    pub fn reaching(&self, end: &[u8]) -> Option<(&[u8], &[u8])> {
        self.ranges
            .range::<[u8], _>((Unbounded, Excluded(end)))
            .next_back()
            .map(|(b, e)| (b.as_slice(), e.as_slice()))
            .filter(|(_, e)| *e >= end)
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.containing(key).is_some()
    }

    /// The ranges of the set that overlap `[begin, end)`, in order.
    pub fn overlapping(&self, begin: &[u8], end: &[u8]) -> Vec<(&[u8], &[u8])> {
        if begin >= end {
            return Vec::new();
        }
        let first = self.at_or_before(begin).filter(|(_, e)| *e > begin);
        let rest = self
            .ranges
            .range::<[u8], _>((Excluded(begin), Excluded(end)))
            .map(|(b, e)| (b.as_slice(), e.as_slice()));
        first.into_iter().chain(rest).collect()
    }

    /// Whether any range of the set overlaps `[begin, end)`.
    pub fn overlaps(&self, begin: &[u8], end: &[u8]) -> bool {
        if begin >= end {
            return false;
        }
        if self.at_or_before(begin).is_some_and(|(_, e)| e > begin) {
            return true;
        }
        self.ranges
            .range::<[u8], _>((Excluded(begin), Unbounded))
            .next()
            .is_some_and(|(b, _)| b.as_slice() < end)
    }
}

/// Ranges kept in the order they were added and merged only when asked
/// for: a transaction's write conflict ranges, which nothing reads before
/// the commit. Adding costs a push, where a [`RangeSet`] pays a search of
/// its map for every write; the one sort at commit is linear for keys
/// written in order, as a load writes them.
#[derive(Debug, Default)]
pub(crate) struct RangeList {
    ranges: Vec<(Vec<u8>, Vec<u8>)>,
    /// Whether `ranges` is sorted by begin and merged, as it is after
    /// [`RangeList::coarsened`] until the next push.
    merged: bool,
}

impl RangeList {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
        self.merged = true;
    }

    pub fn push(&mut self, begin: &[u8], end: &[u8]) {
        if begin < end {
            self.ranges.push((begin.to_vec(), end.to_vec()));
            self.merged = false;
        }
    }

    /// At most `max` ranges covering every range added (see [`coarsen`]).
    /// Merges the list in place first, so a commit tried again does not
    /// sort it twice.
    pub fn coarsened(&mut self, max: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
        if !self.merged {
            self.ranges.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            self.ranges.dedup_by(|next, kept| {
                // `kept` precedes `next`: absorb `next` if they touch.
                let touches = next.0 <= kept.1;
                if touches && next.1 > kept.1 {
                    kept.1 = std::mem::take(&mut next.1);
                }
                touches
            });
            self.merged = true;
        }
        coarsen(self.ranges.iter().map(|(b, e)| (b, e)), max)
    }
}

/// At most `max` ranges covering every one of `ranges`, sorted and merged:
/// consecutive ranges are joined into one. Joining only widens conflict
/// ranges, which can add conflicts but never miss one; it keeps the commit
/// log small for commits that write many keys.
fn coarsen<'a>(
    ranges: impl ExactSizeIterator<Item = (&'a Vec<u8>, &'a Vec<u8>)>,
    max: usize,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let per = ranges.len().div_ceil(max.max(1)).max(1);
    let mut out = Vec::with_capacity(ranges.len().min(max));
    let mut group = ranges;
    while let Some((b, e)) = group.next() {
        let mut end = e;
        for _ in 1..per {
            match group.next() {
                Some((_, e)) => end = e,
                None => break,
            }
        }
        out.push((b.clone(), end.clone()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ranges: &[(&str, &str)]) -> RangeSet {
        let mut s = RangeSet::default();
        for (b, e) in ranges {
            s.insert(b.as_bytes(), e.as_bytes());
        }
        s
    }

    #[test]
    fn insert_merges_touching_and_overlapping_ranges() {
        let s = set(&[("c", "e"), ("a", "b"), ("b", "c"), ("x", "z"), ("d", "g")]);
        let got: Vec<_> = s.iter().collect();
        assert_eq!(got, vec![(&b"a"[..], &b"g"[..]), (&b"x"[..], &b"z"[..])]);
    }

    #[test]
    fn coarsening_covers_every_range() {
        let s = set(&[("a", "b"), ("c", "d"), ("e", "f"), ("g", "h"), ("i", "j")]);
        assert_eq!(s.coarsened(8).len(), 5);
        let two = s.coarsened(2);
        assert_eq!(two.len(), 2);
        assert_eq!(two[0], (b"a".to_vec(), b"f".to_vec()));
        assert_eq!(two[1], (b"g".to_vec(), b"j".to_vec()));
    }

    #[test]
    fn membership_and_overlap_are_half_open() {
        let s = set(&[("b", "d"), ("m", "n")]);
        assert!(s.contains(b"b") && s.contains(b"c\xff") && !s.contains(b"d"));
        assert!(!s.contains(b"a") && !s.contains(b"n"));
        assert!(s.overlaps(b"a", b"b\0") && !s.overlaps(b"a", b"b"));
        assert!(s.overlaps(b"c", b"z") && !s.overlaps(b"d", b"m"));
        assert!(!s.overlaps(b"n", b"z"));
    }

    /// A small deterministic generator of bytes below `n`, so a failure
    /// replays.
    fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u8 {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as u8
        }
    }

    /// Inserts in every order, against a plain bitmap of one-byte keys.
    #[test]
    fn agrees_with_a_bitmap_whatever_the_order() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..200 {
            let mut s = RangeSet::default();
            let mut bits = [false; 40];
            for _ in 0..12 {
                let (b, e) = (next(40), next(40));
                s.insert(&[b], &[e]);
                for bit in bits.iter_mut().take(e.into()).skip(b.into()) {
                    *bit = true;
                }
            }
            for k in 0..40u8 {
                assert_eq!(s.contains(&[k]), bits[usize::from(k)], "{k} in {s:?}");
                let reach = s.reaching(&[k]).is_some();
                assert_eq!(reach, k > 0 && bits[usize::from(k) - 1], "reaching {k}");
                for e in k + 1..40 {
                    let any = bits[usize::from(k)..usize::from(e)].iter().any(|b| *b);
                    assert_eq!(s.overlaps(&[k], &[e]), any, "[{k}, {e}) in {s:?}");
                }
            }
            // Merged: no two ranges touch.
            let v: Vec<_> = s.iter().collect();
            assert!(v.windows(2).all(|w| w[0].1 < w[1].0));
            assert_eq!(s.size(), sizes(&s), "{s:?}");
        }
    }

    /// What the ranges of `s` add up to, counted afresh.
    fn sizes(s: &RangeSet) -> usize {
        s.iter().map(|(b, e)| range_size(b.len(), e.len())).sum()
    }

    /// Removing takes out exactly the keys of the range, whatever the
    /// order of inserts and removals, and the size follows.
    #[test]
    fn remove_agrees_with_a_bitmap() {
        let mut next = xorshift(0x0123_4567_89ab_cdef);
        for _ in 0..200 {
            let mut s = RangeSet::default();
            let mut bits = [false; 40];
            for _ in 0..16 {
                let (b, e, add) = (next(40), next(40), next(3) > 0);
                if add {
                    s.insert(&[b], &[e]);
                } else {
                    s.remove(&[b], &[e]);
                }
                for bit in bits.iter_mut().take(e.into()).skip(b.into()) {
                    *bit = add;
                }
            }
            for k in 0..40u8 {
                assert_eq!(s.contains(&[k]), bits[usize::from(k)], "{k} in {s:?}");
            }
            assert_eq!(s.size(), sizes(&s), "{s:?}");
        }
    }

    proptest::proptest! {
        /// A list merged at the end covers what a set merged as it went
        /// does, coarsened to any size, and pushing after a merge merges
        /// again.
        #[test]
        fn a_list_merges_as_a_set_does(
            first in proptest::collection::vec((0u8..40, 0u8..40), 0..30),
            later in proptest::collection::vec((0u8..40, 0u8..40), 0..10),
            max in 1usize..8,
        ) {
            let mut list = RangeList::default();
            let mut set = RangeSet::default();
            for (b, e) in first.iter().chain(&later) {
                set.insert(&[*b], &[*e]);
            }
            for (b, e) in &first {
                list.push(&[*b], &[*e]);
            }
            list.coarsened(max);
            for (b, e) in &later {
                list.push(&[*b], &[*e]);
            }
            proptest::prop_assert_eq!(list.is_empty(), set.is_empty());
            proptest::prop_assert_eq!(list.coarsened(max), set.coarsened(max));
            proptest::prop_assert_eq!(list.coarsened(64), set.coarsened(64));
        }
    }
}
