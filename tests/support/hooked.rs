//! A real database whose transactions run a hook before every read and
//! write, to make one fail or stall as on a busy or slow cluster: the
//! retry loops, timeouts and windows under test are the real ones.

#![allow(dead_code)]

use std::sync::Arc;

use fql::kv::{
    Committed, ConflictRangeType, Database, MutationType, RangeOption, RangeResult, Result,
    Transaction, TransactionOption, Watch,
};

/// What a transaction is about to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
}

/// Called with the operation and its key (the first key of a range)
/// before the operation; an error is the operation's.
pub type Hook = Arc<dyn Fn(Op, &[u8]) -> Result<()> + Send + Sync>;

/// `inner`, with `hook` before every read and write of every transaction.
pub fn hooked(inner: Arc<dyn Database>, hook: Hook) -> Arc<dyn Database> {
    Arc::new(Hooked { inner, hook })
}

/// FDB's `process_behind` (1037): retryable, as a lagging cluster gives it.
pub fn process_behind() -> fql::kv::Error {
    fql::kv::Error::Fdb {
        code: 1037,
        message: "process_behind".into(),
    }
}

struct Hooked {
    inner: Arc<dyn Database>,
    hook: Hook,
}

impl Database for Hooked {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        Ok(Box::new(HookedTx {
            inner: self.inner.create_trx()?,
            hook: self.hook.clone(),
        }))
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn window(&self) -> std::time::Duration {
        self.inner.window()
    }
}

struct HookedTx {
    inner: Box<dyn Transaction>,
    hook: Hook,
}

impl Transaction for HookedTx {
    fn read_version(&mut self) -> Result<u64> {
        self.inner.read_version()
    }

    fn version_now(&mut self) -> Result<u64> {
        self.inner.version_now()
    }

    fn get(&mut self, key: &[u8], snapshot: bool) -> Result<Option<Vec<u8>>> {
        (self.hook)(Op::Read, key)?;
        self.inner.get(key, snapshot)
    }

    fn estimated_range_size(&mut self, begin: &[u8], end: &[u8]) -> Result<u64> {
        (self.hook)(Op::Read, begin)?;
        self.inner.estimated_range_size(begin, end)
    }

    fn get_range(
        &mut self,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult> {
        (self.hook)(Op::Read, &range.begin)?;
        self.inner.get_range(range, iteration, snapshot)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        (self.hook)(Op::Write, key)?;
        self.inner.set(key, value)
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        (self.hook)(Op::Write, key)?;
        self.inner.clear(key)
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        (self.hook)(Op::Write, begin)?;
        self.inner.clear_range(begin, end)
    }

    fn atomic_op(&mut self, key: &[u8], param: &[u8], op: MutationType) -> Result<()> {
        (self.hook)(Op::Write, key)?;
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
        self.inner.commit()
    }

    fn on_error(&mut self, error: fql::kv::Error) -> Result<()> {
        self.inner.on_error(error)
    }

    fn reset(&mut self) {
        self.inner.reset()
    }

    fn commit_status(
        &mut self,
        id: &fql::kv::IdempotencyId,
        since: std::time::SystemTime,
    ) -> Result<fql::kv::CommitStatus> {
        self.inner.commit_status(id, since)
    }
}
