//! `fdb_transaction_get_mapped_range` and
//! `fdb_future_get_mappedkeyvalue_array`, over data shaped as FDB's own C
//! unit tests shape it: index entries `(p, "INDEX", index key, primary
//! key)` with empty values, and records `(p, "RECORD", primary key,
//! split)` of three splits each.

use std::ffi::c_int;
use std::ptr::null;

use fdb_c::future::exports::fdb_future_get_mappedkeyvalue_array;
use fdb_c::transaction::exports::fdb_transaction_get_mapped_range;
use fdb_c::types::FDBMappedKeyValue;
use foundationdb_tuple::pack;

use crate::support::{Db, Fut, Row, Tx, WANT_ALL};

const P: &str = "mapped";
const SPLITS: i64 = 3;

fn primary(i: usize) -> String {
    format!("primary-key-of-record-{i:08}")
}

fn index_entry(i: usize) -> Vec<u8> {
    pack(&(
        P,
        "INDEX",
        format!("index-key-of-record-{i:08}"),
        primary(i),
    ))
}

fn record_key(i: usize, split: i64) -> Vec<u8> {
    pack(&(P, "RECORD", primary(i), split))
}

fn record_value(i: usize, split: i64) -> Vec<u8> {
    pack(&(format!("data-of-record-{i:08}"), split))
}

/// The empty tuple: every index entry's value.
fn empty() -> Vec<u8> {
    pack(&())
}

/// FDB's unit tests' 20 records and their index.
fn fill(db: &Db) {
    db.write(|tx| {
        for i in 0..20 {
            tx.set(&index_entry(i), &empty());
            for split in 0..SPLITS {
                tx.set(&record_key(i, split), &record_value(i, split));
            }
        }
    });
}

/// `(p, "RECORD", {K[3]}, {...})`: each entry's record, all splits.
fn records_mapper() -> Vec<u8> {
    pack(&(P, "RECORD", "{K[3]}", "{...}"))
}

/// One `FDBMappedKeyValue`, copied out.
#[derive(Debug, PartialEq, Eq)]
struct Mapped {
    key: Vec<u8>,
    value: Vec<u8>,
    begin: Vec<u8>,
    end: Vec<u8>,
    rows: Vec<Row>,
}

/// How a mapped range is called.
#[derive(Clone, Copy)]
struct Call {
    limit: c_int,
    target_bytes: c_int,
    mode: c_int,
    snapshot: bool,
    reverse: bool,
}

const ALL: Call = Call {
    limit: 0,
    target_bytes: 0,
    mode: WANT_ALL,
    snapshot: false,
    reverse: false,
};

fn slice(ptr: *const u8, len: c_int) -> Vec<u8> {
    if len == 0 {
        return Vec::new();
    }
    unsafe { std::slice::from_raw_parts(ptr, len as usize) }.to_vec()
}

impl Tx {
    /// The mapped range between two first-greater-or-equal selectors.
    fn mapped(&self, begin: &[u8], end: &[u8], mapper: &[u8], call: Call) -> Fut {
        Fut(unsafe {
            fdb_transaction_get_mapped_range(
                self.0,
                begin.as_ptr(),
                begin.len() as c_int,
                0,
                1,
                end.as_ptr(),
                end.len() as c_int,
                0,
                1,
                mapper.as_ptr(),
                mapper.len() as c_int,
                call.limit,
                call.target_bytes,
                call.mode,
                0,
                call.snapshot as c_int,
                call.reverse as c_int,
            )
        })
    }

    /// FDB's unit tests' read: entries `begin..end` mapped with `mapper`.
    fn entries(
        &self,
        begin: usize,
        end: usize,
        mapper: &[u8],
    ) -> Result<(Vec<Mapped>, bool), c_int> {
        self.mapped(&index_entry(begin), &index_entry(end), mapper, ALL)
            .mapped()
    }
}

