//! Transactions: reads and writes, commits and their versions, FDB's
//! deferred errors, `on_error`, `cancel`, `reset`, timeouts and read
//! versions.

use std::time::Duration;

use crate::support::{Db, Tx, int};

#[test]
fn writes_commit_and_read_back_with_their_version_and_versionstamp() {
    let db = Db::new();
    let tx = db.tx();
    tx.set(b"a", b"1");
    // Read-your-writes before the commit.
    assert_eq!(tx.get(b"a").value(), Ok(Some(b"1".to_vec())));
    let stamp = tx.versionstamp();
    assert!(!stamp.ready());
    assert_eq!(tx.commit().wait_error(), 0);
    let version = tx.committed_version();
    assert!(version > 0);
    let stamp = stamp.key().unwrap();
    assert_eq!(stamp.len(), 10);
    assert_eq!(&stamp[..8], &version.to_be_bytes());
    // After a commit, every use is `used_during_commit` until reset.
    assert_eq!(tx.get(b"a").value(), Err(2017));
    tx.reset();
    assert_eq!(tx.get(b"a").value(), Ok(Some(b"1".to_vec())));
    assert!(db.tx().read_version().int64().unwrap() >= version);
}

#[test]
fn a_read_only_commit_has_no_version_and_no_versionstamp() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.get(b"x").value(), Ok(None));
    let stamp = tx.versionstamp();
    assert_eq!(tx.commit().wait_error(), 0);
    assert_eq!(tx.committed_version(), -1);
    assert_eq!(stamp.wait_error(), 2021);
}

#[test]
fn errors_of_writes_are_deferred_to_the_next_future_until_reset() {
    let db = Db::new();
    let tx = db.tx();
    tx.set(b"\xff/system", b"x");
    assert_eq!(tx.get(b"a").value(), Err(2004));
    assert_eq!(tx.commit().wait_error(), 2004);
    tx.reset();
    tx.atomic(b"n", &[1], 99);
    assert_eq!(tx.commit().wait_error(), 2018);
    tx.reset();
    tx.set(b"k", &vec![0; 100_001]);
    assert_eq!(tx.get(b"a").value(), Err(2103));
    tx.reset();
    tx.set(b"ok", b"1");
    assert_eq!(tx.commit().wait_error(), 0);
}

#[test]
fn atomic_operations_and_versionstamped_keys() {
    let db = Db::new();
    db.write(|tx| {
        tx.atomic(b"n", &5u64.to_le_bytes(), 2);
        tx.atomic(b"n", &7u64.to_le_bytes(), 2);
        tx.atomic(b"m", &3u32.to_le_bytes(), 13);
        let mut key = b"vs".to_vec();
        key.extend([0; 10]);
        key.extend(2u32.to_le_bytes());
        tx.atomic(&key, b"stamped", 14);
    });
    let tx = db.tx();
    assert_eq!(tx.get(b"n").value(), Ok(Some(12u64.to_le_bytes().to_vec())));
    assert_eq!(tx.get(b"m").value(), Ok(Some(3u32.to_le_bytes().to_vec())));
    let (rows, _) = tx.range(b"vs", b"vt", 0, -2, false).rows().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0.len(), 12);
    assert_eq!(rows[0].1, b"stamped");
}

#[test]
fn a_conflict_is_retried_by_on_error_which_resets_the_transaction() {
    let db = Db::new();
    let (t1, t2) = (db.tx(), db.tx());
    t1.get(b"k").value().unwrap();
    t2.get(b"k").value().unwrap();
    t1.set(b"k", b"1");
    t2.set(b"k", b"2");
    assert_eq!(t1.commit().wait_error(), 0);
    assert_eq!(t2.commit().wait_error(), 1020);
    let retry = t2.on_error(1020);
    assert_eq!(retry.wait_error(), 0);
    // Reset: its write is gone and it reads the winner's.
    assert_eq!(t2.get(b"k").value(), Ok(Some(b"1".to_vec())));
}

