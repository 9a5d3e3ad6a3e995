//! The special keys, from `0xffff` on: keys no store holds, which FDB's
//! client answers from what it knows. The embedded store answers the one
//! it can answer truthfully, `\xff\xff/status/json`, and fails every other
//! as FDB's client fails a special key no module of its answers.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::kv::{Error, KeyValue, RangeOption, Result, key_after};

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

/// A range of the special keys. As in FDB, a range must lie in one
/// module's keys: within the status document's (which holds one key), or
/// it fails, with `special_keys_cross_module_read` when it reaches into
/// that module's keys from outside, else `special_keys_no_module_found`.
pub(super) fn get_range(range: &RangeOption, version: u64) -> Result<Vec<KeyValue>> {
    let module_end = key_after(STATUS_JSON);
    let (begin, end) = (&range.begin[..], &range.end[..]);
    if begin >= end {
        return Ok(Vec::new());
    }
    let inside = begin >= STATUS_JSON && end <= &module_end[..];
    let overlaps = begin < &module_end[..] && end > STATUS_JSON;
    match (inside, overlaps) {
        (true, _) => Ok(vec![KeyValue {
            key: STATUS_JSON.to_vec(),
            value: status_json(version),
        }]),
        (false, true) => Err(Error::from_code(CROSS_MODULE)),
        (false, false) => Err(Error::from_code(NO_MODULE)),
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
    }
}