impl Fut {
    /// The mapped rows and the `more` flag.
    fn mapped(&self) -> Result<(Vec<Mapped>, bool), c_int> {
        self.wait_error();
        let (mut mkvs, mut count, mut more): (*const FDBMappedKeyValue, c_int, c_int) =
            (null(), 0, 0);
        match unsafe {
            fdb_future_get_mappedkeyvalue_array(self.0, &mut mkvs, &mut count, &mut more)
        } {
            0 => {}
            e => return Err(e),
        }
        let mkvs = unsafe { std::slice::from_raw_parts(mkvs, count as usize) };
        let mapped = mkvs
            .iter()
            .map(|m| {
                let r = &m.getRange;
                assert_eq!((r.begin.orEqual, r.begin.offset), (0, 1));
                assert_eq!((r.end.orEqual, r.end.offset), (0, 1));
                assert_eq!(r.m_size, r.m_capacity);
                let data = if r.m_size == 0 {
                    &[][..]
                } else {
                    unsafe { std::slice::from_raw_parts(r.data, r.m_size as usize) }
                };
                Mapped {
                    key: slice(m.key.key, m.key.key_length),
                    value: slice(m.value.key, m.value.key_length),
                    begin: slice(r.begin.key.key, r.begin.key.key_length),
                    end: slice(r.end.key.key, r.end.key.key_length),
                    rows: data
                        .iter()
                        .map(|kv| {
                            let (k, kl, v, vl) = (kv.key, kv.key_length, kv.value, kv.value_length);
                            (slice(k, kl), slice(v, vl))
                        })
                        .collect(),
                }
            })
            .collect();
        Ok((mapped, more != 0))
    }
}

/// The record prefix entry `i` maps to, and the key after its keys.
fn record_range(i: usize) -> (Vec<u8>, Vec<u8>) {
    let prefix = pack(&(P, "RECORD", primary(i)));
    let end = fql::kv::strinc(&prefix);
    (prefix, end)
}

fn records(i: usize) -> Vec<Row> {
    (0..SPLITS)
        .map(|s| (record_key(i, s), record_value(i, s)))
        .collect()
}

#[test]
fn a_range_mapper_returns_each_entry_with_all_its_records() {
    let db = Db::new();
    fill(&db);
    let tx = db.tx();
    let (mapped, more) = tx.entries(1, 19, &records_mapper()).unwrap();
    assert!(!more);
    assert_eq!(mapped.len(), 18);
    for (m, i) in mapped.iter().zip(1..) {
        let (begin, end) = record_range(i);
        let expected = Mapped {
            key: index_entry(i),
            value: empty(),
            begin,
            end,
            rows: records(i),
        };
        assert_eq!(*m, expected);
    }
}

#[test]
fn entries_whose_records_are_missing_come_with_no_rows() {
    let db = Db::new();
    fill(&db);
    let tx = db.tx();
    // `{K[2]}` is the index key, under which no record lies.
    let mapper = pack(&(P, "RECORD", "{K[2]}", "{...}"));
    let (mapped, more) = tx.entries(1, 19, &mapper).unwrap();
    assert!(!more);
    assert_eq!(mapped.len(), 18);
    for (m, i) in mapped.iter().zip(1..) {
        assert_eq!((&m.key, &m.value), (&index_entry(i), &empty()));
        assert!(m.rows.is_empty(), "{m:?}");
    }
}

#[test]
fn a_key_mapper_gets_one_record_and_keeps_only_the_boundary_entries() {
    let db = Db::new();
    fill(&db);
    let tx = db.tx();
    let mapper = pack(&(P, "RECORD", "{K[3]}", 1));
    let (mapped, _) = tx.entries(2, 6, &mapper).unwrap();
    assert_eq!(mapped.len(), 4);
    for (at, (m, i)) in mapped.iter().zip(2..).enumerate() {
        let key = record_key(i, 1);
        assert_eq!(m.begin, key);
        assert_eq!(m.end, fql::kv::key_after(&key));
        assert_eq!(m.rows, vec![(key, record_value(i, 1))]);
        let boundary = at == 0 || at == 3;
        let entry = if boundary {
            (index_entry(i), empty())
        } else {
            (vec![], vec![])
        };
        assert_eq!((m.key.clone(), m.value.clone()), entry, "row {at}");
    }
    // A key that is not set gives no row.
    let mapper = pack(&(P, "RECORD", "{K[3]}", 9));
    let (mapped, _) = tx.entries(2, 4, &mapper).unwrap();
    assert!(mapped.iter().all(|m| m.rows.is_empty()), "{mapped:?}");
}

#[test]
fn limits_and_reverse_apply_to_the_index_entries() {
    let db = Db::new();
    fill(&db);
    let tx = db.tx();
    let (b, e) = (index_entry(0), index_entry(20));
    let five = Call { limit: 5, ..ALL };
    let (mapped, more) = tx.mapped(&b, &e, &records_mapper(), five).mapped().unwrap();
    assert_eq!(mapped.len(), 5);
    assert!(more);
    let back = Call {
        limit: 2,
        reverse: true,
        ..ALL
    };
    let (mapped, more) = tx.mapped(&b, &e, &records_mapper(), back).mapped().unwrap();
    let keys: Vec<_> = mapped.iter().map(|m| m.key.clone()).collect();
    assert_eq!((keys, more), (vec![index_entry(19), index_entry(18)], true));
    assert_eq!(mapped[0].rows, records(19));
    // The byte target counts the records: SMALL's 256 bytes end the batch
    // at the first entry, whose three records alone exceed it.
    let small = Call { mode: 1, ..ALL };
    let (mapped, more) = tx
        .mapped(&b, &e, &records_mapper(), small)
        .mapped()
        .unwrap();
    assert_eq!((mapped.len(), more), (1, true));
    // An inverted range is empty.
    assert_eq!(
        tx.mapped(&e, &b, &records_mapper(), ALL).mapped(),
        Ok((vec![], false))
    );
}

