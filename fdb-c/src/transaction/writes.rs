//! Writes: `set`, `clear`, `clear_range`, `atomic_op` and conflict
//! ranges. They return nothing in C, so their errors are deferred to the
//! transaction's next future, as FDB's are.
//!
//! User keys lie below `\xff`. With `access_system_keys` a write may name
//! any key up to the special keys at `\xff\xff`, and goes to the store,
//! which holds system keys as any other once the same option opens them.
//! `\xff/metadataVersion` is FDB's to keep: a client may not set it, nor
//! change it with anything but a versionstamped value whose stamp sits at
//! offset 0 (`client_invalid_operation`); that one needs no option, and
//! the store keeps it as FDB does.
//!
//! Sets and clears of the tenant map are the library's (see `tenants`).
//! Other sets and clears of special keys (`\xff\xff` to `\xff\xff\xff`) go to
//! the store's special key space, which takes them only with
//! `special_key_space_enable_writes` and only where a module of FDB's
//! writes, and judges them at commit; they count nothing toward the
//! commit's size, as FDB's do not.

use fql::kv::{ConflictRangeType, METADATA_VERSION_KEY, METADATA_VERSION_STAMP, MutationType};

use super::{State, Tx, special, tenants, tracing};
use crate::errors::{
    CLIENT_INVALID_OPERATION, Code, INVALID_MUTATION_TYPE, INVERTED_RANGE, KEY_OUTSIDE_LEGAL_RANGE,
};
use crate::option_codes::{conflict, mutation};
use crate::types::{FDBConflictRangeType, FDBMutationType};

/// FDB's size of a mutation's bookkeeping (`sizeof(MutationRef)`) and of
/// a range (`sizeof(KeyRangeRef)`), which `get_approximate_size` counts.
const MUTATION_OVERHEAD: usize = 40;
const RANGE_OVERHEAD: usize = 32;

/// FDB's tag-throttling cost of writing `bytes`: 4 KiB pages, four times
/// a read's.
fn write_cost(bytes: usize) -> i64 {
    4 * (bytes.max(1).div_ceil(4096) * 4096) as i64
}

/// The mutation type of an `FDB_MUTATION_TYPE_*` code. `MIN_V2` and
/// `AND_V2` are FDB's codes for what the API's `MIN` and `AND` mean since
/// API 510, which the store implements.
pub fn mutation_type(code: FDBMutationType) -> Option<MutationType> {
    Some(match code {
        mutation::ADD => MutationType::Add,
        mutation::BIT_AND | mutation::AND_V2 => MutationType::BitAnd,
        mutation::BIT_OR => MutationType::BitOr,
        mutation::BIT_XOR => MutationType::BitXor,
        mutation::APPEND_IF_FITS => MutationType::AppendIfFits,
        mutation::MAX => MutationType::Max,
        mutation::MIN | mutation::MIN_V2 => MutationType::Min,
        mutation::SET_VERSIONSTAMPED_KEY => MutationType::SetVersionstampedKey,
        mutation::SET_VERSIONSTAMPED_VALUE => MutationType::SetVersionstampedValue,
        mutation::BYTE_MIN => MutationType::ByteMin,
        mutation::BYTE_MAX => MutationType::ByteMax,
        mutation::COMPARE_AND_CLEAR => MutationType::CompareAndClear,
        _ => return None,
    })
}

