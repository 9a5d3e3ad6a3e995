//! Reads: `get`, `get_key`, `get_range`, `watch`, and the estimates FDB
//! derives from its shards (size, split points, storage addresses).
//!
//! Keys follow FDB's ranges, which the library checks itself: user keys
//! lie below `\xff`; `read_system_keys` (or `access_system_keys`) opens
//! the system keys up to `\xff\xff`, which the store holds as any other
//! once the same option opens them there; `\xff/metadataVersion` may be
//! read by anyone. The special keyspace is answered apart (see
//! `special`), with no option needed.

use std::ffi::CString;
use std::sync::Arc;

use fql::kv::{KeyValue, METADATA_VERSION_KEY, RangeOption, StreamingMode};

use super::special::{self, SPECIAL};
use super::{State, Tx};
use crate::errors::{
    CLIENT_INVALID_OPERATION, Code, KEY_OUTSIDE_LEGAL_RANGE, KEY_TOO_LARGE, TOO_MANY_WATCHES,
    UNSUPPORTED_OPERATION, WATCHES_DISABLED,
};
use crate::future::{Future, KeyValues, Keys, Strings, Value};
use crate::range::{self, Raw};
use crate::selector::Selector;
use crate::watch;

/// Where the system keys begin.
const SYSTEM: &[u8] = b"\xff";
/// FDB's longest key.
const KEY_SIZE_LIMIT: usize = 10_000;

/// FDB's tag-throttling cost of reading `bytes`: 4 KiB pages.
fn read_cost(bytes: usize) -> i64 {
    (bytes.max(1).div_ceil(4096) * 4096) as i64
}

impl State {
    /// The key a range read's selector names: its own key when it names
    /// one at once, else the key it resolves to below `max`.
    pub(super) fn bound(
        &mut self,
        selector: &Selector,
        snapshot: bool,
        max: &[u8],
    ) -> Result<Vec<u8>, Code> {
        match selector.as_bound() {
            Some(k) => Ok(k.to_vec()),
            None => selector.resolve(&mut *self.inner, snapshot, max),
        }
    }

    /// Counts a read's conflict range and cost as FDB's client does.
    pub(super) fn count_read(&mut self, conflict_bytes: usize, read_bytes: usize, snapshot: bool) {
        if !snapshot {
            self.approximate_size += (conflict_bytes + 32) as i64;
            self.commit_size += conflict_bytes as i64;
        }
        self.total_cost += read_cost(read_bytes);
    }
}

