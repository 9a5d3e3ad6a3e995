//! A real database whose transactions run a hook before every operation,
//! to make one fail, stall or be counted as on a busy or slow cluster:
//! the retry loops, timeouts and windows under test are the real ones.
//!
//! The tests' one wrapper of transactions: [`Hooked`], a layer that runs
//! its hook and passes every operation on.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use fql::kv::{Database, Layer, LayeredDb, Op, Result, layer_fn};

/// Called before each operation of a transaction; an error is the
/// operation's, and the transaction below sees nothing of it.
pub type Before = Arc<dyn Fn(Op<'_>) -> Result<()> + Send + Sync>;

/// The layer that runs a hook before every operation.
pub struct Hooked(pub Before);

impl Layer for Hooked {
    fn before(&mut self, op: Op<'_>) -> Result<()> {
        (self.0)(op)
    }
}

/// `inner`, with `before` before every operation of every transaction.
pub fn before_each(inner: Arc<dyn Database>, before: Before) -> Arc<dyn Database> {
    Arc::new(LayeredDb::wrap(
        inner,
        layer_fn(move |_| Ok(Hooked(before.clone()))),
    ))
}

/// A hook that counts the operations `which` picks, and the count.
pub fn counting(which: fn(Op<'_>) -> bool) -> (Before, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let counted = count.clone();
    let hook: Before = Arc::new(move |op: Op<'_>| {
        if which(op) {
            counted.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    });
    (hook, count)
}

/// A hook that counts the point reads: the directory layer's sequential
/// round trips.
pub fn counting_gets() -> (Before, Arc<AtomicUsize>) {
    counting(|op| matches!(op, Op::Get { .. }))
}

/// `inner`, counting in `count` the transactions made through it.
pub fn counting_transactions(
    inner: Arc<dyn Database>,
    count: Arc<AtomicUsize>,
) -> Arc<dyn Database> {
    Arc::new(LayeredDb::wrap(
        inner,
        layer_fn(move |_| {
            count.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }),
    ))
}

/// Whether an operation reads or writes a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// What `op` does to which key (the first key of a range): the reads of
/// keys (point, range, estimate) and the writes; `None` for the rest.
pub fn access(op: Op<'_>) -> Option<(Access, &[u8])> {
    match op {
        Op::Get { key, .. } | Op::EstimatedRangeSize { begin: key, .. } => {
            Some((Access::Read, key))
        }
        Op::GetRange { range, .. } => Some((Access::Read, &range.begin)),
        Op::Set { key, .. }
        | Op::Clear { key }
        | Op::ClearRange { begin: key, .. }
        | Op::AtomicOp { key, .. } => Some((Access::Write, key)),
        _ => None,
    }
}

/// Called with the access and its key before every read and write.
pub type Hook = Arc<dyn Fn(Access, &[u8]) -> Result<()> + Send + Sync>;

/// `inner`, with `hook` before every read and write of every transaction.
pub fn hooked(inner: Arc<dyn Database>, hook: Hook) -> Arc<dyn Database> {
    before_each(
        inner,
        Arc::new(move |op: Op<'_>| match access(op) {
            Some((access, key)) => hook(access, key),
            None => Ok(()),
        }),
    )
}

/// FDB's `process_behind` (1037): retryable, as a lagging cluster gives it.
pub fn process_behind() -> fql::kv::Error {
    fql::kv::Error::Fdb {
        code: 1037,
        message: "process_behind".into(),
    }
}
