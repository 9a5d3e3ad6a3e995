//! A database whose transactions can be watched and stopped from another
//! thread, and whose commits can be held.
//!
//! A user who presses Ctrl-C expects a long read to stop at once, even one
//! that has printed nothing because its filter matched nothing yet; and a
//! progress line wants to know how far a read has got, and whether a
//! transaction is being retried and why. All of it lives here, at the one
//! place every read and every retry passes through, so the engine above
//! needs no hooks: every operation of a stopped transaction fails with
//! `transaction_cancelled`, which is not retryable, so nothing commits.
//!
//! A process about to end may need one last say: a lock client stopped
//! by a signal must leave its queue, and nothing its other threads are
//! doing (an enqueue about to commit) may put it back after. Holding the
//! commits ([`Activity::hold_commits`]) lets those in flight end, then
//! holds every later commit of every other thread for good; reads,
//! watches and retries go on.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::ThreadId;
use std::time::{Instant, SystemTime};

use super::{
    CommitStatus, Committed, ConflictRangeType, Database, Error, IdempotencyId, MutationType,
    RangeOption, RangeResult, Result, Transaction, TransactionOption, Watch, lock,
};

/// What the transactions of an [`Observed`] database have read, and
/// whether they were asked to stop. Shared between the thread that runs
/// them and the ones that watch or interrupt.
#[derive(Debug, Default)]
pub struct Activity {
    keys: AtomicU64,
    bytes: AtomicU64,
    stop: AtomicBool,
    /// Retries of the newest transaction, and the error that caused the
    /// last of them: one lock, so that a reader never sees the count of
    /// one retry with the reason of another.
    retried: Mutex<(u64, Option<Error>)>,
    commits: Mutex<Commits>,
    commits_changed: Condvar,
}

/// Whose commits may pass, and how many are in flight.
#[derive(Debug, Default)]
struct Commits {
    /// Once held, the one thread whose commits still pass.
    held_for: Option<ThreadId>,
    in_flight: usize,
}

impl Activity {
    /// Asks every transaction to stop at its next operation.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Whether [`Activity::stop`] was called since the last
    /// [`Activity::restart`].
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Clears the stop request and the counts, for the next query.
    pub fn restart(&self) {
        self.stop.store(false, Ordering::SeqCst);
        self.keys.store(0, Ordering::Relaxed);
        self.bytes.store(0, Ordering::Relaxed);
        self.new_transaction();
    }

    /// How many times the newest transaction was retried, and why the
    /// last time: `(2, Some(not_committed))` during its third attempt.
    pub fn retries(&self) -> (u64, Option<Error>) {
        lock(&self.retried).clone()
    }

    fn new_transaction(&self) {
        *lock(&self.retried) = (0, None);
    }

    fn retried(&self, error: Error) {
        let mut retried = lock(&self.retried);
        *retried = (retried.0 + 1, Some(error));
    }

    /// Key-values read by range reads since the last restart.
    pub fn keys_read(&self) -> u64 {
        self.keys.load(Ordering::Relaxed)
    }

