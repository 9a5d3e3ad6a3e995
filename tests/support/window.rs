//! Transactions that grow too old in a moment: a database opened with a
//! short window, and a wait for a window to pass, so that a test of what
//! happens to a transaction past its window needs no five seconds.

#![allow(dead_code)]

use std::time::Duration;

use fql::kv::{Database, Error, Limits};

use super::eventually::eventually;

/// The window of the tests' short-lived transactions: a fifth of FDB's,
/// still far longer than the work a test does inside one on a loaded
/// machine, so a transaction grows too old only where the test waits.
pub const SHORT: Duration = Duration::from_secs(1);

/// FDB's limits but for the [`SHORT`] window.
pub fn short() -> Limits {
    Limits {
        window: SHORT,
        ..Limits::default()
    }
}

/// Waits until a transaction begun on `db` now has outlived its window,
/// as every transaction begun before it then has too.
pub fn outlive_window(db: &dyn Database) {
    let mut probe = db.create_trx().expect("a transaction");
    probe.get(b"", true).expect("a read version");
    eventually("a transaction outlives its window", || {
        probe.get(b"", true) == Err(Error::TransactionTooOld)
    });
}
