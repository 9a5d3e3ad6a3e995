//! Finding the directories a query names: a path, or a pattern with `<>`
//! for one name and a trailing `...` for any number.

use std::collections::HashMap;

use crate::codec::ElementFilter;
use crate::directory::{DirectoryLayer, Space, show};
use crate::kv::Transaction;
use crate::syntax::ast::{DirElem, Directory, ElemKind, Key, Place, Span};

use super::Error;

/// The directories one transaction attempt has looked up, so a script of
/// many writes to one directory reads its metadata once.
pub struct Dirs<'a> {
    pub layer: &'a DirectoryLayer,
    known: HashMap<Vec<String>, Option<Known>>,
    /// The last directory asked for that has a prefix, checked first
    /// without building its path.
    last: Option<(Vec<String>, Vec<u8>)>,
}

enum Known {
    Prefix(Vec<u8>),
    Partition,
}

impl<'a> Dirs<'a> {
    pub fn new(layer: &'a DirectoryLayer) -> Dirs<'a> {
        Dirs {
            layer,
            known: HashMap::new(),
            last: None,
        }
    }

    /// The prefix of a key's place, for a statement on the one key:
    /// empty at the root, the bytes written before a tuple, or the prefix
    /// of the key's directory (created first when `create` says so).
    pub fn key_prefix<'k>(
        &'k mut self,
        tx: &mut dyn Transaction,
        key: &'k Key<'_>,
        at: Span,
        create: bool,
    ) -> Result<Option<&'k [u8]>, Error> {
        match key.place() {
            Place::Root => Ok(Some(&[])),
            Place::Prefix(bytes) => Ok(Some(bytes)),
            Place::Directory(dir) => self.prefix_of(tx, dir, at, create),
        }
    }

    /// The prefix of the directory that holds `bytes`, the key of `key`,
    /// when `key` is at the root and so must lie outside every directory;
    /// `None` for a key elsewhere, which is where it was written.
    /// `snapshot` reads the directory layer's nodes without a conflict.
    pub fn holder(
        &self,
        tx: &mut dyn Transaction,
        key: &Key<'_>,
        bytes: &[u8],
        snapshot: bool,
    ) -> Result<Option<Vec<u8>>, Error> {
        match key.place() {
            Place::Root => Ok(self.layer.prefix_holding(tx, bytes, snapshot)?),
            Place::Directory(_) | Place::Prefix(_) => Ok(None),
        }
    }

    /// [`Dirs::holder`] for a write: one into a directory is an error.
    pub fn check_outside(
        &self,
        tx: &mut dyn Transaction,
        key: &Key<'_>,
        bytes: &[u8],
        at: Span,
    ) -> Result<(), Error> {
        match self.holder(tx, key, bytes, false)? {
            None => Ok(()),
            Some(prefix) => Err(Error::InDirectory {
                key: format!("0x{}", const_hex::encode(bytes)),
                prefix: format!("0x{}", const_hex::encode(prefix)),
                at,
            }),
        }
    }

    /// [`Dirs::prefix`] of a directory without holes, as written.
    pub fn prefix_of(
        &mut self,
        tx: &mut dyn Transaction,
        dir: &Directory,
        at: Span,
        create: bool,
    ) -> Result<Option<&[u8]>, Error> {
        let same =
            self.last.as_ref().is_some_and(|(path, _)| {
                path.len() == dir.elems.len()
                    && dir.elems.iter().zip(path).all(
                        |(e, p)| matches!(e, DirElem::Name { name, .. } if *name == p.as_str()),
                    )
            });
        if !same {
            let path = path(dir);
            let prefix = self.prefix(tx, &path, at, create)?.map(<[u8]>::to_vec);
            self.last = prefix.map(|p| (path, p));
        }
        Ok(self.last.as_ref().map(|(_, p)| p.as_slice()))
    }

    /// The key prefix of the directory at `path`, created first when
    /// `create` says so; `None` when it is missing. A partition, named
    /// exactly, is refused: FDB offers no subspace of its own for it.
    pub fn prefix(
        &mut self,
        tx: &mut dyn Transaction,
        path: &[String],
        at: Span,
        create: bool,
    ) -> Result<Option<&[u8]>, Error> {
        match self.known(tx, path, create)? {
            None => Ok(None),
            Some(Known::Partition) => Err(Error::Partition {
                path: show(path),
                at,
            }),
            Some(Known::Prefix(p)) => Ok(Some(p)),
        }
    }

    /// The key prefix of a directory a pattern matched, `None` when it is
    /// missing or a partition: a partition holds no keys of its own, and
    /// the directories inside it, which hold them, are matches of their
    /// own when the pattern reaches them.
    pub fn matched_prefix(
        &mut self,
        tx: &mut dyn Transaction,
        path: &[String],
    ) -> Result<Option<&[u8]>, Error> {
        Ok(match self.known(tx, path, false)? {
            Some(Known::Prefix(p)) => Some(p),
            None | Some(Known::Partition) => None,
        })
    }

    /// What is known of the directory at `path`, looked up (and created
    /// first when `create` says so) unless this attempt knows it already.
    fn known(
        &mut self,
        tx: &mut dyn Transaction,
        path: &[String],
        create: bool,
    ) -> Result<Option<&Known>, Error> {
        // A missing directory is looked up again when it is to be created.
        let stale = match self.known.get(path) {
            Some(Some(_)) => false,
            Some(None) => create,
            None => true,
        };
        if stale {
            let dir = if create {
                Some(self.layer.create_or_open(tx, path, b"")?)
            } else {
                self.layer.open_if_exists(tx, path)?
            };
            let known = dir.map(|d| match d.prefix() {
                Ok(p) => Known::Prefix(p.to_vec()),
                Err(_) => Known::Partition,
            });
            self.known.insert(path.to_vec(), known);
        }
        Ok(self.known[path].as_ref())
    }

    /// Removes the directory at `path` if it exists, forgetting what was
    /// known of it and of everything under it.
    pub fn remove(&mut self, tx: &mut dyn Transaction, path: &[String]) -> Result<(), Error> {
        self.layer.remove_if_exists(tx, path)?;
        self.known.retain(|p, _| !p.starts_with(path));
        self.last = None;
        Ok(())
    }
}

