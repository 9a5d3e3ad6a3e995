//! A directory's prefix presented as a whole keyspace, as an FDB tenant
//! would be: every key is the prefix plus the key the caller gave, and
//! results come back without it.
//!
//! The suite runs on a shared cluster inside a fresh directory; this view
//! lets the same cases, with the same literal keys, run there unchanged.
//! It keeps the rules of a whole keyspace (no key from `0xff`, ranges end
//! at `0xff`), and reports size errors relative to the view, whose key limit
//! is the prefix's length smaller.

use std::sync::Arc;
use std::time::SystemTime;

use fql::kv::{
    self, CommitStatus, Committed, ConflictRangeType, Database, Error, IdempotencyId, MutationType,
    RangeOption, RangeResult, Transaction, TransactionOption, Watch, check_key, check_range,
    check_read_range,
};

/// The keys under `prefix` of `inner`, as a database of their own.
pub struct Scoped {
    inner: Arc<dyn Database>,
    prefix: Arc<[u8]>,
}

impl Scoped {
    pub fn new(inner: Arc<dyn Database>, prefix: &[u8]) -> Scoped {
        Scoped {
            inner,
            prefix: prefix.into(),
        }
    }
}

impl Database for Scoped {
    fn create_trx(&self) -> kv::Result<Box<dyn Transaction>> {
        Ok(Box::new(ScopedTx {
            tx: self.inner.create_trx()?,
            prefix: self.prefix.clone(),
            doomed: None,
        }))
    }

    fn describe(&self) -> String {
        format!(
            "{} under {}",
            self.inner.describe(),
            const_hex::encode(&self.prefix)
        )
    }
}

struct ScopedTx {
    tx: Box<dyn Transaction>,
    prefix: Arc<[u8]>,
    /// A write the view refused before the inner transaction saw it: it
    /// dooms the commit, as one the inner transaction refused would.
    doomed: Option<Error>,
}

impl ScopedTx {
    fn key(&self, key: &[u8]) -> Vec<u8> {
        [&self.prefix[..], key].concat()
    }

    /// A write's outcome; a write the view refused dooms the commit.
    fn doom_on_error(&mut self, outcome: kv::Result<()>) -> kv::Result<()> {
        if let Err(e) = &outcome {
            self.doomed.get_or_insert(e.clone());
        }
        outcome
    }

    /// Size errors as the view sees them.
    fn relative(&self, e: Error) -> Error {
        let n = self.prefix.len();
        match e {
            Error::KeyTooLarge { size, limit } => Error::KeyTooLarge {
                size: size - n,
                limit: limit - n,
            },
            e => e,
        }
    }
}

impl Transaction for ScopedTx {
    fn read_version(&mut self) -> kv::Result<u64> {
        self.tx.read_version()
    }

    fn version_now(&mut self) -> kv::Result<u64> {
        self.tx.version_now()
    }

    fn get(&mut self, key: &[u8], snapshot: bool) -> kv::Result<Option<Vec<u8>>> {
        check_key(key)?;
        let key = self.key(key);
        self.tx.get(&key, snapshot)
    }

    fn get_range(
        &mut self,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> kv::Result<RangeResult> {
        check_read_range(&range.begin, &range.end)?;
        let mut inner = range.clone();
        inner.begin = self.key(&range.begin);
        inner.end = self.key(&range.end);
        let mut batch = self.tx.get_range(&inner, iteration, snapshot)?;
        let n = self.prefix.len();
        for kv in &mut batch.kvs {
            kv.key.drain(..n);
        }
        Ok(batch)
    }

    fn estimated_range_size(&mut self, begin: &[u8], end: &[u8]) -> kv::Result<u64> {
        if begin > end {
            return Err(kv::Error::InvertedRange);
        }
        check_read_range(begin, end)?;
        let (begin, end) = (self.key(begin), self.key(end));
        self.tx.estimated_range_size(&begin, &end)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> kv::Result<()> {
        self.doom_on_error(check_key(key))?;
        let key = self.key(key);
        self.tx.set(&key, value).map_err(|e| self.relative(e))
    }

    fn clear(&mut self, key: &[u8]) -> kv::Result<()> {
        self.doom_on_error(check_key(key))?;
        let key = self.key(key);
        self.tx.clear(&key).map_err(|e| self.relative(e))
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> kv::Result<()> {
        self.doom_on_error(check_range(begin, end))?;
        let (begin, end) = (self.key(begin), self.key(end));
        self.tx.clear_range(&begin, &end)
    }

    fn atomic_op(&mut self, key: &[u8], param: &[u8], op: MutationType) -> kv::Result<()> {
        let key = match op {
            // The stamp's offset counts from the start of the whole key.
            MutationType::SetVersionstampedKey if key.len() >= 4 => {
                let (body, offset) = key.split_at(key.len() - 4);
                self.doom_on_error(check_key(body))?;
                let offset = u32::from_le_bytes(offset.try_into().unwrap());
                let mut full = self.key(body);
                full.extend((offset + self.prefix.len() as u32).to_le_bytes());
                full
            }
            _ => {
                self.doom_on_error(check_key(key))?;
                self.key(key)
            }
        };
        self.tx
            .atomic_op(&key, param, op)
            .map_err(|e| self.relative(e))
    }

    fn add_conflict_range(
        &mut self,
        begin: &[u8],
        end: &[u8],
        ty: ConflictRangeType,
    ) -> kv::Result<()> {
        check_range(begin, end)?;
        let (begin, end) = (self.key(begin), self.key(end));
        self.tx.add_conflict_range(&begin, &end, ty)
    }

    fn set_option(&mut self, option: TransactionOption) -> kv::Result<()> {
        self.tx.set_option(option)
    }

    fn watch(&mut self, key: &[u8]) -> kv::Result<Watch> {
        check_key(key)?;
        let key = self.key(key);
        self.tx.watch(&key)
    }

    fn commit(&mut self) -> kv::Result<Committed> {
        if let Some(e) = &self.doomed {
            return Err(e.clone());
        }
        self.tx.commit().map_err(|e| self.relative(e))
    }

    fn on_error(&mut self, error: Error) -> kv::Result<()> {
        self.tx.on_error(error)?;
        self.doomed = None;
        Ok(())
    }

    fn reset(&mut self) {
        self.doomed = None;
        self.tx.reset()
    }

    fn commit_status(&mut self, id: &IdempotencyId, since: SystemTime) -> kv::Result<CommitStatus> {
        self.tx.commit_status(id, since)
    }
}
