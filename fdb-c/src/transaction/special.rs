//! The special keyspace, from `\xff\xff` to `\xff\xff\xff`: keys no
//! store holds, which FDB's client answers from modules of its own.
//!
//! Two modules only the library can answer, as only it knows the cluster
//! file it was given: `\xff\xff/cluster_file_path` and
//! `\xff\xff/connection_string`. Every other special key or range goes to
//! the store, which answers `\xff\xff/status/json` and fails the rest with
//! FDB's errors. As in FDB, a range read lies within one module: one that
//! reaches from one into another is `special_keys_cross_module_read`, and
//! its selectors resolve over the module's keys, clamped to its bounds.

use fql::kv::{KeyValue, RangeOption, StreamingMode, key_after};

use super::{State, Tx, tenants, tracing};
use crate::errors::Code;
use crate::range::{Limits, Raw};
use crate::selector::Selector;

/// Where the special keys begin, and where they end.
pub const SPECIAL: &[u8] = b"\xff\xff";
const SPECIAL_END: &[u8] = b"\xff\xff\xff";

/// The modules the library answers; each holds one key.
const OWN: [&[u8]; 2] = [b"\xff\xff/cluster_file_path", b"\xff\xff/connection_string"];

/// A module's rows, and the bounds selectors over them clamp to.
struct Rows {
    rows: Vec<KeyValue>,
    lo: Vec<u8>,
    hi: Vec<u8>,
}

/// `special_keys_cross_module_read`.
const CROSS_MODULE: Code = 2112;

/// Whether a single-key read goes to the special keyspace.
pub fn holds_key(key: &[u8]) -> bool {
    SPECIAL <= key && key < SPECIAL_END
}

/// Whether a range read goes to the special keyspace: FDB's test, on the
/// selectors' keys as given.
pub fn holds_range(begin: &[u8], end: &[u8]) -> bool {
    holds_key(begin) && SPECIAL <= end && end <= SPECIAL_END
}

/// Who answers a range of the special keys.
enum Module {
    /// One of the library's modules, by its key.
    Own(&'static [u8]),
    /// The transaction's tracing module.
    Tracing,
    /// Tenant management, from the tenant map.
    Tenants,
    /// The store, which checks its own modules.
    Store,
}

/// The module of the range `[begin, end)` by FDB's rule: the module or gap
/// between modules that holds `begin` must hold `end`, as its end at most.
fn module(begin: &[u8], end: &[u8]) -> Result<Module, Code> {
    if tracing::holds(begin) {
        return if tracing::BEGIN <= end && end <= tracing::END {
            Ok(Module::Tracing)
        } else {
            Err(CROSS_MODULE)
        };
    }
    if tenants::holds(begin) {
        return if tenants::BEGIN <= end && end <= tenants::END {
            Ok(Module::Tenants)
        } else {
            Err(CROSS_MODULE)
        };
    }
    if let Some(own) = OWN.iter().find(|m| begin == **m) {
        let inside = *own <= end && end <= key_after(own).as_slice();
        return if inside {
            Ok(Module::Own(own))
        } else {
            Err(CROSS_MODULE)
        };
    }
    let crosses = |m: &&[u8]| (begin < *m && *m < end) || (end <= *m && *m < begin);
    if OWN
        .iter()
        .chain(&[tracing::BEGIN, tenants::BEGIN])
        .any(crosses)
    {
        return Err(CROSS_MODULE);
    }
    Ok(Module::Store)
}

/// The key `sel` names among `keys` (sorted), clamped to `[lo, hi]`.
fn resolve(keys: &[&[u8]], sel: &Selector, lo: &[u8], hi: &[u8]) -> Vec<u8> {
    let below = keys.iter().filter(|k| **k < sel.key.as_slice()).count() as i64;
    let at = below + i64::from(sel.offset) - 1;
    if at < 0 {
        lo.to_vec()
    } else {
        keys.get(at as usize)
            .map_or_else(|| hi.to_vec(), |k| k.to_vec())
    }
}

/// The rows of `rows` within `limits`, in the order read, and whether a
/// limit was reached, which FDB reports as more to read.
fn limited(rows: Vec<KeyValue>, limits: Limits) -> (Vec<KeyValue>, bool) {
    let mut out = Vec::new();
    let mut bytes = 0;
    for kv in rows {
        bytes += 8 + kv.key.len() + kv.value.len();
        out.push(kv);
        let full =
            limits.rows.is_some_and(|r| out.len() >= r) || limits.bytes.is_some_and(|t| bytes >= t);
        if full {
            return (out, true);
        }
    }
    (out, false)
}

impl State {
    /// A special key's value: the library's own, or the store's answer.
    fn special_get(
        &mut self,
        db: &crate::database::Db,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>, Code> {
        match key {
            b"\xff\xff/cluster_file_path" => Ok(crate::database::cluster_file_path(db)
                .map(|p| p.to_string_lossy().into_owned().into_bytes())),
            b"\xff\xff/connection_string" => Ok(Some(db.connection_string.clone().into_bytes())),
            _ if tracing::holds(key) => Ok(self.tracing.get(key)),
            _ if tenants::holds(key) => self.tenant_get(key),
            _ => self.inner.get(key, true).map_err(|e| crate::errors::of(&e)),
        }
    }

    /// The rows of the module the selectors' keys `begin` and `end` lie
    /// in, and the bounds the selectors clamp to: the module's, or, for
    /// the store's modules, which the store checks, the keys' own.
    fn module_rows(
        &mut self,
        db: &crate::database::Db,
        begin: &[u8],
        end: &[u8],
    ) -> Result<Rows, Code> {
        let (lo, hi) = if begin <= end {
            (begin, end)
        } else {
            (end, begin)
        };
        match module(begin, end)? {
            Module::Own(key) => {
                let rows = self.special_get(db, key)?.map(|value| KeyValue {
                    key: key.to_vec(),
                    value,
                });
                Ok(Rows {
                    rows: rows.into_iter().collect(),
                    lo: key.to_vec(),
                    hi: key_after(key),
                })
            }
            Module::Tracing => Ok(Rows {
                rows: self.tracing.rows(),
                lo: tracing::BEGIN.to_vec(),
                hi: tracing::END.to_vec(),
            }),
            Module::Tenants => Ok(Rows {
                rows: self.tenant_rows()?,
                lo: tenants::BEGIN.to_vec(),
                hi: tenants::END.to_vec(),
            }),
            Module::Store => {
                let range = RangeOption::new(lo, hi).mode(StreamingMode::WantAll);
                let rows = self
                    .inner
                    .get_range(&range, 1, true)
                    .map_err(|e| crate::errors::of(&e))?;
                Ok(Rows {
                    rows: rows.kvs,
                    lo: lo.to_vec(),
                    hi: hi.to_vec(),
                })
            }
        }
    }
}

impl Tx {
    /// A single-key read of the special keyspace.
    pub(super) fn special_get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Code> {
        self.lock().special_get(&self.db, key)
    }

