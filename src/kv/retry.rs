//! The retry loop: run a transaction until it commits or fails for good.
//!
//! Every loop has a deadline, so that a transaction that cannot commit
//! (a hot key, an unreachable cluster, work too long for one transaction)
//! ends in an error instead of a hang; and a transaction whose own work
//! outlived its window (FDB's five seconds) fails at once, since every
//! attempt would outlive it again.

use std::time::{Duration, Instant, SystemTime};

use super::{
    CommitStatus, Committed, Database, Error, IdempotencyId, Result, Transaction, TransactionOption,
};

/// The deadline of a retry loop when the caller sets none: long enough for
/// a few attempts of a transaction that fits its window, short enough that
/// a person waiting sees an error soon. `fql --timeout` changes it.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether an earlier attempt of this transaction may have committed
/// (it failed with `commit_unknown_result`) and the backend cannot tell
/// whether it did: the loop asks it first, and runs the body with `true`
/// only when it records no idempotency ids (FoundationDB here). Code
/// that is not idempotent must then check what happened before doing its
/// writes again, or not do them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaybeCommitted(pub bool);

/// Bounds on the retry loop. The default gives up after
/// [`DEFAULT_TIMEOUT`]; a `timeout` of `None` retries for ever, as FDB's
/// own loop does, which nothing in fql asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryOptions {
    /// Give up after this many retries.
    pub retry_limit: Option<u32>,
    /// Give up (with `transaction_timed_out`) after this long in all,
    /// attempts, backoff and commits included.
    pub timeout: Option<Duration>,
}

impl Default for RetryOptions {
    fn default() -> Self {
        RetryOptions {
            retry_limit: None,
            timeout: Some(DEFAULT_TIMEOUT),
        }
    }
}

impl RetryOptions {
    /// These options with a deadline of `timeout`.
    pub fn with_timeout(self, timeout: Duration) -> RetryOptions {
        RetryOptions {
            timeout: Some(timeout),
            ..self
        }
    }

    /// Sets the options on a transaction, so that a single operation that
    /// waits (a cluster that does not answer, a lock) is bounded too.
    fn apply(&self, tx: &mut dyn Transaction) -> Result<()> {
        if let Some(limit) = self.retry_limit {
            tx.set_option(TransactionOption::RetryLimit(i64::from(limit)))?;
        }
        if let Some(timeout) = self.timeout {
            let ms = u64::try_from(timeout.as_millis())
                .unwrap_or(u64::MAX)
                .max(1);
            tx.set_option(TransactionOption::Timeout(ms))?;
        }
        Ok(())
    }
}

/// Errors that may carry a transaction error, so the retry loop can tell a
/// conflict (retry) from a failure of the caller's own logic (stop).
pub trait AsKvError {
    /// The transaction error inside, if any.
    fn as_kv(&self) -> Option<&Error>;
}

impl AsKvError for Error {
    fn as_kv(&self) -> Option<&Error> {
        Some(self)
    }
}

