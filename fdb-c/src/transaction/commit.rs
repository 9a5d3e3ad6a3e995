//! The commit, and what is known only after it: the committed version
//! and the versionstamp.
//!
//! The store commits synchronously, so `fdb_transaction_commit`'s future
//! is ready when returned; a versionstamp asked for before it resolves
//! then, on the network thread for its callbacks. A read-only commit has
//! version -1 and no versionstamp (`no_commit_version`); a failed one has
//! no versionstamp (`transaction_invalid_version`), and its watches fail
//! with its error, as FDB's do.

use std::sync::Arc;

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
        match st.inner.commit() {
            Ok(done) => {
                st.committed_version = done.version.map_or(-1, |v| v as i64);
                // Watches now belong to the store.
                st.watches.clear();
                let stamp = done.versionstamp.filter(|_| done.version.is_some());
                for f in std::mem::take(&mut st.stamps) {
                    if let Some(f) = f.upgrade() {
                        f.resolve(match stamp {
                            Some(s) => Ok(Value::Key(s.to_vec())),
                            None => Err(NO_COMMIT_VERSION),
                        });
                    }
                }
                Ok(())
            }
            Err(e) => {
                let code = errors::of(&e);
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
