//! The keys from `\xff` on: the system keys, which FDB's options open to
//! reads and writes, and the special keys, which the library and the
//! store answer as FDB's client does.

use fdb_c::types::FDBTransactionOption;

use crate::support::{Db, Row, Tx, WANT_ALL, int};

/// `read_system_keys` and `access_system_keys`.
const READ_SYSTEM_KEYS: FDBTransactionOption = 302;
const ACCESS_SYSTEM_KEYS: FDBTransactionOption = 301;

fn keys(rows: Result<(Vec<Row>, bool), i32>) -> Vec<Vec<u8>> {
    rows.unwrap().0.into_iter().map(|(k, _)| k).collect()
}

fn reader(db: &Db) -> Tx {
    let tx = db.tx();
    assert_eq!(tx.option(READ_SYSTEM_KEYS, None), 0);
    tx
}

#[test]
fn system_keys_are_refused_without_their_options() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.get(b"\xff/fql").value(), Err(2004));
    assert_eq!(
        tx.range(b"\xff", b"\xff\xff", 0, WANT_ALL, false).rows(),
        Err(2004)
    );
    tx.set(b"\xff/fql", b"1");
    assert_eq!(tx.commit().wait_error(), 2004);
    let tx = reader(&db);
    assert_eq!(tx.get(b"\xff/fql").value(), Ok(None));
    tx.set(b"\xff/fql", b"1");
    assert_eq!(tx.commit().wait_error(), 2004, "reading is not writing");
    let tx = db.tx();
    assert_eq!(tx.option(ACCESS_SYSTEM_KEYS, None), 0);
    tx.set(b"\xff\xff/fql", b"1");
    assert_eq!(
        tx.commit().wait_error(),
        2114,
        "a special key, without special_key_space_enable_writes"
    );
}

#[test]
fn system_keys_are_written_and_read_with_their_options() {
    let db = Db::new();
    db.write(|tx| {
        assert_eq!(tx.option(ACCESS_SYSTEM_KEYS, None), 0);
        tx.set(b"\xff/fql/a", b"1");
        tx.atomic(b"\xff/fql/n", &int(2), 2);
        tx.set(b"\xff/fql/z", b"z");
        tx.set(b"user", b"u");
    });
    let tx = reader(&db);
    assert_eq!(tx.get(b"\xff/fql/a").value(), Ok(Some(b"1".to_vec())));
    assert_eq!(tx.get(b"\xff/fql/n").value(), Ok(Some(int(2))));
    let all = tx.range(b"\xff", b"\xff\xff", 0, WANT_ALL, false).rows();
    let system: Vec<Vec<u8>> = [&b"\xff/fql/a"[..], b"\xff/fql/n", b"\xff/fql/z"]
        .map(<[u8]>::to_vec)
        .to_vec();
    assert_eq!(keys(all), system);
    let back = tx.range(b"", b"\xff\xff", 2, WANT_ALL, true).rows();
    assert_eq!(keys(back), vec![system[2].clone(), system[1].clone()]);
    assert_eq!(
        tx.get_key(b"\xff/fql/a", true, 1).key(),
        Ok(system[1].clone())
    );
    assert_eq!(
        tx.get_key(b"\xff/fql/a", false, 0).key(),
        Ok(b"user".to_vec())
    );
    assert_eq!(
        tx.get_key(b"\xff/fql/z", true, 1).key(),
        Ok(b"\xff\xff".to_vec())
    );
    db.write(|tx| {
        assert_eq!(tx.option(ACCESS_SYSTEM_KEYS, None), 0);
        tx.clear(b"\xff/fql/a");
        tx.clear_range(b"\xff/fql/m", b"\xff/fql/o");
    });
    let tx = reader(&db);
    let left = tx.range(b"\xff", b"\xff\xff", 0, WANT_ALL, false).rows();
    assert_eq!(keys(left), vec![system[2].clone()]);
}

/// `\xff/metadataVersion` is read by anyone, set by no client, and
/// stamped by any, without an option: a versionstamped value at offset 0,
/// unreadable in the transaction that wrote it, as in FDB.
#[test]
fn the_metadata_version_is_readable_and_stamped_without_options() {
    let db = Db::new();
    let tx = db.tx();
    assert_eq!(tx.get(b"\xff/metadataVersion").value(), Ok(None));
    assert_eq!(tx.get(b"\xff/metadataVersio").value(), Err(2004));
    let tx = db.tx();
    assert_eq!(tx.option(ACCESS_SYSTEM_KEYS, None), 0);
    tx.set(b"\xff/metadataVersion", b"1");
    assert_eq!(tx.commit().wait_error(), 2000);
    let tx = db.tx();
    tx.atomic(b"\xff/metadataVersion", &[1; 14], 15);
    assert_eq!(tx.commit().wait_error(), 2000);
    let tx = db.tx();
    tx.atomic(b"\xff/metadataVersion", &[0; 14], 15);
    assert_eq!(tx.get(b"\xff/metadataVersion").value(), Err(1036));
    let tx = db.tx();
    tx.atomic(b"\xff/metadataVersion", &[0; 14], 15);
    assert_eq!(tx.commit().wait_error(), 0);
    let stamp = db.tx().get(b"\xff/metadataVersion").value().unwrap();
    assert_eq!(stamp.map(|v| v.len()), Some(10));
}

