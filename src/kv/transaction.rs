//! The transaction interface every backend implements.

use std::time::{Duration, SystemTime};

use super::{RangeOption, RangeResult, Result, Watch};

/// How long a transaction may read and commit after its read version by
/// default: FoundationDB's MVCC window, which the embedded store keeps too
/// unless opened with another ([`Limits::window`]).
pub const WINDOW: Duration = Duration::from_secs(5);

/// A database: a factory of transactions.
///
/// The trait is object safe, so the CLI can pick a backend at run time and
/// everything above holds an `Arc<dyn Database>`. The retry loop is
/// [`DatabaseExt::run`], available on every database.
pub trait Database: Send + Sync {
    /// A new transaction. Its read version is taken at its first read.
    fn create_trx(&self) -> Result<Box<dyn Transaction>>;

    /// A short description for messages: the file, or the cluster.
    fn describe(&self) -> String;

    /// How long a transaction may read and commit after its read version
    /// (see [`Limits::window`]). The retry loop asks, to tell an attempt
    /// whose own work outlived the window, which running again cannot
    /// help, from one that found its read version gone sooner. FDB's
    /// [`WINDOW`] unless the backend was opened with another; a wrapper
    /// answers with the window of the database it wraps.
    fn window(&self) -> Duration {
        WINDOW
    }
}

/// A boxed or shared database is a database, so callers can hold any
/// backend behind `Box<dyn Database>` or `Arc<dyn Database>`.
impl<D: Database + ?Sized> Database for Box<D> {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        (**self).create_trx()
    }

    fn describe(&self) -> String {
        (**self).describe()
    }
    fn window(&self) -> Duration {
        (**self).window()
    }
}

impl<D: Database + ?Sized> Database for std::sync::Arc<D> {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        (**self).create_trx()
    }

    fn describe(&self) -> String {
        (**self).describe()
    }
    fn window(&self) -> Duration {
        (**self).window()
    }
}

/// The retry loop on every database, `dyn` or not: see [`run`](super::run).
pub trait DatabaseExt: Database {
    /// Runs `f` in a transaction and commits, retrying retryable errors
    /// with backoff.
    fn run<T, E>(
        &self,
        f: impl FnMut(&mut dyn Transaction, super::MaybeCommitted) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<super::Error> + super::AsKvError,
    {
        super::run(self.as_dyn(), f)
    }

    /// [`DatabaseExt::run`] with bounds, returning the commit's outcome too.
    fn run_with<T, E>(
        &self,
        options: super::RetryOptions,
        f: impl FnMut(&mut dyn Transaction, super::MaybeCommitted) -> Result<T, E>,
    ) -> Result<(T, Committed), E>
    where
        E: From<super::Error> + super::AsKvError,
    {
        super::run_with(self.as_dyn(), options, f)
    }

    #[doc(hidden)]
    fn as_dyn(&self) -> &dyn Database;
}

impl<D: Database> DatabaseExt for D {
    fn as_dyn(&self) -> &dyn Database {
        self
    }
}

impl DatabaseExt for dyn Database + '_ {
    fn as_dyn(&self) -> &dyn Database {
        self
    }
}

/// One transaction: reads see a consistent snapshot plus the transaction's
/// own writes; writes are buffered and applied atomically at commit, which
/// fails with `not_committed` if a key this transaction read (without
/// `snapshot`) was written by a transaction that committed after this one's
/// read version.
///
/// Keys must not start with `0xff`; writes check FDB's size limits when they
/// are made, so an over-size write fails at the statement that made it and
/// nothing is written. A write that fails dooms the commit with its error,
/// as FDB's client defers a write's error to the commit.
///
/// What the transaction wrote with a versionstamp is unknown until the
/// commit: a read that reaches a versionstamped value, or the range where a
/// versionstamped key may land, fails with `accessed_unreadable`.
pub trait Transaction: Send {
    /// The version this transaction reads at; taken at the first read,
    /// or the one [`set_read_version`](Transaction::set_read_version) set.
    fn read_version(&mut self) -> Result<u64>;

    /// Reads at `version` instead of the latest, as FDB's
    /// `set_read_version`: before any read, so a retry loop or several
    /// readers can reuse a read version taken earlier. The transaction then
    /// sees the state after every commit of version `version` or lower,
    /// and its commit is checked for conflicts from there.
    ///
    /// The first read fails with `transaction_too_old` (1007) when the
    /// database no longer keeps that state: FDB keeps a version for its
    /// five-second MVCC window; the embedded store keeps each state for its
    /// window ([`Limits::window`]) after a later commit replaced it. A
    /// version newer than the latest commit fails with `future_version`
    /// (1009): the embedded store fails at once, where FDB waits up to a
    /// second for the version to arrive (the embedded store's commits are
    /// visible as they land, so a wait would only delay the error).
    ///
    /// A version already taken by a read or already set is
    /// `read_version_already_set` (2010), and 0 is `version_invalid`
    /// (2011): at the call on the embedded store, at the next read through
    /// FDB's client, which defers them. `reset` and `on_error` forget the
    /// version, as FDB's do.
    fn set_read_version(&mut self, version: u64) -> Result<()>;

