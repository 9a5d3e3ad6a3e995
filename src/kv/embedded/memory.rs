//! The in-memory store: a persistent ordered map, so a snapshot is a clone
//! of its root and costs nothing.
//!
//! Each logged commit keeps the root of the map it found, so a read at an
//! older version within the log ([`Store::snapshot_at`]) reads that root:
//! what a commit changed stays alive until the log forgets the commit
//! (twice the window), and nothing more is copied.

use std::ops::Bound;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use imbl::{OrdMap, Vector};

use super::store::{Snapshot, Store, Writer, batch};
use crate::kv::{Error, KeyValue, Result, lock};

type Map = OrdMap<Vec<u8>, Vec<u8>>;

#[derive(Default)]
pub(crate) struct MemoryStore {
    state: Mutex<State>,
}

#[derive(Clone, Default)]
struct State {
    map: Map,
    version: u64,
    floor: u64,
    /// Persistent, like the map, so the copy a commit works on costs
    /// nothing however many commits the last seconds logged.
    log: Vector<LoggedCommit>,
    /// The map as the commit under way found it, from `set_version` to
    /// `log`.
    before: Option<Map>,
}

#[derive(Clone)]
struct LoggedCommit {
    version: u64,
    at_ms: u64,
    ranges: Arc<[(Vec<u8>, Vec<u8>)]>,
    /// The map before this commit: the state at every version from the
    /// commit before it up to this one's.
    before: Map,
}

impl Store for MemoryStore {
    fn snapshot(&self, _deadline: Option<Instant>) -> Result<Box<dyn Snapshot>> {
        let state = lock(&self.state);
        Ok(Box::new(MemorySnapshot {
            map: state.map.clone(),
            version: state.version,
            superseded_ms: None,
        }))
    }

    fn snapshot_at(&self, version: u64, _deadline: Option<Instant>) -> Result<Box<dyn Snapshot>> {
        let state = lock(&self.state);
        if version > state.version {
            return Err(Error::future_version(version, state.version));
        }
        if version == state.version {
            return Ok(Box::new(MemorySnapshot {
                map: state.map.clone(),
                version,
                superseded_ms: None,
            }));
        }
        // Every commit after the floor is in the log, so the first one
        // after `version` holds the state at `version`.
        let next = (version >= state.floor)
            .then(|| state.log.iter().find(|c| c.version > version))
            .flatten()
            .ok_or(Error::TransactionTooOld)?;
        Ok(Box::new(MemorySnapshot {
            map: next.before.clone(),
            version,
            superseded_ms: Some(next.at_ms),
        }))
    }

    /// Commits in this process wait for each other only as long as one
    /// takes to apply, so there is no deadline to keep (nor for a
    /// snapshot).
    fn write(
        &self,
        _deadline: Option<Instant>,
        f: &mut dyn FnMut(&mut dyn Writer) -> Result<()>,
    ) -> Result<()> {
        let mut state = lock(&self.state);
        // Work on a copy (cheap: structure is shared) so a failed commit
        // leaves nothing behind.
        let mut work = state.clone();
        f(&mut work)?;
        *state = work;
        Ok(())
    }

    fn change_token(&self) -> Result<u64> {
        Ok(lock(&self.state).version)
    }

    fn describe(&self) -> String {
        "memory".into()
    }
}

struct MemorySnapshot {
    map: Map,
    version: u64,
    superseded_ms: Option<u64>,
}

fn scan(map: &Map, begin: &[u8], end: &[u8], reverse: bool, limit: usize) -> Vec<KeyValue> {
    if begin >= end {
        return Vec::new();
    }
    let range = map.range::<_, [u8]>((Bound::Included(begin), Bound::Excluded(end)));
    let row = |(k, v): (&Vec<u8>, &Vec<u8>)| KeyValue {
        key: k.clone(),
        value: v.clone(),
    };
    let mut rows = batch(limit);
    if reverse {
        rows.extend(range.rev().take(limit).map(row));
    } else {
        rows.extend(range.take(limit).map(row));
    }
    rows
}

impl Snapshot for MemorySnapshot {
    fn version(&self) -> u64 {
        self.version
    }

    fn superseded_ms(&self) -> Option<u64> {
        self.superseded_ms
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.map.get(key).cloned())
    }

    fn scan(
        &mut self,
        begin: &[u8],
        end: &[u8],
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<KeyValue>> {
        Ok(scan(&self.map, begin, end, reverse, limit))
    }
}

impl Writer for State {
    fn version(&mut self) -> Result<u64> {
        Ok(self.version)
    }

    fn set_version(&mut self, version: u64) -> Result<()> {
        self.version = version;
        self.before.get_or_insert_with(|| self.map.clone());
        Ok(())
    }

    fn log_floor(&mut self) -> Result<u64> {
        Ok(self.floor)
    }

    fn any_write_since(
        &mut self,
        version: u64,
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<bool> {
        Ok(self
            .log
            .iter()
            .filter(|c| c.version > version)
            .flat_map(|c| c.ranges.iter())
            .any(|(b, e)| f(b, e)))
    }

    fn log(
        &mut self,
        version: u64,
        now_ms: u64,
        ranges: &[(Vec<u8>, Vec<u8>)],
        forget_before_ms: u64,
    ) -> Result<()> {
        while let Some(old) = self.log.front() {
            if old.at_ms >= forget_before_ms {
                break;
            }
            self.floor = self.floor.max(old.version);
            self.log.pop_front();
        }
        let before = self.before.take().unwrap_or_else(|| self.map.clone());
        self.log.push_back(LoggedCommit {
            version,
            at_ms: now_ms,
            ranges: ranges.into(),
            before,
        });
        Ok(())
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.map.get(key).cloned())
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.map.insert(key.to_vec(), value.to_vec());
        Ok(())
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        self.map.remove(key);
        Ok(())
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        if begin >= end {
            return Ok(());
        }
        let keys: Vec<Vec<u8>> = self
            .map
            .range::<_, [u8]>((Bound::Included(begin), Bound::Excluded(end)))
            .map(|(k, _)| k.clone())
            .collect();
        for k in keys {
            self.map.remove(&k);
        }
        Ok(())
    }
}