    /// A range read of the special keyspace, as FDB's special key space
    /// reads one: limits checked, an empty or inverted range read as
    /// nothing, then one module's keys between the selectors.
    pub(super) fn special_range(
        &self,
        begin: &Selector,
        end: &Selector,
        limits: Raw,
        reverse: bool,
    ) -> Result<(Vec<KeyValue>, bool), Code> {
        let limits = limits.valid()?;
        if limits.rows == Some(0) || limits.bytes == Some(0) {
            return Ok((Vec::new(), false));
        }
        if begin.offset >= end.offset && begin.key >= end.key {
            return Ok((Vec::new(), false));
        }
        let mut st = self.lock();
        let Rows { rows, lo, hi } = st.module_rows(&self.db, &begin.key, &end.key)?;
        let keys: Vec<&[u8]> = rows.iter().map(|kv| kv.key.as_slice()).collect();
        let b = resolve(&keys, begin, &lo, &hi);
        let e = resolve(&keys, end, &lo, &hi);
        let mut rows: Vec<KeyValue> = rows
            .into_iter()
            .filter(|kv| b <= kv.key && kv.key < e)
            .collect();
        if reverse {
            rows.reverse();
        }
        Ok(limited(rows, limits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_lies_in_one_module() {
        let own = |b: &[u8], e: &[u8]| matches!(module(b, e), Ok(Module::Own(_)));
        let cross = |b: &[u8], e: &[u8]| module(b, e).err() == Some(CROSS_MODULE);
        let path = b"\xff\xff/cluster_file_path";
        assert!(own(path, b"\xff\xff/cluster_file_path\x00"));
        assert!(own(path, path));
        assert!(cross(path, b"\xff\xff/cluster_file_path\x00\x00"));
        assert!(cross(b"\xff\xff/a", b"\xff\xff/cluster_file_path\x00"));
        assert!(cross(b"\xff\xff/connection_string\x00", b"\xff\xff/a"));
        assert!(matches!(
            module(b"\xff\xff/a", b"\xff\xff/cluster_file_path"),
            Ok(Module::Store)
        ));
        assert!(matches!(
            module(b"\xff\xff/status/json", b"\xff\xff/status/json\x00"),
            Ok(Module::Store)
        ));
    }

    #[test]
    fn selectors_resolve_within_the_module() {
        let keys: [&[u8]; 1] = [b"k"];
        let at = |key: &[u8], eq: bool, off: i32| {
            resolve(&keys, &Selector::new(key, eq, off), b"k", b"k\x00")
        };
        assert_eq!(at(b"k", false, 1), b"k");
        assert_eq!(at(b"k", true, 1), b"k\x00");
        assert_eq!(at(b"k", true, 0), b"k");
        assert_eq!(at(b"k", false, 0), b"k");
        assert_eq!(at(b"k", false, 5), b"k\x00");
    }
}
