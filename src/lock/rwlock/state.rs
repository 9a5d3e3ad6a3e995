//! A read-write lock's or a semaphore's whole state from one snapshot,
//! for `show`, and for a listing that must tell a lock's directory from
//! a mutex's or a user's.

use std::sync::Arc;
use std::time::Duration;

use crate::directory::DirectoryLayer;
use crate::exec::Engine;
use crate::kv::{Database, DatabaseExt, RangeOption, Transaction, collect_range};
use crate::lock::layout::{self, Schema};
use crate::lock::{Token, Verdict, age_of};
use crate::syntax::ast::ElemKind;

use super::{Error, Kind};

/// What one snapshot of a lock holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Its kind, as stored.
    pub kind: Kind,
    /// The heartbeat interval and staleness stored with it, in ms.
    pub timing_ms: (i64, i64),
    /// The holders, by name.
    pub holders: Vec<Holder>,
    /// The waiters, longest-waiting first.
    pub queue: Vec<Waiter>,
    /// The version the snapshot was read at.
    pub read_version: u64,
    /// The version the database had reached when the snapshot was read,
    /// which ages are measured against.
    pub version_now: u64,
}

/// A client that holds the lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// Its name.
    pub name: String,
    /// `"read"`, `"write"`, or `"permit"`.
    pub mode: &'static str,
    /// The permit it holds, in a semaphore.
    pub permit: Option<i64>,
    /// Its fencing token.
    pub token: Option<Token>,
    /// How long before the snapshot it last beat; `None`: never.
    pub heartbeat_age: Option<Duration>,
}

/// A client in the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiter {
    /// Its name.
    pub name: String,
    /// What it asks for: `"read"`, `"write"` or `"permit"`.
    pub mode: String,
    /// How long before the snapshot it last beat; `None`: never.
    pub heartbeat_age: Option<Duration>,
}

/// The state of the lock in `dir`, from one snapshot: `None` when the
/// directory is no read-write lock or semaphore: it does not exist, holds
/// no lock's kind (nobody took it), or holds anything but such a lock's
/// keys (a mutex, a user's data). Writes nothing; a listing of locks
/// calls it on each directory.
pub fn inspect(
    db: Arc<dyn Database>,
    dir: &[String],
    timeout: Duration,
) -> Result<Option<State>, Error> {
    let engine = Engine::new(db).timeout(timeout);
    let layer = DirectoryLayer::new();
    let (state, _) = engine
        .database()
        .run_with(engine.retry_options(), |tx, _| inspect_in(tx, &layer, dir))?;
    Ok(state)
}

/// [`inspect`] in `tx`: a listing reads every lock of a tree from one
/// snapshot so.
pub fn inspect_in(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    dir: &[String],
) -> Result<Option<State>, Error> {
    let prefix = match layout::of(Schema::ReadWrite).check(tx, layer, dir) {
        Ok(Some(prefix)) => prefix,
        Ok(None) | Err(layout::Error::Foreign { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let range = RangeOption::prefix(&prefix);
    let rows = collect_range(tx, &range, true)?;
    let versions = (tx.read_version()?, tx.version_now()?);
    Ok(State::from_rows(&prefix, &rows, versions))
}

impl State {
    /// The state the rows of a lock's directory hold; `None` without a
    /// kind.
    fn from_rows(
        prefix: &[u8],
        rows: &[crate::kv::KeyValue],
        (read_version, version_now): (u64, u64),
    ) -> Option<State> {
        let config = rows
            .iter()
            .find(|kv| kv.key == [prefix, &super::pack(&("config",))].concat())?;
        let (kind, timing_ms) = config_of(&config.value)?;
        let mut state = State {
            kind,
            timing_ms,
            holders: Vec::new(),
            queue: Vec::new(),
            read_version,
            version_now,
        };
        let age = |name: &str| -> Option<Duration> {
            let key = [prefix, &super::pack(&("hb", name))].concat();
            let beat = rows.iter().find(|kv| kv.key == key)?;
            let version = u64::from_be_bytes(beat.value.get(..8)?.try_into().ok()?);
            Some(age_of(version_now, version))
        };
        let mut writer = None;
        let mut permits = Vec::new();
        let mut wants = Vec::new();
        for kv in rows {
            let Some(elems) = crate::codec::decode_key(prefix, &kv.key) else {
                continue;
            };
            let kinds: Vec<&ElemKind<'_>> = elems.iter().map(|e| &e.kind).collect();
            match kinds.as_slice() {
                [ElemKind::Str(k), ElemKind::Str(name)] if k == "holder" => {
                    state.holders.push(Holder {
                        name: name.to_string(),
                        mode: "read",
                        permit: None,
                        token: <[u8; 12]>::try_from(kv.value.as_slice()).ok().map(Token),
                        heartbeat_age: age(name),
                    })
                }
                [ElemKind::Str(k), ElemKind::Str(name)] if k == "writer" => {
                    writer = Some(name.to_string())
                }
                [
                    ElemKind::Str(k),
                    ElemKind::Int(crate::syntax::ast::Int::Small(n)),
                ] if k == "permit" => {
                    permits.push((String::from_utf8_lossy(&kv.value).into_owned(), *n))
                }
                [ElemKind::Str(k), ElemKind::Str(name)] if k == "wants" => {
                    let mode = crate::codec::decode_untyped(&kv.value).to_string();
                    wants.push((name.to_string(), mode.trim_matches('"').to_string()))
                }
                [ElemKind::Str(k), ElemKind::Vstamp(_)] if k == "queue" => {
                    let name = String::from_utf8_lossy(&kv.value).into_owned();
                    state.queue.push(Waiter {
                        heartbeat_age: age(&name),
                        name,
                        mode: String::new(),
                    })
                }
                _ => {}
            }
        }
        for h in &mut state.holders {
            if writer.as_deref() == Some(h.name.as_str()) {
                h.mode = "write";
            }
            if let Some((_, n)) = permits.iter().find(|(name, _)| *name == h.name) {
                (h.mode, h.permit) = ("permit", Some(*n));
            }
        }
        for w in &mut state.queue {
            if let Some((_, mode)) = wants.iter().find(|(name, _)| *name == w.name) {
                w.mode = mode.clone();
            }
        }
        Some(state)
    }
}

impl State {
    /// How long a client may go without a heartbeat before it is stale:
    /// the staleness `L` the lock stores.
    pub fn stale(&self) -> Duration {
        Duration::from_millis(u64::try_from(self.timing_ms.1).unwrap_or(0))
    }

    /// What a heartbeat `age` old says of its client, by the lock's `L`.
    pub fn verdict(&self, age: Option<Duration>) -> Verdict {
        Verdict::of(age, self.stale())
    }
}

/// The kind and timing a config value holds.
fn config_of(value: &[u8]) -> Option<(Kind, (i64, i64))> {
    type Config = (String, i64, i64, i64);
    let unpacked = foundationdb_tuple::unpack::<Config>(value)
        .or_else(|_| foundationdb_tuple::unpack::<(Config,)>(value).map(|(c,)| c));
    let (kind, permits, h, l) = unpacked.ok()?;
    let kind = match kind.as_str() {
        "rwlock" => Kind::ReadWrite,
        "semaphore" => Kind::Semaphore(u32::try_from(permits).ok()?),
        _ => return None,
    };
    Some((kind, (h, l)))
}
