//! The keys outside every directory: the root of the keyspace, less the
//! directory layer's nodes (`FE`), the system keys (`FF`) and every
//! directory's or partition's prefix.
//!
//! An application that namespaces its keys by plain subspaces keeps them
//! beside the directories, in the same bytes: `fdb.tuple.pack(("app", 1))`
//! at the root may sort between two directories' prefixes. A read of the
//! root must show those keys and none of a directory's, which belong to
//! their directory and are read through its path.
//!
//! The node subspace is the index: each directory at the top of the
//! layer (the root's children and every directory below them, all of
//! whose prefixes the root allocates, and each partition as one prefix)
//! has node keys `FE‖P((prefix, ...))`, sorted by prefix. A walk over the
//! root reads the data between two consecutive prefixes, then jumps over
//! the next: two small reads of the nodes for each directory it passes,
//! never a list of every prefix, so a database with a million directories
//! costs no more memory than one with none.

use std::fmt;

use foundationdb_tuple::{Element, Subspace};

use super::node::Layout;
use super::{DirectoryLayer, Result, show};
use crate::kv::{self, KeyValue, RangeCursor, RangeOption, Transaction};

/// Where the keys outside the directory layer end: the node subspace, then
/// the system keys, come after every one of them.
pub const OUTSIDE_END: &[u8] = &[0xfe];

/// The ranges of keys outside every directory within `begin..end`, in
/// key order (or reversed), found as they are asked for.
#[derive(Clone, Debug)]
pub struct Outside {
    begin: Vec<u8>,
    end: Vec<u8>,
    reverse: bool,
    /// Forward: where the next range may start; reversed: where it ends.
    cursor: Vec<u8>,
}

impl Outside {
    /// The ranges within `begin..end`, clipped to the keys below the node
    /// subspace.
    pub fn new(begin: Vec<u8>, end: Vec<u8>, reverse: bool) -> Outside {
        let end = end.min(OUTSIDE_END.to_vec());
        let cursor = if reverse { end.clone() } else { begin.clone() };
        Outside {
            begin,
            end,
            reverse,
            cursor,
        }
    }

    /// The next range, `(begin, end)`, or `None` once there is no more.
    pub fn next(
        &mut self,
        tx: &mut dyn Transaction,
        layer: &DirectoryLayer,
        snapshot: bool,
    ) -> kv::Result<Option<(Vec<u8>, Vec<u8>)>> {
        let layout = &layer.layout;
        loop {
            let gap = if self.reverse {
                self.before(tx, layout, snapshot)?
            } else {
                self.after(tx, layout, snapshot)?
            };
            match gap {
                None => return Ok(None),
                Some((begin, end)) if begin < end => return Ok(Some((begin, end))),
                Some(_) => {}
            }
        }
    }

    /// Forward: the range from the cursor to the next directory's prefix,
    /// or an empty one when the cursor is inside a directory.
    fn after(
        &mut self,
        tx: &mut dyn Transaction,
        layout: &Layout,
        snapshot: bool,
    ) -> kv::Result<Option<(Vec<u8>, Vec<u8>)>> {
        if self.cursor >= self.end {
            return Ok(None);
        }
        if let Some(p) = last_prefix(tx, layout, &self.cursor, true, snapshot)?
            && self.cursor.starts_with(&p)
        {
            self.cursor = kv::strinc(&p);
            return Ok(Some((Vec::new(), Vec::new())));
        }
        // The cursor moves only once the reads are done, so a read that
        // fails may be tried again.
        let next = next_prefix(tx, layout, &self.cursor, snapshot)?;
        let begin = std::mem::take(&mut self.cursor);
        match next {
            Some(p) if p < self.end => {
                self.cursor = kv::strinc(&p);
                Ok(Some((begin, p)))
            }
            _ => {
                self.cursor = self.end.clone();
                Ok(Some((begin, self.end.clone())))
            }
        }
    }

    /// Reversed: the range from the end of the last directory before the
    /// cursor up to the cursor, or an empty one when the keys just below
    /// the cursor are a directory's.
    fn before(
        &mut self,
        tx: &mut dyn Transaction,
        layout: &Layout,
        snapshot: bool,
    ) -> kv::Result<Option<(Vec<u8>, Vec<u8>)>> {
        if self.cursor <= self.begin {
            return Ok(None);
        }
        let last = last_prefix(tx, layout, &self.cursor, false, snapshot)?;
        let end = std::mem::take(&mut self.cursor);
        match last {
            Some(p) => {
                let after = kv::strinc(&p);
                let begin = after.max(self.begin.clone());
                self.cursor = p.max(self.begin.clone());
                Ok(Some((begin, end)))
            }
            None => {
                self.cursor = self.begin.clone();
                Ok(Some((self.begin.clone(), end)))
            }
        }
    }
}

impl DirectoryLayer {
    /// The prefix of the directory (or partition) at the top of this
    /// layer that `key` lies under, if one does; the node subspace's own
    /// prefix for a key in it.
    pub fn prefix_holding(
        &self,
        tx: &mut dyn Transaction,
        key: &[u8],
        snapshot: bool,
    ) -> Result<Option<Vec<u8>>> {
        let layout = &self.layout;
        if key.starts_with(&layout.nodes) {
            return Ok(Some(layout.nodes.clone()));
        }
        let last = last_prefix(tx, layout, key, true, snapshot)?;
        Ok(last.filter(|p| key.starts_with(p)))
    }
}