    /// The version the database has reached by now, at least the read
    /// version: versions advance about a million a second, so the age of
    /// a versionstamp is `(version_now - its version) / 1e6` seconds.
    ///
    /// On FoundationDB the read version is that already, since versions
    /// advance with time whether or not anything commits. The embedded
    /// store reads at its last commit's version, which stands still on a
    /// quiet database; it answers with its clock in microseconds, which
    /// its commit versions follow, when that is later. Only for telling
    /// ages: conflicts and snapshots keep to the read version.
    fn version_now(&mut self) -> Result<u64>;

    /// The value of `key`, or `None`.
    fn get(&mut self, key: &[u8], snapshot: bool) -> Result<Option<Vec<u8>>>;

    /// One batch of a range read; `iteration` (from 1) sizes the batch in
    /// the `Iterator` streaming mode. See [`RangeCursor`](super::RangeCursor).
    /// A range that begins at or past its end reads nothing, as in FDB.
    fn get_range(
        &mut self,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult>;

    /// The estimated bytes of keys and values in `begin <= key < end`, as
    /// FDB's `get_estimated_range_size_bytes`: taken from a sample of the
    /// stored data rather than by reading the range, so it is cheap on a
    /// range of any size and rough on a small one (often 0 below a few
    /// hundred kilobytes). It ignores this transaction's own writes and
    /// takes no conflict. A `begin` past `end` is `inverted_range`; a range
    /// past the keys a read may name is `key_outside_legal_range`.
    fn estimated_range_size(&mut self, begin: &[u8], end: &[u8]) -> Result<u64>;

    /// Writes `value` at `key`.
    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()>;

    /// Removes `key`.
    fn clear(&mut self, key: &[u8]) -> Result<()>;

    /// Removes every key in `begin <= key < end`; a `begin` past `end` is
    /// `inverted_range`.
    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()>;

    /// An atomic read-modify-write applied at commit, with no read conflict.
    ///
    /// For [`MutationType::SetVersionstampedKey`] the last four bytes of
    /// `key` are a little-endian offset at which the commit writes the
    /// 10-byte versionstamp (the four bytes are dropped); for
    /// [`MutationType::SetVersionstampedValue`] the same holds for `param`.
    fn atomic_op(&mut self, key: &[u8], param: &[u8], op: MutationType) -> Result<()>;

    /// Adds a conflict range by hand, as the directory layer's allocator does.
    fn add_conflict_range(&mut self, begin: &[u8], end: &[u8], ty: ConflictRangeType)
    -> Result<()>;

    /// Sets a transaction option.
    fn set_option(&mut self, option: TransactionOption) -> Result<()>;

    /// A watch on `key`, as FDB's: it reads the key through this
    /// transaction (with a read conflict) and resolves once the value
    /// differs from what it read, at once if this transaction writes
    /// another value, else after this transaction commits, on a commit that
    /// changes it. A failed read fails the watch, not the call
    /// (`accessed_unreadable` for a versionstamped value); a failed commit
    /// fails it with the commit's error; a transaction dropped or reset
    /// before committing fails it with `transaction_cancelled`.
    fn watch(&mut self, key: &[u8]) -> Result<Watch>;

    /// Applies the buffered writes atomically. After a successful commit
    /// the transaction is spent; reset it to use it again.
    fn commit(&mut self) -> Result<Committed>;

    /// FDB's `on_error`: for a retryable error, waits a backoff and resets
    /// the transaction so the caller can run it again; for any other error,
    /// returns it.
    fn on_error(&mut self, error: Error) -> Result<()>;

    /// Drops every read and write and starts afresh.
    fn reset(&mut self);

    /// Whether the commit made under `id` (the
    /// [`TransactionOption::IdempotencyId`] of an attempt that began at
    /// `since`) was applied: what the retry loop asks after a commit
    /// that failed with a maybe-committed error. It reads the latest
    /// state, outside this transaction's snapshot and conflicts.
    ///
    /// A backend that records no ids answers
    /// [`CommitStatus::Unknown`], as does one that has forgotten the
    /// ids of commits that old.
    fn commit_status(&mut self, id: &IdempotencyId, since: SystemTime) -> Result<CommitStatus>;
}

/// A random 16-byte id under which a backend records a commit, so that
/// whether a commit reported as `commit_unknown_result` was applied can
/// be found out afterwards, as FDB's idempotency ids allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IdempotencyId(pub [u8; 16]);

impl IdempotencyId {
    /// A fresh id: 128 random bits, which no two commits share.
    pub fn random() -> IdempotencyId {
        IdempotencyId(rand::random())
    }
}

/// Whether a commit made under an [`IdempotencyId`] was applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitStatus {
    /// It was, with this outcome.
    Committed(Committed),
    /// It was not, and will not be.
    NotCommitted,
    /// The backend cannot tell: it records no ids, or no longer those of
    /// commits that old.
    Unknown,
}

use super::Error;

