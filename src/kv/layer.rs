//! One way to wrap a transaction: a [`Layer`] says what it changes, and
//! [`Layered`] passes everything else to the transaction below.
//!
//! Metering, observing, fault injection and the tests' hooks each change
//! a few of a transaction's operations and leave the rest alone. Written
//! as wrappers of their own, each forwards every method by hand, and a
//! new [`Transaction`] method has to be added to all of them. Here each
//! method has a default in [`Layer`] that calls the transaction below,
//! and [`Layered`] implements [`Transaction`] once, for every layer: a new
//! method is added to the trait, to `Layer` and `Layered` here, and to the
//! backends, and no wrapper changes.
//!
//! A layer's methods take the transaction below as their first argument
//! rather than holding it, so that the layer's own state and that
//! transaction borrow apart (a layer can time a call to the transaction
//! below and write to its own fields meanwhile). Most layers check
//! something and then forward: [`Layer::before`] sees every operation
//! first, so those need no method of their own.
//!
//! On the database side, [`LayeredDb`] gives each transaction of the
//! database below a layer made by a [`MakeLayer`], so no wrapper writes
//! [`Database::create_trx`] or [`Database::describe`] either.

use std::ops::DerefMut;
use std::time::SystemTime;

use super::{
    CommitStatus, Committed, ConflictRangeType, Database, Error, IdempotencyId, MutationType,
    RangeOption, RangeResult, Result, Transaction, TransactionOption, Watch,
};

