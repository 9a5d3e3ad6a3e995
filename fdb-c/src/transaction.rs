//! `FDBTransaction`: fql's transaction behind FDB's rules of use.
//!
//! The store's transaction ([`fql::kv::Transaction`]) already has FDB's
//! semantics (read-your-writes, conflicts, atomic operations,
//! versionstamps, limits). What FDB's client adds around it, and this
//! module reproduces, is its life cycle:
//!
//! - errors of calls that return nothing (`set`, `clear`, `atomic_op`...)
//!   are deferred: every later call that returns a future fails with the
//!   error until the transaction is reset;
//! - a transaction is "dead" after `cancel` (1025), past its timeout
//!   (1031), after a call made once `commit` started (2017) or after
//!   `on_error` gave up (1025): its calls fail with that error until reset;
//! - `on_error` retries FDB's retryable errors after FDB's back-off, which
//!   the network thread waits out, keeping the options FDB keeps across
//!   retries (timeout, retry limit, maximum delay) and the clock of the
//!   timeout;
//! - futures that resolve later (watches before the commit, the
//!   versionstamp, `on_error`'s wait) fail as FDB's do when the attempt
//!   ends without them.
//!
//! Every call locks the transaction; the store's transaction is
//! synchronous, so most futures are ready when they are returned.

mod commit;
pub mod exports;
mod mapped;
mod reads;
mod retry;
mod special;
pub mod tenant_handle;
mod tenants;
mod tracing;
mod writes;
mod written;

use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use fql::kv::{self, TransactionOption};

use crate::database::Db;
use crate::errors::{
    self, Code, INVERTED_RANGE, KEY_OUTSIDE_LEGAL_RANGE, TRANSACTION_CANCELLED,
    TRANSACTION_TIMED_OUT, TRANSACTION_TOO_LARGE, USED_DURING_COMMIT,
};
use crate::future::Future;
use crate::guard::lock;
use crate::handle::Handle;
use crate::option_codes::tr;
use crate::options::{self, Refused, TxOptions};
use crate::tenant::Tenanted;
use crate::types::{FDBTransaction, FDBTransactionOption};

/// FDB's first back-off of `on_error`.
const FIRST_BACKOFF: Duration = Duration::from_millis(10);

/// A transaction, shared by its `FDBTransaction*` and nothing else:
/// timers hold it weakly, so destroying it ends it.
pub struct Tx {
    db: Arc<Db>,
    state: Mutex<State>,
}

struct State {
    inner: Box<dyn kv::Transaction>,
    /// Whether this is a tenant's transaction, whose keys `inner` prefixes.
    in_tenant: bool,
    options: TxOptions,
    /// The options set again after each `on_error`: the database's
    /// defaults, then the persistent options set on the transaction.
    persistent: Vec<(FDBTransactionOption, Option<Vec<u8>>)>,
    /// The last error of a call that returns nothing.
    deferred: Option<Code>,
    /// Why the transaction can no longer be used until reset.
    dead: Option<Code>,
    commit_started: bool,
    /// The read version, once taken or set.
    read_version: Option<i64>,
    /// Set by `fdb_transaction_set_read_version`, and handed to the
    /// store's transaction, which reads at it (or fails the reads with
    /// `transaction_too_old` or `future_version`).
    requested_version: Option<i64>,
    committed_version: i64,
    /// When the transaction was created or reset: its timeout counts from
    /// here, across retries.
    created: Instant,
    retries: i64,
    backoff: Duration,
    /// Futures bound to this attempt.
    watches: Vec<Weak<Future>>,
    stamps: Vec<Weak<Future>>,
    waits: Vec<Weak<Future>>,
    /// FDB's `get_approximate_size`.
    approximate_size: i64,
    /// What the commit carries, counted as FDB counts it against
    /// `size_limit`.
    commit_size: i64,
    /// FDB's tag-throttling cost of the reads and writes so far.
    total_cost: i64,
    /// The keys this attempt wrote, which mapped ranges may not read.
    written: written::Written,
    /// The special keys' tracing module: this transaction's trace id.
    tracing: tracing::Tracing,
}

