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

use fql::kv::{
    self, Committed, ConflictRangeType, Database, Error, Layer, LayeredDb, MakeLayer, MutationType,
    RangeOption, RangeResult, Transaction, Watch, check_key, check_range, check_read_range,
};

/// The keys under `prefix` of `inner`, as a database of their own.
pub fn view(inner: Arc<dyn Database>, prefix: &[u8]) -> Arc<dyn Database> {
    Arc::new(LayeredDb::wrap(inner, Scoped(prefix.into())))
}

/// The prefix of a view.
struct Scoped(Arc<[u8]>);

impl MakeLayer for Scoped {
    type Layer = ScopedTx;

    fn layer(&self, _: &mut dyn Transaction) -> kv::Result<ScopedTx> {
        Ok(ScopedTx {
            prefix: self.0.clone(),
            doomed: None,
        })
    }

    fn describe(&self, below: String) -> String {
        format!("{below} under {}", const_hex::encode(&self.0))
    }
}

struct ScopedTx {
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

impl Layer for ScopedTx {
    fn get(
        &mut self,
        tx: &mut dyn Transaction,
        key: &[u8],
        snapshot: bool,
    ) -> kv::Result<Option<Vec<u8>>> {
        check_key(key)?;
        let key = self.key(key);
        tx.get(&key, snapshot)
    }

    fn get_range(
        &mut self,
        tx: &mut dyn Transaction,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> kv::Result<RangeResult> {
        check_read_range(&range.begin, &range.end)?;
        let mut inner = range.clone();
        inner.begin = self.key(&range.begin);
        inner.end = self.key(&range.end);
        let mut batch = tx.get_range(&inner, iteration, snapshot)?;
        let n = self.prefix.len();
        for kv in &mut batch.kvs {
            kv.key.drain(..n);
        }
        Ok(batch)
    }

    fn estimated_range_size(
        &mut self,
        tx: &mut dyn Transaction,
        begin: &[u8],
        end: &[u8],
    ) -> kv::Result<u64> {
        if begin > end {
            return Err(kv::Error::InvertedRange);
        }
        check_read_range(begin, end)?;
        let (begin, end) = (self.key(begin), self.key(end));
        tx.estimated_range_size(&begin, &end)
    }

    fn set(&mut self, tx: &mut dyn Transaction, key: &[u8], value: &[u8]) -> kv::Result<()> {
        self.doom_on_error(check_key(key))?;
        let key = self.key(key);
        tx.set(&key, value).map_err(|e| self.relative(e))
    }

    fn clear(&mut self, tx: &mut dyn Transaction, key: &[u8]) -> kv::Result<()> {
        self.doom_on_error(check_key(key))?;
        let key = self.key(key);
        tx.clear(&key).map_err(|e| self.relative(e))
    }

    fn clear_range(
        &mut self,
        tx: &mut dyn Transaction,
        begin: &[u8],
        end: &[u8],
    ) -> kv::Result<()> {
        self.doom_on_error(check_range(begin, end))?;
        let (begin, end) = (self.key(begin), self.key(end));
        tx.clear_range(&begin, &end)
    }

    fn atomic_op(
        &mut self,
        tx: &mut dyn Transaction,
        key: &[u8],
        param: &[u8],
        op: MutationType,
    ) -> kv::Result<()> {
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
        tx.atomic_op(&key, param, op).map_err(|e| self.relative(e))
    }

    fn add_conflict_range(
        &mut self,
        tx: &mut dyn Transaction,
        begin: &[u8],
        end: &[u8],
        ty: ConflictRangeType,
    ) -> kv::Result<()> {
        check_range(begin, end)?;
        let (begin, end) = (self.key(begin), self.key(end));
        tx.add_conflict_range(&begin, &end, ty)
    }

    fn watch(&mut self, tx: &mut dyn Transaction, key: &[u8]) -> kv::Result<Watch> {
        check_key(key)?;
        let key = self.key(key);
        tx.watch(&key)
    }

    fn commit(&mut self, tx: &mut dyn Transaction) -> kv::Result<Committed> {
        if let Some(e) = &self.doomed {
            return Err(e.clone());
        }
        tx.commit().map_err(|e| self.relative(e))
    }

    fn on_error(&mut self, tx: &mut dyn Transaction, error: Error) -> kv::Result<()> {
        tx.on_error(error)?;
        self.doomed = None;
        Ok(())
    }

    fn reset(&mut self, tx: &mut dyn Transaction) {
        self.doomed = None;
        tx.reset()
    }
}
