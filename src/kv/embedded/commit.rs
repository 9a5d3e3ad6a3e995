//! The commit: check conflicts, apply the writes under one version, log
//! what was written, register watches.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use super::atomic::{apply, fill_stamp};
use super::buffer::Mutation;
use super::ranges::RangeSet;
use super::store::Writer;
use super::tx::EmbeddedTx;
use super::{Fault, Shared};
use crate::kv::admit::stamp_offset;
use crate::kv::{Committed, Error, MutationType, Result, Transaction, WINDOW, key_after};

/// How long the commit log remembers a commit's write ranges: longer than
/// any transaction may live, so every live transaction can be checked.
const LOG_WINDOW_MS: u64 = 2 * WINDOW.as_millis() as u64;

/// At most this many write ranges of one commit are logged; more are
/// joined into this many wider ones.
const LOGGED_RANGES: usize = 64;

/// The 10-byte versionstamp of a commit: the version, big-endian, then a
/// batch order that is always 0 here (one commit per version).
pub(crate) fn stamp_of(version: u64) -> [u8; 10] {
    let mut stamp = [0u8; 10];
    stamp[..8].copy_from_slice(&version.to_be_bytes());
    stamp
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

pub(super) fn commit(shared: &Arc<Shared>, tx: &mut EmbeddedTx) -> Result<Committed> {
    if let Some(e) = tx.take_poison() {
        return Err(e);
    }
    let read = tx.read_state();
    if read.is_some_and(|(_, at)| at.elapsed() > WINDOW) {
        return Err(Error::TransactionTooOld);
    }
    if tx.buffer.is_empty() && tx.writes.is_empty() {
        return commit_read_only(shared, tx);
    }
    let fault = shared.take_fault();
    if let Some(f @ (Fault::NotCommitted | Fault::UnknownResult { applied: false })) = fault {
        return Err(f.error());
    }

    // Everything that needs no lock is done before taking it: the write
    // lock serializes every process's commits, so it is held only to check
    // conflicts and apply.
    tx.release_snapshot();
    // Only a transaction that wrote a key twice has writes to skip.
    let live = tx.buffer.overwrote().then(|| live(&tx.buffer.mutations));
    let logged = tx.writes.coarsened(LOGGED_RANGES);
    let mut outcome = None;
    shared.store.write(tx.deadline(), &mut |w| {
        if let Some((rv, _)) = read {
            if rv < w.log_floor()? {
                return Err(Error::TransactionTooOld);
            }
            if !tx.reads.is_empty() && w.any_write_since(rv, &mut |b, e| tx.reads.overlaps(b, e))? {
                return Err(Error::NotCommitted);
            }
        }
        let version = w.version()? + 1;
        let stamp = stamp_of(version);
        let mutations = tx.buffer.mutations.iter().enumerate();
        let stamped = apply_all(
            w,
            mutations
                .filter(|(n, _)| live.as_ref().is_none_or(|live| live[*n]))
                .map(|(_, m)| m),
            &stamp,
            shared,
        )?;
        let now = now_ms();
        let mut logged = logged.clone();
        logged.extend(stamped.coarsened(LOGGED_RANGES));
        w.log(version, now, &logged, now.saturating_sub(LOG_WINDOW_MS))?;
        w.set_version(version)?;
        let mut watched = Vec::with_capacity(tx.watches.len());
        for (key, _) in &tx.watches {
            watched.push(w.get(key)?);
        }
        outcome = Some((version, stamp, watched));
        Ok(())
    })?;
    let (version, stamp, watched) = outcome.expect("set by a successful write");
    tx.spend();
    shared.store.after_commit();
    let watches = std::mem::take(&mut tx.watches);
    if let Some(f @ Fault::UnknownResult { applied: true }) = fault {
        for (_, w) in watches {
            w.resolve(Err(Error::TransactionCancelled));
        }
        shared.watches.notify();
        return Err(f.error());
    }
    shared.register_watches(
        watches
            .into_iter()
            .zip(watched)
            .map(|((k, f), v)| (k, v, f)),
    );
    shared.watches.notify();
    Ok(Committed {
        version: Some(version),
        versionstamp: Some(stamp),
    })
}

/// Applies the mutations in order; returns the write conflict ranges of
/// the versionstamped keys, known only now.
///
/// The results of atomic operations are kept aside and written once at
/// the end: [`live`] leaves no later write of their keys but other atomic
/// operations, so a key that a transaction adds to a thousand times is
/// read and written once.
fn apply_all<'m>(
    w: &mut dyn Writer,
    mutations: impl Iterator<Item = &'m Mutation>,
    stamp: &[u8; 10],
    shared: &Shared,
) -> Result<RangeSet> {
    let mut stamped = RangeSet::default();
    let mut atomics: HashMap<&[u8], Option<Vec<u8>>> = HashMap::new();
    for m in mutations {
        match m {
            Mutation::Set(k, v) => w.set(k, v)?,
            Mutation::Clear(k) => w.clear(k)?,
            Mutation::ClearRange(b, e) => w.clear_range(b, e)?,
            Mutation::Atomic(MutationType::SetVersionstampedKey, k, v) => {
                let (body, offset) = stamp_offset(k)?;
                let key = fill_stamp(body, offset, stamp);
                stamped.insert(&key, &key_after(&key));
                // This set comes after any atomic result kept for its key.
                atomics.remove(key.as_slice());
                w.set(&key, v)?;
            }
            Mutation::Atomic(MutationType::SetVersionstampedValue, k, p) => {
                let (body, offset) = stamp_offset(p)?;
                w.set(k, &fill_stamp(body, offset, stamp))?;
            }
            Mutation::Atomic(op, k, p) => {
                let current = match atomics.remove(k.as_slice()) {
                    Some(v) => v,
                    None => w.get(k)?,
                };
                let new = apply(*op, current.as_deref(), p, shared.limits.value);
                atomics.insert(k, new);
            }
        }
    }
    for (k, v) in atomics {
        match v {
            Some(v) => w.set(k, &v)?,
            None => w.clear(k)?,
        }
    }
    Ok(stamped)
}