impl State {
    fn new(
        inner: Box<dyn kv::Transaction>,
        defaults: Vec<(FDBTransactionOption, Option<Vec<u8>>)>,
        in_tenant: bool,
    ) -> State {
        State {
            inner,
            in_tenant,
            options: TxOptions::default(),
            persistent: defaults,
            deferred: None,
            dead: None,
            commit_started: false,
            read_version: None,
            requested_version: None,
            committed_version: -1,
            created: Instant::now(),
            retries: 0,
            backoff: FIRST_BACKOFF,
            watches: Vec::new(),
            stamps: Vec::new(),
            waits: Vec::new(),
            approximate_size: 0,
            commit_size: 0,
            total_cost: 0,
            written: written::Written::default(),
            tracing: tracing::Tracing::new(),
        }
    }

    /// When the timeout runs out, if one is set.
    fn deadline(&self) -> Option<Instant> {
        (self.options.timeout_ms > 0)
            .then(|| self.created + Duration::from_millis(self.options.timeout_ms as u64))
    }

    /// Ends the attempt's pending futures with `code`.
    fn fail_pending(&mut self, code: Code) {
        for f in self
            .watches
            .drain(..)
            .chain(self.stamps.drain(..))
            .chain(self.waits.drain(..))
        {
            if let Some(f) = f.upgrade() {
                f.resolve(Err(code));
            }
        }
    }

    /// Makes the transaction unusable until reset, as FDB's reset promise
    /// does; the first reason stays.
    fn kill(&mut self, code: Code) {
        if self.dead.is_none() {
            self.dead = Some(code);
            self.fail_pending(code);
        }
    }

    /// Kills the transaction if its timeout has passed.
    fn check_deadline(&mut self) {
        if self.deadline().is_some_and(|d| Instant::now() >= d) {
            self.kill(TRANSACTION_TIMED_OUT);
        }
    }

    /// The checks before a call that returns a future, in FDB's order:
    /// a deferred error, a commit already started, a dead transaction.
    fn usable(&mut self) -> Result<(), Code> {
        self.check_deadline();
        if let Some(code) = self.deferred {
            return Err(code);
        }
        if self.commit_started {
            self.kill(USED_DURING_COMMIT);
            return Err(USED_DURING_COMMIT);
        }
        self.dead.map_or(Ok(()), Err)
    }

    /// The checks before a read; the store's transaction checks the read
    /// version itself.
    fn readable(&mut self) -> Result<(), Code> {
        self.usable()
    }

    /// [`readable`](Self::readable), for a read of the range `[begin,
    /// end)`: in order, and within the keys reads may reach.
    fn range_readable(&mut self, begin: &[u8], end: &[u8]) -> Result<(), Code> {
        self.readable()?;
        if begin > end {
            return Err(INVERTED_RANGE);
        }
        if begin > self.max_read_key() || end > self.max_read_key() {
            return Err(KEY_OUTSIDE_LEGAL_RANGE);
        }
        Ok(())
    }

    /// Whether a call that returns nothing should go ahead. After a commit
    /// started it fails, and so does everything after it; on a dead
    /// transaction it would be discarded by the reset anyway.
    fn writable(&mut self) -> bool {
        self.check_deadline();
        if self.commit_started {
            self.kill(USED_DURING_COMMIT);
            self.deferred = Some(USED_DURING_COMMIT);
            return false;
        }
        self.dead.is_none()
    }

    /// Records the error of a call that returns nothing. A transaction
    /// grown past its size only fails its commit, as in FDB: the store
    /// keeps that error for the commit.
    fn defer(&mut self, result: Result<(), Code>) {
        if let Err(code) = result
            && code != TRANSACTION_TOO_LARGE
        {
            self.deferred = Some(code);
        }
    }

