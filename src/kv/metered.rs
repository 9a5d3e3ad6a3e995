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
use std::time::{Duration, Instant};

use super::{
    Committed, Database, Error, Layer, LayeredDb, MakeLayer, MutationType, RangeOption,
    RangeResult, Result, Transaction, TransactionOption,
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
pub type Metered<D> = LayeredDb<D, Arc<dyn Meter>>;

impl<D: Database> Metered<D> {
    /// `inner`, reporting to `meter`.
    pub fn new(inner: D, meter: Arc<dyn Meter>) -> Metered<D> {
        LayeredDb::wrap(inner, meter)
    }
}

/// Each transaction reports to the meter, and asks for its conflicts.
impl MakeLayer for Arc<dyn Meter> {
    type Layer = MeteredTx;

    fn layer(&self, tx: &mut dyn Transaction) -> Result<MeteredTx> {
        tx.set_option(TransactionOption::ReportConflictingKeys)?;
        self.transaction();
        Ok(MeteredTx {
            meter: self.clone(),
        })
    }
}

/// The layer of a [`Metered`] transaction.
pub struct MeteredTx {
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

// An estimate reads no key-value, so it is passed on unmetered: no
// statement's figures change.
impl Layer for MeteredTx {
    fn get(
        &mut self,
        tx: &mut dyn Transaction,
        key: &[u8],
        snapshot: bool,
    ) -> Result<Option<Vec<u8>>> {
        let began = Instant::now();
        let value = tx.get(key, snapshot)?;
        self.meter.get(key, value.as_deref(), began.elapsed());
        Ok(value)
    }

    fn get_range(
        &mut self,
        tx: &mut dyn Transaction,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult> {
        let began = Instant::now();
        let batch = tx.get_range(range, iteration, snapshot)?;
        self.meter.range(range, &batch, began.elapsed());
        Ok(batch)
    }

    fn set(&mut self, tx: &mut dyn Transaction, key: &[u8], value: &[u8]) -> Result<()> {
        let done = tx.set(key, value);
        self.wrote(key.len() + value.len(), done)
    }

    fn clear(&mut self, tx: &mut dyn Transaction, key: &[u8]) -> Result<()> {
        let done = tx.clear(key);
        self.wrote(key.len(), done)
    }

    fn clear_range(&mut self, tx: &mut dyn Transaction, begin: &[u8], end: &[u8]) -> Result<()> {
        let done = tx.clear_range(begin, end);
        self.wrote(begin.len() + end.len(), done)
    }

    fn atomic_op(
        &mut self,
        tx: &mut dyn Transaction,
        key: &[u8],
        param: &[u8],
        op: MutationType,
    ) -> Result<()> {
        let done = tx.atomic_op(key, param, op);
        self.wrote(key.len() + param.len(), done)
    }

    /// A conflict's ranges are read at once, as only the failed attempt
    /// knows them; a backend that cannot read them reports none.
    fn commit(&mut self, tx: &mut dyn Transaction) -> Result<Committed> {
        let began = Instant::now();
        let done = tx.commit();
        self.meter.commit(began.elapsed());
        if let Err(e) = &done
            && e.code() == Error::NotCommitted.code()
        {
            let ranges = super::read_conflicting(tx).unwrap_or_default();
            self.meter.conflict(&ranges);
        }
        done
    }

    /// Counts a retry once the transaction has agreed to one, and asks
    /// the new attempt to report its conflicts too.
    fn on_error(&mut self, tx: &mut dyn Transaction, error: Error) -> Result<()> {
        tx.on_error(error.clone())?;
        self.meter.retry(&error);
        tx.set_option(TransactionOption::ReportConflictingKeys)
    }

    fn reset(&mut self, tx: &mut dyn Transaction) {
        tx.reset();
        // Every backend takes the option; one that refused it would only
        // report no conflicting range.
        let _ = tx.set_option(TransactionOption::ReportConflictingKeys);
    }
}
