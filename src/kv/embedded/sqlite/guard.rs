//! Refusing the writes a database file cannot take.
//!
//! A file opened read-only refuses every write at once, saying why, before
//! SQLite is asked. A file found damaged refuses writes from then on,
//! while reads go on as far as they can (to copy out what is left): the
//! first error that shows damage (SQLite's "malformed" or "not a
//! database", a NULL or mistyped value in fql's tables, a malformed entry
//! of the commit log) is remembered by this process and marked in the
//! file for every later one.
//!
//! The mark is `PRAGMA user_version` set to [`DAMAGED`]. It lives in the
//! file's header, on the first page, which every open reads anyway for the
//! application id: later processes learn of the damage without a check of
//! their own. The check that would find all damage, `PRAGMA
//! integrity_check`, reads every page, which no open can afford (a cold
//! start should take about 20 ms). Setting the mark writes only the
//! header, so it works while the damaged part of the file cannot be
//! written; fql has no other use for the field; and any SQLite tool shows
//! it (`sqlite3 FILE 'PRAGMA user_version'`). A table row would need the
//! damaged file's tables to be readable, and a file beside the database
//! could be lost or left behind when the database is copied.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::SqliteStore;
use super::target::{ReadOnly, Target};
use crate::kv::embedded::Access;
use crate::kv::embedded::store::{Snapshot, Store, Writer};
use crate::kv::{Error, KeyValue, Result, lock};

/// The value of `PRAGMA user_version` that marks a damaged file.
pub(crate) const DAMAGED: i32 = 1;

/// How long marking waits for another process's commit.
const MARK_WAIT: Duration = Duration::from_secs(2);

/// A file store that refuses the writes its file cannot take.
pub(crate) struct Guarded {
    store: SqliteStore,
    health: Arc<Health>,
}

struct Health {
    target: Arc<Target>,
    read_only: Option<ReadOnly>,
    /// What showed the file damaged, once something has.
    damage: Mutex<Option<String>>,
}

impl Guarded {
    /// The store inside, for tests of what it does below the guard.
    #[cfg(test)]
    pub(super) fn inner(&self) -> &SqliteStore {
        &self.store
    }

    /// `store` guarded: `read_only` says why it is, `marked` whether the
    /// file carries the damage mark.
    pub(crate) fn new(store: SqliteStore, read_only: Option<ReadOnly>, marked: bool) -> Guarded {
        let damage = marked.then(|| "an earlier run found it damaged and marked it so".to_string());
        Guarded {
            health: Arc::new(Health {
                target: store.pool.target.clone(),
                read_only,
                damage: Mutex::new(damage),
            }),
            store,
        }
    }
}

impl Health {
    /// The error a write would fail with now, if any.
    fn refusal(&self) -> Option<Error> {
        let damage = lock(&self.damage);
        if let Some(detail) = damage.as_deref() {
            return Some(Error::Corrupt(corrupt_message(&self.target.shown, detail)));
        }
        self.read_only
            .map(|why| Error::ReadOnly(read_only_message(&self.target.shown, why.reason())))
    }

    /// Names the file in an error that shows damage or a refused write,
    /// and remembers and marks damage the first time it shows.
    fn observe(&self, e: Error) -> Error {
        match e {
            Error::Corrupt(detail) => {
                let first = {
                    let mut damage = lock(&self.damage);
                    let first = damage.is_none();
                    if first {
                        *damage = Some(detail.clone());
                    }
                    first
                };
                if first && self.read_only.is_none() {
                    mark(&self.target);
                }
                Error::Corrupt(corrupt_message(&self.target.shown, &detail))
            }
            Error::ReadOnly(detail) => {
                let why = match self.read_only {
                    Some(why) => why.reason(),
                    None => detail.as_str(),
                };
                Error::ReadOnly(read_only_message(&self.target.shown, why))
            }
            e => e,
        }
    }
}

/// Sets the damage mark in the file's header, if the file can take it.
/// Best effort: this process refuses writes either way.
pub(crate) fn mark(target: &Target) {
    let Ok(conn) = target.connect(Instant::now() + MARK_WAIT) else {
        return;
    };
    if conn.busy_timeout(MARK_WAIT).is_ok() {
        let _ = conn.execute_batch(&format!(
            "BEGIN IMMEDIATE; PRAGMA user_version = {DAMAGED}; COMMIT;"
        ));
    }
}

/// What fql says of a damaged file: which, what showed it, and what to do.
pub(crate) fn corrupt_message(path: &Path, detail: &str) -> String {
    format!(
        "the database {} is corrupt ({detail}); fql refuses to write to it, and reads may fail \
         or miss data. Restore it from a backup, or copy out what can be read with sqlite3's \
         .dump (see \"Damaged files\" in fql's docs/storage.md)",
        path.display()
    )
}

fn read_only_message(path: &Path, why: &str) -> String {
    format!(
        "the database {} is read-only: {why}; nothing was written",
        path.display()
    )
}

impl Store for Guarded {
    fn snapshot(&self, deadline: Option<Instant>) -> Result<Box<dyn Snapshot>> {
        let inner = self
            .store
            .snapshot(deadline)
            .map_err(|e| self.health.observe(e))?;
        Ok(Box::new(GuardedSnapshot {
            inner,
            health: self.health.clone(),
        }))
    }

    fn snapshot_at(&self, version: u64, deadline: Option<Instant>) -> Result<Box<dyn Snapshot>> {
        let inner = self
            .store
            .snapshot_at(version, deadline)
            .map_err(|e| self.health.observe(e))?;
        Ok(Box::new(GuardedSnapshot {
            inner,
            health: self.health.clone(),
        }))
    }

    fn write(
        &self,
        deadline: Option<Instant>,
        f: &mut dyn FnMut(&mut dyn Writer) -> Result<()>,
    ) -> Result<()> {
        if let Some(refused) = self.health.refusal() {
            return Err(refused);
        }
        self.store
            .write(deadline, f)
            .map_err(|e| self.health.observe(e))
    }

    fn after_commit(&self) {
        self.store.after_commit();
    }

    fn change_token(&self) -> Result<u64> {
        self.store
            .change_token()
            .map_err(|e| self.health.observe(e))
    }

    fn bell(&self) -> Option<&crate::kv::embedded::watches::Place> {
        self.store.bell()
    }

    fn describe(&self) -> String {
        self.store.describe()
    }

    fn access(&self) -> Access {
        let damage = lock(&self.health.damage);
        match (damage.as_deref(), self.health.read_only) {
            (Some(detail), _) => Access::Damaged(detail.to_string()),
            (None, Some(why)) => Access::ReadOnly(why.reason().to_string()),
            (None, None) => Access::ReadWrite,
        }
    }
}

struct GuardedSnapshot {
    inner: Box<dyn Snapshot>,
    health: Arc<Health>,
}

impl Snapshot for GuardedSnapshot {
    fn version(&self) -> u64 {
        self.inner.version()
    }

    fn superseded_ms(&self) -> Option<u64> {
        self.inner.superseded_ms()
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.inner.get(key).map_err(|e| self.health.observe(e))
    }

    fn scan(
        &mut self,
        begin: &[u8],
        end: &[u8],
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<KeyValue>> {
        self.inner
            .scan(begin, end, reverse, limit)
            .map_err(|e| self.health.observe(e))
    }
}
