//! Options: FDB's checks of codes and values, what is honoured and what
//! is refused.

use fdb_c::transaction::exports::fdb_transaction_add_conflict_range;
use fdb_c::types::{
    FDBConflictRangeType, FDBDatabaseOption, FDBMutationType, FDBTransactionOption,
};

use crate::support::{Db, WANT_ALL, int};

#[test]
fn unknown_codes_are_invalid_options_and_bad_values_invalid_values() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(4242, None), 2007);
    assert_eq!(db.option(4242, None), 2007);
    // FDB defers a known option's refusal to the next future, until reset.
    for (code, value, error) in [
        (500, &[1u8, 2, 3][..], 2006),
        (503, &int(10)[..], 2006),
        (800, &b"a-tag-longer-than-16"[..], 2110),
    ] {
        assert_eq!(tx.option(code, Some(value)), 0, "option {code}");
        assert_eq!(tx.get(b"k").value(), Err(error), "option {code}");
        tx.reset();
    }
    // Harmless options are accepted.
    for code in [20, 200, 201, 700, 712] {
        assert_eq!(tx.option(code, None), 0, "option {code}");
    }
}

/// The header types option, mutation and conflict codes as C enums
/// (unsigned here), so a negative code a C caller passes arrives as a
/// large one, and is as unknown as any other.
#[test]
fn negative_codes_are_unknown_codes() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(-1i32 as FDBTransactionOption, None), 2007);
    assert_eq!(db.option(-1i32 as FDBDatabaseOption, None), 2007);
    let conflict = |ty| unsafe {
        fdb_transaction_add_conflict_range(tx.0, b"a".as_ptr(), 1, b"b".as_ptr(), 1, ty)
    };
    assert_eq!(conflict(-1i32 as FDBConflictRangeType), 2000);
    assert_eq!(conflict(2), 2000);
    tx.atomic(b"n", &[1], -1i32 as FDBMutationType);
    assert_eq!(tx.commit().wait_error(), 2018);
}

#[test]
fn options_that_would_change_semantics_the_store_lacks_are_refused() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(300, None), 0);
    assert_eq!(tx.commit().wait_error(), 2108, "initialize_new_database");
    assert_eq!(db.option(800, None), 2108, "use_config_database");
}

/// FDB's `size_limit` takes 32 to 10,000,000 bytes; a value outside is
/// `invalid_option_value`, which FDB's `set_option` does not return but
/// the commit does, and the option is not taken.
#[test]
fn a_bad_size_limit_fails_the_commit_not_the_call() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(503, Some(&int(31))), 0);
    tx.set(b"k", b"v");
    assert_eq!(tx.commit().wait_error(), 2006);
    tx.reset();
    assert_eq!(tx.option(503, Some(&int(32))), 0);
    tx.set(b"k", b"v");
    assert_eq!(tx.commit().wait_error(), 0);
}

/// `use_grv_cache` under the multi-version client, which is in place
/// unless a network option bypassed it (that case runs in
/// `tests/grv_cache.rs`, a process of its own): each cached read version
/// reads what has committed before it, as FDB's cache is refreshed by
/// the commits it sees.
#[test]
fn use_grv_cache_reads_at_a_current_version() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(1101, None), 0);
    let cached = tx.read_version().int64().unwrap();
    tx.set(b"k", b"v");
    assert_eq!(tx.commit().wait_error(), 0);
    tx.reset();
    assert_eq!(tx.option(1101, None), 0);
    assert!(tx.read_version().int64().unwrap() > cached);
    assert_eq!(tx.get(b"k").value(), Ok(Some(b"v".to_vec())));
}

#[test]
fn next_write_no_write_conflict_range_spares_the_next_write_only() {
    let db = Db::new();
    let (reader, writer) = (db.tx(), db.tx());
    reader.get(b"k").value().unwrap();
    reader.set(b"other", b"x");
    assert_eq!(writer.option(30, None), 0);
    writer.set(b"k", b"1");
    assert_eq!(writer.commit().wait_error(), 0);
    // The reader read k, but the write of k added no conflict range.
    assert_eq!(reader.commit().wait_error(), 0);
}

