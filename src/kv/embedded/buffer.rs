//! A transaction's own writes: the mutations to apply at commit, and the
//! view of them that later reads in the same transaction must see.

use std::collections::BTreeMap;
use std::ops::Bound;

use super::atomic;
use super::ranges::RangeSet;
use crate::kv::{Error, MutationType, Result, key_after};

/// One write, kept in order for the commit.
#[derive(Clone, Debug)]
pub(crate) enum Mutation {
    Set(Vec<u8>, Vec<u8>),
    Clear(Vec<u8>),
    ClearRange(Vec<u8>, Vec<u8>),
    Atomic(MutationType, Vec<u8>, Vec<u8>),
}

/// What the transaction's writes say about one key.
#[derive(Clone, Debug)]
pub(crate) enum Entry {
    /// The value is known without reading: set, cleared (`None`), or an
    /// atomic operation on a value that was itself known.
    Known(Option<Vec<u8>>),
    /// Atomic operations on a value that must still be read.
    Atomic(Vec<(MutationType, Vec<u8>)>),
    /// Atomic operations whose stored value this transaction has read: the
    /// result is known (the snapshot does not change), so reading it again
    /// costs no replay of every operation so far, but a read still
    /// conflicts as a read of the store does.
    Settled(Option<Vec<u8>>),
    /// A versionstamped value, or a key written after one: unknown until
    /// commit. Only a clear makes the key readable again, as in FDB's
    /// write map.
    Unreadable,
}

impl Entry {
    /// The entry's value given the stored one.
    pub fn resolve(&self, stored: Option<&[u8]>, value_limit: usize) -> Result<Option<Vec<u8>>> {
        match self {
            Entry::Known(v) | Entry::Settled(v) => Ok(v.clone()),
            Entry::Atomic(ops) => {
                let mut cur = stored.map(<[u8]>::to_vec);
                for (op, param) in ops {
                    cur = atomic::apply(*op, cur.as_deref(), param, value_limit);
                }
                Ok(cur)
            }
            Entry::Unreadable => Err(Error::AccessedUnreadable),
        }
    }

    /// Whether reading the entry needs the stored value.
    pub fn needs_stored(&self) -> bool {
        matches!(self, Entry::Atomic(_))
    }

    /// Whether a read of the entry is a read of the store, for conflicts.
    pub fn reads_store(&self) -> bool {
        matches!(self, Entry::Atomic(_) | Entry::Settled(_))
    }
}

#[derive(Debug, Default)]
pub(crate) struct WriteBuffer {
    pub mutations: Vec<Mutation>,
    entries: BTreeMap<Vec<u8>, Entry>,
    cleared: RangeSet,
    /// The ranges where a versionstamped key may land: every key a read
    /// could find there is unknown until commit. A clear makes what it
    /// clears readable again.
    unreadable: RangeSet,
    value_limit: usize,
    /// Whether a mutation replaced an earlier one's value: a set, clear or
    /// versionstamped value of a key written before, or a range clear
    /// over written keys. Only then can the commit skip any. An atomic
    /// operation builds on the value before it and does not count.
    overwrote: bool,
}

impl WriteBuffer {
    pub fn new(value_limit: usize) -> Self {
        WriteBuffer {
            value_limit,
            ..WriteBuffer::default()
        }
    }

    pub fn set(&mut self, key: &[u8], value: &[u8]) {
        let entry = match self.entries.get(key) {
            Some(Entry::Unreadable) => Entry::Unreadable,
            _ => Entry::Known(Some(value.to_vec())),
        };
        self.replace(key, entry);
        self.mutations
            .push(Mutation::Set(key.to_vec(), value.to_vec()));
    }

    pub fn clear(&mut self, key: &[u8]) {
        self.replace(key, Entry::Known(None));
        if !self.unreadable.is_empty() {
            self.unreadable.remove(key, &key_after(key));
        }
        self.mutations.push(Mutation::Clear(key.to_vec()));
    }

