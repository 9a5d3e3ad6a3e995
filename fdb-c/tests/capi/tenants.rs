//! Tenants, as a FoundationDB 7.3 cluster of tenant mode
//! `optional_experimental` has them: managed through the special keys'
//! tenant map, each a prefix of the database's keys that its
//! transactions cannot leave.

use std::ptr::null_mut;

use fdb_c::transaction::tenant_handle::*;
use fdb_c::types::{FDBMutationType, FDBTenant, FDBTransactionOption};

use crate::support::{Db, Fut, Tx};

const ENABLE_WRITES: FDBTransactionOption = 714;
const SET_VERSIONSTAMPED_KEY: FDBMutationType = 14;
const MAP: &[u8] = b"\xff\xff/management/tenant/map/";
const MAP_END: &[u8] = b"\xff\xff/management/tenant/map0";

/// An opened tenant, destroyed when dropped.
struct Tenant(*mut FDBTenant);

impl Tenant {
    fn open(db: &Db, name: &[u8]) -> Tenant {
        let mut t = null_mut();
        let rc =
            unsafe { fdb_database_open_tenant(db.ptr, name.as_ptr(), name.len() as i32, &mut t) };
        assert_eq!(rc, 0);
        Tenant(t)
    }

    fn tx(&self) -> Tx {
        let mut ptr = null_mut();
        assert_eq!(
            unsafe { fdb_tenant_create_transaction(self.0, &mut ptr) },
            0
        );
        Tx(ptr)
    }

    fn id(&self) -> Result<i64, i32> {
        Fut(unsafe { fdb_tenant_get_id(self.0) }).int64()
    }
}

impl Drop for Tenant {
    fn drop(&mut self) {
        unsafe { fdb_tenant_destroy(self.0) }
    }
}

/// Commits a set (`create`) or a clear of the tenant `name`'s map key.
fn manage(db: &Db, name: &[u8], create: bool) -> i32 {
    let tx = db.tx();
    assert_eq!(tx.option(ENABLE_WRITES, None), 0);
    let key = [MAP, name].concat();
    if create {
        tx.set(&key, b"");
    } else {
        tx.clear(&key);
    }
    tx.commit().wait_error()
}

fn entry(value: &[u8]) -> serde_json::Value {
    serde_json::from_slice(value).expect("a JSON entry")
}

/// The map lists each tenant as FDB's `TenantMapEntry::toJson`: ids from
/// 1 up, the prefix the id's 8 bytes; a set of an existing tenant or a
/// clear of a missing one changes nothing, and writes need the option.
#[test]
fn the_tenant_map_creates_lists_and_deletes() {
    let db = Db::new();
    let tx = db.tx();
    tx.set(&[MAP, b"t"].concat(), b"");
    assert_eq!(tx.commit().wait_error(), 2114, "writes need the option");

    assert_eq!(manage(&db, b"t1", true), 0);
    assert_eq!(manage(&db, b"t2", true), 0);
    assert_eq!(manage(&db, b"t1", true), 0, "exists: nothing to do");
    let (rows, more) = db.tx().range(MAP, MAP_END, 0, -2, false).rows().unwrap();
    assert!(!more);
    let names: Vec<&[u8]> = rows.iter().map(|(k, _)| &k[MAP.len()..]).collect();
    assert_eq!(names, [&b"t1"[..], b"t2"]);
    let t1 = entry(&rows[0].1);
    assert_eq!(t1["id"], 1);
    assert_eq!(t1["name"]["base64"], "dDE=");
    assert_eq!(t1["prefix"]["base64"], "AAAAAAAAAAE=");
    assert_eq!(
        t1["prefix"]["printable"],
        "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01"
    );
    assert_eq!(t1["lock_state"], "unlocked");
    assert_eq!(entry(&rows[1].1)["id"], 2);
    let one = db.tx().get(&[MAP, b"t2"].concat()).value().unwrap();
    assert_eq!(one.map(|v| entry(&v)["id"].clone()), Some(2.into()));

    assert_eq!(manage(&db, b"t1", false), 0);
    assert_eq!(manage(&db, b"t1", false), 0, "missing: nothing to do");
    assert_eq!(db.tx().get(&[MAP, b"t1"].concat()).value(), Ok(None));
    // A range clear deletes every tenant in it.
    assert_eq!(manage(&db, b"t3", true), 0);
    let tx = db.tx();
    assert_eq!(tx.option(ENABLE_WRITES, None), 0);
    tx.clear_range(MAP, MAP_END);
    assert_eq!(tx.commit().wait_error(), 0);
    let rows = db.tx().range(MAP, MAP_END, 0, -2, false).rows().unwrap();
    assert_eq!(rows, (Vec::new(), false));
    assert_eq!(manage(&db, b"t4", true), 0);
    let id = Tenant::open(&db, b"t4").id();
    assert_eq!(id, Ok(4), "ids are not given again");
}

