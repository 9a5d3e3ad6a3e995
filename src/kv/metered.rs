//! A database whose every read, write, commit and retry is reported to a
//! [`Meter`], with the time the database took: what `fql explain
//! --analyze` measures a script by.
//!
//! The meter sees the operations as the database gets them, so what it
//! counts is what was really sent, whatever the layers above do to avoid
//! reads (a cache of directory prefixes reads less, and the meter counts
//! less). Nothing is metered unless a database is wrapped: a run that is
//! not analyzed pays nothing.
//!
//! Each transaction asks for its conflicts to be reported
//! ([`TransactionOption::ReportConflictingKeys`], set again on every
//! attempt), and a commit that fails with `not_committed` reads the
//! conflicting keys before the retry forgets them.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::{
    CommitStatus, Committed, ConflictRangeType, Database, Error, IdempotencyId, MutationType,
    RangeOption, RangeResult, Result, Transaction, TransactionOption, Watch,
};

/// What a [`Metered`] database reports to, from the thread that runs its
/// transactions.
pub trait Meter: Send + Sync {
    /// A transaction was created; the operations that follow are its.
    fn transaction(&self);

    /// A point read of `key` that found `value`, taking `took`.
    fn get(&self, key: &[u8], value: Option<&[u8]>, took: Duration);

    /// One batch of a range read of `range`, taking `took`.
    fn range(&self, range: &RangeOption, batch: &RangeResult, took: Duration);

    /// A write of `bytes` bytes of keys and values (a set, a clear, an
    /// atomic operation, a range clear), buffered until the commit.
    fn write(&self, bytes: usize);

    /// A commit that succeeded or failed, taking `took`.
    fn commit(&self, took: Duration);

    /// The transaction agreed to be retried after `error`.
    fn retry(&self, error: &Error);

    /// A commit failed with `not_committed`, because of a write to
    /// `ranges`: the read ranges the backend reported (FDB's conflicting
    /// keys), none if it reported none. Comes before the retry.
    fn conflict(&self, ranges: &[(Vec<u8>, Vec<u8>)]);
}

/// `D`, with every transaction reported to a [`Meter`].
pub struct Metered<D> {
    inner: D,
    meter: Arc<dyn Meter>,
}

impl<D: Database> Metered<D> {
    /// `inner`, reporting to `meter`.
    pub fn new(inner: D, meter: Arc<dyn Meter>) -> Metered<D> {
        Metered { inner, meter }
    }
}

impl<D: Database> Database for Metered<D> {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        let mut inner = self.inner.create_trx()?;
        inner.set_option(TransactionOption::ReportConflictingKeys)?;
        self.meter.transaction();
        Ok(Box::new(MeteredTx {
            inner,
            meter: self.meter.clone(),
        }))
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn window(&self) -> Duration {
        self.inner.window()
    }
}

struct MeteredTx {
    inner: Box<dyn Transaction>,
    meter: Arc<dyn Meter>,
}

impl MeteredTx {
    fn wrote<T>(&self, bytes: usize, result: Result<T>) -> Result<T> {
        if result.is_ok() {
            self.meter.write(bytes);
        }
        result
    }
}

impl Transaction for MeteredTx {
    fn read_version(&mut self) -> Result<u64> {
        self.inner.read_version()
    }

    fn version_now(&mut self) -> Result<u64> {
        self.inner.version_now()
    }

    fn get(&mut self, key: &[u8], snapshot: bool) -> Result<Option<Vec<u8>>> {
        let began = Instant::now();
        let value = self.inner.get(key, snapshot)?;
        self.meter.get(key, value.as_deref(), began.elapsed());
        Ok(value)
    }

    fn get_range(
        &mut self,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult> {
        let began = Instant::now();
        let batch = self.inner.get_range(range, iteration, snapshot)?;
        self.meter.range(range, &batch, began.elapsed());
        Ok(batch)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let done = self.inner.set(key, value);
        self.wrote(key.len() + value.len(), done)
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        let done = self.inner.clear(key);
        self.wrote(key.len(), done)
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        let done = self.inner.clear_range(begin, end);
        self.wrote(begin.len() + end.len(), done)
    }

    fn atomic_op(&mut self, key: &[u8], param: &[u8], op: MutationType) -> Result<()> {
        let done = self.inner.atomic_op(key, param, op);
        self.wrote(key.len() + param.len(), done)
    }

    fn add_conflict_range(
        &mut self,
        begin: &[u8],
        end: &[u8],
        ty: ConflictRangeType,
    ) -> Result<()> {
        self.inner.add_conflict_range(begin, end, ty)
    }

    fn set_option(&mut self, option: TransactionOption) -> Result<()> {
        self.inner.set_option(option)
    }

    fn watch(&mut self, key: &[u8]) -> Result<Watch> {
        self.inner.watch(key)
    }

    // An estimate reads no key-value: no statement's figures change.
    fn estimated_range_size(&mut self, begin: &[u8], end: &[u8]) -> Result<u64> {
        self.inner.estimated_range_size(begin, end)
    }

    /// A conflict's ranges are read at once, as only the failed attempt
    /// knows them; a backend that cannot read them reports none.
    fn commit(&mut self) -> Result<Committed> {
        let began = Instant::now();
        let done = self.inner.commit();
        self.meter.commit(began.elapsed());
        if let Err(e) = &done
            && e.code() == Error::NotCommitted.code()
        {
            let ranges = super::read_conflicting(&mut *self.inner).unwrap_or_default();
            self.meter.conflict(&ranges);
        }
        done
    }

    /// Counts a retry once the transaction has agreed to one, and asks
    /// the new attempt to report its conflicts too.
    fn on_error(&mut self, error: Error) -> Result<()> {
        self.inner.on_error(error.clone())?;
        self.meter.retry(&error);
        self.inner
            .set_option(TransactionOption::ReportConflictingKeys)
    }

    fn reset(&mut self) {
        self.inner.reset();
        // Every backend takes the option; one that refused it would only
        // report no conflicting range.
        let _ = self
            .inner
            .set_option(TransactionOption::ReportConflictingKeys);
    }

    fn commit_status(&mut self, id: &IdempotencyId, since: SystemTime) -> Result<CommitStatus> {
        self.inner.commit_status(id, since)
    }
}