impl State {
    /// Where a single-key write to `key` may go.
    fn write_key(&self, key: &[u8]) -> Result<(), Code> {
        if key >= self.max_write_key() {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        Ok(())
    }

    /// Counts a write as FDB's client does, and spends the
    /// `next_write_no_write_conflict_range` option.
    fn count_write(&mut self, mutation: usize, conflict: usize, cost: i64) {
        let conflicts = !std::mem::take(&mut self.options.next_write_no_conflict);
        let conflict = if conflicts { conflict } else { 0 };
        self.approximate_size += (mutation + MUTATION_OVERHEAD) as i64;
        if conflicts {
            self.approximate_size += (conflict + RANGE_OVERHEAD) as i64;
        }
        self.commit_size += (mutation + conflict) as i64;
        self.total_cost += cost;
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<(), Code> {
        if key == METADATA_VERSION_KEY {
            return Err(CLIENT_INVALID_OPERATION);
        }
        if tenants::holds(key) {
            return self.tenant_set(key);
        }
        if special::holds_key(key) {
            self.inner
                .set(key, value)
                .map_err(|e| crate::errors::of(&e))?;
            if tracing::holds(key) {
                return self.tracing.set(key, value, self.approximate_size);
            }
            return Ok(());
        }
        self.write_key(key)?;
        self.inner
            .set(key, value)
            .map_err(|e| crate::errors::of(&e))?;
        self.written.key(key);
        self.count_write(
            key.len() + value.len(),
            2 * key.len() + 1,
            write_cost(key.len() + value.len()),
        );
        Ok(())
    }

    fn clear(&mut self, key: &[u8]) -> Result<(), Code> {
        if tenants::holds(key) {
            return self.tenant_clear(key);
        }
        if special::holds_key(key) {
            self.inner.clear(key).map_err(|e| crate::errors::of(&e))?;
            return match tracing::holds(key) {
                true => Err(tracing::API_FAILURE),
                false => Ok(()),
            };
        }
        if key >= self.max_write_key() {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        self.inner.clear(key).map_err(|e| crate::errors::of(&e))?;
        self.written.key(key);
        self.count_write(2 * key.len() + 1, 2 * key.len() + 1, 4096);
        Ok(())
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<(), Code> {
        if begin > end {
            return Err(INVERTED_RANGE);
        }
        if special::holds_range(begin, end) && (tenants::holds(begin) || tenants::holds(end)) {
            return self.tenant_clear_range(begin, end);
        }
        if special::holds_range(begin, end) {
            self.inner
                .clear_range(begin, end)
                .map_err(|e| crate::errors::of(&e))?;
            return match begin < end && tracing::holds(begin) {
                true => Err(tracing::API_FAILURE),
                false => Ok(()),
            };
        }
        let max = self.max_write_key();
        if begin > max || end > max {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        if begin >= end {
            return Ok(());
        }
        self.inner
            .clear_range(begin, end)
            .map_err(|e| crate::errors::of(&e))?;
        self.written.range(begin, end);
        self.count_write(begin.len() + end.len(), begin.len() + end.len(), 4096);
        Ok(())
    }

    fn atomic_op(&mut self, key: &[u8], param: &[u8], code: FDBMutationType) -> Result<(), Code> {
        let op = mutation_type(code);
        if key == METADATA_VERSION_KEY {
            if op != Some(MutationType::SetVersionstampedValue) || param != METADATA_VERSION_STAMP {
                return Err(CLIENT_INVALID_OPERATION);
            }
        } else if key >= self.max_write_key() {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        let op = op.ok_or(INVALID_MUTATION_TYPE)?;
        self.inner
            .atomic_op(key, param, op)
            .map_err(|e| crate::errors::of(&e))?;
        // A versionstamped key is known only at the commit.
        if op != MutationType::SetVersionstampedKey {
            self.written.key(key);
        }
        let conflict = if op == MutationType::SetVersionstampedKey {
            0
        } else {
            2 * key.len() + 1
        };
        self.count_write(key.len() + param.len(), conflict, write_cost(key.len()));
        Ok(())
    }

    fn conflict_range(&mut self, begin: &[u8], end: &[u8], read: bool) -> Result<(), Code> {
        let max = if read {
            self.max_read_key()
        } else {
            self.max_write_key()
        };
        if begin > max || end > max {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        if begin >= end {
            return Ok(());
        }
        let ty = if read {
            ConflictRangeType::Read
        } else {
            ConflictRangeType::Write
        };
        self.inner
            .add_conflict_range(begin, end, ty)
            .map_err(|e| crate::errors::of(&e))?;
        self.approximate_size += (begin.len() + end.len() + RANGE_OVERHEAD) as i64;
        self.commit_size += (begin.len() + end.len()) as i64;
        Ok(())
    }
}

impl Tx {
    /// Runs a write unless the transaction refuses writes now, deferring
    /// its error.
    pub(super) fn write(&self, f: impl FnOnce(&mut State) -> Result<(), Code>) {
        let mut st = self.lock();
        if st.writable() {
            let result = f(&mut st);
            st.defer(result);
        }
    }

    pub fn set(&self, key: &[u8], value: &[u8]) {
        self.write(|st| st.set(key, value))
    }

    pub fn clear(&self, key: &[u8]) {
        self.write(|st| st.clear(key))
    }

    pub fn clear_range(&self, begin: &[u8], end: &[u8]) {
        self.write(|st| st.clear_range(begin, end))
    }

    pub fn atomic_op(&self, key: &[u8], param: &[u8], code: FDBMutationType) {
        self.write(|st| st.atomic_op(key, param, code))
    }

    /// `fdb_transaction_add_conflict_range`: an inverted range or an
    /// unknown type is returned at once, other errors are deferred, as in
    /// FDB.
    pub fn add_conflict_range(
        &self,
        begin: &[u8],
        end: &[u8],
        ty: FDBConflictRangeType,
    ) -> Result<(), Code> {
        if begin > end {
            return Err(INVERTED_RANGE);
        }
        let read = match ty {
            conflict::READ => true,
            conflict::WRITE => false,
            _ => return Err(CLIENT_INVALID_OPERATION),
        };
        self.write(|st| st.conflict_range(begin, end, read));
        Ok(())
    }
}