    /// The read version the store reads at: the first read takes it.
    fn store_read_version(&mut self) -> Result<i64, Code> {
        if let Some(v) = self.read_version {
            return Ok(v);
        }
        let v = self
            .inner
            .read_version()
            .map_err(|e| crate::errors::of(&e))?;
        let v = i64::try_from(v).map_err(|_| errors::INTERNAL_ERROR)?;
        self.read_version = Some(v);
        Ok(v)
    }

    /// The largest key reads may reach: `\xff`, or `\xff\xff` with the
    /// system keys readable.
    fn max_read_key(&self) -> &'static [u8] {
        if self.options.read_system_keys {
            b"\xff\xff"
        } else {
            b"\xff"
        }
    }

    fn max_write_key(&self) -> &'static [u8] {
        if self.options.write_system_keys {
            b"\xff\xff"
        } else {
            b"\xff"
        }
    }

    /// Hands the options the store's transaction honours to it: the
    /// system keys, the next write's conflict range, conflict reports,
    /// read-your-writes and special-key writes.
    /// `read_your_writes_disable` is the store's to refuse
    /// (`client_invalid_operation` once the transaction has read or
    /// written).
    fn pass_to_store(&mut self, code: FDBTransactionOption) -> Result<(), Code> {
        let option = match code {
            tr::NEXT_WRITE_NO_WRITE_CONFLICT_RANGE => {
                TransactionOption::NextWriteNoWriteConflictRange
            }
            tr::ACCESS_SYSTEM_KEYS => TransactionOption::AccessSystemKeys,
            tr::READ_SYSTEM_KEYS => TransactionOption::ReadSystemKeys,
            tr::REPORT_CONFLICTING_KEYS => TransactionOption::ReportConflictingKeys,
            tr::READ_YOUR_WRITES_DISABLE => TransactionOption::ReadYourWritesDisable,
            tr::SNAPSHOT_RYW_ENABLE => TransactionOption::SnapshotRywEnable,
            tr::SNAPSHOT_RYW_DISABLE => TransactionOption::SnapshotRywDisable,
            tr::SPECIAL_KEY_SPACE_ENABLE_WRITES => TransactionOption::SpecialKeySpaceEnableWrites,
            _ => return Ok(()),
        };
        self.inner
            .set_option(option)
            .map_err(|e| crate::errors::of(&e))
    }

    /// Starts a new attempt on the same transaction, as FDB does after
    /// `on_error` and at `reset`: everything read and written is dropped;
    /// pending futures fail with `transaction_cancelled`.
    fn new_attempt(&mut self) {
        self.fail_pending(TRANSACTION_CANCELLED);
        self.inner.reset();
        self.options = TxOptions::default();
        self.deferred = None;
        self.dead = None;
        self.commit_started = false;
        self.read_version = None;
        self.requested_version = None;
        self.committed_version = -1;
        self.approximate_size = 0;
        self.commit_size = 0;
        self.written.clear();
        self.tracing = tracing::Tracing::new();
    }
}

impl Tx {
    /// A new transaction on `db`, with the database's defaults, as the
    /// caller's pointer.
    pub fn create(db: Arc<Db>) -> Result<*mut FDBTransaction, Code> {
        Tx::create_in(db, None)
    }

