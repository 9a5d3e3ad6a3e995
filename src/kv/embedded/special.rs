//! The special keys, from `0xffff` on: keys no store holds, which FDB's
//! client answers from what it knows. The embedded store answers those it
//! can answer truthfully, `\xff\xff/status/json`, a transaction's
//! conflicting keys (`\xff\xff/transaction/conflicting_keys/`, which the
//! transaction answers from its last commit) and the tenant management
//! module (`\xff\xff/management/tenant/`, empty: the store has no
//! tenants, as a cluster whose tenant mode is off; fql's libfdb_c keeps
//! tenants and answers the module itself), and fails every other
//! as FDB's client fails a special key no module of its answers.
//!
//! Writes follow FDB 7.3's special key space ([`SpecialWrites`]): without
//! `special_key_space_enable_writes` every one is
//! `special_keys_write_disabled`; with it, a key no module of FDB's
//! writes is `special_keys_no_write_module_found`, a clear across two
//! modules `special_keys_cross_module_clear`, and the rest are taken and
//! judged by the commit, as FDB's modules judge them there.

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
    if TENANT <= key && key < TENANT_END {
        return Ok(None);
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
    /// `\xff\xff/management/tenant/`: tenants, of which the store has
    /// none.
    Tenant,
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
        (Module::Tenant, TENANT, TENANT_END),
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
        Module::ConflictingKeys | Module::Tenant => Ok(Vec::new()),
    }
}

/// FDB's tenant management module, in its management module.
const TENANT: &[u8] = b"\xff\xff/management/tenant/";
const TENANT_END: &[u8] = b"\xff\xff/management/tenant0";

/// Where the special keys end.
const SPECIAL_END: &[u8] = b"\xff\xff\xff";

/// Whether `key` is a special key, which a write names apart from stored
/// keys, as FDB's client routes it.
pub(super) fn is_special(key: &[u8]) -> bool {
    crate::kv::admit::SPECIAL_KEYS <= key && key < SPECIAL_END
}

/// Whether `[begin, end)` lies in the special keys, as FDB routes a clear.
pub(super) fn holds_special_range(begin: &[u8], end: &[u8]) -> bool {
    crate::kv::admit::SPECIAL_KEYS <= begin && end <= SPECIAL_END
}

/// A module of FDB 7.3's special keys that takes writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WriteModule {
    /// Tenant management, which a cluster without tenants refuses at
    /// commit with `tenants_disabled`.
    Tenant,
    /// A module that manages the cluster, by its keys' prefix.
    Cluster(&'static str),
    /// A module of the client's own transaction (tracing), which the
    /// client answers and the commit leaves alone.
    Client,
}

/// The keys of FDB 7.3's writable modules (API 730), in key order: the
/// management commands (tenants among them), configuration, global
/// configuration, tracing and the actor profiler.
const WRITE_MODULES: &[(&[u8], &[u8], WriteModule)] = &[
    (
        b"\xff\xff/actor_profiler_conf/",
        b"\xff\xff/actor_profiler_conf0",
        WriteModule::Cluster("actor_profiler_conf/"),
    ),
    (
        b"\xff\xff/configuration/coordinators/",
        b"\xff\xff/configuration/coordinators0",
        WriteModule::Cluster("configuration/coordinators/"),
    ),
    (
        b"\xff\xff/configuration/process/class_type/",
        b"\xff\xff/configuration/process/class_type0",
        WriteModule::Cluster("configuration/process/class_type/"),
    ),
    (
        b"\xff\xff/global_config/",
        b"\xff\xff/global_config0",
        WriteModule::Cluster("global_config/"),
    ),
    (
        b"\xff\xff/management/consistency_check_suspended",
        b"\xff\xff/management/consistency_check_suspended\x00",
        WriteModule::Cluster("management/consistency_check_suspended"),
    ),
    (
        b"\xff\xff/management/data_distribution/",
        b"\xff\xff/management/data_distribution0",
        WriteModule::Cluster("management/data_distribution/"),
    ),
    (
        b"\xff\xff/management/db_locked",
        b"\xff\xff/management/db_locked\x00",
        WriteModule::Cluster("management/db_locked"),
    ),
    (
        b"\xff\xff/management/excluded/",
        b"\xff\xff/management/excluded0",
        WriteModule::Cluster("management/excluded/"),
    ),
    (
        b"\xff\xff/management/excluded_locality/",
        b"\xff\xff/management/excluded_locality0",
        WriteModule::Cluster("management/excluded_locality/"),
    ),
    (
        b"\xff\xff/management/failed/",
        b"\xff\xff/management/failed0",
        WriteModule::Cluster("management/failed/"),
    ),
    (
        b"\xff\xff/management/failed_locality/",
        b"\xff\xff/management/failed_locality0",
        WriteModule::Cluster("management/failed_locality/"),
    ),
    (
        b"\xff\xff/management/maintenance/",
        b"\xff\xff/management/maintenance0",
        WriteModule::Cluster("management/maintenance/"),
    ),
    (
        b"\xff\xff/management/min_required_commit_version",
        b"\xff\xff/management/min_required_commit_version\x00",
        WriteModule::Cluster("management/min_required_commit_version"),
    ),
    (
        b"\xff\xff/management/options/",
        b"\xff\xff/management/options0",
        WriteModule::Cluster("management/options/"),
    ),
    (TENANT, TENANT_END, WriteModule::Tenant),
    (
        b"\xff\xff/management/version_epoch",
        b"\xff\xff/management/version_epoch\x00",
        WriteModule::Cluster("management/version_epoch"),
    ),
    (
        b"\xff\xff/tracing/",
        b"\xff\xff/tracing0",
        WriteModule::Client,
    ),
];

