//! Watches of the embedded backend: a registry of watched keys and the
//! values they had, checked by one poller thread per database.
//!
//! A commit from this process wakes the poller at once. Commits from other
//! processes are noticed by polling the store's change token (SQLite's
//! `data_version`) every [`POLL_INTERVAL`], so a watch fires within about
//! that long of a commit anywhere.

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

/// How often the poller looks for other processes' commits.
pub const POLL_INTERVAL: Duration = Duration::from_millis(10);

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

fn poll(shared: Weak<Shared>) {
    let mut token = None;
    while let Some(shared) = shared.upgrade() {
        let watches = &shared.watches;
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
            return;
        }
        if !state.dirty {
            let (guard, _) = watches
                .wake
                .wait_timeout(state, POLL_INTERVAL)
                .unwrap_or_else(PoisonError::into_inner);
            drop(guard);
        }
    }
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