/// `report_conflicting_keys` (712, or the database's 702): after a
/// conflict, `\xff\xff/transaction/conflicting_keys/` holds the read range
/// another commit wrote, a key valued `1` at its begin and `0` at its end,
/// until `on_error`; without the option it is empty.
#[test]
fn conflicting_keys_are_reported_with_the_option() {
    const PREFIX: &[u8] = b"\xff\xff/transaction/conflicting_keys/";
    let end = [PREFIX, b"\xff\xff"].concat();
    let conflicted = |db: &Db, option: bool| {
        let (t1, t2) = (db.tx(), db.tx());
        if option {
            assert_eq!(t2.option(712, None), 0);
        }
        t2.get(b"k").value().unwrap();
        t2.get(b"x").value().unwrap();
        t1.set(b"k", b"1");
        t2.set(b"w", b"2");
        assert_eq!(t1.commit().wait_error(), 0);
        assert_eq!(t2.commit().wait_error(), 1020);
        t2
    };
    let reported = |tx: &Tx| tx.range(PREFIX, &end, 0, -2, false).rows().unwrap().0;
    let db = Db::new();
    let t2 = conflicted(&db, true);
    let want = vec![
        ([PREFIX, b"k"].concat(), b"1".to_vec()),
        ([PREFIX, b"k\x00"].concat(), b"0".to_vec()),
    ];
    assert_eq!(reported(&t2), want);
    assert_eq!(t2.on_error(1020).wait_error(), 0);
    assert_eq!(reported(&t2), vec![]);
    assert_eq!(reported(&conflicted(&db, false)), vec![]);
    // The database's default reaches every transaction.
    assert_eq!(db.option(702, None), 0);
    assert_eq!(reported(&conflicted(&db, false)), want);
}

#[test]
fn on_error_returns_what_it_does_not_retry_and_cancels_the_transaction() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.on_error(2004).wait_error(), 2004);
    assert_eq!(tx.get(b"a").value(), Err(1025));
    tx.reset();
    assert_eq!(tx.on_error(0).wait_error(), 2000);
    tx.reset();
    assert_eq!(tx.on_error(-5).wait_error(), 4000);
}

#[test]
fn the_retry_limit_survives_on_error_and_stops_it() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(501, Some(&int(1))), 0);
    assert_eq!(tx.on_error(1020).wait_error(), 0);
    assert_eq!(tx.on_error(1020).wait_error(), 1020);
    tx.reset();
    // A reset forgets the limit.
    assert_eq!(tx.on_error(1020).wait_error(), 0);
    assert_eq!(tx.on_error(1020).wait_error(), 0);
}

#[test]
fn a_cancelled_transaction_fails_until_reset() {
    let db = Db::new();
    let tx = db.tx();
    let stamp = tx.versionstamp();
    tx.cancel();
    assert_eq!(stamp.wait_error(), 1025);
    assert_eq!(tx.get(b"a").value(), Err(1025));
    assert_eq!(tx.commit().wait_error(), 1025);
    tx.reset();
    assert_eq!(tx.get(b"a").value(), Ok(None));
}

#[test]
fn past_its_timeout_a_transaction_and_its_pending_futures_fail() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(500, Some(&int(50))), 0);
    // Resolved by the network thread when the timeout runs out.
    let stamp = tx.versionstamp();
    assert_eq!(stamp.wait_error(), 1031);
    assert_eq!(tx.get(b"a").value(), Err(1031));
    assert_eq!(tx.on_error(1020).wait_error(), 1031);
    tx.reset();
    assert_eq!(tx.get(b"a").value(), Ok(None));
}

#[test]
fn the_timeout_keeps_counting_across_on_error() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(500, Some(&int(100))), 0);
    std::thread::sleep(Duration::from_millis(150));
    // The retry's wait cannot outlive the timeout.
    assert_eq!(tx.on_error(1020).wait_error(), 1031);
}

#[test]
fn a_database_timeout_is_every_new_transactions_default() {
    let db = Db::new();
    assert_eq!(db.option(500, Some(&int(30))), 0);
    let tx = db.tx();
    assert_eq!(tx.versionstamp().wait_error(), 1031);
    assert_eq!(db.option(500, Some(&int(-1))), 2006);
}

/// Commits `f`'s writes and returns the commit's version.
fn commit_version(db: &Db, f: impl FnOnce(&Tx)) -> i64 {
    let tx = db.tx();
    f(&tx);
    assert_eq!(tx.commit().wait_error(), 0);
    tx.committed_version()
}