/// The greatest directory prefix below `key` (or equal to it, when
/// `or_equal`). Prefixes never nest, so if any directory holds `key`, this
/// one does.
fn last_prefix(
    tx: &mut dyn Transaction,
    layout: &Layout,
    key: &[u8],
    or_equal: bool,
    snapshot: bool,
) -> kv::Result<Option<Vec<u8>>> {
    let nodes = Subspace::from_bytes(layout.nodes.clone());
    let (begin, _) = nodes.range();
    // `P((key,))` ends in the string's terminator: the node keys of `key`
    // itself follow it, and those of every lesser prefix come before it.
    let packed = nodes.pack(&(key,));
    let end = if or_equal {
        kv::strinc(&packed)
    } else {
        packed
    };
    let range = RangeOption::new(begin, end).rev().limit(1);
    let found = kv::collect_range(tx, &range, snapshot)?.pop();
    found.map(|row| node_prefix(&nodes, &row.key)).transpose()
}

/// The least directory prefix at or after `key`.
fn next_prefix(
    tx: &mut dyn Transaction,
    layout: &Layout,
    key: &[u8],
    snapshot: bool,
) -> kv::Result<Option<Vec<u8>>> {
    let nodes = Subspace::from_bytes(layout.nodes.clone());
    let (_, end) = nodes.range();
    let range = RangeOption::new(nodes.pack(&(key,)), end).limit(1);
    let found = kv::collect_range(tx, &range, snapshot)?.pop();
    found.map(|row| node_prefix(&nodes, &row.key)).transpose()
}

/// The prefix a node key belongs to: its first element.
fn node_prefix(nodes: &Subspace, key: &[u8]) -> kv::Result<Vec<u8>> {
    let corrupt = |why: String| {
        let key = const_hex::encode(key);
        kv::Error::Corrupt(format!("the directory layer's node key 0x{key} {why}"))
    };
    let elements = nodes
        .unpack::<Vec<Element>>(key)
        .map_err(|e| corrupt(format!("is not a tuple: {e}")))?;
    match elements.first().and_then(Element::as_bytes) {
        Some(prefix) => Ok(prefix.to_vec()),
        None => Err(corrupt("does not start with a prefix".into())),
    }
}

/// Where tuple keys live: the root of the keyspace (outside every
/// directory), a directory, or the keys after raw bytes. Ordered as the
/// commands that visit several list them: the root first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Space {
    /// `/(...)`: the keys outside the directory layer.
    Root,
    /// `/app(...)`: a directory, by its absolute path.
    Directory(Vec<String>),
    /// `0x0261707000(...)`: the keys after these bytes.
    Prefix(Vec<u8>),
}

/// As FQL writes the space before a key's tuple: `/`, `/app`, `0x02`.
impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Space::Root => f.write_str("/"),
            Space::Directory(path) => f.write_str(&show(path)),
            Space::Prefix(bytes) => write!(f, "0x{}", const_hex::encode(bytes)),
        }
    }
}

impl Space {
    /// A read of every key-value of the space, or `None` for a directory
    /// that is missing or a partition (which holds directories, not keys).
    pub fn cursor(
        &self,
        tx: &mut dyn Transaction,
        layer: &DirectoryLayer,
        snapshot: bool,
    ) -> Result<Option<SpaceCursor>> {
        let (prefix, outside) = match self {
            Space::Root => (
                Vec::new(),
                Some(Outside::new(Vec::new(), OUTSIDE_END.to_vec(), false)),
            ),
            Space::Prefix(bytes) => (bytes.clone(), None),
            Space::Directory(path) => match layer.open_if_exists(tx, path)? {
                Some(dir) if !dir.is_partition() => (dir.prefix()?.to_vec(), None),
                _ => return Ok(None),
            },
        };
        let range = match outside {
            Some(_) => None,
            None => Some(RangeCursor::new(RangeOption::prefix(&prefix), snapshot)),
        };
        Ok(Some(SpaceCursor {
            layer: layer.clone(),
            prefix,
            outside,
            range,
            snapshot,
        }))
    }
}

/// [`Space::cursor`]: the space's key-values, batch by batch, in key
/// order. After an error it still points at what failed, so a caller may
/// go on, in a new transaction if need be, as with a [`RangeCursor`].
pub struct SpaceCursor {
    layer: DirectoryLayer,
    prefix: Vec<u8>,
    /// At the root, the ranges outside the directories still to read.
    outside: Option<Outside>,
    range: Option<RangeCursor>,
    snapshot: bool,
}

impl SpaceCursor {
    /// The bytes before every key's tuple: empty at the root.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// The next batch, or `None` once the space is read.
    pub fn next_batch(&mut self, tx: &mut dyn Transaction) -> kv::Result<Option<Vec<KeyValue>>> {
        loop {
            if let Some(range) = &mut self.range {
                if let Some(batch) = range.next_batch(tx)? {
                    return Ok(Some(batch));
                }
                self.range = None;
            }
            let Some(outside) = &mut self.outside else {
                return Ok(None);
            };
            match outside.next(tx, &self.layer, self.snapshot)? {
                Some((begin, end)) => {
                    let range = RangeOption::new(begin, end);
                    self.range = Some(RangeCursor::new(range, self.snapshot));
                }
                None => return Ok(None),
            }
        }
    }
}
