//! Removing and moving directories.

use super::cache;
use super::layer::DirectoryLayer;
use super::node::{Found, Node};
use super::{Directory, Error, Result, owned};
use crate::kv::{self, Transaction};

impl DirectoryLayer {
    /// Removes `path`, its subdirectories and every key in them.
    pub fn remove<S: AsRef<str>>(&self, tx: &mut dyn Transaction, path: &[S]) -> Result<()> {
        self.remove_at(tx, &owned(path), true).map(|_| ())
    }

    /// [`remove`](Self::remove), but a missing path is no error: returns
    /// whether there was something to remove.
    pub fn remove_if_exists<S: AsRef<str>>(
        &self,
        tx: &mut dyn Transaction,
        path: &[S],
    ) -> Result<bool> {
        self.remove_at(tx, &owned(path), false)
    }

    /// Renames `old` to `new`: only the link from its parent changes, so
    /// its prefix, keys and subdirectories stay as they are. The new parent
    /// must exist.
    pub fn move_to<S: AsRef<str>, T: AsRef<str>>(
        &self,
        tx: &mut dyn Transaction,
        old: &[S],
        new: &[T],
    ) -> Result<Directory> {
        self.move_at(tx, &owned(old), &owned(new))
    }

    fn remove_at(
        &self,
        tx: &mut dyn Transaction,
        path: &[String],
        must_exist: bool,
    ) -> Result<bool> {
        let layout = &self.layout;
        layout.check_version(tx, true)?;
        let Some((name, parent)) = path.split_last() else {
            return Err(Error::Root {
                path: layout.base.clone(),
                action: "removed",
            });
        };
        let node = match layout.find(tx, path)? {
            Found::Missing if must_exist => {
                return Err(Error::NotFound {
                    path: layout.absolute(path),
                });
            }
            Found::Missing => return Ok(false),
            Found::Partition { node, depth } => {
                let inner = self.partition(&node, &path[..depth]);
                return inner.remove_at(tx, &path[depth..], must_exist);
            }
            Found::Dir { node, .. } => node,
        };
        cache::changed(tx)?;
        self.remove_tree(tx, node)?;
        self.unlink(tx, parent, name)?;
        Ok(true)
    }

    /// Clears the contents and metadata of `node` and everything below
    /// it. Iterative, so no directory depth can exhaust the stack.
    fn remove_tree(&self, tx: &mut dyn Transaction, node: Node) -> Result<()> {
        let mut pending = vec![node];
        while let Some(node) = pending.pop() {
            pending.extend(self.children(tx, &node)?);
            tx.clear_range(&node.prefix, &kv::strinc(&node.prefix))?;
            let metadata = node.metadata();
            tx.clear_range(&metadata.begin, &metadata.end)?;
        }
        Ok(())
    }

    /// Deletes the entry of child `name` of `parent`.
    fn unlink(&self, tx: &mut dyn Transaction, parent: &[String], name: &str) -> Result<()> {
        if let Found::Dir { node, .. } = self.layout.find(tx, parent)? {
            tx.clear(&node.child_key(name))?;
        }
        Ok(())
    }

    fn move_at(
        &self,
        tx: &mut dyn Transaction,
        old: &[String],
        new: &[String],
    ) -> Result<Directory> {
        let layout = &self.layout;
        layout.check_version(tx, true)?;
        if old.is_empty() {
            return Err(Error::Root {
                path: layout.base.clone(),
                action: "moved",
            });
        }
        if new.starts_with(old) {
            return Err(Error::MoveIntoItself {
                from: layout.absolute(old),
                to: layout.absolute(new),
            });
        }
        let from = layout.find(tx, old)?;
        let to = layout.find(tx, new)?;
        let (node, layer) = match (from, to) {
            (Found::Missing, _) => {
                return Err(Error::NotFound {
                    path: layout.absolute(old),
                });
            }
            (Found::Partition { node, depth }, Found::Partition { depth: d, .. })
                if depth == d && old[..depth] == new[..depth] =>
            {
                let inner = self.partition(&node, &old[..depth]);
                return inner.move_at(tx, &old[depth..], &new[depth..]);
            }
            (Found::Partition { .. }, _) | (_, Found::Partition { .. }) => {
                return Err(Error::CrossPartition {
                    from: layout.absolute(old),
                    to: layout.absolute(new),
                });
            }
            (_, Found::Dir { .. }) => {
                return Err(Error::AlreadyExists {
                    path: layout.absolute(new),
                });
            }
            (Found::Dir { node, layer }, Found::Missing) => (node, layer),
        };
        let Some((new_name, new_parent)) = new.split_last() else {
            // The root always exists, so `new` is not empty here.
            return Err(Error::AlreadyExists {
                path: layout.base.clone(),
            });
        };
        let Found::Dir { node: parent, .. } = layout.find(tx, new_parent)? else {
            return Err(Error::ParentNotFound {
                from: layout.absolute(old),
                to: layout.absolute(new),
                parent: layout.absolute(new_parent),
            });
        };
        cache::changed(tx)?;
        tx.set(&parent.child_key(new_name), &node.prefix)?;
        if let Some((old_name, old_parent)) = old.split_last() {
            self.unlink(tx, old_parent, old_name)?;
        }
        Ok(self.contents(node, new, layer))
    }
}