/// An operation about to reach a [`Layered`] transaction, for
/// [`Layer::before`]: each variant is the [`Transaction`] method of its
/// name, its fields that method's arguments.
///
/// New operations come with new methods, so a `match` outside this crate
/// needs a `_` arm.
#[allow(missing_docs)] // the fields are the arguments of the methods, documented there
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Op<'a> {
    /// [`Transaction::read_version`].
    ReadVersion,
    /// [`Transaction::set_read_version`].
    SetReadVersion(u64),
    /// [`Transaction::version_now`].
    VersionNow,
    /// [`Transaction::get`].
    Get { key: &'a [u8], snapshot: bool },
    /// [`Transaction::get_range`].
    GetRange {
        range: &'a RangeOption,
        iteration: usize,
        snapshot: bool,
    },
    /// [`Transaction::estimated_range_size`].
    EstimatedRangeSize { begin: &'a [u8], end: &'a [u8] },
    /// [`Transaction::set`].
    Set { key: &'a [u8], value: &'a [u8] },
    /// [`Transaction::clear`].
    Clear { key: &'a [u8] },
    /// [`Transaction::clear_range`].
    ClearRange { begin: &'a [u8], end: &'a [u8] },
    /// [`Transaction::atomic_op`].
    AtomicOp {
        key: &'a [u8],
        param: &'a [u8],
        op: MutationType,
    },
    /// [`Transaction::add_conflict_range`].
    AddConflictRange {
        begin: &'a [u8],
        end: &'a [u8],
        ty: ConflictRangeType,
    },
    /// [`Transaction::set_option`].
    SetOption(TransactionOption),
    /// [`Transaction::watch`].
    Watch { key: &'a [u8] },
    /// [`Transaction::commit`].
    Commit,
    /// [`Transaction::on_error`].
    OnError(&'a Error),
    /// [`Transaction::commit_status`].
    CommitStatus {
        id: &'a IdempotencyId,
        since: SystemTime,
    },
}

/// What a wrapper changes about a transaction: one method for each of
/// [`Transaction`]'s, taking the transaction below first, each passing
/// the call down unless the layer overrides it.
///
/// [`Layered`] calls [`Layer::before`] and then the method, so a layer
/// that only checks (stops a transaction, stalls it, counts its reads)
/// overrides `before` alone.
pub trait Layer: Send {
    /// Sees every operation before it runs, whichever method the layer
    /// overrides; an error is the operation's, and the transaction
    /// below sees nothing of it. [`Transaction::reset`], which cannot
    /// fail, does not come through here.
    fn before(&mut self, _op: Op<'_>) -> Result<()> {
        Ok(())
    }

    /// [`Transaction::read_version`] on `tx`, the transaction below.
    fn read_version(&mut self, tx: &mut dyn Transaction) -> Result<u64> {
        tx.read_version()
    }

    /// [`Transaction::set_read_version`].
    fn set_read_version(&mut self, tx: &mut dyn Transaction, version: u64) -> Result<()> {
        tx.set_read_version(version)
    }

    /// [`Transaction::version_now`].
    fn version_now(&mut self, tx: &mut dyn Transaction) -> Result<u64> {
        tx.version_now()
    }

    /// [`Transaction::get`].
    fn get(
        &mut self,
        tx: &mut dyn Transaction,
        key: &[u8],
        snapshot: bool,
    ) -> Result<Option<Vec<u8>>> {
        tx.get(key, snapshot)
    }

    /// [`Transaction::get_range`].
    fn get_range(
        &mut self,
        tx: &mut dyn Transaction,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult> {
        tx.get_range(range, iteration, snapshot)
    }

    /// [`Transaction::estimated_range_size`].
    fn estimated_range_size(
        &mut self,
        tx: &mut dyn Transaction,
        begin: &[u8],
        end: &[u8],
    ) -> Result<u64> {
        tx.estimated_range_size(begin, end)
    }

    /// [`Transaction::set`].
    fn set(&mut self, tx: &mut dyn Transaction, key: &[u8], value: &[u8]) -> Result<()> {
        tx.set(key, value)
    }

    /// [`Transaction::clear`].
    fn clear(&mut self, tx: &mut dyn Transaction, key: &[u8]) -> Result<()> {
        tx.clear(key)
    }

    /// [`Transaction::clear_range`].
    fn clear_range(&mut self, tx: &mut dyn Transaction, begin: &[u8], end: &[u8]) -> Result<()> {
        tx.clear_range(begin, end)
    }

    /// [`Transaction::atomic_op`].
    fn atomic_op(
        &mut self,
        tx: &mut dyn Transaction,
        key: &[u8],
        param: &[u8],
        op: MutationType,
    ) -> Result<()> {
        tx.atomic_op(key, param, op)
    }

    /// [`Transaction::add_conflict_range`].
    fn add_conflict_range(
        &mut self,
        tx: &mut dyn Transaction,
        begin: &[u8],
        end: &[u8],
        ty: ConflictRangeType,
    ) -> Result<()> {
        tx.add_conflict_range(begin, end, ty)
    }

    /// [`Transaction::set_option`].
    fn set_option(&mut self, tx: &mut dyn Transaction, option: TransactionOption) -> Result<()> {
        tx.set_option(option)
    }

    /// [`Transaction::watch`].
    fn watch(&mut self, tx: &mut dyn Transaction, key: &[u8]) -> Result<Watch> {
        tx.watch(key)
    }

    /// [`Transaction::commit`].
    fn commit(&mut self, tx: &mut dyn Transaction) -> Result<Committed> {
        tx.commit()
    }

    /// [`Transaction::on_error`].
    fn on_error(&mut self, tx: &mut dyn Transaction, error: Error) -> Result<()> {
        tx.on_error(error)
    }

    /// [`Transaction::reset`].
    fn reset(&mut self, tx: &mut dyn Transaction) {
        tx.reset()
    }

    /// [`Transaction::commit_status`].
    fn commit_status(
        &mut self,
        tx: &mut dyn Transaction,
        id: &IdempotencyId,
        since: SystemTime,
    ) -> Result<CommitStatus> {
        tx.commit_status(id, since)
    }
}

/// The layer that changes nothing, for a [`LayeredDb`] that only acts
/// when a transaction is made.
impl Layer for () {}

/// A transaction, `below`, seen through a layer.
///
/// `below` is boxed for a transaction of its own, or borrowed
/// (`&mut dyn Transaction`) to layer one that a caller lends for the
/// length of a call.
pub struct Layered<L, T = Box<dyn Transaction>> {
    below: T,
    layer: L,
}

impl<L, T> Layered<L, T> {
    /// `below`, through `layer`.
    pub fn new(below: T, layer: L) -> Layered<L, T> {
        Layered { below, layer }
    }
}

impl<'a, L, T> Transaction for Layered<L, T>
where
    L: Layer,
    T: DerefMut<Target = dyn Transaction + 'a> + Send,
{
    fn read_version(&mut self) -> Result<u64> {
        self.layer.before(Op::ReadVersion)?;
        self.layer.read_version(&mut *self.below)
    }

    fn set_read_version(&mut self, version: u64) -> Result<()> {
        self.layer.before(Op::SetReadVersion(version))?;
        self.layer.set_read_version(&mut *self.below, version)
    }

    fn version_now(&mut self) -> Result<u64> {
        self.layer.before(Op::VersionNow)?;
        self.layer.version_now(&mut *self.below)
    }

    fn get(&mut self, key: &[u8], snapshot: bool) -> Result<Option<Vec<u8>>> {
        self.layer.before(Op::Get { key, snapshot })?;
        self.layer.get(&mut *self.below, key, snapshot)
    }

    fn get_range(
        &mut self,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult> {
        self.layer.before(Op::GetRange {
            range,
            iteration,
            snapshot,
        })?;
        self.layer
            .get_range(&mut *self.below, range, iteration, snapshot)
    }

    fn estimated_range_size(&mut self, begin: &[u8], end: &[u8]) -> Result<u64> {
        self.layer.before(Op::EstimatedRangeSize { begin, end })?;
        self.layer
            .estimated_range_size(&mut *self.below, begin, end)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.layer.before(Op::Set { key, value })?;
        self.layer.set(&mut *self.below, key, value)
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        self.layer.before(Op::Clear { key })?;
        self.layer.clear(&mut *self.below, key)
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        self.layer.before(Op::ClearRange { begin, end })?;
        self.layer.clear_range(&mut *self.below, begin, end)
    }

    fn atomic_op(&mut self, key: &[u8], param: &[u8], op: MutationType) -> Result<()> {
        self.layer.before(Op::AtomicOp { key, param, op })?;
        self.layer.atomic_op(&mut *self.below, key, param, op)
    }

    fn add_conflict_range(
        &mut self,
        begin: &[u8],
        end: &[u8],
        ty: ConflictRangeType,
    ) -> Result<()> {
        self.layer.before(Op::AddConflictRange { begin, end, ty })?;
        self.layer
            .add_conflict_range(&mut *self.below, begin, end, ty)
    }

    fn set_option(&mut self, option: TransactionOption) -> Result<()> {
        self.layer.before(Op::SetOption(option))?;
        self.layer.set_option(&mut *self.below, option)
    }

    fn watch(&mut self, key: &[u8]) -> Result<Watch> {
        self.layer.before(Op::Watch { key })?;
        self.layer.watch(&mut *self.below, key)
    }

    fn commit(&mut self) -> Result<Committed> {
        self.layer.before(Op::Commit)?;
        self.layer.commit(&mut *self.below)
    }

    fn on_error(&mut self, error: Error) -> Result<()> {
        self.layer.before(Op::OnError(&error))?;
        self.layer.on_error(&mut *self.below, error)
    }

    fn reset(&mut self) {
        self.layer.reset(&mut *self.below)
    }

    fn commit_status(&mut self, id: &IdempotencyId, since: SystemTime) -> Result<CommitStatus> {
        self.layer.before(Op::CommitStatus { id, since })?;
        self.layer.commit_status(&mut *self.below, id, since)
    }
}

/// What a [`LayeredDb`] does when it makes a transaction: the layer the
/// transaction gets, and what to check first.
pub trait MakeLayer: Send + Sync {
    /// The layer of each transaction.
    type Layer: Layer + 'static;

    /// Runs before the database below is asked for a transaction; an
    /// error is [`Database::create_trx`]'s, and the database below makes
    /// none.
    fn before_create(&self) -> Result<()> {
        Ok(())
    }

    /// The layer of `tx`, a new transaction of the database below, which
    /// it may prepare (set an option on it) first.
    fn layer(&self, tx: &mut dyn Transaction) -> Result<Self::Layer>;

    /// [`Database::describe`], given the database below's description.
    fn describe(&self, below: String) -> String {
        below
    }
}

/// A database, `below`, whose every transaction comes through a layer.
pub struct LayeredDb<D, M> {
    below: D,
    make: M,
}

impl<D, M> LayeredDb<D, M> {
    /// `below`, with each transaction layered as `make` says.
    pub fn wrap(below: D, make: M) -> LayeredDb<D, M> {
        LayeredDb { below, make }
    }

    /// The database below.
    pub fn below(&self) -> &D {
        &self.below
    }

    /// What makes the layers.
    pub fn make(&self) -> &M {
        &self.make
    }
}

impl<D: Database, M: MakeLayer> Database for LayeredDb<D, M> {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        self.make.before_create()?;
        let mut tx = self.below.create_trx()?;
        let layer = self.make.layer(&mut *tx)?;
        Ok(Box::new(Layered::new(tx, layer)))
    }

    fn describe(&self) -> String {
        self.make.describe(self.below.describe())
    }

    /// A layer changes how transactions are made, not how long one may
    /// live: the window is the database's below.
    fn window(&self) -> std::time::Duration {
        self.below.window()
    }
}

/// A [`MakeLayer`] from a function of the new transaction, for a
/// wrapper that needs no check before one is made and keeps the
/// description: see [`layer_fn`].
#[derive(Clone)]
pub struct LayerFn<F>(F);

/// `make` as a [`MakeLayer`]: `LayeredDb::wrap(db, layer_fn(|_| Ok(())))`
/// makes transactions as `db` does, through a layer that changes nothing.
pub fn layer_fn<F, L>(make: F) -> LayerFn<F>
where
    F: Fn(&mut dyn Transaction) -> Result<L> + Send + Sync,
    L: Layer + 'static,
{
    LayerFn(make)
}

impl<F, L> MakeLayer for LayerFn<F>
where
    F: Fn(&mut dyn Transaction) -> Result<L> + Send + Sync,
    L: Layer + 'static,
{
    type Layer = L;

    fn layer(&self, tx: &mut dyn Transaction) -> Result<L> {
        (self.0)(tx)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::kv::DatabaseExt;
    use crate::kv::embedded::Embedded;

    /// Refuses writes, counts point reads, passes the rest.
    struct ReadOnly {
        gets: Arc<AtomicUsize>,
    }

    impl Layer for ReadOnly {
        fn before(&mut self, op: Op<'_>) -> Result<()> {
            match op {
                Op::Set { .. } | Op::Clear { .. } => Err(Error::TransactionCancelled),
                _ => Ok(()),
            }
        }

        fn get(
            &mut self,
            tx: &mut dyn Transaction,
            key: &[u8],
            snapshot: bool,
        ) -> Result<Option<Vec<u8>>> {
            self.gets.fetch_add(1, Ordering::Relaxed);
            tx.get(key, snapshot)
        }
    }

    /// `before` stops an operation before the transaction below sees it,
    /// an overridden method runs after `before`, and the rest pass.
    #[test]
    fn a_layer_changes_only_what_it_overrides() {
        let db = Embedded::memory();
        db.run(|tx, _| tx.set(b"a", b"1")).unwrap();
        let gets = Arc::new(AtomicUsize::new(0));
        let layered = LayeredDb::wrap(
            db.clone(),
            layer_fn(|_| Ok(ReadOnly { gets: gets.clone() })),
        );
        let mut tx = layered.create_trx().unwrap();
        assert_eq!(tx.get(b"a", false).unwrap(), Some(b"1".to_vec()));
        assert_eq!(tx.set(b"b", b"2"), Err(Error::TransactionCancelled));
        tx.atomic_op(b"c", &[1], MutationType::Add).unwrap();
        tx.commit().unwrap();
        assert_eq!(gets.load(Ordering::Relaxed), 1);
        assert_eq!(db.run(|tx, _| tx.get(b"b", false)).unwrap(), None);
        assert_eq!(db.run(|tx, _| tx.get(b"c", false)).unwrap(), Some(vec![1]));
        assert_eq!(layered.describe(), db.describe());
    }

    /// A borrowed transaction is layered for the length of a call, and
    /// the caller's transaction goes on after it.
    #[test]
    fn a_borrowed_transaction_is_layered_too() {
        let db = Embedded::memory();
        let gets = Arc::new(AtomicUsize::new(0));
        let mut tx = db.create_trx().unwrap();
        {
            let mut layered = Layered::new(&mut *tx, ReadOnly { gets: gets.clone() });
            assert_eq!(layered.get(b"a", false).unwrap(), None);
            assert!(layered.clear(b"a").is_err());
        }
        tx.set(b"a", b"1").unwrap();
        tx.commit().unwrap();
        assert_eq!(gets.load(Ordering::Relaxed), 1);
    }

    /// A check before a transaction is made leaves the database below
    /// alone; the layer may set options on the new transaction.
    #[test]
    fn making_a_transaction_can_be_refused() {
        struct Closed;
        impl MakeLayer for Closed {
            type Layer = ();
            fn before_create(&self) -> Result<()> {
                Err(Error::TransactionCancelled)
            }
            fn layer(&self, _: &mut dyn Transaction) -> Result<()> {
                Ok(())
            }
            fn describe(&self, below: String) -> String {
                format!("{below}, closed")
            }
        }
        let db = LayeredDb::wrap(Embedded::memory(), Closed);
        assert!(matches!(db.create_trx(), Err(Error::TransactionCancelled)));
        assert_eq!(db.describe(), "embedded in-memory database, closed");
    }
}