    /// [`create`](Self::create), in the tenant `tenant` if one is named:
    /// the store's transaction is then seen through the tenant's prefix.
    pub fn create_in(db: Arc<Db>, tenant: Option<Vec<u8>>) -> Result<*mut FDBTransaction, Code> {
        let store = db.store.create_trx().map_err(|e| crate::errors::of(&e))?;
        let in_tenant = tenant.is_some();
        let inner: Box<dyn kv::Transaction> = match tenant {
            Some(name) => Box::new(kv::Layered::new(store, Tenanted::new(name))),
            None => store,
        };
        let defaults = lock(&db.options).defaults.clone();
        let tx = Arc::new(Tx {
            db,
            state: Mutex::new(State::new(inner, defaults, in_tenant)),
        });
        tx.apply_persistent(&mut tx.lock())?;
        Ok(Tx::into_raw(tx))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// `fdb_transaction_set_option`. As FDB's, it fails only for a code
    /// the header does not name; any other refusal is deferred to the
    /// transaction's next future (see [`options`]).
    pub fn set_option(
        self: &Arc<Self>,
        code: FDBTransactionOption,
        value: Option<&[u8]>,
    ) -> Result<(), Code> {
        let mut st = self.lock();
        let taken = st.options.apply(code, value).and_then(|()| {
            st.pass_to_store(code)
                .inspect_err(|_| st.options.read_your_writes_disabled = false)
                .map_err(Refused::Deferred)
        });
        match taken {
            Ok(()) => {}
            Err(Refused::Unknown) => return Err(Refused::Unknown.code()),
            Err(Refused::Deferred(error)) => {
                st.deferred = Some(error);
                return Ok(());
            }
        }
        if options::persistent(code) {
            st.persistent.push((code, value.map(<[u8]>::to_vec)));
        }
        if code == tr::TIMEOUT {
            self.arm_timeout(&mut st);
        }
        Ok(())
    }

    /// `fdb_transaction_reset`: a new transaction in the old one's place,
    /// with the database's current defaults.
    pub fn reset(self: &Arc<Self>) {
        let mut st = self.lock();
        st.new_attempt();
        st.created = Instant::now();
        st.retries = 0;
        st.backoff = FIRST_BACKOFF;
        st.persistent = lock(&self.db.options).defaults.clone();
        // The defaults were checked when they were set.
        let _ = self.apply_persistent(&mut st);
    }

    /// `fdb_transaction_cancel`.
    pub fn cancel(&self) {
        self.lock().kill(TRANSACTION_CANCELLED);
    }

    /// `fdb_transaction_set_read_version`.
    pub fn set_read_version(&self, version: i64) {
        let mut st = self.lock();
        if !st.writable() {
            return;
        }
        let result = if st.read_version.is_some() || st.requested_version.is_some() {
            Err(errors::READ_VERSION_ALREADY_SET)
        } else if version <= 0 {
            Err(errors::VERSION_INVALID)
        } else {
            st.requested_version = Some(version);
            st.inner
                .set_read_version(version as u64)
                .map_err(|e| crate::errors::of(&e))
        };
        st.defer(result);
    }

    /// `fdb_transaction_get_read_version`.
    pub fn read_version(&self) -> Result<i64, Code> {
        let mut st = self.lock();
        st.check_deadline();
        if let Some(code) = st.deferred.or(st.dead) {
            return Err(code);
        }
        if let Some(v) = st.requested_version {
            return Ok(v);
        }
        st.store_read_version()
    }

    /// `fdb_transaction_get_approximate_size`.
    pub fn approximate_size(&self) -> Result<i64, Code> {
        let st = self.lock();
        st.deferred.map_or(Ok(st.approximate_size), Err)
    }

    /// `fdb_transaction_get_total_cost`.
    pub fn total_cost(&self) -> Result<i64, Code> {
        let st = self.lock();
        st.deferred.map_or(Ok(st.total_cost), Err)
    }

    /// `fdb_transaction_get_tag_throttled_duration`: nothing throttles the
    /// store.
    pub fn tag_throttled_duration(&self) -> Result<f64, Code> {
        self.lock().deferred.map_or(Ok(0.0), Err)
    }
}

impl Handle for Tx {
    type Raw = FDBTransaction;
}

impl Drop for Tx {
    /// FDB fails the futures of a transaction destroyed before its commit
    /// with `transaction_cancelled`.
    fn drop(&mut self) {
        lock(&self.state).fail_pending(TRANSACTION_CANCELLED);
    }
}