/// The outcome of a commit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Committed {
    /// The commit version; `None` for a transaction that wrote nothing.
    pub version: Option<u64>,
    /// The 10-byte transaction part of every versionstamp written by the
    /// commit: the version, 8 bytes big-endian, then a 2-byte batch order.
    pub versionstamp: Option<[u8; 10]>,
}

/// Atomic operations, as FDB's mutation types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MutationType {
    /// Little-endian integer addition, wrapping, at the parameter's width.
    Add,
    /// Bitwise and.
    BitAnd,
    /// Bitwise or.
    BitOr,
    /// Bitwise xor.
    BitXor,
    /// Appends the parameter if the result stays within the value limit.
    AppendIfFits,
    /// The larger as little-endian unsigned integers.
    Max,
    /// The smaller as little-endian unsigned integers.
    Min,
    /// The byte-wise smaller.
    ByteMin,
    /// The byte-wise larger.
    ByteMax,
    /// Writes the key with a versionstamp inside it.
    SetVersionstampedKey,
    /// Writes a value with a versionstamp inside it.
    SetVersionstampedValue,
    /// Clears the key if its value equals the parameter.
    CompareAndClear,
}

/// Which side of the conflict check a manual conflict range belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConflictRangeType {
    /// Fail this transaction's commit if another commit wrote the range.
    Read,
    /// Fail other transactions that read the range.
    Write,
}

/// Transaction options, as FDB's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransactionOption {
    /// The next write adds no write conflict range.
    NextWriteNoWriteConflictRange,
    /// Fail with `transaction_timed_out` after this many milliseconds; 0
    /// means no timeout.
    Timeout(u64),
    /// Retry at most this many times in `on_error`; -1 means no limit.
    RetryLimit(i64),
    /// Record the next commit under this id, so that
    /// [`Transaction::commit_status`] can tell whether it was applied
    /// (FDB's `idempotency_id`). Cleared when the transaction is reset or
    /// retried. A backend that records no ids ignores it.
    IdempotencyId(IdempotencyId),
    /// Reads may name the system keys, from `0xff` up to `0xffff`
    /// (FDB's `read_system_keys`).
    ReadSystemKeys,
    /// Reads and writes may name the system keys (FDB's
    /// `access_system_keys`).
    AccessSystemKeys,
    /// A commit that fails with `not_committed` keeps which of the
    /// transaction's read conflict ranges another commit wrote, readable
    /// until the transaction is reset or retried as FDB's special keys
    /// `\xff\xff/transaction/conflicting_keys/<begin>` = `1` and
    /// `.../<end>` = `0` (FDB's `report_conflicting_keys`; see
    /// [`CONFLICTING_KEYS`](super::CONFLICTING_KEYS)). Not one of FDB's
    /// persistent options: `on_error` and `reset` clear it, so each
    /// attempt that wants the report sets it.
    ReportConflictingKeys,
    /// Reads see the database at the read version, without this
    /// transaction's own writes (FDB's `read_your_writes_disable`, for
    /// loaders that never read what they wrote); watches fail with
    /// `watches_disabled`. Only before the transaction's first read or
    /// write, else `client_invalid_operation`, as FDB's. Cleared by
    /// `on_error` and `reset`.
    ReadYourWritesDisable,
    /// Snapshot reads see this transaction's own writes again: one step
    /// up of FDB's count (`snapshot_ryw_enable`), which starts at 1 and
    /// lets them see the writes while it is above 0.
    SnapshotRywEnable,
    /// Snapshot reads skip this transaction's own writes while
    /// non-snapshot reads still see them: one step down of the count
    /// (FDB's `snapshot_ryw_disable`). Cleared by `on_error` and `reset`.
    SnapshotRywDisable,
    /// Writes may name the special keys (`0xffff` on) that a module
    /// serves (FDB's `special_key_space_enable_writes`); without it such a
    /// write is `special_keys_write_disabled`. Cleared by `on_error` and
    /// `reset`.
    SpecialKeySpaceEnableWrites,
}

/// FDB's size and time limits, which the embedded backend enforces by
/// default so that what works there works on a cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Longest key, in bytes.
    pub key: usize,
    /// Longest value, in bytes.
    pub value: usize,
    /// Most bytes of mutations and conflict ranges in one commit, as FDB
    /// counts them (see `docs/storage.md`).
    pub transaction: usize,
    /// How long a transaction may read and commit after its read version
    /// before it fails with `transaction_too_old`: FDB's five-second MVCC
    /// window ([`WINDOW`]) by default. Everything the embedded store times
    /// by a transaction's life follows it: the commit log keeps twice this
    /// long, a file's idle read transactions are ended just after it, and
    /// a checkpoint far past its WAL limit waits about this long for
    /// readers. Shorter, a test sees a transaction grow too old without
    /// waiting five seconds; processes sharing a file should agree on it,
    /// since a commit drops from the log what its own window no longer
    /// needs.
    pub window: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            key: 10_000,
            value: 100_000,
            transaction: 10_000_000,
            window: WINDOW,
        }
    }
}
