//! One FDB transaction behind the interface.
//!
//! The client's transaction is consumed by `commit` and `on_error` and
//! handed back afterwards, so the adapter keeps it in a small state
//! machine; when the client gives up on it (a retry limit, a timeout), the
//! adapter makes a new one at the next reset.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::SystemTime;

use foundationdb::future::FdbSlice;
use foundationdb::options::{self, TransactionOption as FdbOption};
use foundationdb::{FdbResult, KeySelector, TransactionCommitError, TransactionCommitted};
use futures_executor::block_on;

use super::error::{from_fdb, to_fdb};
use crate::kv::admit::{
    SPECIAL_KEYS, SystemKeys, Tally, Write, check_key, clears_a_storable_key, key_range_size,
    range_size, storable_bounds,
};
use crate::kv::{
    CONFLICTING_KEYS, CONFLICTING_KEYS_END, CommitStatus, Committed, ConflictRangeType, Error,
    IdempotencyId, KeyValue, Limits, MutationType, RangeOption, RangeResult, Result, StreamingMode,
    Transaction, TransactionOption, Watch, conflicting_rows, key_after,
};

/// Where the special keys end.
const SPECIAL_END: &[u8] = b"\xff\xff\xff";

/// Whether a write names a special key: the client's special key space
/// takes or refuses it (`special_key_space_enable_writes`), and its
/// modules judge it at commit, so no check of fql's comes first.
fn is_special(key: &[u8]) -> bool {
    SPECIAL_KEYS <= key && key < SPECIAL_END
}

type StampFuture = Pin<Box<dyn Future<Output = FdbResult<FdbSlice>> + Send>>;

enum State {
    Open(foundationdb::Transaction),
    Committed(TransactionCommitted),
    Failed(TransactionCommitError),
    /// The client kept the transaction when it refused a retry.
    Lost,
}

pub(super) struct FdbTx {
    db: Arc<foundationdb::Database>,
    state: State,
    limits: Limits,
    /// The writes, counted as the embedded backend counts them, so an
    /// over-size write fails at the call on both.
    tally: Tally,
    /// The read conflict ranges, each counted as it is added: FDB merges
    /// them and checks the whole size at commit, so this estimate (never
    /// below what FDB counts) only sizes the message of its error.
    reads: usize,
    no_conflict_next: bool,
    /// The system keys the options opened, for the checks made before
    /// a write reaches the client.
    system: SystemKeys,
    wrote: bool,
}

impl FdbTx {
    pub(super) fn new(db: Arc<foundationdb::Database>, limits: Limits) -> Result<Self> {
        let tx = db.create_trx().map_err(from_fdb)?;
        Ok(FdbTx {
            db,
            state: State::Open(tx),
            limits,
            tally: Tally::default(),
            reads: 0,
            no_conflict_next: false,
            system: SystemKeys::Closed,
            wrote: false,
        })
    }

    /// The client's transaction, if it can still be used.
    fn tx(&self) -> Result<&foundationdb::Transaction> {
        match &self.state {
            State::Open(tx) => Ok(tx),
            State::Committed(_) => Err(Error::InvalidOperation(
                "the transaction has committed; reset it to use it again".into(),
            )),
            State::Failed(e) => Err(from_fdb(**e)),
            State::Lost => Err(Error::InvalidOperation(
                "the transaction failed for good; reset it to use it again".into(),
            )),
        }
    }

    /// Checks a write against the limits, then hands it to the client. A
    /// write that fails its checks never reaches the client, so it dooms
    /// the commit here, as the client dooms it for the errors it defers.
    fn write(
        &mut self,
        write: Result<Write>,
        apply: impl FnOnce(&foundationdb::Transaction),
    ) -> Result<()> {
        self.tx()?;
        let admitted = write.and_then(|w| self.tally.admit(&self.limits, w, 0));
        if let Err(e) = &admitted {
            self.tally.poison(e.clone());
        }
        admitted?;
        apply(self.tx()?);
        self.wrote = true;
        Ok(())
    }

    /// Whether the next write adds a write conflict range: the option is
    /// the client's, and is used up by the next write.
    fn take_conflict(&mut self) -> bool {
        !std::mem::take(&mut self.no_conflict_next)
    }

    fn forget_writes(&mut self) {
        self.tally = Tally::default();
        self.reads = 0;
        self.no_conflict_next = false;
        self.wrote = false;
    }