    /// Gives `key` the entry of a write that replaces its value, noting
    /// whether an earlier mutation wrote it.
    fn replace(&mut self, key: &[u8], entry: Entry) {
        self.overwrote |= self.entries.insert(key.to_vec(), entry).is_some();
    }

    /// Whether a mutation wrote over an earlier one, so the commit should
    /// look for writes it can skip.
    pub fn overwrote(&self) -> bool {
        self.overwrote
    }

    pub fn clear_range(&mut self, begin: &[u8], end: &[u8]) {
        let inside: Vec<Vec<u8>> = self
            .entries
            .range::<[u8], _>((Bound::Included(begin), Bound::Excluded(end)))
            .map(|(k, _)| k.clone())
            .collect();
        self.overwrote |= !inside.is_empty();
        for k in inside {
            self.entries.remove(&k);
        }
        self.cleared.insert(begin, end);
        self.unreadable.remove(begin, end);
        self.mutations
            .push(Mutation::ClearRange(begin.to_vec(), end.to_vec()));
    }

    pub fn atomic(&mut self, op: MutationType, key: &[u8], param: &[u8]) {
        self.mutations
            .push(Mutation::Atomic(op, key.to_vec(), param.to_vec()));
        match op {
            // The final key is only known at commit: the caller marks
            // where it may land unreadable.
            MutationType::SetVersionstampedKey => return,
            MutationType::SetVersionstampedValue => {
                self.replace(key, Entry::Unreadable);
                return;
            }
            _ => {}
        }
        let limit = self.value_limit;
        let entry = match self.entries.remove(key) {
            Some(Entry::Known(v)) => Entry::Known(atomic::apply(op, v.as_deref(), param, limit)),
            Some(Entry::Settled(v)) => {
                Entry::Settled(atomic::apply(op, v.as_deref(), param, limit))
            }
            None if self.cleared.contains(key) => {
                Entry::Known(atomic::apply(op, None, param, limit))
            }
            Some(Entry::Unreadable) => Entry::Unreadable,
            Some(Entry::Atomic(mut ops)) => {
                ops.push((op, param.to_vec()));
                Entry::Atomic(ops)
            }
            None => Entry::Atomic(vec![(op, param.to_vec())]),
        };
        self.entries.insert(key.to_vec(), entry);
    }

    /// The entry for `key`, or `Known(None)` when a range clear covers it,
    /// or `None` when only the store knows.
    pub fn lookup(&self, key: &[u8]) -> Option<&Entry> {
        static CLEARED: Entry = Entry::Known(None);
        match self.entries.get(key) {
            Some(e) => Some(e),
            None if self.cleared.contains(key) => Some(&CLEARED),
            None => None,
        }
    }

    /// Records the value a read resolved for a key of atomic operations,
    /// so later reads and operations start from it.
    pub fn settle(&mut self, key: &[u8], value: Option<Vec<u8>>) {
        if let Some(e @ Entry::Atomic(_)) = self.entries.get_mut(key) {
            *e = Entry::Settled(value);
        }
    }

    pub fn cleared(&self) -> &RangeSet {
        &self.cleared
    }

    /// Marks `[begin, end)` unreadable: a versionstamped key may land there.
    pub fn mark_unreadable(&mut self, begin: &[u8], end: &[u8]) {
        self.unreadable.insert(begin, end);
    }

    /// The ranges where a versionstamped key of this transaction may land.
    pub fn unreadable(&self) -> &RangeSet {
        &self.unreadable
    }

    /// Entries in `[begin, end)`, in the read's direction.
    pub fn entries_in<'a>(
        &'a self,
        begin: &'a [u8],
        end: &'a [u8],
        reverse: bool,
    ) -> Box<dyn Iterator<Item = (&'a Vec<u8>, &'a Entry)> + 'a> {
        let range = self
            .entries
            .range::<[u8], _>((Bound::Included(begin), Bound::Excluded(end)));
        if reverse {
            Box::new(range.rev())
        } else {
            Box::new(range)
        }
    }

    pub fn is_empty(&self) -> bool {
        self.mutations.is_empty()
    }
}
