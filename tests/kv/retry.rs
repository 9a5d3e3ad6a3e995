//! The retry loop's deadlines: a quick attempt found too old is retried,
//! and a scan renews its transaction once per read.

use std::time::{Duration, Instant};

use fql::kv::embedded::Embedded;
use fql::kv::{self, Database, Error, RetryOptions, TransactionOption};

#[test]
fn a_quick_attempt_found_too_old_is_retried() {
    let db = Embedded::memory();
    let mut attempts = 0;
    let r = kv::run(&db, |tx, _| {
        attempts += 1;
        tx.set(b"k", b"v")?;
        if attempts == 1 {
            return Err(Error::TransactionTooOld);
        }
        Ok(())
    });
    assert_eq!((r, attempts), (Ok(()), 2));
}

#[test]
fn a_scan_renews_its_transaction_once_per_read() {
    let db = Embedded::memory();
    let mut tx = db.create_trx().unwrap();
    let mut calls = 0;
    let once = kv::read_resuming(&mut tx, RetryOptions::default(), |_| {
        calls += 1;
        if calls == 1 {
            Err(Error::TransactionTooOld)
        } else {
            Ok(7)
        }
    });
    assert_eq!(once, Ok((7, true)));
    // Too old again in the fresh transaction: no later one would do.
    let mut calls = 0;
    let never = kv::read_resuming(&mut tx, RetryOptions::default(), |_| {
        calls += 1;
        Err::<(), _>(Error::TransactionTooOld)
    });
    assert_eq!((never, calls), (Err(Error::TransactionTooOld), 2));
    // Other retryable errors are retried until the deadline.
    let soon = RetryOptions::default().with_timeout(Duration::from_millis(100));
    let began = Instant::now();
    let busy = kv::read_resuming(&mut tx, soon, |_| Err::<(), _>(Error::NotCommitted));
    assert_eq!(busy, Err(Error::TransactionTimedOut));
    assert!(began.elapsed() < Duration::from_secs(30));
}

/// The transaction a scan renews keeps the scan's bounds: a reset clears
/// a transaction's options, and the read after it would otherwise have no
/// timeout.
#[test]
fn a_renewed_scan_keeps_its_timeout() {
    let db = Embedded::memory();
    let mut tx = db.create_trx().unwrap();
    let soon = RetryOptions::default().with_timeout(Duration::from_millis(50));
    let mut calls = 0;
    let renewed = kv::read_resuming(&mut tx, soon, |tx| {
        calls += 1;
        if calls == 1 {
            return Err(Error::TransactionTooOld);
        }
        std::thread::sleep(Duration::from_millis(150));
        tx.get(b"k", false)
    });
    assert_eq!((renewed, calls), (Err(Error::TransactionTimedOut), 2));
}

/// The embedded transaction's own `on_error` resets for exactly FDB's
/// retryable codes, and refuses fql's own errors whatever their code.
#[test]
fn embedded_on_error_retries_fdbs_codes() {
    let db = Embedded::memory();
    for code in (1000..1300).chain(2000..2300).chain([4000]) {
        // A fresh transaction each time, whose backoff has not grown.
        let mut tx = db.create_trx().unwrap();
        let e = Error::from_code(code);
        assert_eq!(
            tx.on_error(e.clone()).is_ok(),
            kv::retried_by_on_error(code),
            "{e}"
        );
    }
    let mut tx = db.create_trx().unwrap();
    for own in [
        Error::storage("disk full"),
        Error::Locked {
            path: "x.db".into(),
            waited_ms: 1,
        },
    ] {
        assert_eq!(tx.on_error(own.clone()), Err(own));
    }
}

/// A backoff that would outlast the transaction's timeout (the 30 s a
/// proxy out of memory grows it to) ends at the timeout instead.
#[test]
fn a_backoff_ends_at_the_timeout() {
    let db = Embedded::memory();
    let mut tx = db.create_trx().unwrap();
    tx.set_option(TransactionOption::Timeout(300)).unwrap();
    let began = Instant::now();
    let e = loop {
        if let Err(e) = tx.on_error(Error::from_code(1078)) {
            break e;
        }
    };
    assert_eq!(e, Error::TransactionTimedOut);
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
}