    /// A commit error as the interface's error, with the sizes the client
    /// does not report.
    /// The conflicting keys in `[begin, end)` after a failed commit. FDB's
    /// client answers them from the failed transaction, which the crate
    /// keeps inside the commit's error and reads them through alone;
    /// `None` for any other read.
    fn conflicting(&self, begin: &[u8], end: &[u8]) -> Option<Result<Vec<KeyValue>>> {
        let State::Failed(failed) = &self.state else {
            return None;
        };
        if !(CONFLICTING_KEYS <= begin && begin < end && end <= CONFLICTING_KEYS_END) {
            return None;
        }
        let ranges = block_on(failed.conflicting_keys()).map_err(from_fdb);
        Some(ranges.map(|ranges| {
            let ranges: Vec<(Vec<u8>, Vec<u8>)> = ranges
                .iter()
                .map(|r| (r.begin().to_vec(), r.end().to_vec()))
                .collect();
            conflicting_rows(&ranges, begin, end)
        }))
    }

    fn commit_error(&self, code: i32) -> Error {
        match code {
            2101 => Error::TransactionTooLarge {
                size: self.tally.size() + self.reads,
                limit: self.limits.transaction,
            },
            _ => from_fdb(foundationdb::FdbError::from_code(code)),
        }
    }
}

fn selector(key: &[u8]) -> KeySelector<'_> {
    KeySelector::first_greater_or_equal(key)
}

fn mode(mode: StreamingMode) -> options::StreamingMode {
    match mode {
        StreamingMode::Iterator => options::StreamingMode::Iterator,
        StreamingMode::WantAll => options::StreamingMode::WantAll,
        StreamingMode::Exact => options::StreamingMode::Exact,
        StreamingMode::Small => options::StreamingMode::Small,
        StreamingMode::Medium => options::StreamingMode::Medium,
        StreamingMode::Large => options::StreamingMode::Large,
        StreamingMode::Serial => options::StreamingMode::Serial,
    }
}

fn mutation(op: MutationType) -> options::MutationType {
    match op {
        MutationType::Add => options::MutationType::Add,
        MutationType::BitAnd => options::MutationType::BitAnd,
        MutationType::BitOr => options::MutationType::BitOr,
        MutationType::BitXor => options::MutationType::BitXor,
        MutationType::AppendIfFits => options::MutationType::AppendIfFits,
        MutationType::Max => options::MutationType::Max,
        MutationType::Min => options::MutationType::Min,
        MutationType::ByteMin => options::MutationType::ByteMin,
        MutationType::ByteMax => options::MutationType::ByteMax,
        MutationType::SetVersionstampedKey => options::MutationType::SetVersionstampedKey,
        MutationType::SetVersionstampedValue => options::MutationType::SetVersionstampedValue,
        MutationType::CompareAndClear => options::MutationType::CompareAndClear,
    }
}

impl Transaction for FdbTx {
    fn read_version(&mut self) -> Result<u64> {
        let v = block_on(self.tx()?.get_read_version()).map_err(from_fdb)?;
        Ok(u64::try_from(v).unwrap_or_default())
    }

    /// The client's own: it defers a version already set, or invalid,
    /// to the next read, and the cluster answers too old or future
    /// versions there.
    fn set_read_version(&mut self, version: u64) -> Result<()> {
        let version = i64::try_from(version).map_err(|_| Error::from_code(2011))?;
        self.tx()?.set_read_version(version);
        Ok(())
    }

    /// A cluster's versions advance with time whether or not anything
    /// commits: the read version is the version now.
    fn version_now(&mut self) -> Result<u64> {
        self.read_version()
    }

    fn get(&mut self, key: &[u8], snapshot: bool) -> Result<Option<Vec<u8>>> {
        if let Some(rows) = self.conflicting(key, &key_after(key)) {
            return Ok(rows?.into_iter().next().map(|kv| kv.value));
        }
        let value = block_on(self.tx()?.get(key, snapshot)).map_err(from_fdb)?;
        if !snapshot {
            self.reads += key_range_size(key.len());
        }
        Ok(value.map(|v| v.to_vec()))
    }