    /// Bytes of keys and values read by range reads since the last restart.
    pub fn bytes_read(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Holds the commits of every thread but this one from now on, and
    /// waits until those in flight have ended, or `deadline` has passed:
    /// `false` then, and one may still land.
    pub fn hold_commits(&self, deadline: Instant) -> bool {
        let mut commits = lock(&self.commits);
        commits.held_for = Some(std::thread::current().id());
        while commits.in_flight > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            commits = self
                .commits_changed
                .wait_timeout(commits, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }

    /// Runs `commit` once commits may pass for this thread, counted in
    /// flight meanwhile.
    fn commit<T>(&self, commit: impl FnOnce() -> T) -> T {
        let me = std::thread::current().id();
        let mut commits = lock(&self.commits);
        while commits.held_for.is_some_and(|t| t != me) {
            commits = self
                .commits_changed
                .wait(commits)
                .unwrap_or_else(PoisonError::into_inner);
        }
        commits.in_flight += 1;
        drop(commits);
        let done = commit();
        lock(&self.commits).in_flight -= 1;
        self.commits_changed.notify_all();
        done
    }

    fn check(&self) -> Result<()> {
        if self.stopped() {
            Err(Error::TransactionCancelled)
        } else {
            Ok(())
        }
    }
}

/// `D`, with its transactions counted by and stoppable through an
/// [`Activity`].
pub struct Observed<D> {
    inner: D,
    activity: Arc<Activity>,
}

impl<D: Database> Observed<D> {
    /// `inner`, observed through `activity`.
    pub fn new(inner: D, activity: Arc<Activity>) -> Observed<D> {
        Observed { inner, activity }
    }
}

impl<D: Database> Database for Observed<D> {
    fn create_trx(&self) -> Result<Box<dyn Transaction>> {
        self.activity.check()?;
        self.activity.new_transaction();
        Ok(Box::new(ObservedTx {
            inner: self.inner.create_trx()?,
            activity: self.activity.clone(),
        }))
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn window(&self) -> std::time::Duration {
        self.inner.window()
    }
}

struct ObservedTx {
    inner: Box<dyn Transaction>,
    activity: Arc<Activity>,
}

impl Transaction for ObservedTx {
    fn read_version(&mut self) -> Result<u64> {
        self.activity.check()?;
        self.inner.read_version()
    }

    fn version_now(&mut self) -> Result<u64> {
        self.activity.check()?;
        self.inner.version_now()
    }

    fn get(&mut self, key: &[u8], snapshot: bool) -> Result<Option<Vec<u8>>> {
        self.activity.check()?;
        self.inner.get(key, snapshot)
    }

    fn get_range(
        &mut self,
        range: &RangeOption,
        iteration: usize,
        snapshot: bool,
    ) -> Result<RangeResult> {
        self.activity.check()?;
        let batch = self.inner.get_range(range, iteration, snapshot)?;
        let bytes: usize = batch
            .kvs
            .iter()
            .map(|kv| kv.key.len() + kv.value.len())
            .sum();
        self.activity
            .keys
            .fetch_add(batch.kvs.len() as u64, Ordering::Relaxed);
        self.activity
            .bytes
            .fetch_add(bytes as u64, Ordering::Relaxed);
        Ok(batch)
    }

    fn estimated_range_size(&mut self, begin: &[u8], end: &[u8]) -> Result<u64> {
        self.activity.check()?;
        self.inner.estimated_range_size(begin, end)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.activity.check()?;
        self.inner.set(key, value)
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        self.activity.check()?;
        self.inner.clear(key)
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        self.activity.check()?;
        self.inner.clear_range(begin, end)
    }

    fn atomic_op(&mut self, key: &[u8], param: &[u8], op: MutationType) -> Result<()> {
        self.activity.check()?;
        self.inner.atomic_op(key, param, op)
    }

    fn add_conflict_range(
        &mut self,
        begin: &[u8],
        end: &[u8],
        ty: ConflictRangeType,
    ) -> Result<()> {
        self.activity.check()?;
        self.inner.add_conflict_range(begin, end, ty)
    }

    fn set_option(&mut self, option: TransactionOption) -> Result<()> {
        self.inner.set_option(option)
    }

    fn watch(&mut self, key: &[u8]) -> Result<Watch> {
        self.activity.check()?;
        self.inner.watch(key)
    }

    fn commit(&mut self) -> Result<Committed> {
        self.activity.check()?;
        let inner = &mut self.inner;
        self.activity.commit(|| inner.commit())
    }

    /// Counts a retry once the transaction has agreed to one: it refuses
    /// past its retry limit or its timeout.
    fn on_error(&mut self, error: Error) -> Result<()> {
        // A retry after a stop would only fail again, after a backoff.
        self.activity.check()?;
        self.inner.on_error(error.clone())?;
        self.activity.retried(error);
        Ok(())
    }

    fn reset(&mut self) {
        self.inner.reset()
    }

    fn commit_status(&mut self, id: &IdempotencyId, since: SystemTime) -> Result<CommitStatus> {
        self.activity.check()?;
        self.inner.commit_status(id, since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kv::DatabaseExt;
    use crate::kv::embedded::Embedded;

    #[test]
    fn counts_reads_and_stops_before_commit() {
        let activity = Arc::new(Activity::default());
        let db = Observed::new(Embedded::memory(), activity.clone());
        db.run(|tx, _| {
            tx.set(b"a", b"1")?;
            tx.set(b"b", b"22")
        })
        .unwrap();
        let rows = db
            .run(|tx, _| crate::kv::collect_range(tx, &RangeOption::new(b"a", b"z"), false))
            .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(activity.keys_read(), 2);
        assert_eq!(activity.bytes_read(), 5);

        let result = db.run(|tx, _| {
            tx.set(b"c", b"3")?;
            activity.stop();
            Ok::<_, Error>(())
        });
        assert!(matches!(result, Err(Error::TransactionCancelled)));
        activity.restart();
        let c = db.run(|tx, _| tx.get(b"c", false)).unwrap();
        assert_eq!(c, None, "a stopped transaction writes nothing");
        assert_eq!(activity.keys_read(), 0);
    }

    #[test]
    fn counts_the_retries_of_the_newest_transaction() {
        let activity = Arc::new(Activity::default());
        let db = Observed::new(Embedded::memory(), activity.clone());
        let mut attempts = 0;
        db.run(|tx, _| {
            attempts += 1;
            if attempts < 3 {
                return Err(Error::NotCommitted);
            }
            tx.set(b"a", b"1")
        })
        .unwrap();
        assert_eq!(activity.retries(), (2, Some(Error::NotCommitted)));
        db.run(|tx, _| tx.get(b"a", false)).unwrap();
        assert_eq!(activity.retries(), (0, None), "a new transaction");
    }

    /// Once held, commits of other threads wait; the holding thread's
    /// pass, and reads go on.
    #[test]
    fn held_commits_pass_only_for_the_holding_thread() {
        let activity = Arc::new(Activity::default());
        let db = Arc::new(Observed::new(Embedded::memory(), activity.clone()));
        db.run(|tx, _| tx.set(b"before", b"1")).unwrap();
        assert!(activity.hold_commits(Instant::now() + std::time::Duration::from_secs(5)));
        let other = {
            let db = db.clone();
            std::thread::spawn(move || db.run(|tx, _| tx.set(b"other", b"1")))
        };
        db.run(|tx, _| tx.set(b"mine", b"1")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(!other.is_finished(), "another thread's commit passed");
        let read = {
            let db = db.clone();
            std::thread::spawn(move || db.create_trx()?.get(b"before", false))
        };
        assert_eq!(read.join().unwrap().unwrap(), Some(b"1".to_vec()));
        assert_eq!(db.run(|tx, _| tx.get(b"other", false)).unwrap(), None);
        assert_eq!(
            db.run(|tx, _| tx.get(b"mine", false)).unwrap(),
            Some(b"1".to_vec())
        );
    }

    /// A retry the transaction refuses (past its retry limit, or an error
    /// that is not retryable) is not counted.
    #[test]
    fn counts_only_the_retries_that_happen() {
        let activity = Arc::new(Activity::default());
        let db = Observed::new(Embedded::memory(), activity.clone());
        let mut tx = db.create_trx().unwrap();
        tx.set_option(TransactionOption::RetryLimit(1)).unwrap();
        tx.on_error(Error::NotCommitted).unwrap();
        assert_eq!(
            tx.on_error(Error::TransactionTooOld),
            Err(Error::TransactionTooOld)
        );
        assert_eq!(tx.on_error(Error::InvertedRange), Err(Error::InvertedRange));
        assert_eq!(activity.retries(), (1, Some(Error::NotCommitted)));
    }
}