/// A read version a few commits old reads the state of then, as FDB
/// serves any version within its MVCC window: point and range reads, and
/// a commit from there conflicts with what was written since. One the
/// database never held is `transaction_too_old`, one no commit has
/// reached `future_version`, and `on_error` forgets the version.
#[test]
fn a_read_version_within_the_window_reads_the_state_then() {
    let db = Db::new();
    let first = commit_version(&db, |tx| {
        tx.set(b"a", b"1");
        tx.set(b"b", b"1");
    });
    let second = commit_version(&db, |tx| {
        tx.set(b"a", b"2");
        tx.clear(b"b");
        tx.set(b"c", b"2");
    });
    commit_version(&db, |tx| tx.clear_range(b"a", b"z"));
    let now = db.tx().read_version().int64().unwrap();
    let set_to = |v: i64| {
        let tx = db.tx();
        unsafe { fdb_c::transaction::exports::fdb_transaction_set_read_version(tx.0, v) };
        tx
    };
    let at_first = set_to(first);
    assert_eq!(at_first.read_version().int64(), Ok(first));
    assert_eq!(at_first.get(b"a").value(), Ok(Some(b"1".to_vec())));
    assert_eq!(at_first.get(b"b").value(), Ok(Some(b"1".to_vec())));
    assert_eq!(at_first.get(b"c").value(), Ok(None));
    let rows = |tx: &Tx, reverse| {
        let (rows, _) = tx.range(b"a", b"z", 0, -2, reverse).rows().unwrap();
        rows.into_iter().map(|(k, _)| k).collect::<Vec<_>>()
    };
    assert_eq!(rows(&at_first, false), [b"a".to_vec(), b"b".to_vec()]);
    let at_second = set_to(second);
    assert_eq!(rows(&at_second, true), [b"c".to_vec(), b"a".to_vec()]);
    assert_eq!(at_second.get(b"a").value(), Ok(Some(b"2".to_vec())));
    assert_eq!(set_to(now).get(b"a").value(), Ok(None));

    // The clear after `first` wrote `a`: a commit that read it there fails.
    at_first.set(b"d", b"1");
    assert_eq!(at_first.commit().wait_error(), 1020);

    let too_old = set_to(1);
    assert_eq!(too_old.get(b"a").value(), Err(1007));
    assert_eq!(too_old.on_error(1007).wait_error(), 0);
    assert_eq!(too_old.get(b"c").value(), Ok(None));
    assert_eq!(too_old.read_version().int64(), Ok(now));
    assert_eq!(set_to(now + 1_000_000).get(b"a").value(), Err(1009));
    assert_eq!(set_to(0).get(b"a").value(), Err(2011));
    let tx = set_to(now);
    unsafe { fdb_c::transaction::exports::fdb_transaction_set_read_version(tx.0, now) };
    assert_eq!(tx.get(b"a").value(), Err(2010));
}

#[test]
fn size_limit_fails_the_commit_and_only_the_commit() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(503, Some(&int(100))), 0);
    tx.set(b"big", &[0; 200]);
    assert_eq!(tx.get(b"a").value(), Ok(None));
    assert_eq!(tx.commit().wait_error(), 2101);
    assert_eq!(db.tx().get(b"big").value(), Ok(None));
}

#[test]
fn null_and_negative_lengths_are_invalid_operations() {
    let db = Db::new();
    let tx = db.tx();
    let f = crate::support::Fut(unsafe {
        fdb_c::transaction::exports::fdb_transaction_get(tx.0, std::ptr::null(), 3, 0)
    });
    assert_eq!(f.wait_error(), 2000);
    let f = crate::support::Fut(unsafe {
        fdb_c::transaction::exports::fdb_transaction_get(std::ptr::null_mut(), b"a".as_ptr(), 1, 0)
    });
    assert_eq!(f.wait_error(), 2000);
    unsafe {
        fdb_c::transaction::exports::fdb_transaction_set(tx.0, b"a".as_ptr(), -1, b"".as_ptr(), 0)
    };
    assert_eq!(tx.commit().wait_error(), 2000);
}

#[test]
fn approximate_size_and_cost_grow_with_writes() {
    let db = Db::new();
    let tx = db.tx();
    let size = |tx: &Tx| {
        crate::support::Fut(unsafe {
            fdb_c::transaction::exports::fdb_transaction_get_approximate_size(tx.0)
        })
        .int64()
        .unwrap()
    };
    assert_eq!(size(&tx), 0);
    tx.set(b"key", b"value");
    let after = size(&tx);
    assert!(after >= 8, "{after}");
    let cost = crate::support::Fut(unsafe {
        fdb_c::transaction::exports::fdb_transaction_get_total_cost(tx.0)
    });
    assert!(cost.int64().unwrap() > 0);
}

