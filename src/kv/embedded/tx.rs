//! The embedded transaction: a snapshot to read from, a buffer of writes,
//! and the conflict ranges the commit is checked against.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::Shared;
use super::atomic::stamp_range;
use super::buffer::{Entry, WriteBuffer};
use super::commit::{self, Committable};
use super::ranges::{RangeList, RangeSet};
use super::read::read_batch;
use super::ryw::Ryw;
use super::special::{Module, SpecialWrites};
use super::store::Snapshot;
use super::watches::Watched;
use crate::kv::admit::{
    SPECIAL_KEYS, SystemKeys, Tally, Write, check_key, clears_a_storable_key, stamp_offset,
    storable_bounds,
};
use crate::kv::retry::Backoff;
use crate::kv::watch::WatchFuture;
use crate::kv::{
    CommitStatus, Committed, ConflictRangeType, Error, IdempotencyId, KeyValue, MutationType,
    RangeOption, RangeResult, Result, StreamingMode, Transaction, TransactionOption, Watch,
    key_after,
};

pub(crate) struct EmbeddedTx {
    shared: Arc<Shared>,
    snapshot: Option<Box<dyn Snapshot>>,
    /// The read version and when it was taken, from the first read until
    /// the transaction is reset or retried: a commit lets go of the
    /// snapshot, and a commit tried again must still check against it.
    read: Option<(u64, Instant)>,
    /// The version [`Transaction::set_read_version`] asked for, until
    /// the transaction is reset or retried.
    requested: Option<u64>,
    /// Set when a commit let go of the snapshot: reads fail until the
    /// transaction is reset, rather than read another state.
    released: bool,
    buffer: WriteBuffer,
    reads: RangeSet,
    writes: RangeList,
    /// Bytes of mutations so far, and any error that dooms the commit.
    tally: Tally,
    no_conflict_next: bool,
    /// The id the next commit is recorded under.
    idempotency_id: Option<IdempotencyId>,
    watches: Vec<Watched>,
    spent: bool,
    created: Instant,
    timeout: Option<Duration>,
    retry_limit: Option<i64>,
    retries: i64,
    backoff: Backoff,
    /// How far into the system keys reads and writes may reach; kept
    /// through retries, as FDB keeps options.
    system: SystemKeys,
    /// `ReportConflictingKeys`, until a retry or a reset.
    report_conflicts: bool,
    /// The read ranges the last commit found written by another, when it
    /// failed with `not_committed` and conflicts are reported: what the
    /// conflicting keys answer until a reset or a retry.
    conflicting: RangeSet,
    /// Whether reads see this transaction's writes: the read-your-writes
    /// options, until a retry or a reset.
    ryw: Ryw,
    /// Writes of special keys, judged at commit; until a retry or a reset.
    special: SpecialWrites,
}

