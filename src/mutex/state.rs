//! A mutex's whole state from one snapshot, for `show` and for the
//! reaper's observations.

use std::collections::HashMap;

use crate::exec::{Bindings, Engine, Output, Part};
use crate::kv::Transaction;
use crate::syntax::ast::ElemKind;

use super::{Error, Token, dir_param, elem};

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
    /// The version the snapshot was read at.
    pub read_version: u64,
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

/// `mutex/show`, checked once: waiters read the state with it at every
/// look.
fn show() -> &'static crate::syntax::ast::Script<'static> {
    static SHOW: std::sync::OnceLock<crate::syntax::ast::Script<'static>> =
        std::sync::OnceLock::new();
    SHOW.get_or_init(|| {
        let source = crate::scripts::find("mutex/show").expect("shipped").source;
        crate::check::load(source).expect("shipped scripts load")
    })
}

impl State {
    /// Reads the state of the mutex in `dir` with `mutex/show`, in one
    /// transaction; refuses a directory that is not a mutex.
    pub fn read(engine: &Engine, dir: &[String]) -> Result<State, Error> {
        let (state, _) = super::in_mutex(engine, dir, |tx, prefix| {
            State::read_in(engine, dir, tx, prefix.is_some())
        })?;
        Ok(state)
    }

    /// [`State::read`] inside a transaction that has checked the
    /// directory already, so that a waiter's look at the mutex, its
    /// check of its own keys and the watch it arms are one transaction.
    pub(crate) fn read_in(
        engine: &Engine,
        dir: &[String],
        tx: &mut dyn Transaction,
        exists: bool,
    ) -> Result<State, Error> {
        let params = [("dir".to_string(), elem(dir_param(dir)).into())].into();
        let plan = crate::plan::plan(show(), &params).expect("shipped scripts plan");
        let mut rows = Vec::new();
        let mut bindings = Bindings::default();
        for steps in plan.transactions() {
            engine.run_in(tx, steps, &mut bindings, &mut |o| {
                rows.push(o);
                Ok(())
            })?;
        }
        let read_version = tx.read_version()?;
        let mut state = State {
            read_version,
            exists,
            ..State::default()
        };
        for row in rows {
            let Output::KeyValue(row) = row else { continue };
            let data: Vec<&ElemKind<'static>> = row.key.iter().filter_map(Part::data).collect();
            let value = row.value.as_ref().and_then(|(v, _)| v.data());
            match (data.as_slice(), value) {
                ([ElemKind::Str(k), ElemKind::Str(name)], value)
                    if k == "owner" && !name.is_empty() && state.owner.is_none() =>
                {
                    state.owner = Some(name.to_string());
                    if let Some(ElemKind::Bytes(b)) = value {
                        state.owner_value = b.clone();
                    }
                }
                ([ElemKind::Str(k)], Some(ElemKind::Bytes(b))) if k == "fence" => {
                    state.token = <[u8; 12]>::try_from(b.as_slice()).ok().map(Token)
                }
                ([ElemKind::Str(k), ElemKind::Vstamp(v)], Some(ElemKind::Str(name)))
                    if k == "queue" =>
                {
                    let mut since = [0; 12];
                    since[..10].copy_from_slice(&v.tx.unwrap_or([0; 10]));
                    since[10..].copy_from_slice(&v.user.to_be_bytes());
                    state.queue.push(Waiter {
                        name: name.to_string(),
                        since,
                    })
                }
                ([ElemKind::Str(k), ElemKind::Str(name)], Some(ElemKind::Bytes(b)))
                    if k == "hb" =>
                {
                    if let Ok(b) = <[u8; 12]>::try_from(b.as_slice()) {
                        state.heartbeats.insert(name.to_string(), b);
                    }
                }
                _ => {}
            }
        }
        Ok(state)
    }

    /// How many versions before the snapshot `name` last beat.
    pub fn heartbeat_age(&self, name: &str) -> Option<u64> {
        let hb = self.heartbeats.get(name)?;
        let version = u64::from_be_bytes(hb[..8].try_into().expect("8 bytes"));
        Some(self.read_version.saturating_sub(version))
    }
}