#[test]
fn snapshot_reads_and_special_keys_are_refused() {
    let db = Db::new();
    fill(&db);
    let tx = db.tx();
    let snapshot = Call {
        snapshot: true,
        ..ALL
    };
    let f = tx.mapped(
        &index_entry(0),
        &index_entry(2),
        &records_mapper(),
        snapshot,
    );
    assert_eq!(f.wait_error(), 2108);
    let f = tx.mapped(b"\xff\xff/a", b"\xff\xff/b", &records_mapper(), ALL);
    assert_eq!(f.wait_error(), 2000);
    let f = tx.mapped(b"a", b"\xff\x01", &records_mapper(), ALL);
    assert_eq!(f.wait_error(), 2004);
    let exact = Call { mode: 0, ..ALL };
    let f = tx.mapped(b"a", b"b", &records_mapper(), exact);
    assert_eq!(f.wait_error(), 2210);
}

#[test]
fn bad_mappers_fail_with_fdbs_codes() {
    let db = Db::new();
    fill(&db);
    let tx = db.tx();
    // FDB's unit test's mapper, which fails to unpack at `\x35`.
    let not_tuple = b"\x15:\x152\x15E\x15\x09\x15\x02\x02MySimpleRecord$repeater-version\x00\x15\x01\x35\x00\x00\x00\x00\x1aU\x90\xba\x00\x00\x00\x02\x15\x04";
    assert_eq!(tx.entries(1, 3, not_tuple), Err(2043));
    let bad_index = pack(&(P, "RECORD", "{K[9]}", "{...}"));
    assert_eq!(tx.entries(1, 3, &bad_index), Err(2030));
    let range_not_last = pack(&(P, "{...}", "{K[3]}"));
    assert_eq!(tx.entries(1, 3, &range_not_last), Err(2032));
    // `{V[0]}` of an entry whose value is the empty tuple is out of range.
    let value = pack(&(P, "{V[0]}"));
    assert_eq!(tx.entries(1, 3, &value), Err(2030));
}

#[test]
fn reading_the_transaction_s_own_writes_fails() {
    let db = Db::new();
    fill(&db);
    let mapper = records_mapper();
    // A write to a record the range maps to.
    let tx = db.tx();
    tx.set(&record_key(2, 1), b"new");
    assert_eq!(tx.entries(1, 5, &mapper), Err(2039));
    // A clear inside the primary range.
    let tx = db.tx();
    tx.clear(&index_entry(3));
    assert_eq!(tx.entries(1, 5, &mapper), Err(2039));
    // Writes elsewhere, and writes of an earlier attempt, do not matter.
    let tx = db.tx();
    tx.set(&record_key(7, 0), b"new");
    tx.clear_range(&index_entry(5), &index_entry(6));
    assert_eq!(tx.entries(1, 5, &mapper).map(|(m, _)| m.len()), Ok(4));
    tx.set(&record_key(2, 1), b"new");
    tx.reset();
    assert_eq!(tx.entries(1, 5, &mapper).map(|(m, _)| m.len()), Ok(4));
}

/// Commits, from a transaction of its own, a write to `key`; then whether
/// `tx`, which read a mapped range before, can still commit.
fn commits_after_write_to(db: &Db, key: &[u8]) -> c_int {
    let tx = db.tx();
    assert_eq!(
        tx.entries(1, 5, &records_mapper()).map(|(m, _)| m.len()),
        Ok(4)
    );
    tx.set(b"elsewhere", b"x");
    db.write(|other| other.set(key, b"changed"));
    tx.commit().wait_error()
}

#[test]
fn the_primary_and_secondary_reads_add_read_conflict_ranges() {
    let db = Db::new();
    fill(&db);
    assert_eq!(commits_after_write_to(&db, &record_key(3, 2)), 1020);
    assert_eq!(commits_after_write_to(&db, &index_entry(2)), 1020);
    // A new record under a mapped prefix conflicts too.
    assert_eq!(commits_after_write_to(&db, &record_key(4, 3)), 1020);
    // Records outside the entries read do not.
    assert_eq!(commits_after_write_to(&db, &record_key(9, 0)), 0);
}