#[test]
fn special_keys_are_answered_by_the_library_or_the_store() {
    let db = Db::new();
    let tx = db.tx();
    let line = tx
        .get(b"\xff\xff/connection_string")
        .value()
        .unwrap()
        .unwrap();
    assert!(line.starts_with(b"fql:embedded@"));
    let status = tx.get(b"\xff\xff/status/json").value().unwrap().unwrap();
    let status: serde_json::Value = serde_json::from_slice(&status).unwrap();
    assert!(status["cluster"].is_object());
    assert_eq!(tx.get(b"\xff\xff/no_such_module").value(), Err(2113));
    assert_eq!(tx.get(b"\xff\xff\xff").value(), Err(2004));
    let range = |b: &[u8], e: &[u8]| tx.range(b, e, 0, WANT_ALL, false).rows();
    let json = range(b"\xff\xff/status/json", b"\xff\xff/status/json\x00");
    assert_eq!(keys(json), vec![b"\xff\xff/status/json".to_vec()]);
    let string = range(
        b"\xff\xff/connection_string",
        b"\xff\xff/connection_string\x00",
    );
    assert_eq!(
        string,
        Ok((vec![(b"\xff\xff/connection_string".to_vec(), line)], false))
    );
    assert_eq!(range(b"\xff\xff/status/", b"\xff\xff/status0"), Err(2112));
    assert_eq!(
        range(b"\xff\xff/a", b"\xff\xff/connection_string\x00"),
        Err(2112)
    );
    assert_eq!(
        range(
            b"\xff\xff/worker_interfaces/",
            b"\xff\xff/worker_interfaces0"
        ),
        Err(2113)
    );
    // first_greater_than of the key is the module's end: one row.
    let key = &b"\xff\xff/connection_string"[..];
    let sel = tx.range_sel((key, false, 1), (key, true, 1), 0, 0, WANT_ALL, 1, false);
    assert_eq!(keys(sel.rows()), vec![key.to_vec()]);
    let none = tx.range_sel((key, false, 1), (key, true, 1), -5, 0, WANT_ALL, 1, false);
    assert_eq!(none.rows(), Err(2012));
}

/// FDB's `special_key_space_enable_writes`.
const SPECIAL_KEY_SPACE_ENABLE_WRITES: FDBTransactionOption = 714;
const TENANT_MAP: &[u8] = b"\xff\xff/management/tenant/map/";
const TENANT_MAP_END: &[u8] = b"\xff\xff/management/tenant/map0";

/// Special-key writes as FDB 7.3's: refused without the option (2114);
/// with it, a key no module writes is 2115, and a clear of the empty
/// tenant map (what FDB's bindingtester commits before each test) commits
/// with the transaction's other writes, as on a cluster with tenants.
#[test]
fn special_key_writes_are_fdbs() {
    let db = Db::new();
    let tx = db.tx();
    tx.clear_range(TENANT_MAP, TENANT_MAP_END);
    assert_eq!(tx.commit().wait_error(), 2114);

    let tx = db.tx();
    assert_eq!(tx.option(SPECIAL_KEY_SPACE_ENABLE_WRITES, None), 0);
    tx.set(b"\xff\xff/fql", b"1");
    assert_eq!(tx.get(b"a").value(), Err(2115));
    tx.reset();
    assert_eq!(tx.option(SPECIAL_KEY_SPACE_ENABLE_WRITES, None), 0);
    tx.clear(b"\xff\xff/status/json");
    assert_eq!(tx.commit().wait_error(), 2115, "a module that only reads");

    let tx = db.tx();
    assert_eq!(tx.option(SPECIAL_KEY_SPACE_ENABLE_WRITES, None), 0);
    tx.set(b"user", b"u");
    tx.clear_range(TENANT_MAP, TENANT_MAP_END);
    assert_eq!(tx.get(b"user").value(), Ok(Some(b"u".to_vec())));
    assert_eq!(tx.commit().wait_error(), 0);
    assert_eq!(db.tx().get(b"user").value(), Ok(Some(b"u".to_vec())));

    // Management commands of a cluster are taken, and refused at commit.
    let tx = db.tx();
    assert_eq!(tx.option(SPECIAL_KEY_SPACE_ENABLE_WRITES, None), 0);
    tx.set(b"\xff\xff/management/db_locked", b"x");
    assert_eq!(tx.commit().wait_error(), 2108);
}

