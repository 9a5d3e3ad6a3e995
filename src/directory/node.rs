//! Where a directory layer keeps its metadata, and how a path is resolved.
//!
//! Every key here is built by tuple-packing, as FDB's bindings do, so a
//! database written by fql reads in any FDB binding and the other way round.

use foundationdb_tuple::{Element, Subspace};

use super::{Error, Result};
use crate::kv::{self, ConflictRangeType, RangeOption, Transaction};

/// The layout version this code writes; older and equal versions read.
pub(super) const VERSION: [u32; 3] = [1, 0, 0];

/// The layer of a partition.
pub(super) const PARTITION: &[u8] = b"partition";

/// The first element of a node's child entries: `node‖P((0, name))`.
const SUBDIRS: i64 = 0;

/// One directory's metadata location: `node_subspace‖P((prefix,))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Node {
    /// The key every metadata key of the directory starts with.
    pub key: Vec<u8>,
    /// The directory's raw content prefix.
    pub prefix: Vec<u8>,
}

impl Node {
    fn subspace(&self) -> Subspace {
        Subspace::from_bytes(self.key.clone())
    }

    /// Where the layer is kept: `node‖P((b"layer",))`, always written.
    pub fn layer_key(&self) -> Vec<u8> {
        self.subspace().pack(&(&b"layer"[..],))
    }

    /// The entry linking child `name` to its prefix.
    pub fn child_key(&self, name: &str) -> Vec<u8> {
        self.subspace().pack(&(SUBDIRS, name))
    }

    /// Every child entry, in byte (that is, name) order.
    pub fn children(&self) -> RangeOption {
        let (begin, end) = self.subspace().subspace(&SUBDIRS).range();
        RangeOption::new(begin, end)
    }

    /// All of the node's metadata: layer and child entries.
    pub fn metadata(&self) -> RangeOption {
        let (begin, end) = self.subspace().range();
        RangeOption::new(begin, end)
    }

    /// The name of the child whose entry is `key`.
    pub fn child_name(&self, key: &[u8]) -> Result<String> {
        let (_, name) = self
            .subspace()
            .unpack::<(i64, String)>(key)
            .map_err(|e| Error::corrupt(key, format!("not a child entry: {e}")))?;
        Ok(name)
    }
}

/// The key layout of one directory layer: the standard one (nodes under
/// `FE`, contents anywhere), or a partition's (nodes under `P‖FE`,
/// contents under `P`).
#[derive(Clone, Debug)]
pub(super) struct Layout {
    /// The node subspace's raw prefix.
    pub nodes: Vec<u8>,
    /// The raw prefix every allocated prefix starts with.
    pub content: Vec<u8>,
    /// The root's node: `nodes‖P((nodes,))`.
    pub root: Node,
    /// The absolute path of this layer's root: empty, or a partition's path.
    pub base: Vec<String>,
}

impl Layout {
    /// The standard layer, as every FDB binding opens it by default.
    pub fn standard() -> Layout {
        Layout::new(vec![0xfe], Vec::new(), Vec::new())
    }

    /// The layer inside the partition with prefix `prefix` at `base`.
    pub fn partition(prefix: &[u8], base: Vec<String>) -> Layout {
        let mut nodes = prefix.to_vec();
        nodes.push(0xfe);
        Layout::new(nodes, prefix.to_vec(), base)
    }

    fn new(nodes: Vec<u8>, content: Vec<u8>, base: Vec<String>) -> Layout {
        let root = Node {
            key: Subspace::from_bytes(nodes.clone()).pack(&(nodes.as_slice(),)),
            prefix: nodes.clone(),
        };
        Layout {
            nodes,
            content,
            root,
            base,
        }
    }

    /// The node of the directory with raw prefix `prefix`.
    pub fn node(&self, prefix: Vec<u8>) -> Node {
        Node {
            key: Subspace::from_bytes(self.nodes.clone()).pack(&(prefix.as_slice(),)),
            prefix,
        }
    }

    /// The absolute path of `path`, which is relative to this layer's root.
    pub fn absolute(&self, path: &[String]) -> Vec<String> {
        let mut out = self.base.clone();
        out.extend_from_slice(path);
        out
    }

    /// `root‖P((b"version",))`: the layout version, three little-endian u32.
    pub fn version_key(&self) -> Vec<u8> {
        self.root.subspace().pack(&(&b"version"[..],))
    }

    /// The allocator's subspace, `root‖P((b"hca",))`.
    pub fn hca(&self) -> Subspace {
        self.root.subspace().subspace(&(&b"hca"[..],))
    }

    /// Checks the stored version, writing it on the first write: readers
    /// accept any 1.x, writers only 1.0, since a newer minor version may
    /// keep metadata this code would not maintain.
    pub fn check_version(&self, tx: &mut dyn Transaction, write: bool) -> Result<()> {
        let key = self.version_key();
        let Some(value) = tx.get(&key, false)? else {
            if write {
                let bytes: Vec<u8> = VERSION.iter().flat_map(|v| v.to_le_bytes()).collect();
                tx.set(&key, &bytes)?;
            }
            return Ok(());
        };
        let stored = decode_version(&value).ok_or_else(|| {
            Error::corrupt(&key, "a version is three little-endian u32 (12 bytes)")
        })?;
        if stored[0] > VERSION[0] || (write && stored[1] > VERSION[1]) {
            return Err(Error::Version {
                root: self.base.clone(),
                stored,
                write,
            });
        }
        Ok(())
    }

    /// Follows `path` from the root, stopping at the first missing name or
    /// at a partition with names left below it.
    pub fn find(&self, tx: &mut dyn Transaction, path: &[String]) -> Result<Found> {
        self.trace(tx, path, &mut Vec::new())
    }

