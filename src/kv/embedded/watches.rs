//! Watches of the embedded backend: a registry of watched keys and the
//! values they had, checked by one poller thread per database.
//!
//! A commit from this process wakes the poller at once; so does, on
//! Linux, a commit from another process to the same file that changed a
//! key whose bell this database listens to: the bells of the keys it
//! watches ([`bell`]). The poller also polls the store's change token
//! (SQLite's `data_version`): every [`FALLBACK_INTERVAL`] while the
//! kernel tells it of commits, for
//! those that did not ring (another program's, or one whose process died
//! between its commit and the ring), and every [`POLL_INTERVAL`] where
//! the kernel cannot tell. Either way a watch that is checked and finds
//! its key changed fires; a wake-up that finds nothing changed costs one
//! read of the watched keys.

mod bell;

pub(crate) use bell::{Place, Rung, ring};

use std::collections::BTreeSet;
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::Duration;

use super::Shared;
use crate::kv::watch::WatchFuture;
use crate::kv::{Error, Result, lock};

/// A watch this transaction set and that has not fired yet.
pub(super) struct Watched {
    pub key: Vec<u8>,
    /// The value the watch compares with: the key's value when the watch
    /// was set, as this transaction read it.
    pub value: Option<Vec<u8>>,
    pub future: WatchFuture,
}

/// How often the poller looks for other processes' commits where the
/// kernel does not tell of them.
pub const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// How often the poller looks for commits that did not ring, while the
/// kernel tells it of those that do.
pub const FALLBACK_INTERVAL: Duration = Duration::from_millis(100);

/// FDB's default limit on outstanding watches per database.
pub const MAX_WATCHES: usize = 10_000;

#[derive(Default)]
pub(crate) struct Watches {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    entries: Vec<Entry>,
    poller: bool,
    /// Set by a local commit; cleared by the poller.
    dirty: bool,
}

struct Entry {
    key: Vec<u8>,
    value: Option<Vec<u8>>,
    future: WatchFuture,
}

impl Watches {
    /// Tells the poller that this process committed.
    pub fn notify(&self) {
        let mut state = lock(&self.state);
        if !state.entries.is_empty() {
            state.dirty = true;
            self.wake.notify_all();
        }
    }
}

impl Shared {
    /// Registers watches with the values they start from, and makes sure a
    /// poller runs.
    pub(super) fn register_watches(
        self: &Arc<Self>,
        watches: impl Iterator<Item = (Vec<u8>, Option<Vec<u8>>, WatchFuture)>,
    ) {
        let mut state = lock(&self.watches.state);
        for (key, value, future) in watches {
            if state.entries.len() >= MAX_WATCHES {
                future.resolve(Err(Error::TooManyWatches { limit: MAX_WATCHES }));
                continue;
            }
            state.entries.push(Entry { key, value, future });
        }
        // A value may have changed between the commit and now.
        state.dirty = true;
        if !state.entries.is_empty() && !state.poller {
            state.poller = true;
            let weak = Arc::downgrade(self);
            let spawned = std::thread::Builder::new()
                .name("fql-watches".into())
                .spawn(move || poll(weak));
            if let Err(e) = spawned {
                let error = Error::storage_caused(format!("cannot start the watch thread: {e}"), e);
                for entry in state.entries.drain(..) {
                    entry.future.resolve(Err(error.clone()));
                }
                state.poller = false;
            }
        }
        self.watches.wake.notify_all();
    }
}

fn poll(weak: Weak<Shared>) {
    let mut token = None;
    let mut listening = bell::Listening::default();
    while let Some(shared) = weak.upgrade() {
        let watches = &shared.watches;
        // Armed before the token is read, for every key the check reads
        // (one registered after this is checked again next round, as it
        // leaves the state dirty): a commit this round's check misses
        // rings after it.
        let armed = shared.store.bell().is_some_and(|place| {
            let wanted = bells_of(&lock(&watches.state).entries);
            bell::listen(place, &wanted, &weak, &mut listening)
        });
        let fresh = shared.store.change_token().ok();
        let dirty = std::mem::take(&mut lock(&watches.state).dirty);
        if dirty || fresh != token || fresh.is_none() {
            token = fresh;
            if let Err(e) = check(&shared) {
                for entry in lock(&watches.state).entries.drain(..) {
                    entry.future.resolve(Err(e.clone()));
                }
            }
        }
        let mut state = lock(&watches.state);
        state
            .entries
            .retain(|e| !e.future.is_abandoned() && !e.future.is_resolved());
        if state.entries.is_empty() {
            state.poller = false;
            break;
        }
        if !state.dirty {
            let interval = if armed {
                FALLBACK_INTERVAL
            } else {
                POLL_INTERVAL
            };
            let (guard, _) = watches
                .wake
                .wait_timeout(state, interval)
                .unwrap_or_else(PoisonError::into_inner);
            drop(guard);
        }
    }
    bell::leave(&weak, &mut listening);
}

