//! Directory prefixes kept across transactions, used only while FDB's
//! metadata version says no directory changed.
//!
//! Resolving `/a/b/c` reads the layer's version, then two keys per name
//! (the entry in the parent, then the layer), each after the one before:
//! seven sequential reads, on FDB seven round trips, before the first key
//! of the data. A session that
//! names the same directories statement after statement pays them every
//! time. So the layer keeps what it resolved, keyed by path, under the
//! value of `\xff/metadataVersion` it read in the transaction that
//! resolved it; and every change fql makes to directories (create, move,
//! remove, in any layer, partitions included) stamps that key in the same
//! transaction. A later transaction reads the key (on FDB the value comes
//! with the read version, so the read costs no round trip) and uses an
//! entry only while the value is the one the entry was kept under.
//!
//! A hit still takes the conflicts the reads it skips would have taken
//! (conflict ranges cost no round trip), so a transaction that used a
//! prefix fails to commit if a directory on its path changed after it
//! began, as it would without the cache; the key itself is read as a
//! snapshot, so creating directories does not make every other session's
//! transactions conflict.
//!
//! Other programs' directory layers (FDB's bindings) do not stamp the
//! key. So a hit also reads two keys, with conflicts: the layer's version
//! (as every lookup does, so a layout this code cannot read is refused
//! all the same), and the directory's entry in its parent, dropping the
//! cached entry unless that still holds the cached prefix: that catches the directory, or any directory above it, removed
//! (a remove clears the metadata of everything below), the directory
//! itself moved or renamed, and a directory made anew at the path. It does
//! not catch a directory above it moved or renamed by a program that does
//! not stamp the key: then the path keeps naming the moved directory until
//! the metadata version changes or the session ends. Two reads instead of
//! seven: the cost of those checks. Paths inside partitions are not
//! cached.

use std::collections::HashMap;
use std::sync::Mutex;

use super::node::{Found, Layout};
use super::{Directory, Error, Result};
use crate::kv::{
    self, ConflictRangeType, METADATA_VERSION_KEY, METADATA_VERSION_STAMP, MutationType,
    Transaction,
};

/// Past this many paths the cache starts again, so a session that walks
/// a huge tree keeps a bounded amount of memory.
const MAX_ENTRIES: usize = 10_000;

/// The metadata version as read: its value, `None` before any stamp.
pub(super) type Stamp = Option<Vec<u8>>;

/// What the cache knows of a path.
pub(super) enum Cached {
    /// The directory, checked in this transaction.
    Hit(Entry),
    /// Nothing usable; what is resolved now may be kept under this
    /// metadata version, when there is one.
    Miss(Option<Stamp>),
}

/// What one directory layer resolved, shared by every transaction and
/// thread that uses it.
#[derive(Debug, Default)]
pub(super) struct Cache {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The metadata version every entry was read under.
    stamp: Option<Stamp>,
    entries: HashMap<Vec<String>, Entry>,
}

/// One resolved path.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub prefix: Vec<u8>,
    pub layer: Vec<u8>,
    /// The directory's entry in its parent, read again on every hit.
    link: Vec<u8>,
    /// Every key resolving the path read, which a hit guards with
    /// conflict ranges instead of reading.
    read: Vec<Vec<u8>>,
}

impl Cache {
    fn get(&self, stamp: &Stamp, path: &[String]) -> Option<Entry> {
        let state = kv::lock(&self.state);
        if state.stamp.as_ref() != Some(stamp) {
            return None;
        }
        state.entries.get(path).cloned()
    }

    fn put(&self, stamp: Stamp, path: &[String], entry: Entry) {
        let mut state = kv::lock(&self.state);
        if state.stamp.as_ref() != Some(&stamp) || state.entries.len() >= MAX_ENTRIES {
            state.entries.clear();
            state.stamp = Some(stamp);
        }
        state.entries.insert(path.to_vec(), entry);
    }

    fn forget(&self, path: &[String]) {
        kv::lock(&self.state).entries.remove(path);
    }
}