impl Tx {
    /// `fdb_transaction_get`.
    pub fn get(&self, key: &[u8], snapshot: bool) -> Result<Option<Vec<u8>>, Code> {
        if special::holds_key(key) && self.lock().deferred.is_none() {
            return self.special_get(key);
        }
        let mut st = self.lock();
        st.readable()?;
        if key >= st.max_read_key() && key != METADATA_VERSION_KEY {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        // No stored key is longer.
        if key.len() > KEY_SIZE_LIMIT {
            return Ok(None);
        }
        let value = st
            .inner
            .get(key, snapshot)
            .map_err(|e| crate::errors::of(&e))?;
        let read = key.len() + value.as_ref().map_or(0, Vec::len);
        st.count_read(2 * key.len() + 1, read, snapshot);
        Ok(value)
    }

    /// `fdb_transaction_get_key`.
    pub fn get_key(&self, selector: Selector, snapshot: bool) -> Result<Vec<u8>, Code> {
        let mut st = self.lock();
        st.readable()?;
        let max = st.max_read_key();
        if selector.given.as_slice() > max {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        let key = selector.resolve(&mut *st.inner, snapshot, max)?;
        st.count_read(selector.key.len() + key.len(), key.len(), snapshot);
        Ok(key)
    }

    /// `fdb_transaction_get_range`, after the C call's limits were
    /// translated.
    pub fn get_range(
        &self,
        begin: Selector,
        end: Selector,
        limits: Raw,
        snapshot: bool,
        reverse: bool,
    ) -> Result<(Vec<KeyValue>, bool), Code> {
        if special::holds_range(&begin.given, &end.given) && self.lock().deferred.is_none() {
            return self.special_range(&begin, &end, limits, reverse);
        }
        let mut st = self.lock();
        st.readable()?;
        let max = st.max_read_key();
        if begin.given.as_slice() > max || end.given.as_slice() > max {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        let limits = limits.valid()?;
        if begin.offset >= end.offset && begin.key >= end.key {
            return Ok((Vec::new(), false));
        }
        let b = st.bound(&begin, snapshot, max)?;
        let e = st.bound(&end, snapshot, max)?;
        if b >= e {
            return Ok((Vec::new(), false));
        }
        let sees = st.options.snapshot_reads_see_writes();
        let (rows, more) = range::read(&mut *st.inner, &b, &e, reverse, limits, snapshot, sees)?;
        let bytes = rows.iter().map(|kv| kv.key.len() + kv.value.len()).sum();
        st.count_read(b.len() + e.len(), bytes, snapshot);
        Ok((rows, more))
    }

    /// `fdb_transaction_watch`.
    pub fn watch(&self, key: &[u8]) -> Result<Arc<Future>, Code> {
        let mut st = self.lock();
        st.usable()?;
        // FDB checks the option before the key.
        if st.options.read_your_writes_disabled {
            return Err(WATCHES_DISABLED);
        }
        if key >= SPECIAL || (key >= st.max_read_key() && key != METADATA_VERSION_KEY) {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        if key.len() > KEY_SIZE_LIMIT {
            return Err(KEY_TOO_LARGE);
        }
        // The store watches no system key.
        if key >= SYSTEM {
            return Err(UNSUPPORTED_OPERATION);
        }
        if !self.db.watch_allowed() {
            return Err(TOO_MANY_WATCHES);
        }
        let w = st.inner.watch(key).map_err(|e| crate::errors::of(&e))?;
        st.approximate_size += (2 * key.len() + 1 + 32) as i64;
        let f = watch::future(w, self.db.watches.clone());
        st.watches.push(Arc::downgrade(&f));
        Ok(f)
    }

    /// A snapshot scan of `[begin, end)` for the split points, which FDB
    /// takes from its shards' samples and which cost no conflicts.
    fn scan(&self, begin: &[u8], end: &[u8], mut each: impl FnMut(&KeyValue)) -> Result<(), Code> {
        let mut st = self.lock();
        st.range_readable(begin, end)?;
        if begin >= end {
            return Ok(());
        }
        let range = RangeOption::new(begin, end).mode(StreamingMode::WantAll);
        let mut cursor = fql::kv::RangeCursor::new(range, true);
        while let Some(batch) = cursor
            .next_batch(&mut *st.inner)
            .map_err(|e| crate::errors::of(&e))?
        {
            batch.iter().for_each(&mut each);
        }
        Ok(())
    }

    /// `fdb_transaction_get_estimated_range_size_bytes`: the store's
    /// estimate from its byte sample, which reads no key-value, as FDB's
    /// comes from its storage servers' samples.
    pub fn estimated_size(&self, begin: &[u8], end: &[u8]) -> Result<i64, Code> {
        let mut st = self.lock();
        st.range_readable(begin, end)?;
        let size = st
            .inner
            .estimated_range_size(begin, end)
            .map_err(|e| crate::errors::of(&e))?;
        Ok(i64::try_from(size).unwrap_or(i64::MAX))
    }

    /// `fdb_transaction_get_range_split_points`: `begin`, a key each time
    /// the bytes since the last split reach `chunk`, and `end`.
    pub fn split_points(&self, begin: &[u8], end: &[u8], chunk: i64) -> Result<Vec<Vec<u8>>, Code> {
        if chunk <= 0 {
            return Err(CLIENT_INVALID_OPERATION);
        }
        let mut points = vec![begin.to_vec()];
        let mut since = 0i64;
        self.scan(begin, end, |kv| {
            if since >= chunk {
                points.push(kv.key.clone());
                since = 0;
            }
            since += (kv.key.len() + kv.value.len()) as i64;
        })?;
        points.push(end.to_vec());
        Ok(points)
    }

    /// `fdb_transaction_get_addresses_for_key`: the store has no storage
    /// servers, so no addresses.
    pub fn addresses(&self, _key: &[u8]) -> Result<Vec<CString>, Code> {
        self.lock().usable()?;
        Ok(Vec::new())
    }
}

/// Futures of the reads' results.
///
/// A value is followed in memory by a zero byte past its length: C
/// callers that read one as a C string (FoundationDB's own unit tests
/// compare `std::string == const char*`) find it ended, as they do in
/// the buffers FDB's client hands out.
pub fn value_future(r: Result<Option<Vec<u8>>, Code>) -> Arc<Future> {
    Future::ready(r.map(|v| Value::Value(v.map(nul_after))))
}

/// `v`, with a zero byte in its spare capacity.
fn nul_after(mut v: Vec<u8>) -> Vec<u8> {
    v.reserve_exact(1);
    v.spare_capacity_mut()[0].write(0);
    v
}

pub fn key_future(r: Result<Vec<u8>, Code>) -> Arc<Future> {
    Future::ready(r.map(Value::Key))
}

pub fn rows_future(r: Result<(Vec<KeyValue>, bool), Code>) -> Arc<Future> {
    Future::ready(r.map(|(rows, more)| Value::KeyValues(KeyValues::new(&rows, more))))
}

pub fn keys_future(r: Result<Vec<Vec<u8>>, Code>) -> Arc<Future> {
    Future::ready(r.map(|keys| Value::Keys(Keys::new(&keys))))
}

pub fn strings_future(r: Result<Vec<CString>, Code>) -> Arc<Future> {
    Future::ready(r.map(|s| Value::Strings(Strings::new(s))))
}
