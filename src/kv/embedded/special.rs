//! The special keys, from `0xffff` on: keys no store holds, which FDB's
//! client answers from what it knows. The embedded store answers those it
//! can answer truthfully, `\xff\xff/status/json` and a transaction's
//! conflicting keys (`\xff\xff/transaction/conflicting_keys/`, which the
//! transaction answers from its last commit), and fails every other as
//! FDB's client fails a special key no module of its answers.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::kv::{
    CONFLICTING_KEYS, CONFLICTING_KEYS_END, Error, KeyValue, RangeOption, Result, key_after,
};

/// FDB's machine-readable status: a JSON document.
pub(super) const STATUS_JSON: &[u8] = b"\xff\xff/status/json";

/// The value of a special key; `special_keys_no_module_found` for a key
/// no module answers.
pub(super) fn get(key: &[u8], version: u64) -> Result<Option<Vec<u8>>> {
    if key == STATUS_JSON {
        return Ok(Some(status_json(version)));
    }
    Err(Error::from_code(NO_MODULE))
}

/// The modules of special keys the store answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Module {
    /// `\xff\xff/status/json`, one key.
    Status,
    /// `\xff\xff/transaction/conflicting_keys/`: the transaction's last
    /// conflict, which the transaction answers (see
    /// [`conflicting_rows`](crate::kv::conflicting_rows)).
    ConflictingKeys,
}

/// The module that holds `[begin, end)` (`begin < end`). As in FDB, a
/// range must lie in one module's keys, or it fails, with
/// `special_keys_cross_module_read` when it reaches into a module's keys
/// from outside, else `special_keys_no_module_found`.
pub(super) fn module(begin: &[u8], end: &[u8]) -> Result<Module> {
    let status_end = key_after(STATUS_JSON);
    let modules = [
        (Module::Status, STATUS_JSON, status_end.as_slice()),
        (
            Module::ConflictingKeys,
            CONFLICTING_KEYS,
            CONFLICTING_KEYS_END,
        ),
    ];
    for (module, lo, hi) in modules {
        if lo <= begin && end <= hi {
            return Ok(module);
        }
        if begin < hi && end > lo {
            return Err(Error::from_code(CROSS_MODULE));
        }
    }
    Err(Error::from_code(NO_MODULE))
}

/// A range of the status module's keys (see [`module`]); other ranges
/// fail as there.
pub(super) fn get_range(range: &RangeOption, version: u64) -> Result<Vec<KeyValue>> {
    let (begin, end) = (&range.begin[..], &range.end[..]);
    if begin >= end {
        return Ok(Vec::new());
    }
    match module(begin, end)? {
        Module::Status => Ok(vec![KeyValue {
            key: STATUS_JSON.to_vec(),
            value: status_json(version),
        }]),
        Module::ConflictingKeys => Ok(Vec::new()),
    }
}

/// `special_keys_no_module_found`.
const NO_MODULE: i32 = 2113;

/// `special_keys_cross_module_read`.
const CROSS_MODULE: i32 = 2112;

/// The status document in the shape of FDB's, with only the fields the
/// embedded store can fill truthfully: it is one process, always
/// available, with no coordinators or processes to report, and the
/// version its reads see.
fn status_json(version: u64) -> Vec<u8> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!(
        concat!(
            r#"{{"client":{{"database_status":{{"available":true,"healthy":true}},"#,
            r#""messages":[],"timestamp":{now}}},"#,
            r#""cluster":{{"database_available":true,"latest_version":{version},"#,
            r#""messages":[]}}}}"#
        ),
        now = now,
        version = version
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_json_is_the_only_special_key_answered() {
        let doc = get(STATUS_JSON, 7).unwrap().unwrap();
        let text = String::from_utf8(doc).unwrap();
        assert!(text.starts_with(r#"{"client":{"database_status":{"available":true"#));
        assert!(text.contains(r#""latest_version":7"#));
        assert_eq!(
            get(b"\xff\xff/status/jso", 7).unwrap_err().code(),
            NO_MODULE
        );
        let range = |b: &[u8], e: &[u8]| RangeOption::new(b.to_vec(), e.to_vec());
        let whole = range(STATUS_JSON, &key_after(STATUS_JSON));
        assert_eq!(get_range(&whole, 1).unwrap().len(), 1);
        let wide = range(b"\xff\xff", b"\xff\xff\xff");
        assert_eq!(get_range(&wide, 1).unwrap_err().code(), CROSS_MODULE);
        let elsewhere = range(
            b"\xff\xff/worker_interfaces/",
            b"\xff\xff/worker_interfaces0",
        );
        assert_eq!(get_range(&elsewhere, 1).unwrap_err().code(), NO_MODULE);
        let conflicts = range(CONFLICTING_KEYS, CONFLICTING_KEYS_END);
        assert_eq!(
            module(&conflicts.begin, &conflicts.end).unwrap(),
            Module::ConflictingKeys
        );
        let past = range(CONFLICTING_KEYS, b"\xff\xff/transaction0");
        assert_eq!(get_range(&past, 1).unwrap_err().code(), CROSS_MODULE);
    }
}
