//! Sets of key ranges: conflict ranges and cleared ranges.

use std::cmp::Ordering;

/// A set of half-open key ranges `[begin, end)`, kept sorted and merged so
/// that membership and overlap are binary searches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RangeSet {
    ranges: Vec<(Vec<u8>, Vec<u8>)>,
}

impl RangeSet {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.ranges
            .iter()
            .map(|(b, e)| (b.as_slice(), e.as_slice()))
    }

    /// Adds `[begin, end)`, merging it with the ranges it touches.
    pub fn insert(&mut self, begin: &[u8], end: &[u8]) {
        if begin >= end {
            return;
        }
        // Writes in key order, the common case, append.
        if self.ranges.last().is_none_or(|(_, e)| e.as_slice() < begin) {
            self.ranges.push((begin.to_vec(), end.to_vec()));
            return;
        }
        // First range whose end reaches `begin`; last range whose begin is
        // at or before `end`: everything between merges into one.
        let first = self.ranges.partition_point(|(_, e)| e.as_slice() < begin);
        let last = self.ranges.partition_point(|(b, _)| b.as_slice() <= end);
        if first == last {
            self.ranges.insert(first, (begin.to_vec(), end.to_vec()));
            return;
        }
        let new_begin = self.ranges[first].0.as_slice().min(begin).to_vec();
        let new_end = self.ranges[last - 1].1.as_slice().max(end).to_vec();
        self.ranges.drain(first..last);
        self.ranges.insert(first, (new_begin, new_end));
    }

    /// The range holding `key`, if any.
    pub fn containing(&self, key: &[u8]) -> Option<(&[u8], &[u8])> {
        let i = self.ranges.partition_point(|(b, _)| b.as_slice() <= key);
        let (b, e) = self.ranges.get(i.checked_sub(1)?)?;
        (key < e.as_slice()).then_some((b.as_slice(), e.as_slice()))
    }

    /// At most `max` ranges covering every range of the set: consecutive
    /// ranges are joined into one. Joining only widens conflict ranges,
    /// which can add conflicts but never miss one; it keeps the commit log
    /// small for commits that write many keys.
    pub fn coarsened(&self, max: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
        if self.ranges.len() <= max {
            return self.ranges.clone();
        }
        self.ranges
            .chunks(self.ranges.len().div_ceil(max))
            .map(|group| (group[0].0.clone(), group[group.len() - 1].1.clone()))
            .collect()
    }

    /// The range that holds the keys just below `end`: it begins before
    /// `end` and reaches it. What a reverse read skips.
    pub fn reaching(&self, end: &[u8]) -> Option<(&[u8], &[u8])> {
        let i = self.ranges.partition_point(|(b, _)| b.as_slice() < end);
        let (b, e) = self.ranges.get(i.checked_sub(1)?)?;
        (e.as_slice() >= end).then_some((b.as_slice(), e.as_slice()))
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.containing(key).is_some()
    }

    /// Whether any range of the set overlaps `[begin, end)`.
    pub fn overlaps(&self, begin: &[u8], end: &[u8]) -> bool {
        let i = self.ranges.partition_point(|(_, e)| e.as_slice() <= begin);
        self.ranges
            .get(i)
            .is_some_and(|(b, _)| b.as_slice().cmp(end) == Ordering::Less)
    }
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
}