    fn get_range(
        &mut self,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult> {
        // FDB reads a limit of 0 as "no limit".
        if range.limit == Some(0) {
            return Ok(RangeResult::default());
        }
        if let Some(rows) = self.conflicting(&range.begin, &range.end) {
            let mut kvs = rows?;
            if range.reverse {
                kvs.reverse();
            }
            kvs.truncate(range.limit.unwrap_or(usize::MAX));
            return Ok(RangeResult { kvs, more: false });
        }
        let opt = foundationdb::RangeOption {
            begin: selector(&range.begin),
            end: selector(&range.end),
            limit: range.limit,
            mode: mode(range.mode),
            reverse: range.reverse,
            ..Default::default()
        };
        let batch =
            block_on(self.tx()?.get_range(&opt, iteration.max(1), snapshot)).map_err(from_fdb)?;
        if !snapshot && range.begin < range.end {
            self.reads += range_size(range.begin.len(), range.end.len());
        }
        Ok(RangeResult {
            more: batch.more(),
            kvs: batch
                .iter()
                .map(|kv| KeyValue {
                    key: kv.key().to_vec(),
                    value: kv.value().to_vec(),
                })
                .collect(),
        })
    }

    /// FDB's own estimate, from its storage servers' byte samples. The
    /// bounds are checked first, as the embedded store checks them, so
    /// both backends refuse the same ranges.
    fn estimated_range_size(&mut self, begin: &[u8], end: &[u8]) -> Result<u64> {
        if begin > end {
            return Err(Error::InvertedRange);
        }
        self.system.check_read(begin, end)?;
        let size =
            block_on(self.tx()?.get_estimated_range_size_bytes(begin, end)).map_err(from_fdb)?;
        Ok(u64::try_from(size).unwrap_or_default())
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        if is_special(key) {
            self.tx()?.set(key, value);
            return Ok(());
        }
        let conflict = self.take_conflict();
        let write = self
            .system
            .check_set(key)
            .map(|()| Write::set(key, value, conflict));
        self.write(write, |tx| tx.set(key, value))
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        if is_special(key) {
            self.tx()?.clear(key);
            return Ok(());
        }
        let conflict = self.take_conflict();
        let legal = self.system.check_write(key);
        if legal.is_ok() && !clears_a_storable_key(key, self.limits.key) {
            // FDB drops it too; the size check below would refuse it.
            return Ok(());
        }
        let write = legal.map(|()| Write::clear(key, conflict));
        self.write(write, |tx| tx.clear(key))
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        if begin <= end && is_special(begin) && end <= SPECIAL_END {
            self.tx()?.clear_range(begin, end);
            return Ok(());
        }
        let conflict = self.take_conflict();
        let system = self.system;
        let (begin, end) = match system.check_clear(begin, end) {
            Ok(()) => storable_bounds(begin, end, self.limits.key),
            Err(_) => (begin, end),
        };
        let write = system
            .check_clear(begin, end)
            .map(|()| Write::clear_range(begin, end, conflict));
        self.write(write, |tx| {
            if begin < end {
                tx.clear_range(begin, end)
            }
        })
    }

    fn atomic_op(&mut self, key: &[u8], param: &[u8], op: MutationType) -> Result<()> {
        let conflict = self.take_conflict();
        let write = Write::atomic(key, param, op, conflict, self.system);
        self.write(write, |tx| tx.atomic_op(key, param, mutation(op)))
    }

    fn add_conflict_range(
        &mut self,
        begin: &[u8],
        end: &[u8],
        ty: ConflictRangeType,
    ) -> Result<()> {
        let read = ty == ConflictRangeType::Read;
        self.system.check_conflict(begin, end, read)?;
        let fdb_ty = match ty {
            ConflictRangeType::Read => options::ConflictRangeType::Read,
            ConflictRangeType::Write => options::ConflictRangeType::Write,
        };
        self.tx()?
            .add_conflict_range(begin, end, fdb_ty)
            .map_err(from_fdb)?;
        match ty {
            ConflictRangeType::Write => self.tally.add_write_conflict(begin, end),
            ConflictRangeType::Read if begin < end => {
                self.reads += range_size(begin.len(), end.len());
            }
            ConflictRangeType::Read => {}
        }
        Ok(())
    }

    fn set_option(&mut self, option: TransactionOption) -> Result<()> {
        let option = match option {
            TransactionOption::NextWriteNoWriteConflictRange => {
                self.no_conflict_next = true;
                FdbOption::NextWriteNoWriteConflictRange
            }
            TransactionOption::Timeout(ms) => {
                FdbOption::Timeout(i32::try_from(ms).unwrap_or(i32::MAX))
            }
            TransactionOption::RetryLimit(n) => {
                FdbOption::RetryLimit(i32::try_from(n.max(-1)).unwrap_or(i32::MAX))
            }
            // FDB 7.3's idempotency ids are a feature "in development and
            // not ready for general use": fql records none on a cluster,
            // and `commit_status` answers unknown.
            TransactionOption::IdempotencyId(_) => return Ok(()),
            TransactionOption::ReadSystemKeys => {
                self.system = self.system.max(SystemKeys::Read);
                FdbOption::ReadSystemKeys
            }
            TransactionOption::AccessSystemKeys => {
                self.system = SystemKeys::Access;
                FdbOption::AccessSystemKeys
            }
            TransactionOption::ReportConflictingKeys => FdbOption::ReportConflictingKeys,
            TransactionOption::ReadYourWritesDisable => FdbOption::ReadYourWritesDisable,
            TransactionOption::SnapshotRywEnable => FdbOption::SnapshotRywEnable,
            TransactionOption::SnapshotRywDisable => FdbOption::SnapshotRywDisable,
            TransactionOption::SpecialKeySpaceEnableWrites => {
                FdbOption::SpecialKeySpaceEnableWrites
            }
        };
        self.tx()?.set_option(option).map_err(from_fdb)
    }

    fn watch(&mut self, key: &[u8]) -> Result<Watch> {
        check_key(key)?;
        // The client reads the key, with a conflict.
        self.reads += key_range_size(key.len());
        let fired = self.tx()?.watch(key);
        Ok(Watch::new(async move { fired.await.map_err(from_fdb) }))
    }

    fn commit(&mut self) -> Result<Committed> {
        // The reads are FDB's to count: it checks the whole size itself.
        if let Some(e) = self.tally.doom(&self.limits, 0) {
            return Err(e);
        }
        self.tx()?;
        let State::Open(tx) = std::mem::replace(&mut self.state, State::Lost) else {
            unreachable!("tx() checked the state")
        };
        // Asked before the commit; it resolves once the commit is done.
        let stamp: Option<StampFuture> = self.wrote.then(|| Box::pin(tx.get_versionstamp()) as _);
        match block_on(tx.commit()) {
            Ok(done) => {
                let version = done.committed_version().map_err(from_fdb)?;
                self.state = State::Committed(done);
                let version = u64::try_from(version).ok();
                let versionstamp = match (version, stamp) {
                    (Some(_), Some(stamp)) => {
                        let bytes = block_on(stamp).map_err(from_fdb)?;
                        <[u8; 10]>::try_from(&bytes[..]).ok()
                    }
                    _ => None,
                };
                Ok(Committed {
                    version,
                    versionstamp,
                })
            }
            Err(failed) => {
                let err = self.commit_error(failed.code());
                self.state = State::Failed(failed);
                Err(err)
            }
        }
    }

    /// Hands any FDB error to the client's `on_error`, which decides
    /// whether to retry (and how long to back off); fql's own errors,
    /// which FDB never gave, end the transaction.
    fn on_error(&mut self, error: Error) -> Result<()> {
        if !error.is_fdb() {
            return Err(error);
        }
        let retried = match std::mem::replace(&mut self.state, State::Lost) {
            State::Open(tx) => block_on(tx.on_error(to_fdb(&error))),
            State::Failed(failed) if failed.code() == error.code() => block_on(failed.on_error()),
            State::Failed(failed) => block_on(failed.reset().on_error(to_fdb(&error))),
            State::Committed(done) => block_on(done.reset().on_error(to_fdb(&error))),
            State::Lost => return Err(error),
        };
        self.forget_writes();
        let tx = retried.map_err(from_fdb)?;
        self.state = State::Open(tx);
        Ok(())
    }

    /// No ids are recorded on a cluster (see `set_option`), so a commit
    /// that failed with a maybe-committed error stays unknown.
    fn commit_status(&mut self, _: &IdempotencyId, _: SystemTime) -> Result<CommitStatus> {
        Ok(CommitStatus::Unknown)
    }

    fn reset(&mut self) {
        self.forget_writes();
        self.system = SystemKeys::Closed;
        self.state = match std::mem::replace(&mut self.state, State::Lost) {
            State::Open(mut tx) => {
                tx.reset();
                State::Open(tx)
            }
            State::Committed(done) => State::Open(done.reset()),
            State::Failed(failed) => State::Open(failed.reset()),
            State::Lost => match self.db.create_trx() {
                Ok(tx) => State::Open(tx),
                Err(_) => State::Lost,
            },
        };
    }
}
