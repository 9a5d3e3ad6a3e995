//! Options: FDB's checks of codes and values, what is honoured and what
//! is refused.

use fdb_c::transaction::exports::fdb_transaction_add_conflict_range;
use fdb_c::types::{
    FDBConflictRangeType, FDBDatabaseOption, FDBMutationType, FDBTransactionOption,
};

use crate::support::{Db, int};

#[test]
fn unknown_codes_are_invalid_options_and_bad_values_invalid_values() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.option(4242, None), 2007);
    assert_eq!(db.option(4242, None), 2007);
    assert_eq!(tx.option(500, Some(&[1, 2, 3])), 2006);
    assert_eq!(tx.option(503, Some(&int(10))), 2006);
    assert_eq!(tx.option(800, Some(b"a-tag-longer-than-16")), 2110);
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
    assert_eq!(tx.option(51, None), 2108);
    assert_eq!(tx.option(601, None), 2108);
    assert_eq!(db.option(27, None), 2108);
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
