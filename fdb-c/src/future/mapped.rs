//! The result of `fdb_transaction_get_mapped_range`: an array of
//! `FDBMappedKeyValue`, each with the rows its secondary read found, laid
//! out as FDB's `MappedKeyValueRef` is in memory.
//!
//! fdb_c.h reads every secondary read as a range (`getRange`): a range
//! read's selectors are `first_greater_or_equal` of its prefix and of the
//! key after every key with that prefix; a single-key read is shown as
//! the range of that one key, its rows the key and value if present.

use fql::kv::KeyValue;

use super::Value;
use crate::types::{
    FDBGetRangeReqAndResult, FDBKey, FDBKeySelector, FDBKeyValue, FDBMappedKeyValue,
};

/// One mapped row before it is laid out for C.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MappedRow {
    /// The index entry's key and value (empty where FDB leaves them so).
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    /// The secondary read's range, `[begin, end)`.
    pub begin: Vec<u8>,
    pub end: Vec<u8>,
    pub rows: Vec<KeyValue>,
}

/// Mapped rows as FDB's C structs, pointing into buffers owned alongside.
pub struct MappedKeyValues {
    _bytes: Vec<u8>,
    _rows: Vec<FDBKeyValue>,
    mkvs: Vec<FDBMappedKeyValue>,
    more: bool,
}

// SAFETY: the pointers point into `_bytes` and `_rows`, owned alongside
// and never changed after construction.
unsafe impl Send for MappedKeyValues {}

/// Where each string of a row lies in the byte buffer.
struct Spans {
    key: usize,
    value: usize,
    begin: usize,
    end: usize,
    rows: Vec<(usize, usize)>,
}

impl MappedKeyValues {
    pub fn new(mapped: &[MappedRow], more: bool) -> MappedKeyValues {
        let mut bytes = Vec::new();
        let mut push = |b: &[u8]| {
            bytes.extend_from_slice(b);
            bytes.len() - b.len()
        };
        let spans: Vec<Spans> = mapped
            .iter()
            .map(|m| Spans {
                key: push(&m.key),
                value: push(&m.value),
                begin: push(&m.begin),
                end: push(&m.end),
                rows: m
                    .rows
                    .iter()
                    .map(|r| (push(&r.key), push(&r.value)))
                    .collect(),
            })
            .collect();
        let base = bytes.as_ptr();
        // SAFETY: every offset was taken within `bytes`, which is filled
        // and never reallocated again.
        let at = |offset: usize| unsafe { base.add(offset) };
        let key = |offset: usize, len: usize| FDBKey {
            key: at(offset),
            key_length: len as i32,
        };
        let mut rows: Vec<FDBKeyValue> = mapped
            .iter()
            .zip(&spans)
            .flat_map(|(m, s)| m.rows.iter().zip(&s.rows))
            .map(|(r, &(k, v))| FDBKeyValue {
                key: at(k),
                key_length: r.key.len() as i32,
                value: at(v),
                value_length: r.value.len() as i32,
            })
            .collect();
        let first = rows.as_mut_ptr();
        let mut next = 0;
        let mkvs = mapped
            .iter()
            .zip(&spans)
            .map(|(m, s)| {
                // SAFETY: `next` stays within `rows`, never reallocated.
                let data = unsafe { first.add(next) };
                next += m.rows.len();
                let selector = |offset, len| FDBKeySelector {
                    key: key(offset, len),
                    orEqual: 0,
                    offset: 1,
                };
                FDBMappedKeyValue {
                    key: key(s.key, m.key.len()),
                    value: key(s.value, m.value.len()),
                    getRange: FDBGetRangeReqAndResult {
                        begin: selector(s.begin, m.begin.len()),
                        end: selector(s.end, m.end.len()),
                        data,
                        m_size: m.rows.len() as i32,
                        m_capacity: m.rows.len() as i32,
                    },
                    buffer: [0; 32],
                }
            })
            .collect();
        MappedKeyValues {
            _bytes: bytes,
            _rows: rows,
            mkvs,
            more,
        }
    }
}

impl Value {
    pub fn mapped_key_values(&self) -> Option<(*const FDBMappedKeyValue, i32, bool)> {
        match self {
            Value::MappedKeyValues(m) => Some((m.mkvs.as_ptr(), m.mkvs.len() as i32, m.more)),
            _ => None,
        }
    }
}
