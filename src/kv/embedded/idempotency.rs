//! Idempotency ids: a commit made under an id records it, in the same
//! write as its mutations, so that whether a commit reported as
//! `commit_unknown_result` was applied can be looked up afterwards.
//!
//! The records are keys of the system keyspace, which no user
//! transaction can read or write, as FDB keeps its own idempotency ids
//! under `\xff\x02/idmp/`: `PREFIX`, the commit's wall-clock time in
//! milliseconds (8 bytes, big-endian) and the id, holding the commit
//! version (8 bytes, big-endian). Ordered by time, the records older than
//! [`KEPT`] are cleared with one range clear, at most once a second, and
//! `EXPIRED` holds the time before which records may be gone.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::atomic::stamp_of;
use super::store::{MAX_BATCH, Snapshot, Writer};
use crate::kv::{CommitStatus, Committed, Error, IdempotencyId, Result};

const PREFIX: &[u8] = b"\xff\x02/fql/idmp/";
const PREFIX_END: &[u8] = b"\xff\x02/fql/idmp0";
const EXPIRED: &[u8] = b"\xff\x02/fql/idmpExpired";

/// How long a commit's record is kept: far longer than the retry loop
/// takes from a failed commit to its look-up (a backoff, at most 30 s
/// only after a proxy's memory ran out, which the embedded store never
/// reports itself).
pub(crate) const KEPT: Duration = Duration::from_secs(30);

/// How far before the start of the attempt a look-up searches, for a
/// wall clock set back while it ran: a record stamped that much earlier
/// is still found.
const SLACK_MS: u64 = 10_000;

/// How often the old records are cleared, at most.
const SWEEP_MS: u64 = 1_000;

fn key(at_ms: u64, id: &IdempotencyId) -> Vec<u8> {
    let mut key = Vec::with_capacity(PREFIX.len() + 8 + 16);
    key.extend_from_slice(PREFIX);
    key.extend_from_slice(&at_ms.to_be_bytes());
    key.extend_from_slice(&id.0);
    key
}

fn time_key(at_ms: u64) -> Vec<u8> {
    let mut key = PREFIX.to_vec();
    key.extend_from_slice(&at_ms.to_be_bytes());
    key
}

fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn number(bytes: &[u8], what: &str) -> Result<u64> {
    <[u8; 8]>::try_from(bytes)
        .map(u64::from_be_bytes)
        .map_err(|_| Error::Corrupt(format!("a malformed {what} in the idempotency records")))
}

/// Records that the commit of `version`, at `now_ms`, was made under
/// `id`; clears the records older than [`KEPT`] when the last clearing is
/// a second old.
pub(super) fn record(
    w: &mut dyn Writer,
    id: &IdempotencyId,
    version: u64,
    now_ms: u64,
) -> Result<()> {
    let cutoff = now_ms.saturating_sub(KEPT.as_millis() as u64);
    let expired = match w.get(EXPIRED)? {
        Some(v) => number(&v, "expiry")?,
        None => 0,
    };
    if cutoff >= expired + SWEEP_MS {
        w.clear_range(PREFIX, &time_key(cutoff))?;
        w.set(EXPIRED, &cutoff.to_be_bytes())?;
    }
    w.set(&key(now_ms, id), &version.to_be_bytes())
}

/// Whether the commit made under `id` by an attempt that began at `since`
/// was applied, as the latest state says.
pub(super) fn status(
    snapshot: &mut dyn Snapshot,
    id: &IdempotencyId,
    since: SystemTime,
) -> Result<CommitStatus> {
    let from = millis(since).saturating_sub(SLACK_MS);
    if let Some(v) = snapshot.get(EXPIRED)?
        && number(&v, "expiry")? > from
    {
        return Ok(CommitStatus::Unknown);
    }
    let mut begin = time_key(from);
    loop {
        let rows = snapshot.scan(&begin, PREFIX_END, false, MAX_BATCH)?;
        for row in &rows {
            if row.key.ends_with(&id.0) && row.key.len() == PREFIX.len() + 8 + 16 {
                let version = number(&row.value, "version")?;
                return Ok(CommitStatus::Committed(Committed {
                    version: Some(version),
                    versionstamp: Some(stamp_of(version)),
                }));
            }
        }
        match rows.last() {
            Some(last) if rows.len() == MAX_BATCH => begin = crate::kv::key_after(&last.key),
            _ => return Ok(CommitStatus::NotCommitted),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::memory::MemoryStore;
    use super::super::store::Store;
    use super::*;

    fn ms(t: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(t)
    }

    fn status_at(store: &MemoryStore, id: &IdempotencyId, since: u64) -> CommitStatus {
        let mut snap = store.snapshot(None).unwrap();
        status(&mut *snap, id, ms(since)).unwrap()
    }

    fn record_at(store: &MemoryStore, id: &IdempotencyId, version: u64, now: u64) {
        store
            .write(None, &mut |w| record(w, id, version, now))
            .unwrap();
    }

    /// A recorded id is found with its version, one never recorded is
    /// not committed, and once records of the attempt's time may have
    /// been cleared the answer is unknown, never "not committed".
    #[test]
    fn ids_are_found_until_they_may_be_forgotten() {
        let store = MemoryStore::default();
        let (a, b, c) = (
            IdempotencyId([1; 16]),
            IdempotencyId([2; 16]),
            IdempotencyId([3; 16]),
        );
        let t0 = 1_700_000_000_000;
        record_at(&store, &a, 41, t0);
        record_at(&store, &b, 42, t0 + 5);
        let CommitStatus::Committed(done) = status_at(&store, &b, t0) else {
            panic!("b was recorded")
        };
        assert_eq!(done.version, Some(42));
        assert_eq!(done.versionstamp, Some(stamp_of(42)));
        assert_eq!(status_at(&store, &c, t0), CommitStatus::NotCommitted);
        // Much later, a commit clears the old records.
        let later = t0 + KEPT.as_millis() as u64 + 60_000;
        record_at(&store, &c, 43, later);
        assert_eq!(status_at(&store, &a, t0), CommitStatus::Unknown);
        assert_eq!(status_at(&store, &b, t0), CommitStatus::Unknown);
        assert!(matches!(
            status_at(&store, &c, later),
            CommitStatus::Committed(_)
        ));
        let mut snap = store.snapshot(None).unwrap();
        let left = snap.scan(PREFIX, PREFIX_END, false, 10).unwrap();
        assert_eq!(left.len(), 1, "the old records are gone");
    }

    /// Many records between the attempt's start and the one looked up
    /// are read past in batches.
    #[test]
    fn a_look_up_reads_past_many_records() {
        let store = MemoryStore::default();
        let t0 = 1_700_000_000_000;
        store
            .write(None, &mut |w| {
                for n in 0..(MAX_BATCH as u64 + 10) {
                    let mut id = [0; 16];
                    id[..8].copy_from_slice(&n.to_be_bytes());
                    record(w, &IdempotencyId(id), n, t0)?;
                }
                Ok(())
            })
            .unwrap();
        let mut last = [0; 16];
        last[..8].copy_from_slice(&(MAX_BATCH as u64 + 9).to_be_bytes());
        assert!(matches!(
            status_at(&store, &IdempotencyId(last), t0),
            CommitStatus::Committed(_)
        ));
    }
}