impl EmbeddedTx {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        let value_limit = shared.limits.value;
        EmbeddedTx {
            shared,
            snapshot: None,
            read: None,
            requested: None,
            released: false,
            buffer: WriteBuffer::new(value_limit),
            reads: RangeSet::default(),
            writes: RangeList::default(),
            tally: Tally::default(),
            no_conflict_next: false,
            idempotency_id: None,
            watches: Vec::new(),
            spent: false,
            created: Instant::now(),
            timeout: None,
            retry_limit: None,
            retries: 0,
            backoff: Backoff::default(),
            system: SystemKeys::Closed,
            report_conflicts: false,
            conflicting: RangeSet::default(),
            ryw: Ryw::default(),
            special: SpecialWrites::default(),
        }
    }

    /// Fails if the transaction can no longer be used: past its timeout,
    /// or committed.
    fn usable(&self) -> Result<()> {
        if let Some(t) = self.timeout
            && self.created.elapsed() > t
        {
            return Err(Error::TransactionTimedOut);
        }
        self.unspent()
    }

    /// Fails if the transaction has committed. A write past the timeout is
    /// not refused, as FoundationDB's are not: the commit that follows
    /// fails, and a load pays no clock read per key.
    fn unspent(&self) -> Result<()> {
        if self.spent {
            return Err(Error::InvalidOperation(
                "the transaction has committed; reset it to use it again".into(),
            ));
        }
        Ok(())
    }

    /// The snapshot, taken at the first read (at the version asked for, if
    /// one was); too old once the window of the limits has passed since
    /// it was taken, or, for an older version, since a later commit
    /// replaced its state, as FDB's storage servers keep a version for
    /// the window after newer ones arrive.
    fn snap(&mut self) -> Result<&mut dyn Snapshot> {
        self.usable()?;
        if self.released {
            return Err(Error::InvalidOperation(
                "the transaction tried to commit; reset it to use it again".into(),
            ));
        }
        if self.snapshot.is_none() {
            let snap = match self.requested {
                None => self.shared.store.snapshot(self.deadline())?,
                Some(v) => self.shared.store.snapshot_at(v, self.deadline())?,
            };
            let taken = snap.superseded_ms().map_or_else(Instant::now, instant_of);
            self.read = Some((snap.version(), taken));
            self.snapshot = Some(snap);
        }
        if self
            .read
            .is_some_and(|(_, at)| at.elapsed() > self.shared.limits.window)
        {
            return Err(Error::TransactionTooOld);
        }
        Ok(self.snapshot.as_deref_mut().expect("just set"))
    }

    /// Checks a write against the limits before it is buffered, so an
    /// over-size write fails where it is made and the commit fails too.
    fn admit(&mut self, write: Write) -> Result<()> {
        self.unspent()?;
        self.tally
            .admit(&self.shared.limits, write, self.reads.size())
    }

    /// Whether the next write adds a write conflict range; as in FDB, the
    /// option is used up by the write that asks, whether or not it fails.
    fn take_conflict(&mut self) -> bool {
        !std::mem::take(&mut self.no_conflict_next)
    }

    /// A write's outcome; a failed write dooms the commit, as FDB defers a
    /// write's error to the commit.
    fn doom_on_error(&mut self, outcome: Result<()>) -> Result<()> {
        if let Err(e) = &outcome {
            self.tally.poison(e.clone());
        }
        outcome
    }

    /// Fires the watches on the keys `written` that a write of this
    /// transaction changed: it wrote `value` there (`Some(None)` for a
    /// clear), or, for `None`, something only the commit knows (an atomic
    /// operation). FDB reports a transaction's own changes at once.
    fn trigger_watches(&mut self, written: impl Fn(&[u8]) -> bool, value: Option<Option<&[u8]>>) {
        if self.watches.is_empty() {
            return;
        }
        self.watches.retain(|w| {
            let changed = written(&w.key) && value.is_none_or(|v| v != w.value.as_deref());
            if changed {
                w.future.resolve(Ok(()));
            }
            !changed
        });
    }

    /// Resolves every watch with `error`: the transaction failed to commit.
    pub(super) fn fail_watches(&mut self, error: &Error) {
        for w in self.watches.drain(..) {
            w.future.resolve(Err(error.clone()));
        }
    }

    fn cancel_watches(&mut self) {
        self.fail_watches(&Error::TransactionCancelled);
    }

    fn clear_state(&mut self) {
        self.cancel_watches();
        self.snapshot = None;
        self.read = None;
        self.requested = None;
        self.released = false;
        self.buffer = WriteBuffer::new(self.shared.limits.value);
        self.reads.clear();
        self.writes.clear();
        self.tally = Tally::default();
        self.no_conflict_next = false;
        self.spent = false;
        self.idempotency_id = None;
        self.report_conflicts = false;
        self.conflicting.clear();
        self.ryw = Ryw::default();
        self.special = SpecialWrites::default();
    }

    /// A write of special keys: the special key space's to take or refuse
    /// (see [`SpecialWrites`]); one refused dooms the commit.
    fn special_write(&mut self, f: impl FnOnce(&mut SpecialWrites) -> Result<()>) -> Result<()> {
        self.unspent()?;
        let outcome = f(&mut self.special);
        self.doom_on_error(outcome)
    }

    /// The conflicting keys' rows in `[begin, end)`, from the last
    /// commit's conflict: answered from the transaction alone, so they
    /// can be read after the commit let go of its snapshot.
    fn conflicting_rows(&self, begin: &[u8], end: &[u8]) -> Vec<KeyValue> {
        let ranges: Vec<(Vec<u8>, Vec<u8>)> = self
            .conflicting
            .iter()
            .map(|(b, e)| (b.to_vec(), e.to_vec()))
            .collect();
        crate::kv::conflicting_rows(&ranges, begin, end)
    }
}