/// The metadata version, read as a snapshot; `None` when it cannot vouch
/// for the cache: this transaction stamped it (its value is known only at
/// commit), or the database does not offer the key (a view of part of a
/// keyspace, as a tenant is).
fn read_stamp(tx: &mut dyn Transaction) -> Result<Option<Stamp>> {
    match tx.get(METADATA_VERSION_KEY, true) {
        Ok(value) => Ok(Some(value)),
        Err(kv::Error::AccessedUnreadable | kv::Error::KeyOutsideLegalRange) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The cache of a layer, where its keys live.
pub(super) struct Lookup<'a> {
    pub cache: Option<&'a Cache>,
    pub layout: &'a Layout,
}

impl Lookup<'_> {
    /// The directory at `path` as resolved by an earlier transaction, when
    /// the metadata version and the directory's entry in its parent say it
    /// still is; the transaction then conflicts as if it had resolved it.
    /// A miss carries the metadata version to keep what is resolved under.
    pub(super) fn cached(&self, tx: &mut dyn Transaction, path: &[String]) -> Result<Cached> {
        let Some(cache) = self.cache.filter(|_| !path.is_empty()) else {
            return Ok(Cached::Miss(None));
        };
        let Some(stamp) = read_stamp(tx)? else {
            return Ok(Cached::Miss(None));
        };
        let Some(entry) = cache.get(&stamp, path) else {
            return Ok(Cached::Miss(Some(stamp)));
        };
        // Another program may have written a layout version this code
        // cannot read: checked as an uncached lookup checks it.
        self.layout.check_version(tx, false)?;
        if tx.get(&entry.link, false)?.as_deref() != Some(entry.prefix.as_slice()) {
            cache.forget(path);
            return Ok(Cached::Miss(Some(stamp)));
        }
        for key in &entry.read {
            tx.add_conflict_range(key, &kv::key_after(key), ConflictRangeType::Read)?;
        }
        Ok(Cached::Hit(entry))
    }

    /// [`Layout::find`](super::node::Layout::find), keeping a directory it
    /// finds for later transactions under `stamp`, the metadata version
    /// this transaction read (`None`: keep nothing).
    pub(super) fn find_caching(
        &self,
        tx: &mut dyn Transaction,
        path: &[String],
        stamp: Option<Stamp>,
    ) -> Result<Found> {
        let (Some(cache), Some(stamp)) = (self.cache, stamp) else {
            return self.layout.find(tx, path);
        };
        let mut read = Vec::new();
        let found = self.layout.trace(tx, path, &mut read)?;
        if let Found::Dir { node, layer } = &found {
            // Each name read its entry, then its layer: the last entry
            // read is the directory's own.
            let link = read[read.len() - 2].clone();
            let entry = Entry {
                prefix: node.prefix.clone(),
                layer: layer.clone(),
                link,
                read,
            };
            cache.put(stamp, path, entry);
        }
        Ok(found)
    }

    /// The directory of a cache hit, if its layer is the one asked for.
    pub(super) fn open(&self, entry: Entry, path: &[String], layer: &[u8]) -> Result<Directory> {
        if !layer.is_empty() && entry.layer != layer {
            return Err(Error::IncompatibleLayer {
                path: self.layout.absolute(path),
                found: entry.layer,
                wanted: layer.to_vec(),
            });
        }
        Ok(Directory {
            path: self.layout.absolute(path),
            prefix: entry.prefix,
            layer: entry.layer,
        })
    }
}

/// Stamps the metadata version: this transaction changes directories, so
/// every session's cached prefixes stop being used once it commits. Once
/// per transaction (a second stamp changes nothing), and not on a
/// database that does not offer the key, where no cache can read it.
pub(super) fn changed(tx: &mut dyn Transaction) -> Result<()> {
    if read_stamp(tx)?.is_none() {
        return Ok(());
    }
    tx.atomic_op(
        METADATA_VERSION_KEY,
        &METADATA_VERSION_STAMP,
        MutationType::SetVersionstampedValue,
    )?;
    Ok(())
}
