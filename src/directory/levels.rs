//! Which level of a directory path a read of the directory layer's
//! metadata was for, told from the key read alone.
//!
//! Opening `/a/b/c` reads the root's entry for `a`, then `a`'s for `b`,
//! then `b`'s for `c`, each read waiting for the one before: on a cluster
//! every level is a round trip before the data. [`Levels`] names the
//! level of each such read by its key, so that it can be counted where
//! the reads are sent (a [`Meter`](crate::kv::Meter)) rather than inside
//! the directory layer: whatever spares a read (a cache of prefixes)
//! lowers the count by itself.

use std::collections::HashMap;

use foundationdb_tuple::{Element, Subspace};

use super::node::{Layout, PARTITION};
use crate::kv::{KeyValue, METADATA_VERSION_KEY};

/// What a read of the directory layer's keys was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Resolving the `n`th name of a path (from 1): the parent's entry for
    /// it, the directory's layer, or the listing of the parent's children.
    Level(usize),
    /// The layer's version, its allocator, a check that a new prefix is
    /// free, or the metadata version the prefix cache checks: reads of
    /// the directory layer not tied to one level.
    Other,
}

/// The levels of the directories whose prefixes the reads so far have
/// shown, to name the level of the reads that follow.
#[derive(Clone, Debug)]
pub struct Levels {
    /// The node subspace of each directory layer seen (the standard one,
    /// and each partition's), with the level of its root.
    layers: Vec<(Vec<u8>, usize)>,
    /// The level of each directory by its node prefix; a layer's root is
    /// known by its node subspace.
    depths: HashMap<Vec<u8>, usize>,
}

impl Default for Levels {
    fn default() -> Self {
        Levels::new()
    }
}

impl Levels {
    /// The standard directory layer's levels, nothing read yet.
    pub fn new() -> Levels {
        let nodes = Layout::standard().nodes;
        Levels {
            layers: vec![(nodes.clone(), 0)],
            depths: HashMap::from([(nodes, 0)]),
        }
    }

    /// What a point read of `key` that found `value` was for; `None` for a
    /// key outside the directory layer.
    pub fn get(&mut self, key: &[u8], value: Option<&[u8]>) -> Option<Lookup> {
        if key == METADATA_VERSION_KEY {
            return Some(Lookup::Other);
        }
        let elements = self.decode(key)?;
        let node = elements.first().and_then(Element::as_bytes)?.to_vec();
        let Some(&depth) = self.depths.get(&node) else {
            return Some(Lookup::Other);
        };
        match &elements[1..] {
            [Element::Int(0), Element::String(_)] => {
                if let Some(child) = value {
                    self.depths.insert(child.to_vec(), depth + 1);
                }
                Some(Lookup::Level(depth + 1))
            }
            [Element::Bytes(b)] if b[..] == b"layer"[..] && depth > 0 => {
                if value == Some(PARTITION) {
                    self.enter_partition(&node, depth);
                }
                Some(Lookup::Level(depth))
            }
            _ => Some(Lookup::Other),
        }
    }

    /// What one batch of a range read from `begin` was for, learning the
    /// levels of the children it lists.
    pub fn range(&mut self, begin: &[u8], kvs: &[KeyValue]) -> Option<Lookup> {
        let elements = self.decode(begin)?;
        let node = elements
            .first()
            .and_then(Element::as_bytes)
            .map(|b| b.to_vec());
        let depth = node.and_then(|n| self.depths.get(&n).copied());
        match (depth, &elements[1..]) {
            (Some(depth), [Element::Int(0), ..]) => {
                for kv in kvs {
                    self.depths.insert(kv.value.clone(), depth + 1);
                }
                Some(Lookup::Level(depth + 1))
            }
            _ => Some(Lookup::Other),
        }
    }

    /// The tuple of a key of a directory layer's node subspace, past that
    /// subspace; `None` for any other key.
    fn decode(&self, key: &[u8]) -> Option<Vec<Element<'static>>> {
        let (nodes, _) = self
            .layers
            .iter()
            .filter(|(nodes, _)| key.starts_with(nodes))
            .max_by_key(|(nodes, _)| nodes.len())?;
        let elements = Subspace::from_bytes(nodes.clone())
            .unpack::<Vec<Element>>(key)
            .ok()?
            .into_iter()
            .map(Element::into_owned)
            .collect();
        Some(elements)
    }

    /// A partition at `depth`, whose node prefix is `node`: its own layer,
    /// whose root is the partition.
    fn enter_partition(&mut self, node: &[u8], depth: usize) {
        let inner = Layout::partition(node, Vec::new()).nodes;
        if !self.layers.iter().any(|(n, _)| *n == inner) {
            self.layers.push((inner.clone(), depth));
        }
        self.depths.insert(inner, depth);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::directory::DirectoryLayer;
    use crate::kv::embedded::Embedded;
    use crate::kv::{Database, DatabaseExt};

    /// Opening a path of three names reads two keys at each level.
    #[test]
    fn names_the_level_of_each_read_of_a_path() {
        let db = Embedded::memory();
        let layer = DirectoryLayer::new();
        db.run(|tx, _| layer.create_or_open(tx, &["a", "b", "c"], b""))
            .unwrap();
        let mut tx = db.create_trx().unwrap();
        let mut levels = Levels::new();
        let mut seen = Vec::new();
        let mut node = Layout::standard().root;
        for name in ["a", "b", "c"] {
            let key = node.child_key(name);
            let prefix = tx.get(&key, false).unwrap().unwrap();
            seen.push(levels.get(&key, Some(&prefix)));
            node = Layout::standard().node(prefix);
            let key = node.layer_key();
            let layer = tx.get(&key, false).unwrap();
            seen.push(levels.get(&key, layer.as_deref()));
        }
        let level = |n| Some(Lookup::Level(n));
        assert_eq!(
            seen,
            [level(1), level(1), level(2), level(2), level(3), level(3)]
        );
        let version = Layout::standard().version_key();
        assert_eq!(levels.get(&version, None), Some(Lookup::Other));
        assert_eq!(levels.get(b"\x15\x01data", None), None);
    }
}