/// The instant the wall clock read `ms` (milliseconds since the epoch),
/// as far back as the monotonic clock reaches.
fn instant_of(ms: u64) -> Instant {
    let now_ms = super::commit::clock_version() / 1000;
    let ago = Duration::from_millis(now_ms.saturating_sub(ms));
    let now = Instant::now();
    now.checked_sub(ago).unwrap_or(now)
}

impl Committable for EmbeddedTx {
    /// When the `Timeout` option runs out, if set.
    fn deadline(&self) -> Option<Instant> {
        self.timeout.map(|t| self.created + t)
    }

    /// The read version and when it was taken, if any read happened.
    fn read_state(&self) -> Option<(u64, Instant)> {
        self.read
    }

    /// The error that dooms the commit, if any: one a write raised, or a
    /// transaction size over the limit once its reads count too.
    fn doom(&self) -> Option<Error> {
        self.tally.doom(&self.shared.limits, self.reads.size())
    }

    /// Ends the snapshot before a commit waits for the write lock: a read
    /// transaction held while waiting would keep any checkpoint that holds
    /// the lock waiting for it in turn. The read version stays, for the
    /// conflict checks of this commit and of any commit tried again.
    fn release_snapshot(&mut self) {
        self.snapshot = None;
        self.released = true;
    }

    fn spend(&mut self) {
        self.spent = true;
        self.snapshot = None;
    }

    /// The id the commit is recorded under, if one was set.
    fn idempotency_id(&self) -> Option<IdempotencyId> {
        self.idempotency_id
    }

    fn buffer(&self) -> &WriteBuffer {
        &self.buffer
    }

    fn reads(&self) -> &RangeSet {
        &self.reads
    }

    fn reports_conflicts(&self) -> bool {
        self.report_conflicts
    }

    fn conflicted(&mut self, ranges: RangeSet) {
        self.conflicting = ranges;
    }

    fn writes(&mut self) -> &mut RangeList {
        &mut self.writes
    }

    fn take_watches(&mut self) -> Vec<Watched> {
        std::mem::take(&mut self.watches)
    }
}

impl Drop for EmbeddedTx {
    fn drop(&mut self) {
        self.cancel_watches();
    }
}

impl Transaction for EmbeddedTx {
    /// The version asked for, if one was, as FDB's client answers it
    /// without reading; else the snapshot's.
    fn read_version(&mut self) -> Result<u64> {
        if let Some(v) = self.requested {
            self.usable()?;
            return Ok(v);
        }
        Ok(self.snap()?.version())
    }

    /// Before any read; the store checks the version at the first read.
    fn set_read_version(&mut self, version: u64) -> Result<()> {
        self.usable()?;
        if self.read.is_some() || self.requested.is_some() {
            return Err(Error::from_code(2010));
        }
        if version == 0 || i64::try_from(version).is_err() {
            return Err(Error::from_code(2011));
        }
        self.requested = Some(version);
        Ok(())
    }

    fn version_now(&mut self) -> Result<u64> {
        Ok(self.snap()?.version().max(super::commit::clock_version()))
    }

