//! The retry loop: run a transaction until it commits or fails for good.

use std::time::Duration;

use super::{Committed, Database, Error, Result, Transaction, TransactionOption};

/// Whether an earlier attempt of this transaction may have committed
/// (it failed with `commit_unknown_result`). Code that is not idempotent
/// must check what happened before doing its writes again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaybeCommitted(pub bool);

/// Bounds on the retry loop. The default retries for ever, as FDB does;
/// interactive callers should set a timeout so an unreachable cluster or a
/// hot key gives an error instead of a hang.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetryOptions {
    /// Give up after this many retries.
    pub retry_limit: Option<u32>,
    /// Give up (with `transaction_timed_out`) after this long in all.
    pub timeout: Option<Duration>,
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
/// FDB's backoff (through [`Transaction::on_error`]). `f` may run many
/// times, so it must not have effects outside the transaction that it
/// cannot repeat.
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
pub fn run_with<T, E>(
    db: &(dyn Database + '_),
    options: RetryOptions,
    mut f: impl FnMut(&mut dyn Transaction, MaybeCommitted) -> Result<T, E>,
) -> Result<(T, Committed), E>
where
    E: From<Error> + AsKvError,
{
    let mut tx = db.create_trx()?;
    if let Some(limit) = options.retry_limit {
        tx.set_option(TransactionOption::RetryLimit(i64::from(limit)))?;
    }
    if let Some(timeout) = options.timeout {
        let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX).max(1);
        tx.set_option(TransactionOption::Timeout(ms))?;
    }
    let mut maybe = MaybeCommitted(false);
    loop {
        let attempt = match f(&mut *tx, maybe) {
            Ok(value) => tx.commit().map(|c| (value, c)).map_err(E::from),
            Err(e) => Err(e),
        };
        match attempt {
            Ok(done) => return Ok(done),
            Err(e) => {
                let Some(kv) = e.as_kv().filter(|kv| kv.is_retryable()) else {
                    return Err(e);
                };
                maybe.0 |= kv.is_maybe_committed();
                tx.on_error(kv.clone())?;
            }
        }
    }
}

/// FDB's retry backoff: 10 ms, doubling to at most 1 s, with jitter so
/// that clients that conflicted once do not conflict again in lockstep.
#[derive(Clone, Debug)]
pub(crate) struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            next: Duration::from_millis(10),
        }
    }
}

impl Backoff {
    /// The delay before the next attempt.
    pub fn delay(&mut self) -> Duration {
        let base = self.next;
        self.next = (self.next * 2).min(Duration::from_secs(1));
        base.mul_f64(rand::random_range(0.5..1.0))
    }
}
