//! A tenant's transaction: the store's transaction seen through a layer
//! that puts the tenant's prefix before every key it is given and takes
//! it off every key it answers, so the tenant's keys are all it can
//! reach (`[b"", b"\xff")` is the tenant's whole keyspace, as in FDB).
//! The special keys (`\xff\xff` on) pass unchanged: they are no tenant's.
//!
//! Each attempt looks the tenant up by name before its first operation
//! that names a key, and before its commit: `tenant_not_found` when it
//! does not exist at the read version. The lookup is a read of the map
//! that conflicts with the tenant's deletion, so a transaction that
//! raced one retries and then finds the tenant gone, as FDB's fails at
//! commit.

use fql::kv::{
    self, Committed, ConflictRangeType, Error, Layer, MutationType, RangeOption, RangeResult,
    Transaction, Watch,
};

use super::map;

/// `tenant_not_found`.
const TENANT_NOT_FOUND: i32 = 2131;

/// The layer of the tenant `name`.
pub struct Tenanted {
    name: Vec<u8>,
    /// The tenant's prefix, once this attempt found it.
    prefix: Option<[u8; 8]>,
}

impl Tenanted {
    pub fn new(name: Vec<u8>) -> Tenanted {
        Tenanted { name, prefix: None }
    }

    fn prefix(&mut self, tx: &mut dyn Transaction) -> kv::Result<[u8; 8]> {
        if let Some(p) = self.prefix {
            return Ok(p);
        }
        match map::id(tx, &self.name) {
            Ok(Some(id)) => {
                self.prefix = Some(map::prefix(id));
                Ok(map::prefix(id))
            }
            Ok(None) => Err(Error::Fdb {
                code: TENANT_NOT_FOUND,
                message: format!(
                    "the tenant {} does not exist",
                    String::from_utf8_lossy(&self.name)
                ),
            }),
            Err(code) => Err(Error::from_code(code)),
        }
    }

    /// `key` among the tenant's keys, or unchanged if it is special.
    fn key(&mut self, tx: &mut dyn Transaction, key: &[u8]) -> kv::Result<Vec<u8>> {
        if key.starts_with(b"\xff\xff") {
            return Ok(key.to_vec());
        }
        Ok([&self.prefix(tx)?[..], key].concat())
    }
}

impl Layer for Tenanted {
    fn get(
        &mut self,
        tx: &mut dyn Transaction,
        key: &[u8],
        snapshot: bool,
    ) -> kv::Result<Option<Vec<u8>>> {
        let key = self.key(tx, key)?;
        tx.get(&key, snapshot)
    }

    fn get_range(
        &mut self,
        tx: &mut dyn Transaction,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> kv::Result<RangeResult> {
        if range.begin.starts_with(b"\xff\xff") {
            return tx.get_range(range, iteration, snapshot);
        }
        let prefix = self.prefix(tx)?;
        let mut inside = range.clone();
        inside.begin = [&prefix[..], &range.begin].concat();
        inside.end = [&prefix[..], &range.end].concat();
        let mut result = tx.get_range(&inside, iteration, snapshot)?;
        for kv in &mut result.kvs {
            kv.key.drain(..prefix.len());
        }
        Ok(result)
    }

    fn estimated_range_size(
        &mut self,
        tx: &mut dyn Transaction,
        begin: &[u8],
        end: &[u8],
    ) -> kv::Result<u64> {
        let (begin, end) = (self.key(tx, begin)?, self.key(tx, end)?);
        tx.estimated_range_size(&begin, &end)
    }

    fn set(&mut self, tx: &mut dyn Transaction, key: &[u8], value: &[u8]) -> kv::Result<()> {
        let key = self.key(tx, key)?;
        tx.set(&key, value)
    }

    fn clear(&mut self, tx: &mut dyn Transaction, key: &[u8]) -> kv::Result<()> {
        let key = self.key(tx, key)?;
        tx.clear(&key)
    }

    fn clear_range(
        &mut self,
        tx: &mut dyn Transaction,
        begin: &[u8],
        end: &[u8],
    ) -> kv::Result<()> {
        let (begin, end) = (self.key(tx, begin)?, self.key(tx, end)?);
        tx.clear_range(&begin, &end)
    }

    /// A versionstamped key's stamp moves with the key: its offset, the
    /// key's last 4 bytes, grows by the prefix's length.
    fn atomic_op(
        &mut self,
        tx: &mut dyn Transaction,
        key: &[u8],
        param: &[u8],
        op: MutationType,
    ) -> kv::Result<()> {
        let mut key = self.key(tx, key)?;
        if op == MutationType::SetVersionstampedKey && key.len() >= 12 {
            let at = key.len() - 4;
            let offset = u32::from_le_bytes([key[at], key[at + 1], key[at + 2], key[at + 3]]);
            key[at..].copy_from_slice(&offset.wrapping_add(8).to_le_bytes());
        }
        tx.atomic_op(&key, param, op)
    }

    fn add_conflict_range(
        &mut self,
        tx: &mut dyn Transaction,
        begin: &[u8],
        end: &[u8],
        ty: ConflictRangeType,
    ) -> kv::Result<()> {
        let (begin, end) = (self.key(tx, begin)?, self.key(tx, end)?);
        tx.add_conflict_range(&begin, &end, ty)
    }

    fn watch(&mut self, tx: &mut dyn Transaction, key: &[u8]) -> kv::Result<Watch> {
        let key = self.key(tx, key)?;
        tx.watch(&key)
    }

    fn commit(&mut self, tx: &mut dyn Transaction) -> kv::Result<Committed> {
        self.prefix(tx)?;
        tx.commit()
    }

    fn on_error(&mut self, tx: &mut dyn Transaction, error: Error) -> kv::Result<()> {
        self.prefix = None;
        tx.on_error(error)
    }

    fn reset(&mut self, tx: &mut dyn Transaction) {
        self.prefix = None;
        tx.reset()
    }
}