    fn get(&mut self, key: &[u8], snapshot: bool) -> Result<Option<Vec<u8>>> {
        if key >= SPECIAL_KEYS {
            if super::special::module(key, &key_after(key))? == Module::ConflictingKeys {
                let rows = self.conflicting_rows(key, &key_after(key));
                return Ok(rows.into_iter().next().map(|kv| kv.value));
            }
            let version = self.snap()?.version();
            return super::special::get(key, version);
        }
        self.system.check_get(key)?;
        self.usable()?;
        self.ryw.note_read();
        if !self.ryw.sees_own_writes(snapshot) {
            if !snapshot {
                self.reads.insert(key, &key_after(key));
            }
            return self.snap()?.get(key);
        }
        if self.buffer.unreadable().contains(key) {
            return Err(Error::AccessedUnreadable);
        }
        let entry = self.buffer.lookup(key);
        let needs_stored = entry.is_none_or(Entry::needs_stored);
        if !snapshot && entry.is_none_or(Entry::reads_store) {
            self.reads.insert(key, &key_after(key));
        }
        let stored = if needs_stored {
            self.snap()?.get(key)?
        } else {
            None
        };
        match self.buffer.lookup(key) {
            None => Ok(stored),
            Some(e) => {
                let value = e.resolve(stored.as_deref(), self.shared.limits.value)?;
                if needs_stored {
                    self.buffer.settle(key, value.clone());
                }
                Ok(value)
            }
        }
    }

