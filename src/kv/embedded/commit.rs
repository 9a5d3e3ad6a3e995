//! The commit: check conflicts, apply the writes under one version, log
//! what was written, register watches.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::ops::Bound::{Excluded, Included};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use super::atomic::{apply, fill_stamp, stamp_of};
use super::buffer::{Mutation, WriteBuffer};
use super::ranges::{RangeList, RangeSet};
use super::store::Writer;
use super::watches::Watched;
use super::{Fault, Shared};
use crate::kv::admit::stamp_offset;
use crate::kv::{Committed, Error, IdempotencyId, MutationType, Result, key_after};

/// How long the commit log remembers a commit's write ranges, in
/// milliseconds: twice the window, longer than any transaction may live, so
/// every live transaction can be checked.
fn log_window_ms(shared: &Shared) -> u64 {
    u64::try_from(2 * shared.limits.window.as_millis()).unwrap_or(u64::MAX)
}

/// At most this many write ranges of one commit are logged, those of its
/// versionstamped keys included; more are joined into this many wider
/// ones.
const LOGGED_RANGES: usize = 64;

/// The clock in microseconds: the version a commit made now gets at
/// least, so that versions advance about a million a second as
/// FoundationDB's do, and a versionstamp tells when it was written. A
/// commit still takes one more than the last when the clock is behind it
/// (a clock set back, a burst of commits within a microsecond), so
/// versions only ever increase.
pub(crate) fn clock_version() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// What a commit needs of the transaction it commits: its writes and
/// conflict ranges, the state its reads left, and the steps it takes the
/// transaction through. The transaction calls the commit; the commit sees
/// only this of it.
pub(super) trait Committable {
    /// The error that dooms the commit, if any: one a write raised, or a
    /// transaction size over the limit once its reads count too.
    fn doom(&self) -> Option<Error>;
    /// The read version and when it was taken, if any read happened.
    fn read_state(&self) -> Option<(u64, Instant)>;
    /// When the `Timeout` option runs out, if set.
    fn deadline(&self) -> Option<Instant>;
    /// The id the commit is recorded under, if one was set.
    fn idempotency_id(&self) -> Option<IdempotencyId>;
    fn buffer(&self) -> &WriteBuffer;
    fn reads(&self) -> &RangeSet;
    /// Whether a conflict is to be reported (`ReportConflictingKeys`).
    fn reports_conflicts(&self) -> bool;
    /// Keeps the read ranges a failed commit found written since.
    fn conflicted(&mut self, ranges: RangeSet);
    /// The write conflict ranges, merged when the commit asks.
    fn writes(&mut self) -> &mut RangeList;
    /// Lets go of the snapshot before the commit waits for the write lock,
    /// keeping the read version for the conflict checks.
    fn release_snapshot(&mut self);
    /// Marks the transaction committed.
    fn spend(&mut self);
    /// The watches set that have not fired, handed over at commit.
    fn take_watches(&mut self) -> Vec<Watched>;
}