/// The names of a directory path without holes.
pub fn path(dir: &Directory) -> Vec<String> {
    dir.elems
        .iter()
        .filter_map(|e| match e {
            DirElem::Name { name, .. } => Some(name.to_string()),
            _ => None,
        })
        .collect()
}

/// Every existing directory that `pattern` matches, parent before
/// children, children in name order. The root itself is never a match.
pub fn matching(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    pattern: &Directory,
) -> Result<Vec<Vec<String>>, Error> {
    let mut found: Vec<Vec<String>> = vec![Vec::new()];
    for elem in &pattern.elems {
        let mut next = Vec::new();
        for parent in found {
            match elem {
                DirElem::Name { name, .. } => {
                    let mut child = parent;
                    child.push(name.to_string());
                    if layer.exists(tx, &child)? {
                        next.push(child);
                    }
                }
                DirElem::Var(v) => {
                    let filter = ElementFilter::new(v).unwrap_or_default();
                    for name in layer.list(tx, &parent)? {
                        if filter.accepts(&ElemKind::Str(name.clone().into())) {
                            let mut child = parent.clone();
                            child.push(name);
                            next.push(child);
                        }
                    }
                }
                // Substituted by the planner.
                DirElem::Ref(_) => {}
            }
        }
        found = next;
    }
    if pattern.rest.is_some() {
        let mut all = Vec::new();
        for p in found {
            descendants(tx, layer, p, &mut all)?;
        }
        found = all;
    }
    found.retain(|p| !p.is_empty());
    Ok(found)
}

/// `path` and everything under it, in order.
fn descendants(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    path: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> Result<(), Error> {
    let children = layer.list(tx, &path)?;
    out.push(path.clone());
    for name in children {
        let mut child = path.clone();
        child.push(name);
        descendants(tx, layer, child, out)?;
    }
    Ok(())
}

/// Whether a directory pattern takes in the root of the keyspace too:
/// `/...` is the root and every directory under it.
pub fn includes_root(pattern: &Directory<'_>) -> bool {
    pattern.elems.is_empty() && pattern.relative.is_none()
}

/// Every existing space a key pattern reads: the root, a raw prefix, or
/// the directories its path matches, after the root for `/...`.
pub fn matching_spaces(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    key: &Key<'_>,
) -> Result<Vec<Space>, Error> {
    match key.place() {
        Place::Root => Ok(vec![Space::Root]),
        Place::Prefix(bytes) => Ok(vec![Space::Prefix(bytes.to_vec())]),
        Place::Directory(pattern) => {
            let root = includes_root(pattern).then_some(Space::Root);
            let dirs = matching(tx, layer, pattern)?
                .into_iter()
                .map(Space::Directory);
            Ok(root.into_iter().chain(dirs).collect())
        }
    }
}

/// The directories a key query reads: its path when it has no holes (read
/// or not, it may be missing), else every match.
pub fn matching_or_path(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    pattern: &Directory,
) -> Result<Vec<Vec<String>>, Error> {
    if pattern.has_holes() {
        matching(tx, layer, pattern)
    } else {
        Ok(vec![path(pattern)])
    }
}

/// The values of the named variables of `pattern` in a matching `path`.
pub fn captures(
    pattern: &Directory<'_>,
    path: &[String],
    out: &mut Vec<(String, ElemKind<'static>)>,
) {
    for (elem, name) in pattern.elems.iter().zip(path) {
        if let DirElem::Var(v) = elem
            && let Some(n) = v.name
        {
            out.push((n.to_string(), ElemKind::Str(name.clone().into())));
        }
    }
}