    fn get_range(
        &mut self,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult> {
        let want = match (range.mode, range.limit) {
            (StreamingMode::Exact, None) => return Err(Error::ExactModeWithoutLimits),
            (mode, Some(limit)) => limit.min(mode.batch_rows(iteration)),
            (mode, None) => mode.batch_rows(iteration),
        };
        if range.begin.as_slice() >= SPECIAL_KEYS {
            let mut kvs = if range.begin >= range.end {
                Vec::new()
            } else if super::special::module(&range.begin, &range.end)? == Module::ConflictingKeys {
                self.conflicting_rows(&range.begin, &range.end)
            } else {
                let version = self.snap()?.version();
                super::special::get_range(range, version)?
            };
            if range.reverse {
                kvs.reverse();
            }
            kvs.truncate(want);
            return Ok(RangeResult { kvs, more: false });
        }
        self.system.check_read(&range.begin, &range.end)?;
        self.usable()?;
        // As FDB's client, a read of nothing (a range that begins at or
        // past its end, a limit of 0) returns at once: no read version, no
        // conflict.
        if want == 0 || range.begin >= range.end {
            return Ok(RangeResult::default());
        }
        let value_limit = self.shared.limits.value;
        self.ryw.note_read();
        let own_writes = self.ryw.sees_own_writes(snapshot);
        // Borrow the snapshot and the buffer side by side.
        self.snap()?;
        let snap = self.snapshot.as_deref_mut().expect("taken");
        let unseen = WriteBuffer::new(value_limit);
        let buffer = if own_writes { &self.buffer } else { &unseen };
        let batch = read_batch(
            snap,
            buffer,
            &range.begin,
            &range.end,
            range.reverse,
            want,
            value_limit,
        )?;
        // The part of the range this batch covered.
        let (b, e) = match (batch.more, batch.rows.last(), range.reverse) {
            (true, Some(KeyValue { key, .. }), false) => (range.begin.clone(), key_after(key)),
            (true, Some(KeyValue { key, .. }), true) => (key.clone(), range.end.clone()),
            _ => (range.begin.clone(), range.end.clone()),
        };
        // A versionstamped key of this transaction may be anywhere in its
        // range: a read that covers any of it cannot be answered.
        if own_writes && self.buffer.unreadable().overlaps(&b, &e) {
            return Err(Error::AccessedUnreadable);
        }
        if !snapshot {
            self.reads.insert(&b, &e);
        }
        Ok(RangeResult {
            kvs: batch.rows,
            more: batch.more,
        })
    }

    /// From the store's byte sample (see [`sample`](super::sample)), at
    /// this transaction's read version.
    fn estimated_range_size(&mut self, begin: &[u8], end: &[u8]) -> Result<u64> {
        if begin > end {
            return Err(Error::InvertedRange);
        }
        self.system.check_read(begin, end)?;
        if begin == end {
            self.usable()?;
            return Ok(0);
        }
        super::sample::estimate(self.snap()?, begin, end)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        if super::special::is_special(key) {
            return self.special_write(|w| w.write(key));
        }
        let conflict = self.take_conflict();
        let admitted = self
            .system
            .check_set(key)
            .and_then(|()| self.admit(Write::set(key, value, conflict)));
        self.doom_on_error(admitted)?;
        if conflict {
            self.writes.push(key, &key_after(key));
        }
        self.buffer.set(key, value);
        self.trigger_watches(|k| k == key, Some(Some(value)));
        Ok(())
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        if super::special::is_special(key) {
            return self.special_write(|w| w.write(key));
        }
        let conflict = self.take_conflict();
        let legal = self.system.check_write(key);
        if legal.is_ok() && !clears_a_storable_key(key, self.shared.limits.key) {
            return Ok(());
        }
        let admitted = legal.and_then(|()| self.admit(Write::clear(key, conflict)));
        self.doom_on_error(admitted)?;
        if conflict {
            self.writes.push(key, &key_after(key));
        }
        self.buffer.clear(key);
        self.trigger_watches(|k| k == key, Some(None));
        Ok(())
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        if begin <= end && super::special::holds_special_range(begin, end) {
            return self.special_write(|w| w.clear_range(begin, end));
        }
        let conflict = self.take_conflict();
        let system = self.system;
        let (begin, end) = match system.check_clear(begin, end) {
            Ok(()) => storable_bounds(begin, end, self.shared.limits.key),
            Err(_) => (begin, end),
        };
        let admitted = system
            .check_clear(begin, end)
            .and_then(|()| self.admit(Write::clear_range(begin, end, conflict)));
        self.doom_on_error(admitted)?;
        if begin < end {
            if conflict {
                self.writes.push(begin, end);
            }
            self.buffer.clear_range(begin, end);
            self.trigger_watches(|k| begin <= k && k < end, Some(None));
        }
        Ok(())
    }

    fn atomic_op(&mut self, key: &[u8], param: &[u8], op: MutationType) -> Result<()> {
        let conflict = self.take_conflict();
        let admitted =
            Write::atomic(key, param, op, conflict, self.system).and_then(|w| self.admit(w));
        self.doom_on_error(admitted)?;
        if op == MutationType::SetVersionstampedKey {
            // The key is known at commit, which adds its conflict range
            // then; until then, reads of wherever it may land fail.
            let (body, offset) = stamp_offset(key)?;
            let read_version = self.read.map(|(v, _)| v);
            let (begin, end) = stamp_range(&body, offset, read_version);
            self.buffer.mark_unreadable(&begin, &end);
        } else {
            if conflict {
                self.writes.push(key, &key_after(key));
            }
            self.trigger_watches(|k| k == key, None);
        }
        self.buffer.atomic(op, key, param);
        Ok(())
    }

    fn add_conflict_range(
        &mut self,
        begin: &[u8],
        end: &[u8],
        ty: ConflictRangeType,
    ) -> Result<()> {
        self.usable()?;
        let read = ty == ConflictRangeType::Read;
        self.system.check_conflict(begin, end, read)?;
        match ty {
            ConflictRangeType::Read => self.reads.insert(begin, end),
            ConflictRangeType::Write => {
                self.tally.add_write_conflict(begin, end);
                self.writes.push(begin, end);
            }
        }
        Ok(())
    }

    fn set_option(&mut self, option: TransactionOption) -> Result<()> {
        match option {
            TransactionOption::NextWriteNoWriteConflictRange => self.no_conflict_next = true,
            TransactionOption::Timeout(0) => self.timeout = None,
            TransactionOption::Timeout(ms) => self.timeout = Some(Duration::from_millis(ms)),
            TransactionOption::RetryLimit(n) => self.retry_limit = (n >= 0).then_some(n),
            TransactionOption::IdempotencyId(id) => self.idempotency_id = Some(id),
            TransactionOption::ReadSystemKeys => self.system = self.system.max(SystemKeys::Read),
            TransactionOption::AccessSystemKeys => self.system = SystemKeys::Access,
            TransactionOption::ReportConflictingKeys => self.report_conflicts = true,
            TransactionOption::ReadYourWritesDisable => {
                let wrote = !self.buffer.is_empty() || !self.writes.is_empty();
                self.ryw.disable(wrote)?;
            }
            TransactionOption::SnapshotRywEnable => self.ryw.count_snapshot(true),
            TransactionOption::SnapshotRywDisable => self.ryw.count_snapshot(false),
            TransactionOption::SpecialKeySpaceEnableWrites => self.special.enable(),
        }
        Ok(())
    }

    /// As FDB's client does, the watch reads the key through the
    /// transaction (a read with a conflict): the value read, this
    /// transaction's writes included, is what it compares with. A read
    /// that fails (a versionstamped value: `accessed_unreadable`) fails
    /// the watch, not the call.
    fn watch(&mut self, key: &[u8]) -> Result<Watch> {
        self.unspent()?;
        self.ryw.check_watch()?;
        check_key(key)?;
        let future = WatchFuture::default();
        let watch = future.watch();
        match self.get(key, false) {
            Ok(value) => self.watches.push(Watched {
                key: key.to_vec(),
                value,
                future,
            }),
            Err(e) => future.resolve(Err(e)),
        }
        Ok(watch)
    }

    /// A commit that fails fails the transaction's watches with its error,
    /// as FDB's does.
    fn commit(&mut self) -> Result<Committed> {
        let outcome = self
            .usable()
            .and_then(|()| self.special.commit_check())
            .and_then(|()| commit::commit(&self.shared.clone(), self));
        if let Err(e) = &outcome {
            self.fail_watches(e);
        }
        outcome
    }

    /// FDB's `on_error`: the errors FDB retries are retried after its
    /// backoff for the code; a backoff that would end past the
    /// transaction's timeout waits until then and fails with
    /// `transaction_timed_out`, as FDB's does.
    fn on_error(&mut self, error: Error) -> Result<()> {
        if !error.is_retryable() {
            return Err(error);
        }
        if self.retry_limit.is_some_and(|n| self.retries >= n) {
            return Err(error);
        }
        let delay = self.backoff.delay(error.code());
        if let Some(t) = self.timeout {
            let left = t.saturating_sub(self.created.elapsed());
            if left <= delay {
                std::thread::sleep(left);
                return Err(Error::TransactionTimedOut);
            }
        }
        self.retries += 1;
        std::thread::sleep(delay);
        self.clear_state();
        Ok(())
    }

    fn commit_status(&mut self, id: &IdempotencyId, since: SystemTime) -> Result<CommitStatus> {
        let mut snapshot = self.shared.store.snapshot(self.deadline())?;
        super::idempotency::status(&mut *snapshot, id, since)
    }

    fn reset(&mut self) {
        self.clear_state();
        self.created = Instant::now();
        self.timeout = None;
        self.retry_limit = None;
        self.retries = 0;
        self.backoff = Backoff::default();
        self.system = SystemKeys::Closed;
    }
}

#[cfg(test)]
mod tests {
    use super::super::Embedded;
    use super::super::atomic::APPLIED;
    use crate::kv::{Database, MutationType};

    /// The directory allocator's pattern: add to a counter, read it, again
    /// and again in one transaction. Each read costs one operation, not a
    /// replay of every add so far, which made creating many directories in
    /// one transaction quadratic.
    #[test]
    fn reading_after_each_atomic_add_replays_no_earlier_add() {
        let db = Embedded::memory();
        let mut setup = db.create_trx().unwrap();
        setup.set(b"n", &5u64.to_le_bytes()).unwrap();
        setup.commit().unwrap();
        const N: u64 = 2_000;
        let mut tx = db.create_trx().unwrap();
        APPLIED.with(|n| n.set(0));
        for i in 1..=N {
            tx.atomic_op(b"n", &1u64.to_le_bytes(), MutationType::Add)
                .unwrap();
            let v = tx.get(b"n", true).unwrap().unwrap();
            assert_eq!(u64::from_le_bytes(v.try_into().unwrap()), 5 + i);
        }
        let applied = APPLIED.with(|n| n.get());
        assert!(applied <= 2 * N as usize, "{applied} operations applied");
    }
}
