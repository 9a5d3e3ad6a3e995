//! A mutex's whole state from one snapshot, for `show`, `list` and for
//! the reaper's observations, with the ages a person reads
//! ([`age_of`]).

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use crate::exec::{Engine, Output, Part};
use crate::kv::Transaction;
use crate::syntax::ast::ElemKind;

use super::{Error, Timing, Token};
use crate::lock::runner;
use crate::lock::timing::{Verdict, age_of, version_of};

/// What one snapshot of a mutex holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// The owner; `None` when the mutex is free.
    pub owner: Option<String>,
    /// The owner key's value: empty, or a Go client's heartbeat.
    pub owner_value: Vec<u8>,
    /// The token of the last grant, if fql granted it.
    pub token: Option<Token>,
    /// The waiters, longest-waiting first.
    pub queue: Vec<Waiter>,
    /// Each client's last heartbeat (the owner's and the waiters').
    pub heartbeats: HashMap<String, [u8; 12]>,
    /// The counters kept in `("stats", name)`, by name: how many times
    /// the mutex was broken, taken over.
    pub stats: BTreeMap<String, i64>,
    /// The timing and mode the mutex stores, if it stores them.
    pub settings: Option<super::Settings>,
    /// The version the snapshot was read at.
    pub read_version: u64,
    /// The version the database had reached when the snapshot was read,
    /// which ages are measured against.
    pub version_now: u64,
    /// Whether the directory exists: a mutex nobody has used yet, or a
    /// mistyped path, has none, and is free only in that sense.
    pub exists: bool,
}

/// A client in the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiter {
    /// Its name.
    pub name: String,
    /// The versionstamp of its queue entry.
    pub since: [u8; 12],
}

impl State {
    /// Reads the state of the mutex in `dir` with `mutex/show`, in one
    /// transaction; refuses a directory that is not a mutex.
    pub fn read(engine: &Engine, dir: &[String]) -> Result<State, Error> {
        let (state, _) = super::in_mutex(engine, dir, |tx, prefix| {
            State::read_in(engine, tx, dir, prefix.is_some())
        })?;
        Ok(state)
    }

    /// [`State::read`] in `tx`, whose caller has checked the layout:
    /// `list` reads many mutexes from one snapshot so.
    pub(crate) fn read_in(
        engine: &Engine,
        tx: &mut dyn Transaction,
        dir: &[String],
        exists: bool,
    ) -> Result<State, Error> {
        let rows = match exists {
            true => runner::read_in(engine, tx, "mutex/show", dir)?,
            false => Vec::new(),
        };
        let mut state = State {
            read_version: tx.read_version()?,
            version_now: tx.version_now()?,
            exists,
            ..State::default()
        };
        for row in rows {
            state.add(row);
        }
        Ok(state)
    }

    /// Takes in one row of `mutex/show`.
    fn add(&mut self, row: Output) {
        let Output::KeyValue(row) = row else { return };
        let data: Vec<&ElemKind<'static>> = row.key.iter().filter_map(Part::data).collect();
        let value = row.value.as_ref().and_then(|(v, _)| v.data());
        match (data.as_slice(), value) {
            ([ElemKind::Str(k), ElemKind::Str(name)], value)
                if k == "owner" && !name.is_empty() && self.owner.is_none() =>
            {
                self.owner = Some(name.to_string());
                if let Some(ElemKind::Bytes(b)) = value {
                    self.owner_value = b.clone();
                }
            }
            ([ElemKind::Str(k)], Some(ElemKind::Bytes(b))) if k == "config" => {
                self.settings = super::Settings::decode(b);
            }
            ([ElemKind::Str(k)], Some(ElemKind::Bytes(b))) if k == "fence" => {
                self.token = <[u8; 12]>::try_from(b.as_slice()).ok().map(Token)
            }
            ([ElemKind::Str(k), ElemKind::Vstamp(v)], Some(ElemKind::Str(name)))
                if k == "queue" =>
            {
                let mut since = [0; 12];
                since[..10].copy_from_slice(&v.tx.unwrap_or([0; 10]));
                since[10..].copy_from_slice(&v.user.to_be_bytes());
                self.queue.push(Waiter {
                    name: name.to_string(),
                    since,
                })
            }
            ([ElemKind::Str(k), ElemKind::Str(name)], Some(ElemKind::Bytes(b))) if k == "hb" => {
                if let Ok(b) = <[u8; 12]>::try_from(b.as_slice()) {
                    self.heartbeats.insert(name.to_string(), b);
                }
            }
            ([ElemKind::Str(k), ElemKind::Str(name)], Some(ElemKind::Bytes(b))) if k == "stats" => {
                // Added to with FoundationDB's `add`: a little-endian int.
                let mut le = [0; 8];
                let n = b.len().min(8);
                le[..n].copy_from_slice(&b[..n]);
                self.stats.insert(name.to_string(), i64::from_le_bytes(le));
            }
            _ => {}
        }
    }

    /// Whether the directory holds anything of a mutex: an empty one is
    /// a mutex nobody has used (or a directory that only holds others).
    pub fn is_empty(&self) -> bool {
        self.owner.is_none()
            && self.owner_value.is_empty()
            && self.token.is_none()
            && self.queue.is_empty()
            && self.heartbeats.is_empty()
            && self.stats.is_empty()
    }

    /// The timing to judge this mutex by: the one it stores, else
    /// `given` (the command's flags).
    pub fn timing(&self, given: Timing) -> Timing {
        self.settings.map_or(given, |s| s.timing)
    }

    /// The version of `name`'s last heartbeat: its `("hb", name)` key,
    /// or, for an owner with none (a Go client, or `--compat`), the
    /// versionstamp Go's heartbeat writes as the owner key's value.
    pub fn heartbeat(&self, name: &str) -> Option<u64> {
        let hb = self.heartbeats.get(name).map(|hb| &hb[..]).or_else(|| {
            (self.owner.as_deref() == Some(name) && self.owner_value.len() >= 8)
                .then_some(&self.owner_value[..])
        })?;
        Some(u64::from_be_bytes(hb[..8].try_into().expect("8 bytes")))
    }

    /// How long before the snapshot `name` last beat.
    pub fn heartbeat_age(&self, name: &str) -> Option<Duration> {
        self.heartbeat(name).map(|v| self.age(v))
    }

    /// How long before the snapshot version `version` was committed,
    /// estimated from versions; zero for a version not behind it.
    pub fn age(&self, version: u64) -> Duration {
        age_of(self.version_now, version)
    }

    /// Whether `name` beat within the staleness of `timing`.
    pub fn verdict(&self, name: &str, timing: Timing) -> Verdict {
        Verdict::of(self.heartbeat_age(name), self.timing(timing).stale)
    }

    /// How long the owner has held the mutex: since the grant of the
    /// current token (the last grant fql made; a Go client's keeps
    /// none).
    pub fn held_for(&self) -> Option<Duration> {
        self.owner.as_ref()?;
        self.token.map(|t| self.age(version_of(&t.0)))
    }
}