#[test]
fn on_error_waits_on_the_network_thread_not_in_the_caller() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(502, Some(&int(3_600_000))), 0);
    // Each retry doubles the back-off: the last waits up to an hour.
    let started = std::time::Instant::now();
    let waits: Vec<_> = (0..20).map(|_| tx.on_error(1020)).collect();
    assert!(started.elapsed() < Duration::from_secs(5));
    // A new retry ends the attempt the earlier ones waited for, unless
    // its back-off was already over (the first ones, of milliseconds, on
    // a loaded machine); the one before the last waited for minutes.
    for w in &waits[..18] {
        assert!(matches!(w.wait_error(), 0 | 1025));
    }
    assert_eq!(waits[18].wait_error(), 1025);
    let last = waits.last().unwrap();
    assert!(!last.ready());
    tx.cancel();
    assert_eq!(last.wait_error(), 1025);
}

#[test]
fn a_failed_commit_has_no_versionstamp() {
    let db = Db::new();
    let (t1, t2) = (db.tx(), db.tx());
    t1.get(b"k").value().unwrap();
    t2.get(b"k").value().unwrap();
    t1.set(b"k", b"1");
    t2.set(b"k", b"2");
    let stamp = t2.versionstamp();
    assert_eq!(t1.commit().wait_error(), 0);
    assert_eq!(t2.commit().wait_error(), 1020);
    assert_eq!(stamp.wait_error(), 2020);
    assert_eq!(t2.committed_version(), -1);
}

#[test]
fn doubles_and_unsigned_results_have_getters_of_their_own() {
    use fdb_c::future::exports::*;
    let db = Db::new();
    let tx = db.tx();
    let f = crate::support::Fut(unsafe {
        fdb_c::transaction::exports::fdb_transaction_get_tag_throttled_duration(tx.0)
    });
    f.wait_error();
    let mut d = -1.0;
    assert_eq!(unsafe { fdb_future_get_double(f.0, &mut d) }, 0);
    assert_eq!(d, 0.0);
    let f = crate::support::Fut(unsafe {
        fdb_c::database::fdb_database_get_server_protocol(db.ptr, 0)
    });
    f.wait_error();
    let mut v = 0u64;
    assert_eq!(unsafe { fdb_future_get_uint64(f.0, &mut v) }, 0);
    assert_eq!(v, fdb_c::database::PROTOCOL_VERSION);
    let mut b = 0;
    assert_eq!(unsafe { fdb_future_get_bool(f.0, &mut b) }, 2000);
}

/// FDB's retry loop through the C API, in threads that conflict: every
/// increment lands once.
#[test]
fn concurrent_retry_loops_lose_no_increment() {
    let db = std::sync::Arc::new(Db::new());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let db = db.clone();
            std::thread::spawn(move || {
                for _ in 0..25 {
                    let tx = db.tx();
                    loop {
                        let e = match tx.get(b"n").value() {
                            Ok(v) => {
                                let n = v.map_or(0, |v| u64::from_le_bytes(v.try_into().unwrap()));
                                tx.set(b"n", &(n + 1).to_le_bytes());
                                tx.commit().wait_error()
                            }
                            Err(e) => e,
                        };
                        if e == 0 {
                            break;
                        }
                        assert_eq!(tx.on_error(e).wait_error(), 0, "error {e}");
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let n = db.tx().get(b"n").value().unwrap().unwrap();
    assert_eq!(u64::from_le_bytes(n.try_into().unwrap()), 100);
}

/// A commit that waited out the store's lock wait, because another
/// process held the file's write lock, is the store being busy: FDB's
/// `commit_proxy_memory_limit_exceeded`, which `on_error` retries, not
/// `transaction_timed_out`, which FDB gives only for a timeout the client
/// set. Once the lock is free, the retried commit lands.
#[test]
fn a_lock_wait_that_runs_out_is_retried_not_timed_out() {
    let db = Db::new();
    db.write(|tx| tx.set(b"k", b"0"));
    let holder = rusqlite::Connection::open(db.dir.path().join("test.db")).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let tx = db.tx();
    tx.set(b"k", b"1");
    let code = tx.commit().wait_error();
    assert_eq!(code, 1042, "the commit that could not get in");
    assert_eq!(fdb_c::api::fdb_error_predicate(50000, code), 1, "retryable");
    let retry = tx.on_error(code);
    holder.execute_batch("ROLLBACK").unwrap();
    assert_eq!(retry.wait_error(), 0);
    tx.set(b"k", b"1");
    assert_eq!(tx.commit().wait_error(), 0);
    assert_eq!(db.tx().get(b"k").value(), Ok(Some(b"1".to_vec())));
}