    /// [`Layout::find`], noting in `read` every key it reads, in order:
    /// for each name its entry in the parent, then its layer.
    pub fn trace(
        &self,
        tx: &mut dyn Transaction,
        path: &[String],
        read: &mut Vec<Vec<u8>>,
    ) -> Result<Found> {
        let mut node = self.root.clone();
        let mut layer = Vec::new();
        for (i, name) in path.iter().enumerate() {
            let link = node.child_key(name);
            let found = tx.get(&link, false)?;
            read.push(link);
            let Some(prefix) = found else {
                return Ok(Found::Missing);
            };
            node = self.node(prefix);
            let key = node.layer_key();
            layer = tx.get(&key, false)?.unwrap_or_default();
            read.push(key);
            if layer == PARTITION && i + 1 < path.len() {
                return Ok(Found::Partition { node, depth: i + 1 });
            }
        }
        Ok(Found::Dir { node, layer })
    }

    /// Whether `prefix` neither lies under a directory's prefix (or the
    /// node subspace) nor has one under it, so it can be handed out.
    pub fn is_prefix_free(
        &self,
        tx: &mut dyn Transaction,
        prefix: &[u8],
        snapshot: bool,
    ) -> Result<bool> {
        if prefix.is_empty() || self.node_containing(tx, prefix, snapshot)? {
            return Ok(false);
        }
        let nodes = Subspace::from_bytes(self.nodes.clone());
        let range = RangeOption::new(
            nodes.pack(&(prefix,)),
            nodes.pack(&(kv::strinc(prefix).as_slice(),)),
        )
        .limit(1);
        Ok(kv::collect_range(tx, &range, snapshot)?.is_empty())
    }

    /// Whether some directory's prefix (or the node subspace) is a prefix
    /// of `key`. Node keys sort by prefix, so the only candidate is the last
    /// node at or before `key`'s own.
    fn node_containing(
        &self,
        tx: &mut dyn Transaction,
        key: &[u8],
        snapshot: bool,
    ) -> Result<bool> {
        if key.starts_with(&self.nodes) {
            return Ok(true);
        }
        let nodes = Subspace::from_bytes(self.nodes.clone());
        let (begin, _) = nodes.range();
        let end = kv::key_after(&nodes.pack(&(key,)));
        let range = RangeOption::new(begin, end).rev().limit(1);
        let Some(last) = kv::collect_range(tx, &range, snapshot)?.pop() else {
            return Ok(false);
        };
        let elements = nodes
            .unpack::<Vec<Element>>(&last.key)
            .map_err(|e| Error::corrupt(&last.key, format!("not a node key: {e}")))?;
        match elements.first().and_then(Element::as_bytes) {
            Some(prefix) => Ok(key.starts_with(prefix)),
            None => Err(Error::corrupt(&last.key, "a node key starts with a prefix")),
        }
    }
}

/// Marks `key` as written by this transaction, so that a transaction that
/// read it conflicts, without writing it.
pub(super) fn add_write_conflict_key(tx: &mut dyn Transaction, key: &[u8]) -> Result<()> {
    tx.add_conflict_range(key, &kv::key_after(key), ConflictRangeType::Write)?;
    Ok(())
}

fn decode_version(value: &[u8]) -> Option<[u32; 3]> {
    if value.len() != 12 {
        return None;
    }
    let mut out = [0; 3];
    for (slot, chunk) in out.iter_mut().zip(value.chunks_exact(4)) {
        *slot = u32::from_le_bytes(chunk.try_into().ok()?);
    }
    Some(out)
}

/// Where resolving a path ended.
#[derive(Debug)]
pub(super) enum Found {
    /// Some name along the path is missing.
    Missing,
    /// The whole path resolved (a partition itself included).
    Dir {
        /// Its node.
        node: Node,
        /// Its layer.
        layer: Vec<u8>,
    },
    /// `path[..depth]` is a partition and the rest lies inside it.
    Partition {
        /// The partition's node.
        node: Node,
        /// How many names of the path lead to it.
        depth: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_keys() {
        let layout = Layout::standard();
        assert_eq!(const_hex::encode(&layout.root.key), "fe01fe00");
        assert_eq!(
            const_hex::encode(layout.version_key()),
            "fe01fe000176657273696f6e00"
        );
        assert_eq!(
            const_hex::encode(layout.hca().bytes()),
            "fe01fe000168636100"
        );
        let app = layout.node(vec![0x15, 0x11]);
        assert_eq!(const_hex::encode(&app.key), "fe01151100");
        assert_eq!(
            const_hex::encode(app.layer_key()),
            "fe01151100016c6179657200"
        );
        assert_eq!(
            const_hex::encode(layout.root.child_key("app")),
            "fe01fe00140261707000"
        );
    }

    #[test]
    fn partition_keys() {
        let layout = Layout::partition(&[0x15, 0x3c], vec!["p".into()]);
        assert_eq!(const_hex::encode(&layout.root.key), "153cfe01153cfe00");
        assert_eq!(
            const_hex::encode(layout.root.child_key("inner")),
            "153cfe01153cfe001402696e6e657200"
        );
        assert_eq!(
            const_hex::encode(layout.version_key()),
            "153cfe01153cfe000176657273696f6e00"
        );
    }

    #[test]
    fn versions_decode_only_from_twelve_bytes() {
        assert_eq!(
            decode_version(&const_hex::decode("010000000200000003000000").unwrap_or_default()),
            Some([1, 2, 3])
        );
        assert_eq!(decode_version(&[1, 0, 0, 0]), None);
    }
}
