//! What an embedded store must provide: consistent snapshots to read from,
//! and exclusive write transactions to commit in.
//!
//! Everything that makes FDB's semantics (read-your-writes, conflict
//! checks, atomic operations, versionstamps, limits) is written once above
//! this, in [`tx`](super::tx) and [`commit`](super::commit); a store only
//! keeps bytes, a commit version and a short log of recent commits' write
//! ranges.

use std::time::Instant;

use super::Access;
use crate::kv::{KeyValue, Result};

/// A store under the embedded backend.
pub(crate) trait Store: Send + Sync {
    /// A consistent view of the latest committed state. A store shared by
    /// other processes (the file) waits for them no longer than its
    /// timeout, nor past `deadline`.
    fn snapshot(&self, deadline: Option<Instant>) -> Result<Box<dyn Snapshot>>;

    /// A consistent view of the state at `version`: after every commit of
    /// that version or lower. The latest state when `version` is the
    /// latest commit's, by the same path as [`Store::snapshot`], so reads
    /// at the latest version cost nothing more. An older state is kept
    /// while the commit log holds the commits after it
    /// ([`Writer::log_floor`]); a version below that, or below the first
    /// the store has a state for, is `transaction_too_old`, and one above
    /// the latest commit's is `future_version`. The view tells when a
    /// later commit replaced its state ([`Snapshot::superseded_ms`]), for
    /// the caller's window.
    fn snapshot_at(&self, version: u64, deadline: Option<Instant>) -> Result<Box<dyn Snapshot>>;

    /// Runs `f` in an exclusive write transaction that sees the latest
    /// state; applies its writes if `f` succeeds, discards them otherwise.
    /// A store shared by other processes (the file) waits for its write
    /// lock no longer than its timeout, nor past `deadline`; the memory
    /// store's commits wait only for each other's, which are short, and
    /// need no deadline.
    fn write(
        &self,
        deadline: Option<Instant>,
        f: &mut dyn FnMut(&mut dyn Writer) -> Result<()>,
    ) -> Result<()>;

    /// Upkeep after a commit that wrote, once the committing transaction
    /// holds no snapshot: the file store keeps its WAL bounded here.
    fn after_commit(&self) {}

    /// A number that changes whenever any commit lands, from this process
    /// or another: what watches poll.
    fn change_token(&self) -> Result<u64>;

    /// The files a commit touches once it has landed, those of the keys
    /// it changed, which other processes' watches listen to
    /// ([`ring`](super::watches::ring)); none where only this process
    /// commits (memory).
    fn bell(&self) -> Option<&super::watches::Place> {
        None
    }

    /// The file, or `memory`.
    fn describe(&self) -> String;

    /// Whether it takes writes, and if not, why.
    fn access(&self) -> Access {
        Access::ReadWrite
    }
}

/// The most rows one batch of a range read takes from the store.
pub(crate) const MAX_BATCH: usize = 4096;

/// An empty batch with room for `limit` rows, up to [`MAX_BATCH`]. A range
/// cannot tell its length, and a batch grown row by row was copied over a
/// dozen times.
pub(crate) fn batch(limit: usize) -> Vec<KeyValue> {
    Vec::with_capacity(limit.min(MAX_BATCH))
}

/// A read-only view at one version.
pub(crate) trait Snapshot: Send {
    /// The commit version this view shows: the latest commit's, or the
    /// version it was opened at ([`Store::snapshot_at`]).
    fn version(&self) -> u64;

    /// When (wall clock, in milliseconds) the first commit after this
    /// view's version landed, replacing the state it shows; `None` while
    /// it shows the latest state it was opened at.
    fn superseded_ms(&self) -> Option<u64> {
        None
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// At most `limit` rows of `[begin, end)` in key order, or reverse.
    fn scan(
        &mut self,
        begin: &[u8],
        end: &[u8],
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<KeyValue>>;
}

/// An exclusive write transaction on the latest state.
pub(crate) trait Writer {
    /// The latest commit version.
    fn version(&mut self) -> Result<u64>;

    /// Records a new commit version, before the commit's writes: the
    /// store keeps what the writes that follow replace, under this
    /// version, for reads at older versions ([`Store::snapshot_at`]).
    fn set_version(&mut self, version: u64) -> Result<()>;

    /// Commits at or below this version are no longer in the log, so a
    /// transaction that read at an older version cannot be checked.
    fn log_floor(&mut self) -> Result<u64>;

    /// Calls `f` with the write ranges of every logged commit after
    /// `version`, stopping early when `f` returns true; returns whether it
    /// did.
    fn any_write_since(
        &mut self,
        version: u64,
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<bool>;

    /// Logs a commit's write ranges, and forgets commits older than
    /// `forget_before_ms` (raising the floor past them).
    fn log(
        &mut self,
        version: u64,
        now_ms: u64,
        ranges: &[(Vec<u8>, Vec<u8>)],
        forget_before_ms: u64,
    ) -> Result<()>;

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>>;
    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()>;
    fn clear(&mut self, key: &[u8]) -> Result<()>;
    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()>;
}
