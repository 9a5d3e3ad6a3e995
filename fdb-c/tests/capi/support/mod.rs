//! Driving the library through its C ABI: the exported functions, called
//! as a C client calls them, with small wrappers that wait for futures
//! and read their results.

#![allow(dead_code)]

use std::ffi::{CString, c_int};
use std::ptr::{null, null_mut};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use fdb_c::api::*;
use fdb_c::database::*;
use fdb_c::future::exports::*;
use fdb_c::network::*;
use fdb_c::transaction::exports::*;
use fdb_c::types::{
    FDBDatabase, FDBDatabaseOption, FDBFuture, FDBKeyValue, FDBMutationType, FDBTransaction,
    FDBTransactionOption,
};

/// Selects API 730 and runs the network on a thread of its own, once per
/// test process.
pub fn network() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        assert_eq!(fdb_select_api_version_impl(730, 730), 0);
        assert_eq!(fdb_setup_network(), 0);
        std::thread::spawn(|| assert_eq!(fdb_run_network(), 0));
    });
}

/// A database in a fresh temporary directory.
pub struct Db {
    pub ptr: *mut FDBDatabase,
    pub dir: tempfile::TempDir,
}

// SAFETY: FDB databases may be shared between threads.
unsafe impl Send for Db {}
unsafe impl Sync for Db {}

impl Db {
    pub fn new() -> Db {
        network();
        let dir = tempfile::tempdir().unwrap();
        let line = format!("fql:embedded@{}", dir.path().join("test.db").display());
        let cs = CString::new(line).unwrap();
        let mut ptr = null_mut();
        let rc = unsafe { fdb_create_database_from_connection_string(cs.as_ptr(), &mut ptr) };
        assert_eq!(rc, 0);
        Db { ptr, dir }
    }

    pub fn tx(&self) -> Tx {
        let mut ptr = null_mut();
        assert_eq!(
            unsafe { fdb_database_create_transaction(self.ptr, &mut ptr) },
            0
        );
        Tx(ptr)
    }

    pub fn option(&self, code: FDBDatabaseOption, value: Option<&[u8]>) -> c_int {
        let (p, n) = value.map_or((null(), 0), |v| (v.as_ptr(), v.len() as c_int));
        unsafe { fdb_database_set_option(self.ptr, code, p, n) }
    }

    /// Commits `f`'s writes in a transaction of their own.
    pub fn write(&self, f: impl FnOnce(&Tx)) {
        let tx = self.tx();
        f(&tx);
        assert_eq!(tx.commit().wait_error(), 0);
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        unsafe { fdb_database_destroy(self.ptr) }
    }
}

/// A key and its value.
pub type Row = (Vec<u8>, Vec<u8>);

/// A future, destroyed when dropped.
pub struct Fut(pub *mut FDBFuture);

unsafe impl Send for Fut {}

impl Fut {
    pub fn ready(&self) -> bool {
        unsafe { fdb_future_is_ready(self.0) != 0 }
    }

    /// Waits and returns the future's error code. A future that stays
    /// pending for 30 s fails the test instead of hanging it.
    pub fn wait_error(&self) -> c_int {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.ready() {
            assert!(Instant::now() < deadline, "the future is still pending");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(unsafe { fdb_future_block_until_ready(self.0) }, 0);
        unsafe { fdb_future_get_error(self.0) }
    }

    pub fn value(&self) -> Result<Option<Vec<u8>>, c_int> {
        self.wait_error();
        let (mut present, mut ptr, mut len) = (0, null(), 0);
        match unsafe { fdb_future_get_value(self.0, &mut present, &mut ptr, &mut len) } {
            0 if present == 0 => Ok(None),
            0 => Ok(Some(
                unsafe { std::slice::from_raw_parts(ptr, len as usize) }.to_vec(),
            )),
            e => Err(e),
        }
    }

    pub fn key(&self) -> Result<Vec<u8>, c_int> {
        self.wait_error();
        let (mut ptr, mut len) = (null(), 0);
        match unsafe { fdb_future_get_key(self.0, &mut ptr, &mut len) } {
            0 => Ok(unsafe { std::slice::from_raw_parts(ptr, len as usize) }.to_vec()),
            e => Err(e),
        }
    }

    pub fn int64(&self) -> Result<i64, c_int> {
        self.wait_error();
        let mut v = 0;
        match unsafe { fdb_future_get_int64(self.0, &mut v) } {
            0 => Ok(v),
            e => Err(e),
        }
    }

    /// Rows and the `more` flag.
    pub fn rows(&self) -> Result<(Vec<Row>, bool), c_int> {
        self.wait_error();
        let (mut kvs, mut count, mut more): (*const FDBKeyValue, c_int, c_int) = (null(), 0, 0);
        match unsafe { fdb_future_get_keyvalue_array(self.0, &mut kvs, &mut count, &mut more) } {
            0 => {
                let kvs = unsafe { std::slice::from_raw_parts(kvs, count as usize) };
                let rows = kvs
                    .iter()
                    .map(|kv| {
                        let (k, kl, v, vl) = (kv.key, kv.key_length, kv.value, kv.value_length);
                        unsafe {
                            (
                                std::slice::from_raw_parts(k, kl as usize).to_vec(),
                                std::slice::from_raw_parts(v, vl as usize).to_vec(),
                            )
                        }
                    })
                    .collect();
                Ok((rows, more != 0))
            }
            e => Err(e),
        }
    }
}

impl Drop for Fut {
    fn drop(&mut self) {
        unsafe { fdb_future_destroy(self.0) }
    }
}

/// A transaction, destroyed when dropped.
pub struct Tx(pub *mut FDBTransaction);

unsafe impl Send for Tx {}
unsafe impl Sync for Tx {}

/// `FDB_STREAMING_MODE_WANT_ALL`.
pub const WANT_ALL: c_int = -2;

impl Tx {
    pub fn get(&self, key: &[u8]) -> Fut {
        Fut(unsafe { fdb_transaction_get(self.0, key.as_ptr(), key.len() as c_int, 0) })
    }