/// A tenant's keys are its prefix and the key; its reads never leave the
/// prefix, a versionstamped key's stamp lands where the tenant put it, and
/// the tenant map is out of its reach.
#[test]
fn a_tenants_keys_lie_under_its_prefix() {
    let db = Db::new();
    assert_eq!(manage(&db, b"a", true), 0);
    assert_eq!(manage(&db, b"b", true), 0);
    db.write(|tx| tx.set(b"k", b"database"));
    let (a, b) = (Tenant::open(&db, b"a"), Tenant::open(&db, b"b"));
    assert_eq!(a.id(), Ok(1));
    let tx = a.tx();
    tx.set(b"k", b"in a");
    tx.set(b"l", b"in a too");
    let mut stamped = b"v".to_vec();
    stamped.extend([0; 10]);
    stamped.extend(1u32.to_le_bytes());
    tx.atomic(&stamped, b"x", SET_VERSIONSTAMPED_KEY);
    assert_eq!(tx.commit().wait_error(), 0);
    let tx = b.tx();
    tx.set(b"k", b"in b");
    assert_eq!(tx.commit().wait_error(), 0);

    let raw = db.tx();
    let prefix = 1i64.to_be_bytes();
    assert_eq!(
        raw.get(&[&prefix[..], b"k"].concat()).value(),
        Ok(Some(b"in a".to_vec()))
    );
    assert_eq!(raw.get(b"k").value(), Ok(Some(b"database".to_vec())));
    let tx = a.tx();
    assert_eq!(tx.get(b"k").value(), Ok(Some(b"in a".to_vec())));
    let (rows, _) = tx.range(b"", b"\xff", 0, -2, false).rows().unwrap();
    let keys: Vec<&[u8]> = rows.iter().map(|(k, _)| k.as_slice()).collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert_eq!(&keys[..2], [&b"k"[..], b"l"]);
    assert!(
        keys[2].starts_with(b"v") && keys[2].len() == 11,
        "the stamp after `v`"
    );
    // Selectors stop at the tenant's bounds.
    assert_eq!(tx.get_key(b"l", true, 2).key(), Ok(b"\xff".to_vec()));
    assert_eq!(tx.get_key(b"k", false, 0).key(), Ok(Vec::new()));
    assert_eq!(b.tx().get(b"l").value(), Ok(None));
    // The tenant map is the database's: a tenant's transaction may not
    // use it, as in FDB.
    let map_key = [MAP, b"a"].concat();
    assert_eq!(a.tx().get(&map_key).value(), Err(2138));
    let tx = a.tx();
    assert_eq!(tx.option(ENABLE_WRITES, None), 0);
    tx.set(&[MAP, b"c"].concat(), b"");
    assert_eq!(tx.commit().wait_error(), 2138);

    // A tenant that holds keys cannot be deleted.
    assert_eq!(manage(&db, b"b", false), 2133);
    let tx = b.tx();
    tx.clear_range(b"", b"\xff");
    assert_eq!(tx.commit().wait_error(), 0);
    assert_eq!(manage(&db, b"b", false), 0);
}

/// A tenant that does not exist: its handle opens, its operations and its
/// id are `tenant_not_found`, and once it is created they work.
#[test]
fn a_missing_tenant_is_not_found() {
    let db = Db::new();
    let t = Tenant::open(&db, b"later");
    assert_eq!(t.id(), Err(2131));
    assert_eq!(t.tx().get(b"k").value(), Err(2131));
    let tx = t.tx();
    tx.set(b"k", b"v");
    assert_eq!(tx.commit().wait_error(), 2131);
    assert_eq!(manage(&db, b"later", true), 0);
    assert_eq!(t.tx().get(b"k").value(), Ok(None));
    assert_eq!(manage(&db, b"later", false), 0);
    assert_eq!(t.tx().get(b"k").value(), Err(2131));
}

/// A tenant's transaction that raced the tenant's deletion conflicts, and
/// its retry finds the tenant gone.
#[test]
fn a_deletion_conflicts_with_the_tenants_transactions() {
    let db = Db::new();
    assert_eq!(manage(&db, b"t", true), 0);
    let t = Tenant::open(&db, b"t");
    let tx = t.tx();
    assert_eq!(tx.get(b"k").value(), Ok(None));
    assert_eq!(manage(&db, b"t", false), 0);
    tx.set(b"k", b"v");
    assert_eq!(tx.commit().wait_error(), 1020);
    assert_eq!(tx.on_error(1020).wait_error(), 0);
    assert_eq!(tx.get(b"k").value(), Err(2131));
    let prefix = 1i64.to_be_bytes();
    assert_eq!(db.tx().get(&[&prefix[..], b"k"].concat()).value(), Ok(None));
}