/// Before any tenant is made, the tenant map reads empty: a binding's list
/// of tenants is empty, and a look-up of one finds none (the map's other
/// uses are in `tenants`).
#[test]
fn the_tenant_map_reads_empty() {
    let db = Db::new();
    let tx = db.tx();
    let rows = tx
        .range(TENANT_MAP, TENANT_MAP_END, 0, WANT_ALL, false)
        .rows();
    assert_eq!(rows, Ok((Vec::new(), false)));
    let one = [TENANT_MAP, b"t"].concat();
    assert_eq!(tx.get(&one).value(), Ok(None));
    let other = b"\xff\xff/management/db_locked";
    assert_eq!(
        tx.get(other).value(),
        Err(2113),
        "other modules stay unanswered"
    );
}

const TRACING: &[u8] = b"\xff\xff/tracing/";
const TRACING_END: &[u8] = b"\xff\xff/tracing0";
const TRANSACTION_ID: &[u8] = b"\xff\xff/tracing/transaction_id";
const TOKEN: &[u8] = b"\xff\xff/tracing/token";

/// A UID as FDB prints one: 32 hex digits, neither half zero.
fn a_uid(value: &[u8]) -> bool {
    let text = std::str::from_utf8(value).unwrap();
    text.len() == 32
        && u64::from_str_radix(&text[..16], 16).unwrap() > 0
        && u64::from_str_radix(&text[16..], 16).unwrap() > 0
}

/// The tracing module, as FDB's client keeps it for each transaction:
/// a trace id and a token to read, both settable (with writes enabled)
/// before the transaction writes; a set after a write changes nothing and
/// fails the commit with `special_keys_api_failure` (2117), as does a
/// clear.
#[test]
fn the_tracing_module_reads_and_sets_the_transaction_id_and_token() {
    let db = Db::new();
    let tx = db.tx();
    let id = tx.get(TRANSACTION_ID).value().unwrap().unwrap();
    assert!(a_uid(&id), "{id:?}");
    let (rows, more) = tx
        .range(TRACING, TRACING_END, 0, WANT_ALL, false)
        .rows()
        .unwrap();
    assert!(!more);
    let keys: Vec<&[u8]> = rows.iter().map(|(k, _)| k.as_slice()).collect();
    assert_eq!(keys, [TOKEN, TRANSACTION_ID]);
    assert_eq!(rows[1].1, id);

    tx.set(TRANSACTION_ID, b"0123456789abcdef0123456789abcdef");
    assert_eq!(tx.get(TRANSACTION_ID).value(), Err(2114), "writes disabled");

    let tx = db.tx();
    assert_eq!(tx.option(SPECIAL_KEY_SPACE_ENABLE_WRITES, None), 0);
    tx.set(TRANSACTION_ID, b"0123456789abcdef0123456789abcdef");
    tx.set(TOKEN, b"false");
    assert_eq!(
        tx.get(TRANSACTION_ID).value(),
        Ok(Some(b"0123456789abcdef0123456789abcdef".to_vec()))
    );
    assert_eq!(tx.get(TOKEN).value(), Ok(Some(b"0".to_vec())));
    tx.set(b"user", b"u");
    assert_eq!(tx.commit().wait_error(), 0);

    let tx = db.tx();
    assert_eq!(tx.option(SPECIAL_KEY_SPACE_ENABLE_WRITES, None), 0);
    tx.set(b"user", b"v");
    tx.set(TRANSACTION_ID, b"0");
    let id = tx.get(TRANSACTION_ID).value().unwrap().unwrap();
    assert!(a_uid(&id), "unchanged: {id:?}");
    assert_eq!(tx.commit().wait_error(), 2117);
    assert_eq!(db.tx().get(b"user").value(), Ok(Some(b"u".to_vec())));

    let tx = db.tx();
    assert_eq!(tx.option(SPECIAL_KEY_SPACE_ENABLE_WRITES, None), 0);
    tx.set(TOKEN, b"maybe");
    assert_eq!(tx.get(b"user").value(), Err(2117));
    tx.reset();
    assert_eq!(tx.option(SPECIAL_KEY_SPACE_ENABLE_WRITES, None), 0);
    tx.clear(TOKEN);
    assert_eq!(tx.commit().wait_error(), 2117);
}
