//! The directory layer: named, nested key spaces with short prefixes.
//!
//! FQL queries name keys by path (`/app/users(42)`), but keys are bytes. The
//! directory layer maps each path to a short byte prefix allocated once, so
//! keys stay small and a directory can be renamed without rewriting its
//! keys. The layout is FoundationDB's standard one, byte for byte, so a
//! database written here can be read with any FDB binding's directory layer
//! and the other way round. `docs/directories.md` shows every key.
//!
//! All operations run inside a caller's transaction, so the executor can
//! resolve many paths and write their keys atomically; conflicts surface as
//! [`Error::Kv`], which [`kv::run`](crate::kv::run) retries.
//!
//! ```
//! use fql::directory::DirectoryLayer;
//! use fql::kv::{DatabaseExt, embedded::Embedded};
//!
//! let db = Embedded::memory();
//! let dirs = DirectoryLayer::new();
//! let users = db.run(|tx, _| dirs.create_or_open(tx, &["app", "users"], b""))?;
//! let key = users.subspace()?.pack(&(42i64, "ann"));
//! assert!(key.starts_with(users.prefix()?));
//! assert_eq!(db.run(|tx, _| dirs.list(tx, &["app"]))?, ["users"]);
//! # Ok::<(), fql::directory::Error>(())
//! ```

mod cache;
mod edit;
mod error;
mod hca;
mod layer;
mod levels;
mod node;
mod outside;
mod survey;

use std::fmt;

pub use error::{Error, Result};
pub use foundationdb_tuple::Subspace;
pub use hca::{Candidates, RandomCandidates};
pub use layer::DirectoryLayer;
pub use levels::{Levels, Lookup};
pub use outside::{OUTSIDE_END, Outside, Space, SpaceCursor};
pub use survey::{Count, Holdings, TreeNode, count};

use crate::syntax::ast::{DirElem, DirElems, ElemKind, Span};

/// The root's path, for `list` and `exists`; an empty slice of names
/// needs a type, which this gives it.
pub const ROOT: &[&str] = &[];

/// An opened directory: its absolute path, layer and raw prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directory {
    path: Vec<String>,
    prefix: Vec<u8>,
    layer: Vec<u8>,
}

impl Directory {
    /// The absolute path, as names from the root.
    pub fn path(&self) -> &[String] {
        &self.path
    }

    /// The layer it was created with; empty for plain directories.
    pub fn layer(&self) -> &[u8] {
        &self.layer
    }

    /// Whether it is a partition: a directory layer of its own whose
    /// directories share its prefix, so one range covers all of them.
    pub fn is_partition(&self) -> bool {
        self.layer == node::PARTITION
    }

    /// The raw prefix of every key in the directory. A partition has none
    /// to offer: its prefix belongs to the directories inside it.
    pub fn prefix(&self) -> Result<&[u8]> {
        if self.is_partition() {
            return Err(Error::Partition {
                path: self.path.clone(),
            });
        }
        Ok(&self.prefix)
    }

    /// Where a partition keeps the nodes of the directories inside it:
    /// its prefix, then `FE`, as the root's are at `FE`. `None` for a
    /// directory that is no partition.
    pub fn partition_nodes(&self) -> Option<Vec<u8>> {
        self.is_partition()
            .then(|| [self.prefix.as_slice(), &[0xfe]].concat())
    }

    /// The directory's keys as a tuple subspace, to pack and unpack keys.
    pub fn subspace(&self) -> Result<Subspace> {
        self.prefix().map(|p| Subspace::from_bytes(p.to_vec()))
    }
}

/// A path as FQL writes it: `/app/users`, names that are not plain quoted,
/// the root as `/`.
pub fn show(path: &[String]) -> String {
    ShowPath(path).to_string()
}

/// Puts a value in a directory path, as a reference written there
/// takes a parameter's or a joined row's value: a string is a
/// name, and a tuple of strings a path of names, so that
/// `-p dir='("locks","job")'` puts a script's `/:dir(...)` at
/// `/locks/job(...)`; anything else is named by its FQL text.
pub(crate) fn push_value<'a>(elems: &mut DirElems<'a>, value: ElemKind<'a>, span: Span) {
    match value {
        ElemKind::Str(name) => elems.push(DirElem::Name { name, span }),
        ElemKind::Tuple(t)
            if !t.elems.is_empty()
                && t.elems.iter().all(|e| matches!(e.kind, ElemKind::Str(_))) =>
        {
            for e in t.elems {
                if let ElemKind::Str(name) = e.kind {
                    elems.push(DirElem::Name { name, span });
                }
            }
        }
        other => elems.push(DirElem::Name {
            name: other.to_string().into(),
            span,
        }),
    }
}

struct ShowPath<'a>(&'a [String]);

impl fmt::Display for ShowPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("/");
        }
        for name in self.0 {
            let elem = DirElem::Name {
                name: name.as_str().into(),
                span: Span::default(),
            };
            write!(f, "/{elem}")?;
        }
        Ok(())
    }
}

/// Owned names from whatever the caller holds.
fn owned<S: AsRef<str>>(path: &[S]) -> Vec<String> {
    path.iter().map(|s| s.as_ref().to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_show_as_fql_writes_them() {
        assert_eq!(show(&[]), "/");
        assert_eq!(show(&owned(&["app", "users"])), "/app/users");
        assert_eq!(show(&owned(&["my dir", "x"])), "/\"my dir\"/x");
    }

    #[test]
    fn a_partition_has_no_prefix_to_offer() {
        let dir = Directory {
            path: owned(&["p"]),
            prefix: vec![0x15, 0x3c],
            layer: b"partition".to_vec(),
        };
        assert!(dir.is_partition());
        assert_eq!(
            dir.prefix().map_err(|e| e.to_string()),
            Err("directory /p is a partition and cannot hold keys itself".to_owned())
        );
    }
}
