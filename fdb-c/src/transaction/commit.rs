//! The commit, and what is known only after it: the committed version
//! and the versionstamp.
//!
//! The store commits synchronously, so `fdb_transaction_commit`'s future
//! is ready when returned; a versionstamp asked for before it resolves
//! then, on the network thread for its callbacks. A read-only commit has
//! version -1 and no versionstamp (`no_commit_version`); a failed one has
//! no versionstamp (`transaction_invalid_version`), and its watches fail
//! with its error, as FDB's do.
//!
//! With `automatic_idempotency`, each commit goes under a fresh id of the
//! store's, and a commit that fails with `commit_unknown_result` is looked
//! up, as FDB 7.3's client does: applied, it succeeds (with its version
//! and versionstamp); not applied, it fails with `transaction_too_old`,
//! which `on_error` retries. So the same writes never land twice.

use std::sync::Arc;
use std::time::SystemTime;

use fql::kv::{self, CommitStatus, Committed, IdempotencyId, TransactionOption};

use super::{State, Tx};
use crate::errors::{
    self, Code, NO_COMMIT_VERSION, TRANSACTION_INVALID_VERSION, TRANSACTION_TOO_LARGE,
};
use crate::future::{Future, Value};
use crate::options::MAX_SIZE_LIMIT;

impl Tx {
    /// `fdb_transaction_commit`: runs the store's commit now.
    pub fn commit(&self) -> Result<(), Code> {
        let mut st = self.lock();
        st.usable()?;
        st.commit_started = true;
        if st.options.size_limit < MAX_SIZE_LIMIT && st.commit_size > st.options.size_limit {
            st.fail_commit(TRANSACTION_TOO_LARGE);
            return Err(TRANSACTION_TOO_LARGE);
        }
        // The special keys' client modules commit first, as FDB's do.
        if let Err(code) = st.tracing.commit_check() {
            st.fail_commit(code);
            return Err(code);
        }
        let id = st.options.automatic_idempotency.then(|| {
            let id = IdempotencyId::random();
            (id, SystemTime::now())
        });
        if let Some((id, _)) = id {
            // The store records the id with the commit's writes.
            if let Err(e) = st.inner.set_option(TransactionOption::IdempotencyId(id)) {
                let code = errors::of(&e);
                st.fail_commit(code);
                return Err(code);
            }
        }
        let result = match (st.inner.commit(), id) {
            (Err(e), Some((id, since))) if e.is_maybe_committed() => st.resolve(e, &id, since),
            (result, _) => result,
        };
        match result {
            Ok(done) => {
                st.committed(done);
                Ok(())
            }
            Err(e) => {
                let code = errors::of_commit(&e);
                st.fail_commit(code);
                Err(code)
            }
        }
    }

    /// `fdb_transaction_get_committed_version`: -1 for a read-only or
    /// uncommitted transaction.
    pub fn committed_version(&self) -> i64 {
        self.lock().committed_version
    }

    /// `fdb_transaction_get_versionstamp`: resolved by the commit.
    pub fn versionstamp(&self) -> Result<Arc<Future>, Code> {
        let mut st = self.lock();
        st.usable()?;
        let f = Future::pending();
        st.stamps.push(Arc::downgrade(&f));
        Ok(f)
    }
}

impl State {
    /// A commit that went through: its version and versionstamp are known,
    /// and its watches belong to the store.
    fn committed(&mut self, done: Committed) {
        self.committed_version = done.version.map_or(-1, |v| v as i64);
        self.watches.clear();
        let stamp = done.versionstamp.filter(|_| done.version.is_some());
        for f in std::mem::take(&mut self.stamps) {
            if let Some(f) = f.upgrade() {
                f.resolve(match stamp {
                    Some(s) => Ok(Value::Key(s.to_vec())),
                    None => Err(NO_COMMIT_VERSION),
                });
            }
        }
    }

    /// FDB 7.3's answer to a maybe-committed error of a commit made under
    /// an idempotency id: it looks the id up, and reports the commit as
    /// done when it was applied, `transaction_too_old` (which `on_error`
    /// retries) when it was not. When the store cannot tell (it no longer
    /// holds ids that old) the error stands.
    fn resolve(
        &mut self,
        e: kv::Error,
        id: &IdempotencyId,
        since: SystemTime,
    ) -> kv::Result<Committed> {
        match self.inner.commit_status(id, since) {
            Ok(CommitStatus::Committed(done)) => Ok(done),
            Ok(CommitStatus::NotCommitted) => Err(kv::Error::TransactionTooOld),
            Ok(CommitStatus::Unknown) | Err(_) => Err(e),
        }
    }

    /// A commit that failed: its versionstamp cannot be known, and its
    /// watches fail with its error.
    fn fail_commit(&mut self, code: Code) {
        for f in std::mem::take(&mut self.stamps) {
            if let Some(f) = f.upgrade() {
                f.resolve(Err(TRANSACTION_INVALID_VERSION));
            }
        }
        for f in std::mem::take(&mut self.watches) {
            if let Some(f) = f.upgrade() {
                f.resolve(Err(code));
            }
        }
    }
}
