//! `on_error` and timeouts: FDB's retries of a transaction.
//!
//! `on_error` retries what FDB's client retries, after FDB's back-off: a
//! wait drawn below the current back-off, which doubles up to
//! `max_retry_delay` (30 s for the errors of an overloaded cluster), or a
//! fixed 10 ms for read versions too old or too new. The network thread
//! waits it out, so the caller is never put to sleep. A new attempt keeps
//! what FDB keeps across retries: the persistent options (timeout, retry
//! limit, maximum delay, the database's defaults), the retry count, the
//! back-off, and the clock of the timeout, which runs from the
//! transaction's creation or last reset.

use std::sync::Arc;
use std::time::{Duration, Instant};

use fql::kv::TransactionOption;

use super::{State, Tx};
use crate::errors::{
    self, CLIENT_INVALID_OPERATION, Code, Retry, TRANSACTION_CANCELLED, TRANSACTION_TIMED_OUT,
};
use crate::future::{Future, Value};
use crate::network;
use crate::option_codes::tr;
use crate::options::Refused;

impl Tx {
    /// `fdb_transaction_on_error`.
    pub fn on_error(self: &Arc<Self>, code: Code) -> Arc<Future> {
        let mut st = self.lock();
        st.check_deadline();
        if let Some(dead) = st.dead {
            return Future::ready(Err(dead));
        }
        let limit_hit = st.options.retry_limit != -1 && st.retries >= st.options.retry_limit;
        st.retries = st.retries.saturating_add(1);
        let code = errors::validated(code);
        let retry = match (code, errors::retry_of(code)) {
            (0, _) => Err(CLIENT_INVALID_OPERATION),
            (_, Some(retry)) if !limit_hit => Ok(retry),
            _ => Err(code),
        };
        let retry = match retry {
            Ok(retry) => retry,
            Err(code) => {
                // FDB cancels a transaction whose error it will not retry.
                st.kill(TRANSACTION_CANCELLED);
                return Future::ready(Err(code));
            }
        };
        let delay = st.delay(retry);
        st.new_attempt();
        if let Err(e) = self.apply_persistent(&mut st) {
            return Future::ready(Err(e));
        }
        if let Some(dead) = st.dead {
            return Future::ready(Err(dead));
        }
        let wait = Future::pending();
        st.waits.push(Arc::downgrade(&wait));
        let done = wait.clone();
        network::after(
            delay,
            Box::new(move || {
                done.resolve(Ok(Value::Void));
            }),
        );
        wait
    }

    /// Sets the persistent options again on a new attempt (the timeout
    /// last, as FDB does, so an earlier one cannot fail it), and arms the
    /// timeout, whose clock keeps running from the transaction's start.
    /// On a database that could not be opened, each attempt starts with
    /// that error deferred, so every future fails with it, the library's
    /// own special keys included, as FDB's do.
    pub(super) fn apply_persistent(self: &Arc<Self>, st: &mut State) -> Result<(), Code> {
        st.deferred = self.db.open_error;
        let persistent = st.persistent.clone();
        let (timeouts, others): (Vec<_>, Vec<_>) = persistent
            .iter()
            .partition(|(code, _)| *code == tr::TIMEOUT);
        for (code, value) in others.into_iter().chain(timeouts.last().copied()) {
            st.options
                .apply(*code, value.as_deref())
                .map_err(Refused::code)?;
            // The database's defaults the store honours (conflict
            // reports, snapshot read-your-writes) hold for each attempt.
            st.pass_to_store(*code)?;
        }
        self.arm_timeout(st);
        Ok(())
    }

    /// Bounds the store's waits by what is left of the timeout, and has
    /// the network thread end the transaction when it runs out.
    pub(super) fn arm_timeout(self: &Arc<Self>, st: &mut State) {
        let Some(deadline) = st.deadline() else {
            let _ = st.inner.set_option(TransactionOption::Timeout(0));
            return;
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            st.kill(TRANSACTION_TIMED_OUT);
            return;
        }
        let ms = u64::try_from(left.as_millis()).unwrap_or(u64::MAX).max(1);
        let _ = st.inner.set_option(TransactionOption::Timeout(ms));
        let me = Arc::downgrade(self);
        network::at(
            deadline,
            Box::new(move || {
                if let Some(tx) = me.upgrade() {
                    let mut st = tx.lock();
                    if st.deadline() == Some(deadline) {
                        st.kill(TRANSACTION_TIMED_OUT);
                    }
                }
            }),
        );
    }
}

impl State {
    /// FDB's wait before a retry, and the back-off's growth.
    fn delay(&mut self, retry: Retry) -> Duration {
        let max = Duration::from_millis(self.options.max_retry_delay_ms as u64);
        match retry {
            Retry::Now => Duration::ZERO,
            Retry::Short => errors::SHORT_RETRY.min(max),
            Retry::Backoff { constrained } => {
                let wait = self.backoff.mul_f64(rand::random::<f64>());
                let ceiling = if constrained {
                    errors::CONSTRAINED_MAX_BACKOFF
                } else {
                    max
                };
                self.backoff = (self.backoff * 2).min(ceiling);
                wait
            }
        }
    }
}
