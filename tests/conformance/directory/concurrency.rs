//! Clients contending for prefixes: threads on one database, and two
//! transactions that picked the same or different candidates.

use std::sync::Barrier;
use std::thread;

use super::clients::{check, create_many};
use super::*;

pub fn threads_never_share_a_prefix(db: &Backend) {
    let start = Barrier::new(4);
    thread::scope(|s| {
        for client in 0..4 {
            let (db, start) = (db.reopen(), &start);
            s.spawn(move || {
                start.wait();
                eprintln!("{} attempts", create_many(&*db, client));
            });
        }
    });
    check(db, 4);
}

/// Two transactions that picked the same candidate: the later commit
/// fails, so it retries with another.
pub fn the_same_candidate_twice_conflicts(db: &Backend) {
    run(db, |tx| scripted(&[9]).create(tx, &["first"], b"")).unwrap();
    let mut t1 = db.create_trx().unwrap();
    let mut t2 = db.create_trx().unwrap();
    let x = scripted(&[5]).create(&mut *t1, &["x"], b"").unwrap();
    let y = scripted(&[5]).create(&mut *t2, &["y"], b"").unwrap();
    assert_eq!(x.prefix().unwrap(), y.prefix().unwrap());
    t1.commit().unwrap();
    assert_eq!(t2.commit().unwrap_err(), kv::Error::NotCommitted);
}

/// Two transactions with different candidates commit both: counting is an
/// atomic add and every other read is a snapshot or a key of its own.
pub fn different_candidates_do_not_conflict(db: &Backend) {
    run(db, |tx| scripted(&[9]).create(tx, &["first"], b"")).unwrap();
    let mut t1 = db.create_trx().unwrap();
    let mut t2 = db.create_trx().unwrap();
    scripted(&[5]).create(&mut *t1, &["x"], b"").unwrap();
    scripted(&[6]).create(&mut *t2, &["y"], b"").unwrap();
    t1.commit().unwrap();
    t2.commit().unwrap();
    let dirs = DirectoryLayer::new();
    assert_eq!(
        run(db, |tx| dirs.list(tx, ROOT)).unwrap(),
        ["first", "x", "y"]
    );
    // Both allocations were counted.
    let counter = const_hex::decode("fe01fe00016863610014 14".replace(' ', "")).unwrap();
    let count = db.run(|tx, _| tx.get(&counter, false)).unwrap();
    assert_eq!(count, Some(3i64.to_le_bytes().to_vec()));
}
