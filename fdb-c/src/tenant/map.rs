//! The tenant map, kept where FDB 7.3 keeps it (`TenantMetadata`, in
//! `fdbclient/Tenant.h`): the name index `\xff/tenant/nameIndex/` (a
//! tuple-packed name to its tuple-packed id), the entries
//! `\xff/tenant/map/` (by tuple-packed id) and the last id given
//! `\xff/tenant/lastId`. They are keys of the store like any other, so
//! every process sharing the file sees the same tenants, and a change to
//! them commits or conflicts with the transaction that made it.
//!
//! An entry's value is its JSON (FDB's `TenantMapEntry::toJson`), which is
//! what the special keys answer; FDB stores a binary encoding there that
//! nothing outside its cluster reads.

use fql::kv::{self, RangeOption, StreamingMode, Transaction, TransactionOption};

use crate::errors::Code;

const NAME_INDEX: &[u8] = b"\xff/tenant/nameIndex/";
const NAME_INDEX_END: &[u8] = b"\xff/tenant/nameIndex0";
const MAP: &[u8] = b"\xff/tenant/map/";
const LAST_ID: &[u8] = b"\xff/tenant/lastId";

/// `tenant_not_empty`.
pub const TENANT_NOT_EMPTY: Code = 2133;
/// `invalid_tenant_name`.
pub const INVALID_TENANT_NAME: Code = 2134;
/// `tenant_prefix_allocator_conflict`.
const PREFIX_CONFLICT: Code = 2135;

/// The keys a tenant's keys are stored under: its id, 8 bytes big-endian.
pub fn prefix(id: i64) -> [u8; 8] {
    id.to_be_bytes()
}

fn err(e: kv::Error) -> Code {
    crate::errors::of(&e)
}

/// Opens the system keys to `tx`, which the map's keys are. Callers check
/// the keys a user names themselves, against the user's options, so this
/// changes nothing the user sees.
fn system(tx: &mut dyn Transaction) -> Result<(), Code> {
    tx.set_option(TransactionOption::AccessSystemKeys)
        .map_err(err)
}

fn name_key(name: &[u8]) -> Vec<u8> {
    [NAME_INDEX, &foundationdb_tuple::pack(&name)].concat()
}

fn id_of_value(value: &[u8]) -> Result<i64, Code> {
    foundationdb_tuple::unpack::<i64>(value).map_err(|_| crate::errors::INTERNAL_ERROR)
}

/// The id of the tenant `name`, if it exists. The read conflicts with the
/// tenant's creation or deletion, as FDB's lookups do at commit.
pub fn id(tx: &mut dyn Transaction, name: &[u8]) -> Result<Option<i64>, Code> {
    system(tx)?;
    match tx.get(&name_key(name), false).map_err(err)? {
        Some(v) => id_of_value(&v).map(Some),
        None => Ok(None),
    }
}

/// The tenants named in `[begin, end)`, in name order, with their ids.
pub fn list(
    tx: &mut dyn Transaction,
    begin: &[u8],
    end: &[u8],
) -> Result<Vec<(Vec<u8>, i64)>, Code> {
    system(tx)?;
    let lo = name_key(begin);
    // Names never begin with `\xff`, so an end past them all is the index's.
    let hi = if end.first() == Some(&0xff) {
        NAME_INDEX_END.to_vec()
    } else {
        name_key(end)
    };
    if lo >= hi {
        return Ok(Vec::new());
    }
    let range = RangeOption::new(lo, hi).mode(StreamingMode::WantAll);
    let mut cursor = kv::RangeCursor::new(range, false);
    let mut out = Vec::new();
    while let Some(batch) = cursor.next_batch(tx).map_err(err)? {
        for row in batch {
            let name = foundationdb_tuple::unpack::<Vec<u8>>(&row.key[NAME_INDEX.len()..])
                .map_err(|_| crate::errors::INTERNAL_ERROR)?;
            out.push((name, id_of_value(&row.value)?));
        }
    }
    Ok(out)
}

/// Creates the tenant `name` unless it exists, as FDB's tenant module
/// does for a set of its map key: the next id after the last given, and
/// an empty prefix to give it.
pub fn create(tx: &mut dyn Transaction, name: &[u8]) -> Result<(), Code> {
    if name.first() == Some(&0xff) {
        return Err(INVALID_TENANT_NAME);
    }
    if id(tx, name)?.is_some() {
        return Ok(());
    }
    let last = match tx.get(LAST_ID, false).map_err(err)? {
        Some(v) => id_of_value(&v)?,
        None => 0,
    };
    let id = last.checked_add(1).ok_or(crate::errors::INTERNAL_ERROR)?;
    if !empty(tx, id)? {
        return Err(PREFIX_CONFLICT);
    }
    let packed = foundationdb_tuple::pack(&id);
    tx.set(&[MAP, &packed].concat(), json(id, name).as_bytes())
        .map_err(err)?;
    tx.set(&name_key(name), &packed).map_err(err)?;
    tx.set(LAST_ID, &packed).map_err(err)
}

/// Deletes the tenant `name` if it exists, as FDB's tenant module does
/// for a clear of its map key; `tenant_not_empty` while it holds keys.
pub fn delete(tx: &mut dyn Transaction, name: &[u8]) -> Result<(), Code> {
    let Some(id) = id(tx, name)? else {
        return Ok(());
    };
    if !empty(tx, id)? {
        return Err(TENANT_NOT_EMPTY);
    }
    let packed = foundationdb_tuple::pack(&id);
    tx.clear(&[MAP, &packed].concat()).map_err(err)?;
    tx.clear(&name_key(name)).map_err(err)
}

/// Whether the tenant `id`'s keys hold nothing.
fn empty(tx: &mut dyn Transaction, id: i64) -> Result<bool, Code> {
    let range = RangeOption::prefix(&prefix(id)).limit(1);
    let rows = tx.get_range(&range, 1, false).map_err(err)?;
    Ok(rows.kvs.is_empty())
}

/// FDB 7.3's `TenantMapEntry::toJson` of a tenant of no group, unlocked.
pub fn json(id: i64, name: &[u8]) -> String {
    serde_json::json!({
        "id": id,
        "name": binary(name),
        "prefix": binary(&prefix(id)),
        "lock_state": "unlocked",
    })
    .to_string()
}

/// FDB's `binaryToJson`: the bytes in base64 and as `printable` shows them.
fn binary(bytes: &[u8]) -> serde_json::Value {
    serde_json::json!({ "base64": base64(bytes), "printable": printable(bytes) })
}

/// FDB's `printable`: printable ASCII as is (a backslash doubled), other
/// bytes as `\xNN`.
fn printable(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            32..=126 => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out
}

/// Standard base64, padded.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_as_fdbs_json() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(&prefix(1)), "AAAAAAAAAAE=");
        assert_eq!(printable(b"a\\\x01"), "a\\\\\\x01");
        let entry: serde_json::Value = serde_json::from_str(&json(1, b"t")).unwrap();
        assert_eq!(entry["id"], 1);
        assert_eq!(
            entry["prefix"]["printable"],
            "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01"
        );
        assert_eq!(entry["name"]["base64"], "dA==");
    }
}