    pub fn get_snapshot(&self, key: &[u8]) -> Fut {
        Fut(unsafe { fdb_transaction_get(self.0, key.as_ptr(), key.len() as c_int, 1) })
    }

    pub fn get_key(&self, key: &[u8], or_equal: bool, offset: c_int) -> Fut {
        Fut(unsafe {
            fdb_transaction_get_key(
                self.0,
                key.as_ptr(),
                key.len() as c_int,
                or_equal as c_int,
                offset,
                0,
            )
        })
    }

    /// A range between two first-greater-or-equal selectors.
    pub fn range(&self, b: &[u8], e: &[u8], limit: c_int, mode: c_int, reverse: bool) -> Fut {
        self.range_sel((b, false, 1), (e, false, 1), limit, 0, mode, 1, reverse)
    }

    /// A snapshot read of the range between two first-greater-or-equal
    /// selectors, every row at once.
    pub fn range_snapshot(&self, b: &[u8], e: &[u8]) -> Fut {
        Fut(unsafe {
            fdb_transaction_get_range(
                self.0,
                b.as_ptr(),
                b.len() as c_int,
                0,
                1,
                e.as_ptr(),
                e.len() as c_int,
                0,
                1,
                0,
                0,
                WANT_ALL,
                1,
                1,
                0,
            )
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub fn range_sel(
        &self,
        b: (&[u8], bool, c_int),
        e: (&[u8], bool, c_int),
        limit: c_int,
        target_bytes: c_int,
        mode: c_int,
        iteration: c_int,
        reverse: bool,
    ) -> Fut {
        Fut(unsafe {
            fdb_transaction_get_range(
                self.0,
                b.0.as_ptr(),
                b.0.len() as c_int,
                b.1 as c_int,
                b.2,
                e.0.as_ptr(),
                e.0.len() as c_int,
                e.1 as c_int,
                e.2,
                limit,
                target_bytes,
                mode,
                iteration,
                0,
                reverse as c_int,
            )
        })
    }

    pub fn set(&self, key: &[u8], value: &[u8]) {
        unsafe {
            fdb_transaction_set(
                self.0,
                key.as_ptr(),
                key.len() as c_int,
                value.as_ptr(),
                value.len() as c_int,
            )
        }
    }

    pub fn clear(&self, key: &[u8]) {
        unsafe { fdb_transaction_clear(self.0, key.as_ptr(), key.len() as c_int) }
    }

    pub fn clear_range(&self, b: &[u8], e: &[u8]) {
        unsafe {
            fdb_transaction_clear_range(
                self.0,
                b.as_ptr(),
                b.len() as c_int,
                e.as_ptr(),
                e.len() as c_int,
            )
        }
    }

    pub fn atomic(&self, key: &[u8], param: &[u8], op: FDBMutationType) {
        unsafe {
            fdb_transaction_atomic_op(
                self.0,
                key.as_ptr(),
                key.len() as c_int,
                param.as_ptr(),
                param.len() as c_int,
                op,
            )
        }
    }

    pub fn option(&self, code: FDBTransactionOption, value: Option<&[u8]>) -> c_int {
        let (p, n) = value.map_or((null(), 0), |v| (v.as_ptr(), v.len() as c_int));
        unsafe { fdb_transaction_set_option(self.0, code, p, n) }
    }

    pub fn watch(&self, key: &[u8]) -> Fut {
        Fut(unsafe { fdb_transaction_watch(self.0, key.as_ptr(), key.len() as c_int) })
    }

    pub fn commit(&self) -> Fut {
        Fut(unsafe { fdb_transaction_commit(self.0) })
    }

    pub fn versionstamp(&self) -> Fut {
        Fut(unsafe { fdb_transaction_get_versionstamp(self.0) })
    }

    pub fn read_version(&self) -> Fut {
        Fut(unsafe { fdb_transaction_get_read_version(self.0) })
    }

    pub fn committed_version(&self) -> i64 {
        let mut v = 0;
        assert_eq!(
            unsafe { fdb_transaction_get_committed_version(self.0, &mut v) },
            0
        );
        v
    }

    pub fn on_error(&self, code: c_int) -> Fut {
        Fut(unsafe { fdb_transaction_on_error(self.0, code) })
    }

    pub fn reset(&self) {
        unsafe { fdb_transaction_reset(self.0) }
    }

    pub fn cancel(&self) {
        unsafe { fdb_transaction_cancel(self.0) }
    }
}

impl Drop for Tx {
    fn drop(&mut self) {
        unsafe { fdb_transaction_destroy(self.0) }
    }
}

/// An 8-byte integer option value.
pub fn int(v: i64) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}
