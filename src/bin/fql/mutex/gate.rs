//! A database whose commits can be shut off, all but one thread's.
//!
//! A waiter stopped by a signal must leave the queue before it exits, and
//! nothing it is doing meanwhile may put it back: the thread that waits
//! in [`fql::mutex::Mutex::acquire`] could be about to commit an enqueue
//! that would land after the entry was cancelled, and be granted to a
//! dead client. Closing the gate waits for the commits in flight, then
//! holds every later commit of every other thread for good (the process
//! is about to end), so what the closing thread then cancels stays
//! cancelled. Reads, watches and retries pass: only a commit changes what
//! other clients see.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::ThreadId;
use std::time::{Instant, SystemTime};

use fql::kv::{
    CommitStatus, Committed, ConflictRangeType, Database, Error, IdempotencyId, MutationType,
    RangeOption, RangeResult, Result, Transaction, TransactionOption, Watch,
};

/// Whether commits may pass, and how many are in flight.
#[derive(Default)]
pub struct Gate {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// Once closed, the one thread whose commits still pass.
    closed_for: Option<ThreadId>,
    committing: usize,
}

impl Gate {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Holds the commits of every thread but this one from now on, and
    /// waits until those in flight have ended, or `deadline` has passed:
    /// `false` then, and one may still land.
    pub fn close(&self, deadline: Instant) -> bool {
        let mut state = self.state();
        state.closed_for = Some(std::thread::current().id());
        while state.committing > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// Waits while the gate is closed to this thread, then counts a
    /// commit in flight until [`Gate::leave`].
    fn enter(&self) {
        let me = std::thread::current().id();
        let mut state = self.state();
        while state.closed_for.is_some_and(|t| t != me) {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.committing += 1;
    }

    fn leave(&self) {
        self.state().committing -= 1;
        self.changed.notify_all();
    }
}

/// `inner`, with its commits passing through `gate`.
pub struct Gated {
    pub inner: Arc<dyn Database>,
    pub gate: Arc<Gate>,
}

impl Database for Gated {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        Ok(Box::new(GatedTx {
            inner: self.inner.create_trx()?,
            gate: self.gate.clone(),
        }))
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }
}

struct GatedTx {
    inner: Box<dyn Transaction>,
    gate: Arc<Gate>,
}

impl Transaction for GatedTx {
    fn read_version(&mut self) -> Result<u64> {
        self.inner.read_version()
    }

    fn get(&mut self, key: &[u8], snapshot: bool) -> Result<Option<Vec<u8>>> {
        self.inner.get(key, snapshot)
    }

    fn get_range(
        &mut self,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult> {
        self.inner.get_range(range, iteration, snapshot)
    }

    fn estimated_range_size(&mut self, begin: &[u8], end: &[u8]) -> Result<u64> {
        self.inner.estimated_range_size(begin, end)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.inner.set(key, value)
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        self.inner.clear(key)
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        self.inner.clear_range(begin, end)
    }

    fn atomic_op(&mut self, key: &[u8], param: &[u8], op: MutationType) -> Result<()> {
        self.inner.atomic_op(key, param, op)
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

    fn commit(&mut self) -> Result<Committed> {
        self.gate.enter();
        let committed = self.inner.commit();
        self.gate.leave();
        committed
    }

    fn on_error(&mut self, error: Error) -> Result<()> {
        self.inner.on_error(error)
    }

    fn reset(&mut self) {
        self.inner.reset()
    }

    fn commit_status(&mut self, id: &IdempotencyId, since: SystemTime) -> Result<CommitStatus> {
        self.inner.commit_status(id, since)
    }
}
