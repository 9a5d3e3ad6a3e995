//! The directory layer itself: opening, creating and listing directories.

use std::fmt;
use std::sync::{Arc, Mutex};

use super::cache::{self, Cache, Cached, Lookup};
use super::hca::{self, Candidates, RandomCandidates};
use super::node::{Found, Layout, Node};
use super::{Directory, Error, Result, owned};
use crate::kv::{self, RangeCursor, RangeOption, Transaction};

/// A directory layer over one database: the standard one at `FE`, or one
/// opened inside a partition.
///
/// It holds where its keys live, the allocator's random source and the
/// prefixes it resolved (kept correct by FDB's metadata version, see
/// `docs/directories.md`), so one value serves every transaction and
/// thread, and its clones share all three. Paths are absolute, from the
/// root; a partition along a path is entered transparently.
#[derive(Clone)]
pub struct DirectoryLayer {
    pub(super) layout: Layout,
    manual_prefixes: bool,
    pub(super) candidates: Arc<Mutex<Box<dyn Candidates>>>,
    /// `None` inside partitions, and when turned off.
    pub(super) cache: Option<Arc<Cache>>,
}

impl fmt::Debug for DirectoryLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DirectoryLayer")
            .field("layout", &self.layout)
            .field("manual_prefixes", &self.manual_prefixes)
            .field("cache", &self.cache.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for DirectoryLayer {
    fn default() -> Self {
        DirectoryLayer::new()
    }
}

impl DirectoryLayer {
    /// The standard directory layer, with random prefixes.
    pub fn new() -> DirectoryLayer {
        DirectoryLayer {
            layout: Layout::standard(),
            manual_prefixes: false,
            candidates: Arc::new(Mutex::new(Box::new(RandomCandidates::new()))),
            cache: Some(Arc::default()),
        }
    }

    /// The same layer resolving every path from the database each time,
    /// keeping nothing across transactions: to measure what the cache
    /// saves, or for a caller that shares the database with programs that
    /// move directories without stamping the metadata version.
    pub fn uncached(mut self) -> DirectoryLayer {
        self.cache = None;
        self
    }

    /// The same layer drawing allocator candidates from `candidates`, so
    /// that tests get the same prefixes on every run.
    pub fn with_candidates(mut self, candidates: impl Candidates + 'static) -> DirectoryLayer {
        self.candidates = Arc::new(Mutex::new(Box::new(candidates)));
        self
    }

    /// The same layer accepting prefixes chosen by the caller
    /// ([`create_with_prefix`](Self::create_with_prefix)). Off by default,
    /// as in every FDB binding, because such prefixes are easy to get wrong.
    pub fn with_manual_prefixes(mut self) -> DirectoryLayer {
        self.manual_prefixes = true;
        self
    }

    /// The layer inside the partition at `base` (relative to this layer)
    /// whose node is `node`; it shares this layer's random source.
    pub(super) fn partition(&self, node: &Node, base: &[String]) -> DirectoryLayer {
        DirectoryLayer {
            layout: Layout::partition(&node.prefix, self.layout.absolute(base)),
            manual_prefixes: false,
            candidates: Arc::clone(&self.candidates),
            cache: None,
        }
    }

    /// Opens `path`, creating it and any missing parents. `layer` is given
    /// to the directory if it is created (parents get none) and checked
    /// against its layer otherwise; empty means no check.
    pub fn create_or_open<S: AsRef<str>>(
        &self,
        tx: &mut dyn Transaction,
        path: &[S],
        layer: &[u8],
    ) -> Result<Directory> {
        self.create_or_open_at(tx, &owned(path), layer, None, Mode::Either)
    }

    /// Creates `path` and any missing parents; fails if it exists.
    pub fn create<S: AsRef<str>>(
        &self,
        tx: &mut dyn Transaction,
        path: &[S],
        layer: &[u8],
    ) -> Result<Directory> {
        self.create_or_open_at(tx, &owned(path), layer, None, Mode::Create)
    }

    /// Creates `path` with a prefix chosen by the caller; needs
    /// [`with_manual_prefixes`](Self::with_manual_prefixes), and the prefix
    /// must not overlap any directory's.
    pub fn create_with_prefix<S: AsRef<str>>(
        &self,
        tx: &mut dyn Transaction,
        path: &[S],
        prefix: &[u8],
        layer: &[u8],
    ) -> Result<Directory> {
        self.create_or_open_at(tx, &owned(path), layer, Some(prefix), Mode::Create)
    }

    /// Opens an existing `path`; `layer`, unless empty, must match.
    pub fn open<S: AsRef<str>>(
        &self,
        tx: &mut dyn Transaction,
        path: &[S],
        layer: &[u8],
    ) -> Result<Directory> {
        self.create_or_open_at(tx, &owned(path), layer, None, Mode::Open)
    }

    /// Opens `path` if it exists: [`open`](Self::open) with no layer check,
    /// answering `None` for a missing path, in one lookup.
    pub fn open_if_exists<S: AsRef<str>>(
        &self,
        tx: &mut dyn Transaction,
        path: &[S],
    ) -> Result<Option<Directory>> {
        match self.create_or_open_at(tx, &owned(path), b"", None, Mode::Open) {
            Ok(dir) => Ok(Some(dir)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether `path` exists; the root always does.
    pub fn exists<S: AsRef<str>>(&self, tx: &mut dyn Transaction, path: &[S]) -> Result<bool> {
        self.exists_at(tx, &owned(path))
    }

    /// While `path` does not exist, the key whose writing makes it exist:
    /// the entry of its first missing directory in that directory's
    /// parent. A database watch on it fires when `path`, or the missing
    /// directory above it, is created, so a reader waiting for a
    /// directory need not poll. `None` when `path` exists or runs through
    /// a partition.
    pub fn creation_key<S: AsRef<str>>(
        &self,
        tx: &mut dyn Transaction,
        path: &[S],
    ) -> Result<Option<Vec<u8>>> {
        let path = owned(path);
        let mut parent = self.layout.root.clone();
        for depth in 1..=path.len() {
            match self.open_if_exists(tx, &path[..depth])? {
                None => return Ok(Some(parent.child_key(&path[depth - 1]))),
                Some(dir) if dir.is_partition() => return Ok(None),
                Some(dir) => parent = self.layout.node(dir.prefix()?.to_vec()),
            }
        }
        Ok(None)
    }

    /// The names of `path`'s children in byte order of their UTF-8; the
    /// empty path lists the root, a partition lists its own root.
    pub fn list<S: AsRef<str>>(&self, tx: &mut dyn Transaction, path: &[S]) -> Result<Vec<String>> {
        self.list_at(tx, &owned(path))
    }

    fn create_or_open_at(
        &self,
        tx: &mut dyn Transaction,
        path: &[String],
        layer: &[u8],
        prefix: Option<&[u8]>,
        mode: Mode,
    ) -> Result<Directory> {
        let stamp = match mode {
            Mode::Open | Mode::Either if prefix.is_none() => {
                match self.lookup().cached(tx, path)? {
                    Cached::Hit(entry) => return self.lookup().open(entry, path, layer),
                    Cached::Miss(stamp) => stamp,
                }
            }
            _ => None,
        };
        let layout = &self.layout;
        layout.check_version(tx, false)?;
        if prefix.is_some() && !self.manual_prefixes {
            return Err(Error::ManualPrefixDisabled {
                path: layout.absolute(path),
            });
        }
        if path.is_empty() {
            return Err(Error::Root {
                path: layout.base.clone(),
                action: "opened",
            });
        }
        let node = match self.lookup().find_caching(tx, path, stamp)? {
            Found::Partition { node, depth } => {
                let inner = self.partition(&node, &path[..depth]);
                return inner.create_or_open_at(tx, &path[depth..], layer, prefix, mode);
            }
            Found::Dir { node, layer: found } => {
                if mode == Mode::Create {
                    return Err(Error::AlreadyExists {
                        path: layout.absolute(path),
                    });
                }
                if !layer.is_empty() && found != layer {
                    return Err(Error::IncompatibleLayer {
                        path: layout.absolute(path),
                        found,
                        wanted: layer.to_vec(),
                    });
                }
                return Ok(self.contents(node, path, found));
            }
            Found::Missing if mode == Mode::Open => {
                return Err(Error::NotFound {
                    path: layout.absolute(path),
                });
            }
            Found::Missing => {
                layout.check_version(tx, true)?;
                cache::changed(tx)?;
                let prefix = match prefix {
                    Some(prefix) => self.claim(tx, prefix)?,
                    None => self.allocate(tx)?,
                };
                layout.node(prefix)
            }
        };
        let parent = match path.split_last() {
            Some((_, parents)) if !parents.is_empty() => {
                let dir = self.create_or_open_at(tx, parents, b"", None, Mode::Either)?;
                layout.node(dir.prefix)
            }
            _ => layout.root.clone(),
        };
        let name = path.last().map_or("", String::as_str);
        tx.set(&parent.child_key(name), &node.prefix)?;
        tx.set(&node.layer_key(), layer)?;
        Ok(self.contents(node, path, layer.to_vec()))
    }

    /// A new prefix from the allocator, checked against keys written
    /// behind the directory layer's back.
    fn allocate(&self, tx: &mut dyn Transaction) -> Result<Vec<u8>> {
        let layout = &self.layout;
        let mut prefix = layout.content.clone();
        prefix.extend(hca::allocate(tx, &layout.hca(), &self.candidates)?);
        let range = RangeOption::prefix(&prefix).limit(1);
        if !kv::collect_range(tx, &range, false)?.is_empty() {
            return Err(Error::AllocatorConflict {
                prefix,
                has_keys: true,
            });
        }
        // A snapshot read: other allocations cannot overlap this one, and
        // a conflict on every node key would serialize all creates.
        if !layout.is_prefix_free(tx, &prefix, true)? {
            return Err(Error::AllocatorConflict {
                prefix,
                has_keys: false,
            });
        }
        Ok(prefix)
    }

    /// The caller's prefix, if no directory's overlaps it.
    fn claim(&self, tx: &mut dyn Transaction, prefix: &[u8]) -> Result<Vec<u8>> {
        if !self.layout.is_prefix_free(tx, prefix, false)? {
            return Err(Error::PrefixInUse {
                prefix: prefix.to_vec(),
            });
        }
        Ok(prefix.to_vec())
    }

    /// The cache and where this layer's keys live.
    fn lookup(&self) -> Lookup<'_> {
        Lookup {
            cache: self.cache.as_deref(),
            layout: &self.layout,
        }
    }

    pub(super) fn contents(&self, node: Node, path: &[String], layer: Vec<u8>) -> Directory {
        Directory {
            path: self.layout.absolute(path),
            prefix: node.prefix,
            layer,
        }
    }

    fn exists_at(&self, tx: &mut dyn Transaction, path: &[String]) -> Result<bool> {
        let Cached::Miss(stamp) = self.lookup().cached(tx, path)? else {
            return Ok(true);
        };
        self.layout.check_version(tx, false)?;
        match self.lookup().find_caching(tx, path, stamp)? {
            Found::Missing => Ok(false),
            Found::Dir { .. } => Ok(true),
            Found::Partition { node, depth } => self
                .partition(&node, &path[..depth])
                .exists_at(tx, &path[depth..]),
        }
    }

    fn list_at(&self, tx: &mut dyn Transaction, path: &[String]) -> Result<Vec<String>> {
        self.layout.check_version(tx, false)?;
        let node = match self.layout.find(tx, path)? {
            Found::Missing => {
                return Err(Error::NotFound {
                    path: self.layout.absolute(path),
                });
            }
            Found::Partition { node, depth } => {
                return self
                    .partition(&node, &path[..depth])
                    .list_at(tx, &path[depth..]);
            }
            Found::Dir { node, layer } if layer == super::node::PARTITION => {
                return self.partition(&node, path).list_at(tx, &[]);
            }
            Found::Dir { node, .. } => node,
        };
        let mut names = Vec::new();
        for (name, _) in children(tx, &node)? {
            names.push(name);
        }
        Ok(names)
    }

    /// The children of `node` and their prefixes.
    pub(super) fn children(&self, tx: &mut dyn Transaction, node: &Node) -> Result<Vec<Node>> {
        Ok(children(tx, node)?
            .into_iter()
            .map(|(_, prefix)| self.layout.node(prefix))
            .collect())
    }
}

/// Names and prefixes of `node`'s children, in name order.
fn children(tx: &mut dyn Transaction, node: &Node) -> Result<Vec<(String, Vec<u8>)>> {
    let mut cursor = RangeCursor::new(node.children(), false);
    let mut out = Vec::new();
    while let Some(batch) = cursor.next_batch(tx)? {
        for kv in batch {
            out.push((node.child_name(&kv.key)?, kv.value));
        }
    }
    Ok(out)
}

/// What `create_or_open_at` may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Open if it exists, else create.
    Either,
    /// Create; fail if it exists.
    Create,
    /// Open; fail if it is missing.
    Open,
}