/// Which mutations still matter at commit: a write to a key that a later
/// set, clear or range clear of the same transaction overwrites changes
/// nothing, so the commit skips it. Found in one pass from the end.
fn live(mutations: &[Mutation]) -> Vec<bool> {
    let mut keys: HashSet<&[u8]> = HashSet::new();
    let mut cleared = RangeSet::default();
    let mut live = vec![true; mutations.len()];
    for (m, live) in mutations.iter().zip(&mut live).rev() {
        let overwritten = |k: &[u8]| keys.contains(k) || cleared.contains(k);
        match m {
            Mutation::Set(k, _)
            | Mutation::Clear(k)
            | Mutation::Atomic(MutationType::SetVersionstampedValue, k, _) => {
                *live = !overwritten(k);
                keys.insert(k);
            }
            Mutation::ClearRange(b, e) => cleared.insert(b, e),
            Mutation::Atomic(MutationType::SetVersionstampedKey, ..) => {}
            Mutation::Atomic(_, k, _) => *live = !overwritten(k),
        }
    }
    live
}

/// A transaction that wrote nothing commits without touching the store;
/// its watches start from the values it saw.
fn commit_read_only(shared: &Arc<Shared>, tx: &mut EmbeddedTx) -> Result<Committed> {
    let watches = std::mem::take(&mut tx.watches);
    let mut seen = Vec::with_capacity(watches.len());
    for (key, _) in &watches {
        seen.push(tx.get(key, true)?);
    }
    tx.spend();
    shared.register_watches(watches.into_iter().zip(seen).map(|((k, f), v)| (k, v, f)));
    Ok(Committed::default())
}
