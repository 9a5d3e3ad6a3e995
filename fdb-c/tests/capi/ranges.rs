//! Range reads and key selectors, with FDB's limits and streaming modes.

use crate::support::{Db, WANT_ALL};

fn letters(db: &Db) {
    db.write(|tx| {
        for c in b'a'..=b'j' {
            tx.set(&[c], &[c; 100]);
        }
    });
}

#[test]
fn limits_reverse_and_more() {
    let db = Db::new();
    letters(&db);
    let tx = db.tx();
    let (rows, more) = tx.range(b"a", b"z", 3, WANT_ALL, false).rows().unwrap();
    let keys: Vec<_> = rows.iter().map(|r| r.0.clone()).collect();
    assert_eq!(keys, vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    assert!(more);
    let (rows, _) = tx.range(b"a", b"z", 2, WANT_ALL, true).rows().unwrap();
    assert_eq!(rows[0].0, b"j");
    let (rows, more) = tx.range(b"a", b"z", 0, WANT_ALL, false).rows().unwrap();
    assert_eq!((rows.len(), more), (10, false));
    // A begin after the end reads nothing.
    assert_eq!(
        tx.range(b"z", b"a", 0, WANT_ALL, false).rows(),
        Ok((vec![], false))
    );
}

#[test]
fn modes_and_limits_are_checked_as_fdb_checks_them() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.range(b"a", b"z", 0, 0, false).rows(), Err(2210));
    assert_eq!(tx.range(b"a", b"z", -2, WANT_ALL, false).rows(), Err(2012));
    assert_eq!(tx.range(b"a", b"z", 0, 9, false).rows(), Err(2000));
    assert_eq!(
        tx.range_sel((b"a", false, 1), (b"z", false, 1), 0, 0, -1, 0, false)
            .rows(),
        Err(2000)
    );
    assert_eq!(
        tx.range(b"a", b"\xff\x01", 0, WANT_ALL, false).rows(),
        Err(2004)
    );
}

#[test]
fn streaming_modes_size_batches_by_bytes() {
    let db = Db::new();
    letters(&db);
    let tx = db.tx();
    // SMALL aims at 256 bytes: rows of 109 bytes, three to reach it.
    let (rows, more) = tx.range(b"a", b"z", 0, 1, false).rows().unwrap();
    assert_eq!((rows.len(), more), (3, true));
    // An explicit target below the mode's wins.
    let (rows, _) = tx
        .range_sel((b"a", false, 1), (b"z", false, 1), 0, 50, 4, 1, false)
        .rows()
        .unwrap();
    assert_eq!(rows.len(), 1);
    // EXACT with a limit returns exactly that many.
    let (rows, _) = tx.range(b"a", b"z", 7, 0, false).rows().unwrap();
    assert_eq!(rows.len(), 7);
}

#[test]
fn selectors_bound_ranges_and_resolve_as_fdbs() {
    let db = Db::new();
    letters(&db);
    let tx = db.tx();
    // FDB's own case: first_greater_or_equal(a) .. last_less_or_equal(c) + 1.
    let (rows, _) = tx
        .range_sel((b"a", false, 1), (b"c", true, 1), 0, 0, WANT_ALL, 0, false)
        .rows()
        .unwrap();
    assert_eq!(rows.len(), 3);
    // first_greater_than(b) .. first_greater_or_equal(e) + 2.
    let (rows, _) = tx
        .range_sel((b"b", true, 1), (b"e", false, 3), 0, 0, WANT_ALL, 0, false)
        .rows()
        .unwrap();
    let keys: Vec<_> = rows.iter().map(|r| r.0[0]).collect();
    assert_eq!(keys, b"cdef".to_vec());
    assert_eq!(tx.get_key(b"a", true, 1).key(), Ok(b"b".to_vec()));
    assert_eq!(tx.get_key(b"c", false, 0).key(), Ok(b"b".to_vec()));
    assert_eq!(tx.get_key(b"j", true, 1).key(), Ok(b"\xff".to_vec()));
    assert_eq!(tx.get_key(b"a", false, -3).key(), Ok(b"".to_vec()));
    assert_eq!(tx.get_key(b"\xff\x01", false, 1).key(), Err(2004));
}

#[test]
fn estimated_sizes_and_split_points_cover_the_range() {
    use fdb_c::transaction::exports::*;
    let db = Db::new();
    letters(&db);
    let tx = db.tx();
    let size = crate::support::Fut(unsafe {
        fdb_transaction_get_estimated_range_size_bytes(tx.0, b"a".as_ptr(), 1, b"z".as_ptr(), 1)
    });
    // A sample holds about one pair in 64, so the few letters are
    // estimated far from their 1010 bytes, but never below nothing.
    assert!(size.int64().is_ok_and(|n| n >= 0), "{:?}", size.int64());
    let empty = crate::support::Fut(unsafe {
        fdb_transaction_get_estimated_range_size_bytes(tx.0, b"0".as_ptr(), 1, b"9".as_ptr(), 1)
    });
    assert_eq!(empty.int64(), Ok(0));
    let inverted = crate::support::Fut(unsafe {
        fdb_transaction_get_estimated_range_size_bytes(tx.0, b"z".as_ptr(), 1, b"a".as_ptr(), 1)
    });
    assert_eq!(inverted.wait_error(), 2005);
    let split = crate::support::Fut(unsafe {
        fdb_transaction_get_range_split_points(tx.0, b"a".as_ptr(), 1, b"z".as_ptr(), 1, 300)
    });
    split.wait_error();
    let (mut keys, mut n) = (std::ptr::null(), 0);
    assert_eq!(
        unsafe { fdb_c::future::exports::fdb_future_get_key_array(split.0, &mut keys, &mut n) },
        0
    );
    let keys = unsafe { std::slice::from_raw_parts(keys, n as usize) };
    let first = keys[0];
    let last = keys[keys.len() - 1];
    assert_eq!(unsafe { *first.key }, b'a');
    assert_eq!(unsafe { *last.key }, b'z');
    assert_eq!(keys.len(), 5);
}