/// The bells of the watched keys.
fn bells_of(entries: &[Entry]) -> BTreeSet<bell::Bell> {
    entries.iter().map(|e| bell::of(&e.key)).collect()
}

/// Fires every watch whose key no longer has the value it started from.
fn check(shared: &Shared) -> Result<()> {
    let keys: Vec<Vec<u8>> = lock(&shared.watches.state)
        .entries
        .iter()
        .map(|e| e.key.clone())
        .collect();
    let mut snap = shared.store.snapshot(None)?;
    let mut now = Vec::with_capacity(keys.len());
    for k in &keys {
        now.push(snap.get(k)?);
    }
    drop(snap);
    let state = lock(&shared.watches.state);
    // Entries registered since `keys` was taken are checked next round.
    for (entry, value) in state.entries.iter().zip(now) {
        if entry.value != value {
            entry.future.resolve(Ok(()));
        }
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::kv::Database;
    use crate::kv::embedded::Embedded;

    fn set(db: &Embedded, key: &[u8], value: &[u8]) {
        let mut tx = db.create_trx().unwrap();
        tx.set(key, value).unwrap();
        tx.commit().unwrap();
    }

    /// Two handles of one file, as two processes would have: a commit
    /// through one reaches the other only through the file. The watcher
    /// listens to the bell of `key`, with no poller running to set or
    /// take the dirty flag, so only a wake-up sets it.
    fn listening(key: &[u8]) -> (tempfile::TempDir, Embedded, Embedded, bell::Listening) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bell.db");
        let (watcher, writer) = (
            Embedded::open(&path).unwrap(),
            Embedded::open(&path).unwrap(),
        );
        set(&writer, key, b"0");
        let shared = &watcher.shared;
        let future = WatchFuture::default();
        std::mem::forget(future.watch());
        lock(&shared.watches.state).entries.push(Entry {
            key: key.to_vec(),
            value: Some(b"0".to_vec()),
            future,
        });
        let mut at = bell::Listening::default();
        let place = shared.store.bell().expect("a file has bells");
        let wanted = bells_of(&lock(&shared.watches.state).entries);
        assert!(bell::listen(
            place,
            &wanted,
            &Arc::downgrade(shared),
            &mut at
        ));
        assert!(!lock(&shared.watches.state).dirty);
        (dir, watcher, writer, at)
    }

    fn rung(db: &Embedded) -> bool {
        lock(&db.shared.watches.state).dirty
    }

    /// Waits until `db` is rung; fails after 20 s.
    fn wait_rung(db: &Embedded) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !rung(db) {
            assert!(Instant::now() < deadline, "the commit never rang");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn another_handles_commit_rings_a_listening_database() {
        let (_dir, watcher, writer, mut at) = listening(b"k");
        set(&writer, b"k", b"1");
        wait_rung(&watcher);
        bell::leave(&Arc::downgrade(&watcher.shared), &mut at);
    }

    /// Commits that change only keys of other bells (a set, and a
    /// cleared range that removes one) wake nobody that watches `b`; a
    /// commit of `b` then does. Were they to ring, the kernel would tell
    /// within the wait, as it tells of `b`'s commit.
    #[test]
    fn a_commit_rings_only_the_watchers_of_the_keys_it_changed() {
        let (a, b, m) = (b"a".as_slice(), b"b".as_slice(), b"m".as_slice());
        assert!(bell::of(a) != bell::of(b) && bell::of(m) != bell::of(b));
        let (_dir, watcher, writer, mut at) = listening(b);
        let mut tx = writer.create_trx().unwrap();
        tx.set(a, b"1").unwrap();
        tx.set(m, b"1").unwrap();
        tx.commit().unwrap();
        let mut tx = writer.create_trx().unwrap();
        tx.clear_range(b"c", b"z").unwrap();
        tx.commit().unwrap();
        std::thread::sleep(Duration::from_millis(500));
        assert!(!rung(&watcher), "a commit of other keys rang");
        set(&writer, b, b"1");
        wait_rung(&watcher);
        bell::leave(&Arc::downgrade(&watcher.shared), &mut at);
    }
}