pub(super) fn commit(shared: &Arc<Shared>, tx: &mut impl Committable) -> Result<Committed> {
    if let Some(e) = tx.doom() {
        return Err(e);
    }
    let read = tx.read_state();
    if read.is_some_and(|(_, at)| at.elapsed() > shared.limits.window) {
        return Err(Error::TransactionTooOld);
    }
    if tx.buffer().is_empty() && tx.writes().is_empty() {
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
    // There are writes to skip only where one replaced another: a key set,
    // cleared or given a versionstamped value after an earlier write of
    // it, or a range cleared over written keys (`overwrote`). An atomic
    // operation after a write builds on it and replaces nothing. Skipping
    // only saves work: `apply_all` is right without it.
    let live = tx
        .buffer()
        .overwrote()
        .then(|| live(&tx.buffer().mutations));
    let logged = tx.writes().coarsened(LOGGED_RANGES);
    let mut outcome = None;
    let mut conflicting = None;
    let report = tx.reports_conflicts();
    let written = shared.store.write(tx.deadline(), &mut |w| {
        if let Some((rv, _)) = read {
            if rv < w.log_floor()? {
                return Err(Error::TransactionTooOld);
            }
            conflicting = conflicts(w, rv, tx.reads(), report)?;
            if conflicting.is_some() {
                return Err(Error::NotCommitted);
            }
        }
        let version = (w.version()? + 1).max(clock_version());
        // First, so the store keeps what the writes replace under it.
        w.set_version(version)?;
        let stamp = stamp_of(version);
        let mutations = tx.buffer().mutations.iter().enumerate();
        let stamped = apply_all(
            &mut super::sample::Sampling(&mut *w),
            mutations
                .filter(|(n, _)| live.as_ref().is_none_or(|live| live[*n]))
                .map(|(_, m)| m),
            &stamp,
            shared.limits.value,
        )?;
        let now = now_ms();
        let logged = with_stamped(&logged, stamped);
        w.log(
            version,
            now,
            &logged,
            now.saturating_sub(log_window_ms(shared)),
        )?;
        if let Some(id) = tx.idempotency_id() {
            super::idempotency::record(w, &id, version, now)?;
        }
        outcome = Some((version, stamp));
        Ok(())
    });
    if let Some(ranges) = conflicting {
        tx.conflicted(ranges);
    }
    written?;
    let (version, stamp) = outcome.expect("set by a successful write");
    tx.spend();
    shared.store.after_commit();
    if let Some(f @ Fault::UnknownResult { applied: true }) = fault {
        // The caller fails the watches with the error.
        shared.watches.notify();
        return Err(f.error());
    }
    register_watches(shared, tx);
    shared.watches.notify();
    Ok(Committed {
        version: Some(version),
        versionstamp: Some(stamp),
    })
}

/// The read ranges of `reads` that a commit after `rv` wrote, if any
/// was: all of them when `report` asks (for the conflicting keys), else
/// none, found at the first (the commit fails the same).
fn conflicts(
    w: &mut dyn Writer,
    rv: u64,
    reads: &RangeSet,
    report: bool,
) -> Result<Option<RangeSet>> {
    if reads.is_empty() {
        return Ok(None);
    }
    if !report {
        let any = w.any_write_since(rv, &mut |b, e| reads.overlaps(b, e))?;
        return Ok(any.then(RangeSet::default));
    }
    let mut hit = RangeSet::default();
    w.any_write_since(rv, &mut |b, e| {
        for (rb, re) in reads.overlapping(b, e) {
            hit.insert(rb, re);
        }
        false
    })?;
    Ok((!hit.is_empty()).then_some(hit))
}

/// Applies the mutations in order; returns the write conflict ranges of
/// the versionstamped keys, known only now.
///
/// The results of atomic operations are kept aside and written once at
/// the end, so a key that a transaction adds to a thousand times is read
/// and written once. A later write of a key (a set, a clear, a range
/// clear over it, a versionstamped key or value) drops the result kept for
/// it, as it replaces that value, so the order of writes holds whichever
/// of them [`live`] left.
fn apply_all<'m>(
    w: &mut dyn Writer,
    mutations: impl Iterator<Item = &'m Mutation>,
    stamp: &[u8; 10],
    value_limit: usize,
) -> Result<RangeSet> {
    let mut stamped = RangeSet::default();
    let mut atomics: BTreeMap<&[u8], Option<Vec<u8>>> = BTreeMap::new();
    for m in mutations {
        match m {
            Mutation::Set(k, v) => {
                atomics.remove(k.as_slice());
                w.set(k, v)?;
            }
            Mutation::Clear(k) => {
                atomics.remove(k.as_slice());
                w.clear(k)?;
            }
            Mutation::ClearRange(b, e) => {
                let inside =
                    atomics.range::<[u8], _>((Included(b.as_slice()), Excluded(e.as_slice())));
                let inside: Vec<&[u8]> = inside.map(|(k, _)| *k).collect();
                for k in inside {
                    atomics.remove(k);
                }
                w.clear_range(b, e)?;
            }
            Mutation::Atomic(MutationType::SetVersionstampedKey, k, v) => {
                let (body, offset) = stamp_offset(k)?;
                let key = fill_stamp(body, offset, stamp);
                stamped.insert(&key, &key_after(&key));
                atomics.remove(key.as_slice());
                w.set(&key, v)?;
            }
            Mutation::Atomic(MutationType::SetVersionstampedValue, k, p) => {
                let (body, offset) = stamp_offset(p)?;
                atomics.remove(k.as_slice());
                w.set(k, &fill_stamp(body, offset, stamp))?;
            }
            Mutation::Atomic(op, k, p) => {
                let current = match atomics.remove(k.as_slice()) {
                    Some(v) => v,
                    None => w.get(k)?,
                };
                atomics.insert(k, apply(*op, current.as_deref(), p, value_limit));
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

/// The write ranges to log: `logged`, the transaction's own already
/// coarsened, with those of its versionstamped keys, known only inside the
/// write lock, coarsened again to [`LOGGED_RANGES`] with them.
fn with_stamped(
    logged: &[(Vec<u8>, Vec<u8>)],
    mut stamped: RangeSet,
) -> Cow<'_, [(Vec<u8>, Vec<u8>)]> {
    if stamped.is_empty() {
        return Cow::Borrowed(logged);
    }
    for (b, e) in logged {
        stamped.insert(b, e);
    }
    Cow::Owned(stamped.coarsened(LOGGED_RANGES))
}

/// Which mutations still matter at commit: a write to a key that a later
/// set, clear or range clear of the same transaction overwrites changes
/// nothing, so the commit skips it. Found in one pass from the end. Only a
/// saving: [`apply_all`] gives the same result without it.
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

/// A transaction that wrote nothing commits without touching the store.
fn commit_read_only(shared: &Arc<Shared>, tx: &mut impl Committable) -> Result<Committed> {
    tx.spend();
    register_watches(shared, tx);
    Ok(Committed::default())
}

/// Hands the transaction's watches that have not fired to the poller, each
/// with the value it was set with, as FDB sets them up at commit: a
/// commit that came in between (for a transaction that did not write the
/// key: a reader, since a writer would have conflicted) fires them at once.
fn register_watches(shared: &Arc<Shared>, tx: &mut impl Committable) {
    let watches = tx.take_watches();
    shared.register_watches(watches.into_iter().map(|w| (w.key, w.value, w.future)));
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::memory::MemoryStore;
    use super::super::store::Store;
    use super::*;

    const LIMIT: usize = 100_000;
    const STAMP: [u8; 10] = *b"0123456789";

    /// `body` with a placeholder for the stamp at 1, and its offset.
    fn stamped(body: &[u8]) -> Vec<u8> {
        let mut v = body.to_vec();
        v.splice(1..1, [0; 10]);
        v.extend(1u32.to_le_bytes());
        v
    }

    /// What the mutations leave, each applied to the value of the moment.
    fn model(mutations: &[Mutation]) -> BTreeMap<Vec<u8>, Vec<u8>> {
        let mut map = BTreeMap::new();
        for m in mutations {
            match m {
                Mutation::Set(k, v) => drop(map.insert(k.clone(), v.clone())),
                Mutation::Clear(k) => drop(map.remove(k)),
                Mutation::ClearRange(b, e) => map.retain(|k, _| !(b..e).contains(&k)),
                Mutation::Atomic(MutationType::SetVersionstampedKey, k, v) => {
                    let (body, at) = stamp_offset(k).unwrap();
                    map.insert(fill_stamp(body, at, &STAMP), v.clone());
                }
                Mutation::Atomic(MutationType::SetVersionstampedValue, k, p) => {
                    let (body, at) = stamp_offset(p).unwrap();
                    map.insert(k.clone(), fill_stamp(body, at, &STAMP));
                }
                Mutation::Atomic(op, k, p) => {
                    match apply(*op, map.get(k).map(Vec::as_slice), p, LIMIT) {
                        Some(v) => drop(map.insert(k.clone(), v)),
                        None => drop(map.remove(k)),
                    }
                }
            }
        }
        map
    }

    /// What [`apply_all`] leaves in a store that holds `before`.
    fn applied<'m>(
        before: &[(&[u8], &[u8])],
        mutations: impl Iterator<Item = &'m Mutation>,
    ) -> BTreeMap<Vec<u8>, Vec<u8>> {
        let store = MemoryStore::default();
        let mut mutations = Some(mutations);
        store
            .write(None, &mut |w| {
                for (k, v) in before {
                    w.set(k, v)?;
                }
                apply_all(w, mutations.take().unwrap(), &STAMP, LIMIT).map(drop)
            })
            .unwrap();
        let rows = store
            .snapshot(None)
            .unwrap()
            .scan(b"", b"\xff", false, 1000);
        rows.unwrap()
            .into_iter()
            .map(|kv| (kv.key, kv.value))
            .collect()
    }

    /// Every order of writes to a few keys: applied as they come, with or
    /// without the writes [`live`] skips, the store ends as if each had
    /// been applied at once. An atomic operation's result kept for the end
    /// must not bring back a key that a later write replaced.
    #[test]
    fn applying_gives_the_writes_in_order_with_or_without_the_skipped() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as u8
        };
        let before: [(&[u8], &[u8]); 2] = [(b"a", &[1]), (b"c", &[7, 7])];
        for _ in 0..2000 {
            let mut mutations = Vec::new();
            for _ in 0..1 + next(6) {
                let key = vec![b'a' + next(4)];
                let param = vec![next(9)];
                mutations.push(match next(8) {
                    0 => Mutation::Set(key, param),
                    1 => Mutation::Clear(key),
                    2 => Mutation::ClearRange(key.clone(), vec![key[0] + 1 + next(2)]),
                    3 => {
                        Mutation::Atomic(MutationType::SetVersionstampedValue, key, stamped(&param))
                    }
                    4 => Mutation::Atomic(MutationType::SetVersionstampedKey, stamped(&key), param),
                    5 => Mutation::Atomic(MutationType::Max, key, param),
                    _ => Mutation::Atomic(MutationType::Add, key, param),
                });
            }
            let mut all: Vec<Mutation> = before
                .iter()
                .map(|(k, v)| Mutation::Set(k.to_vec(), v.to_vec()))
                .collect();
            all.extend(mutations.iter().cloned());
            let want = model(&all);
            assert_eq!(applied(&before, mutations.iter()), want, "{mutations:?}");
            let live = live(&mutations);
            let kept = mutations
                .iter()
                .zip(&live)
                .filter(|(_, l)| **l)
                .map(|(m, _)| m);
            assert_eq!(applied(&before, kept), want, "{mutations:?} skipping");
        }
    }
}