/// Runs `f` in a transaction and commits, retrying retryable errors with
/// FDB's backoff (through [`Transaction::on_error`]) until
/// [`DEFAULT_TIMEOUT`]. `f` may run many times, so it must not have
/// effects outside the transaction that it cannot repeat.
pub fn run<T, E>(
    db: &(dyn Database + '_),
    f: impl FnMut(&mut dyn Transaction, MaybeCommitted) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<Error> + AsKvError,
{
    run_with(db, RetryOptions::default(), f).map(|(value, _)| value)
}

/// [`run`] with bounds, returning what the commit reported as well (its
/// version and versionstamp).
///
/// The loop stops, returning the attempt's error, when the error is not
/// retryable, when the retry limit or the deadline is reached (then with
/// `transaction_timed_out`, or `commit_unknown_result` when the last
/// commit may have landed and the backend cannot tell), and when an attempt failed with
/// `transaction_too_old` after its own work (the body, before the commit)
/// took the database's [`window`](Database::window) or more: running it
/// again would take as long again.
///
/// Each attempt commits under a fresh [`IdempotencyId`]. When a commit
/// fails with a maybe-committed error (`commit_unknown_result`), the loop
/// asks the backend whether it was applied before going on: if it was,
/// the loop returns that attempt's value and outcome, so nothing is
/// written twice; if it was not, the body runs again as after a
/// conflict. Only when the backend cannot tell (it records no ids) is the
/// body run again with [`MaybeCommitted`]`(true)`, to check for itself.
pub fn run_with<T, E>(
    db: &(dyn Database + '_),
    options: RetryOptions,
    mut f: impl FnMut(&mut dyn Transaction, MaybeCommitted) -> Result<T, E>,
) -> Result<(T, Committed), E>
where
    E: From<Error> + AsKvError,
{
    let began = Instant::now();
    let window = db.window();
    let mut tx = db.create_trx()?;
    options.apply(&mut *tx)?;
    let mut maybe = MaybeCommitted(false);
    let mut unsettled: Option<Unsettled<T>> = None;
    loop {
        let e = match unsettled.take() {
            Some(u) => match tx.commit_status(&u.id, u.since) {
                Ok(CommitStatus::Committed(done)) => return Ok((u.value, done)),
                Ok(CommitStatus::NotCommitted) => continue,
                Ok(CommitStatus::Unknown) => {
                    maybe.0 = true;
                    continue;
                }
                Err(e) if e.is_retryable() => {
                    unsettled = Some(u);
                    E::from(e)
                }
                Err(e) => return Err(e.into()),
            },
            None => {
                let attempt = Instant::now();
                let id = IdempotencyId::random();
                let since = SystemTime::now();
                tx.set_option(TransactionOption::IdempotencyId(id))?;
                let body = f(&mut *tx, maybe);
                let worked = attempt.elapsed();
                let e = match body {
                    Err(e) => e,
                    Ok(value) => match tx.commit() {
                        Ok(done) => return Ok((value, done)),
                        Err(e) => {
                            if e.is_maybe_committed() {
                                unsettled = Some(Unsettled { id, since, value });
                            }
                            E::from(e)
                        }
                    },
                };
                if worked >= window && e.as_kv() == Some(&Error::TransactionTooOld) {
                    return Err(e);
                }
                e
            }
        };
        let Some(kv) = e.as_kv().filter(|kv| kv.is_retryable()).cloned() else {
            return Err(e);
        };
        if options.timeout.is_some_and(|t| began.elapsed() >= t) {
            return give_up(&mut *tx, unsettled, Error::TransactionTimedOut.into());
        }
        if let Err(refused) = tx.on_error(kv) {
            return give_up(&mut *tx, unsettled, refused.into());
        }
    }
}

/// The loop's answer when it stops retrying with `e`: if the last commit
/// may have been applied, what the backend says of it, so that a commit
/// that landed is not reported as failed (and one it cannot tell about
/// not as written by nobody). The transaction is reset first: its own
/// timeout has run out, and the look-up is bounded by the backend's.
fn give_up<T, E>(
    tx: &mut dyn Transaction,
    unsettled: Option<Unsettled<T>>,
    e: E,
) -> Result<(T, Committed), E>
where
    E: From<Error>,
{
    let Some(u) = unsettled else {
        return Err(e);
    };
    tx.reset();
    match tx.commit_status(&u.id, u.since) {
        Ok(CommitStatus::Committed(done)) => Ok((u.value, done)),
        Ok(CommitStatus::NotCommitted) => Err(e),
        Ok(CommitStatus::Unknown) | Err(_) => Err(Error::CommitUnknownResult.into()),
    }
}

/// An attempt whose commit failed with a maybe-committed error: what to
/// look up, and what the body returned, for when it was applied.
struct Unsettled<T> {
    id: IdempotencyId,
    since: SystemTime,
    value: T,
}

/// One read of a long scan that goes on across transactions, as `fql
/// validate` reads: `read` runs in `tx` until it succeeds. When `tx` has
/// outlived its window the read goes on in a fresh transaction (the
/// scan's next window); other retryable errors are retried with backoff,
/// until `options`' deadline, counted from this call. Returns the read's
/// value and whether `tx` was renewed. A renewed transaction is bounded by
/// `options` as the caller's was (a reset clears a transaction's options).
///
/// A read that outlives the window of a transaction renewed for it fails
/// with `transaction_too_old`: every later transaction would too.
pub fn read_resuming<T>(
    tx: &mut Box<dyn Transaction>,
    options: RetryOptions,
    mut read: impl FnMut(&mut dyn Transaction) -> Result<T>,
) -> Result<(T, bool)> {
    let began = Instant::now();
    let mut renewed = false;
    loop {
        let e = match read(&mut **tx) {
            Ok(value) => return Ok((value, renewed)),
            Err(e) => e,
        };
        if e == Error::TransactionTooOld && !renewed {
            tx.reset();
            options.apply(&mut **tx)?;
            renewed = true;
            continue;
        }
        if e == Error::TransactionTooOld || !e.is_retryable() {
            return Err(e);
        }
        if options.timeout.is_some_and(|t| began.elapsed() >= t) {
            return Err(Error::TransactionTimedOut);
        }
        tx.on_error(e)?;
    }
}

/// FDB's retry backoff: 10 ms, doubling to at most 1 s (30 s after a
/// proxy ran out of memory, 1042 or 1078), with jitter so that clients
/// that conflicted once do not conflict again in lockstep; a fixed 10 ms
/// after `transaction_too_old` and `future_version`, which need only a
/// newer read version. As FDB's `Transaction::onError` and `getBackoff`.
#[derive(Clone, Debug)]
pub(crate) struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { next: FIRST_DELAY }
    }
}

/// The first backoff, and the delay after 1007 and 1009.
const FIRST_DELAY: Duration = Duration::from_millis(10);

impl Backoff {
    /// The delay before the attempt after an error with `code`.
    pub fn delay(&mut self, code: i32) -> Duration {
        if matches!(code, 1007 | 1009) {
            return FIRST_DELAY;
        }
        let cap = match code {
            1042 | 1078 => Duration::from_secs(30),
            _ => Duration::from_secs(1),
        };
        let base = self.next;
        self.next = (self.next * 2).min(cap);
        base.mul_f64(rand::random_range(0.5..1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FDB's backoffs: growing to 1 s, to 30 s for the proxies' memory
    /// limits, and not at all for a read version that is too old or new.
    #[test]
    fn the_backoff_follows_fdbs() {
        let mut b = Backoff::default();
        let delays: Vec<Duration> = (0..12).map(|_| b.delay(1020)).collect();
        assert!(delays[0] <= Duration::from_millis(10));
        assert!(delays.iter().all(|d| *d <= Duration::from_secs(1)));
        assert!(delays[11] >= Duration::from_millis(500));
        let mut b = Backoff::default();
        let most = (0..14).map(|_| b.delay(1078)).max().unwrap();
        assert!(most > Duration::from_secs(1) && most <= Duration::from_secs(30));
        let mut b = Backoff::default();
        for _ in 0..12 {
            assert_eq!(b.delay(1007), FIRST_DELAY);
            assert_eq!(b.delay(1009), FIRST_DELAY);
        }
        assert!(b.delay(1020) <= FIRST_DELAY, "too old did not grow it");
    }
}