/// `read_your_writes_disable`: reads see the database as committed, not
/// the transaction's writes; watches are `watches_disabled`; set after a
/// read or a write, the option is `client_invalid_operation` at the next
/// future, as FDB's.
#[test]
fn read_your_writes_disable_reads_past_the_transactions_writes() {
    let db = Db::new();
    db.write(|tx| tx.set(b"a", b"old"));
    let tx = db.tx();
    assert_eq!(tx.option(51, None), 0);
    tx.set(b"a", b"new");
    tx.set(b"b", b"new");
    assert_eq!(tx.get(b"a").value(), Ok(Some(b"old".to_vec())));
    assert_eq!(tx.get(b"b").value(), Ok(None));
    assert_eq!(
        tx.range(b"a", b"c", 0, WANT_ALL, false)
            .rows()
            .unwrap()
            .0
            .len(),
        1
    );
    assert_eq!(tx.watch(b"a").wait_error(), 1034);
    assert_eq!(tx.commit().wait_error(), 0);
    assert_eq!(db.tx().get(b"b").value(), Ok(Some(b"new".to_vec())));

    let late = db.tx();
    late.set(b"c", b"1");
    assert_eq!(late.option(51, None), 0);
    assert_eq!(late.get(b"c").value(), Err(2000), "after a write");
    late.reset();
    late.get(b"a").value().unwrap();
    assert_eq!(late.option(51, None), 0);
    assert_eq!(late.commit().wait_error(), 2000, "after a read");
    // Reset clears it: the transaction reads its writes again.
    late.reset();
    late.set(b"c", b"2");
    assert_eq!(late.get(b"c").value(), Ok(Some(b"2".to_vec())));
}

/// `snapshot_ryw_disable` (601): snapshot reads skip the transaction's
/// writes, others still see them; `snapshot_ryw_enable` (600) counts back
/// up, and the database's pair (26, 27) sets where each transaction
/// starts.
#[test]
fn snapshot_ryw_disable_hides_writes_from_snapshot_reads_only() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(601, None), 0);
    tx.set(b"k", b"v");
    assert_eq!(tx.get_snapshot(b"k").value(), Ok(None));
    assert_eq!(tx.get(b"k").value(), Ok(Some(b"v".to_vec())));
    assert_eq!(tx.option(600, None), 0);
    assert_eq!(tx.get_snapshot(b"k").value(), Ok(Some(b"v".to_vec())));

    assert_eq!(db.option(27, None), 0);
    let tx = db.tx();
    tx.set(b"k", b"v");
    assert_eq!(tx.get_snapshot(b"k").value(), Ok(None));
    tx.reset();
    tx.set(b"k", b"v");
    assert_eq!(tx.get_snapshot(b"k").value(), Ok(None), "kept by reset");
    assert_eq!(db.option(26, None), 0);
    let tx = db.tx();
    tx.set(b"k", b"v");
    assert_eq!(tx.get_snapshot(b"k").value(), Ok(Some(b"v".to_vec())));
}

/// Under `snapshot_ryw_disable` a non-snapshot range read still sees the
/// transaction's writes, and a snapshot one does not.
#[test]
fn snapshot_ryw_disable_leaves_non_snapshot_ranges_their_writes() {
    let db = Db::new();
    db.write(|tx| tx.set(b"a", b"old"));
    let tx = db.tx();
    assert_eq!(tx.option(601, None), 0);
    tx.set(b"b", b"new");
    let keys = |snapshot: bool| -> Vec<Vec<u8>> {
        let f = if snapshot {
            tx.range_snapshot(b"a", b"c")
        } else {
            tx.range(b"a", b"c", 0, WANT_ALL, false)
        };
        f.rows().unwrap().0.into_iter().map(|(k, _)| k).collect()
    };
    assert_eq!(keys(false), vec![b"a".to_vec(), b"b".to_vec()]);
    assert_eq!(keys(true), vec![b"a".to_vec()]);
}