/// The writable module holding `key`.
fn write_module(key: &[u8]) -> Option<WriteModule> {
    WRITE_MODULES
        .iter()
        .find(|(lo, hi, _)| *lo <= key && key < *hi)
        .map(|(_, _, m)| *m)
}

/// The writable module holding the last key before `end`.
fn write_module_before(end: &[u8]) -> Option<WriteModule> {
    WRITE_MODULES
        .iter()
        .find(|(lo, hi, _)| *lo < end && end <= *hi)
        .map(|(_, _, m)| *m)
}

/// `special_keys_write_disabled`.
const WRITE_DISABLED: i32 = 2114;
/// `special_keys_no_write_module_found`.
const NO_WRITE_MODULE: i32 = 2115;
/// `special_keys_cross_module_clear`.
const CROSS_MODULE_CLEAR: i32 = 2116;
/// `tenants_disabled`.
const TENANTS_DISABLED: i32 = 2136;
/// `unsupported_operation`.
const UNSUPPORTED: i32 = 2108;

/// A transaction's writes of special keys: whether the option allows
/// them, and which modules they went to, for the commit to judge.
#[derive(Clone, Debug, Default)]
pub(super) struct SpecialWrites {
    enabled: bool,
    written: Vec<WriteModule>,
}

impl SpecialWrites {
    /// `special_key_space_enable_writes`.
    pub(super) fn enable(&mut self) {
        self.enabled = true;
    }

    fn allowed(&self) -> Result<()> {
        if self.enabled {
            Ok(())
        } else {
            Err(Error::from_code(WRITE_DISABLED))
        }
    }

    fn note(&mut self, module: WriteModule) {
        if !self.written.contains(&module) {
            self.written.push(module);
        }
    }

    /// A set or a clear of the special key `key`.
    pub(super) fn write(&mut self, key: &[u8]) -> Result<()> {
        self.allowed()?;
        let module = write_module(key).ok_or_else(|| Error::from_code(NO_WRITE_MODULE))?;
        self.note(module);
        Ok(())
    }

    /// A clear of `[begin, end)` within the special keys: one module's
    /// keys, as FDB's.
    pub(super) fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        self.allowed()?;
        if begin >= end {
            return Ok(());
        }
        let module = write_module(begin);
        if module != write_module_before(end) {
            return Err(Error::from_code(CROSS_MODULE_CLEAR));
        }
        self.note(module.ok_or_else(|| Error::from_code(NO_WRITE_MODULE))?);
        Ok(())
    }

    /// What the commit of these writes gives, before anything is written:
    /// FDB's tenant module checks the tenant mode first, and fails with
    /// `tenants_disabled` on a cluster without tenants, which the store
    /// is; the modules that manage a cluster (exclusions, locks,
    /// coordinators ...) have no cluster here, and fail with
    /// `unsupported_operation` rather than pretend to have acted; the
    /// client's own (tracing) are the client's to answer.
    pub(super) fn commit_check(&self) -> Result<()> {
        if self.written.contains(&WriteModule::Tenant) {
            return Err(Error::from_code(TENANTS_DISABLED));
        }
        let cluster = self.written.iter().find_map(|m| match m {
            WriteModule::Cluster(module) => Some(module),
            _ => None,
        });
        match cluster {
            Some(module) => Err(Error::Fdb {
                code: UNSUPPORTED,
                message: format!(
                    "the special keys \\xff\\xff/{module} manage a cluster, which the embedded store has not"
                ),
            }),
            _ => Ok(()),
        }
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
        let tenants = range(
            b"\xff\xff/management/tenant/map/",
            b"\xff\xff/management/tenant/map0",
        );
        assert_eq!(get_range(&tenants, 1).unwrap(), Vec::new());
        assert_eq!(get(b"\xff\xff/management/tenant/map/t", 1).unwrap(), None);
    }

    #[test]
    fn writes_need_the_option_and_a_module() {
        let mut w = SpecialWrites::default();
        assert_eq!(w.write(TENANT).unwrap_err().code(), WRITE_DISABLED);
        assert_eq!(
            w.clear_range(TENANT, TENANT).unwrap_err().code(),
            WRITE_DISABLED
        );
        w.enable();
        assert_eq!(
            w.write(b"\xff\xff/nothing").unwrap_err().code(),
            NO_WRITE_MODULE
        );
        assert_eq!(w.write(STATUS_JSON).unwrap_err().code(), NO_WRITE_MODULE);
        let wide = w.clear_range(b"\xff\xff/management/db_locked", TENANT_END);
        assert_eq!(wide.unwrap_err().code(), CROSS_MODULE_CLEAR);
        let around = w.clear_range(b"\xff\xff/management/", b"\xff\xff/management0");
        assert_eq!(around.unwrap_err().code(), NO_WRITE_MODULE, "gap to gap");
        let gap = w.clear_range(b"\xff\xff/a", b"\xff\xff/b");
        assert_eq!(gap.unwrap_err().code(), NO_WRITE_MODULE);
        w.clear_range(b"\xff\xff/x", b"\xff\xff/x").unwrap();
        w.commit_check().unwrap();
        w.clear_range(
            b"\xff\xff/management/tenant/map/",
            b"\xff\xff/management/tenant/map0",
        )
        .unwrap();
        assert_eq!(w.commit_check().unwrap_err().code(), TENANTS_DISABLED);
        let mut w = SpecialWrites::default();
        w.enable();
        w.write(b"\xff\xff/management/db_locked").unwrap();
        assert_eq!(w.commit_check().unwrap_err().code(), UNSUPPORTED);
        assert_eq!(
            w.write(b"\xff\xff/management/db_locked\x00")
                .unwrap_err()
                .code(),
            NO_WRITE_MODULE
        );
    }
}
