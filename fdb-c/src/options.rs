//! Transaction and database options: which FDB options the embedded store
//! honours, which it accepts as the no-ops they are here, and which it
//! refuses because honouring them would take semantics it does not have.
//!
//! Honoured: `timeout`, `retry_limit`, `max_retry_delay`, `size_limit`,
//! `next_write_no_write_conflict_range`, `read_system_keys` and
//! `access_system_keys` (set on the store's transaction too, which opens
//! its system keys likewise), `report_conflicting_keys` (likewise: the
//! store keeps a failed commit's conflicting ranges for the special keys),
//! `automatic_idempotency` (see `transaction::commit`), and
//! the database options that set their defaults, plus `max_watches`. Values are checked as FDB checks them
//! (`invalid_option_value`, `too_many_tags`, `tag_too_long`).
//!
//! Honoured by the store's transaction too: `read_your_writes_disable`
//! (reads skip the transaction's own writes; FDB's
//! `client_invalid_operation` once it has read or written, watches
//! `watches_disabled`), `snapshot_ryw_disable` and `snapshot_ryw_enable`
//! (a count, as FDB's: snapshot reads see the transaction's writes while
//! it is above 0; the database's pair sets each transaction's start), and
//! `special_key_space_enable_writes` (see `fql::kv::embedded`'s special
//! keys). `use_grv_cache` is taken once the network option
//! `disable_client_bypass` was set, as FDB takes it only then (from API
//! 720); any read version of the store is a valid cached one.
//!
//! Refused with `unsupported_operation`: `initialize_new_database` and
//! the database's `use_config_database`.
//!
//! As FDB's `fdb_transaction_set_option`, a transaction option fails at
//! once only for a code the header does not name (`invalid_option`);
//! every other refusal (a bad value, an option it cannot take now) is the
//! error of the transaction's next future, until it is reset: FDB runs
//! the option on its network thread and keeps what it throws as the
//! transaction's deferred error. Database options fail at once.
//!
//! Accepted and ignored: options about the cluster's machinery (priority,
//! durability, causal reads, proxies, caches, tracing and debug
//! identifiers, tags, locks, idempotency ids, tenants' raw access), which
//! change nothing a transaction on one file can observe.

use crate::errors::{
    CLIENT_INVALID_OPERATION, Code, INVALID_OPTION, INVALID_OPTION_VALUE, TAG_TOO_LONG,
    TOO_MANY_TAGS, UNSUPPORTED_OPERATION,
};
use crate::network;
use crate::option_codes::{db, tr};
use crate::types::{FDBDatabaseOption, FDBTransactionOption};

/// FDB's default and ceiling of a transaction's size.
pub const MAX_SIZE_LIMIT: i64 = 10_000_000;
/// FDB's default ceiling of `on_error`'s back-off.
pub const DEFAULT_MAX_RETRY_DELAY_MS: i64 = 1000;
/// FDB's default and ceiling of outstanding watches on a database.
pub const DEFAULT_MAX_WATCHES: i64 = 10_000;
const ABSOLUTE_MAX_WATCHES: i64 = 1_000_000;
const MAX_TAGS: usize = 5;
const MAX_TAG_LENGTH: usize = 16;

/// A flag option must come without a value (or an empty one).
fn flag(value: Option<&[u8]>) -> Result<(), Code> {
    match value {
        Some(v) if !v.is_empty() => Err(INVALID_OPTION_VALUE),
        _ => Ok(()),
    }
}

/// A string or bytes option must come with a value.
fn present(value: Option<&[u8]>) -> Result<&[u8], Code> {
    value.ok_or(INVALID_OPTION_VALUE)
}

/// An integer option: 8 bytes, little-endian, within `min..=max`.
pub fn int(value: Option<&[u8]>, min: i64, max: i64) -> Result<i64, Code> {
    let bytes: [u8; 8] = present(value)?
        .try_into()
        .map_err(|_| INVALID_OPTION_VALUE)?;
    let v = i64::from_le_bytes(bytes);
    if v < min || v > max {
        return Err(INVALID_OPTION_VALUE);
    }
    Ok(v)
}

/// FDB's first API version with the read version cache, from which
/// `use_grv_cache` needs the client bypass disabled.
const GRV_CACHE_API: i32 = 720;

/// Why a transaction option was not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// A code the header does not name: `invalid_option`, which
    /// `fdb_transaction_set_option` returns.
    Unknown,
    /// A known option refused for its value or for the transaction's
    /// state: FDB defers the error to the transaction's next future.
    Deferred(Code),
}

impl From<Code> for Refused {
    fn from(code: Code) -> Refused {
        Refused::Deferred(code)
    }
}

impl Refused {
    /// The error code, wherever it is reported.
    pub fn code(self) -> Code {
        match self {
            Refused::Unknown => INVALID_OPTION,
            Refused::Deferred(code) => code,
        }
    }
}

/// Whether `use_grv_cache` may be set: FDB 7.3 keeps the cache in a state
/// its database has only under the multi-version client
/// ([`network::multi_version_client`]); bypassed, the option is
/// `invalid_option` from API 720 on, and ignored before.
fn grv_cache_allowed() -> bool {
    crate::api::selected().is_ok_and(|v| v < GRV_CACHE_API) || network::multi_version_client()
}

/// What a transaction's options are now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxOptions {
    /// Milliseconds from the transaction's creation; 0 for none.
    pub timeout_ms: i64,
    /// Retries `on_error` allows; -1 for no limit.
    pub retry_limit: i64,
    pub max_retry_delay_ms: i64,
    /// Bytes the commit may carry.
    pub size_limit: i64,
    pub read_system_keys: bool,
    pub write_system_keys: bool,
    /// The next write adds no write conflict range.
    pub next_write_no_conflict: bool,
    /// `automatic_idempotency`: each commit goes under a fresh
    /// idempotency id, so a `commit_unknown_result` can be resolved.
    pub automatic_idempotency: bool,
    /// `read_your_writes_disable`: watches are `watches_disabled`, and
    /// mapped ranges `unsupported_operation`.
    pub read_your_writes_disabled: bool,
    /// `special_key_space_enable_writes`: the tenant map, which the
    /// library writes, takes sets and clears.
    pub special_writes: bool,
    /// FDB's count of `snapshot_ryw_enable` less `snapshot_ryw_disable`,
    /// from 1: snapshot reads see the transaction's writes while it is
    /// above 0 (the store keeps the same count, and reads by it).
    snapshot_ryw: i32,
    debug_identifier: bool,
    tags: usize,
}

impl Default for TxOptions {
    fn default() -> Self {
        TxOptions {
            timeout_ms: 0,
            retry_limit: -1,
            max_retry_delay_ms: DEFAULT_MAX_RETRY_DELAY_MS,
            size_limit: MAX_SIZE_LIMIT,
            read_system_keys: false,
            write_system_keys: false,
            next_write_no_conflict: false,
            automatic_idempotency: false,
            read_your_writes_disabled: false,
            special_writes: false,
            snapshot_ryw: 1,
            debug_identifier: false,
            tags: 0,
        }
    }
}

/// Whether an option survives `on_error` (FDB's `persistent` options).
pub fn persistent(code: FDBTransactionOption) -> bool {
    matches!(
        code,
        tr::TIMEOUT | tr::RETRY_LIMIT | tr::MAX_RETRY_DELAY | tr::AUTHORIZATION_TOKEN
    )
}

impl TxOptions {
    /// Whether the store's snapshot reads see the transaction's writes,
    /// which a non-snapshot read must see whatever the count.
    pub fn snapshot_reads_see_writes(&self) -> bool {
        self.snapshot_ryw > 0
    }

    /// Applies transaction option `code`, checking its value as FDB does.
    pub fn apply(
        &mut self,
        code: FDBTransactionOption,
        value: Option<&[u8]>,
    ) -> Result<(), Refused> {
        match code {
            tr::TIMEOUT => self.timeout_ms = int(value, 0, i32::MAX.into())?,
            tr::RETRY_LIMIT => self.retry_limit = int(value, -1, i32::MAX.into())?,
            tr::MAX_RETRY_DELAY => self.max_retry_delay_ms = int(value, 0, i32::MAX.into())?,
            tr::SIZE_LIMIT => self.size_limit = int(value, 32, MAX_SIZE_LIMIT)?,
            tr::NEXT_WRITE_NO_WRITE_CONFLICT_RANGE => {
                flag(value)?;
                self.next_write_no_conflict = true;
            }
            tr::AUTOMATIC_IDEMPOTENCY => {
                flag(value)?;
                self.automatic_idempotency = true;
            }
            tr::ACCESS_SYSTEM_KEYS => {
                flag(value)?;
                self.read_system_keys = true;
                self.write_system_keys = true;
            }
            tr::READ_SYSTEM_KEYS => {
                flag(value)?;
                self.read_system_keys = true;
            }
            // Whether the store's transaction may take it now is its to
            // say (see `Tx::set_option`).
            tr::READ_YOUR_WRITES_DISABLE => {
                flag(value)?;
                self.read_your_writes_disabled = true;
            }
            tr::SPECIAL_KEY_SPACE_ENABLE_WRITES => {
                flag(value)?;
                self.special_writes = true;
            }
            tr::SNAPSHOT_RYW_ENABLE => {
                flag(value)?;
                self.snapshot_ryw = self.snapshot_ryw.saturating_add(1);
            }
            tr::SNAPSHOT_RYW_DISABLE => {
                flag(value)?;
                self.snapshot_ryw = self.snapshot_ryw.saturating_sub(1);
            }
            tr::INITIALIZE_NEW_DATABASE => {
                flag(value)?;
                return Err(UNSUPPORTED_OPERATION.into());
            }
            tr::TRANSACTION_LOGGING_ENABLE | tr::DEBUG_TRANSACTION_IDENTIFIER => {
                let id = present(value)?;
                if id.is_empty() || id.len() > 100 {
                    return Err(INVALID_OPTION_VALUE.into());
                }
                self.debug_identifier = true;
            }
            tr::LOG_TRANSACTION => {
                flag(value)?;
                if !self.debug_identifier {
                    return Err(CLIENT_INVALID_OPERATION.into());
                }
            }
            tr::TRANSACTION_LOGGING_MAX_FIELD_LENGTH => {
                if int(value, -1, i32::MAX.into())? == 0 {
                    return Err(INVALID_OPTION_VALUE.into());
                }
            }
            tr::TAG | tr::AUTO_THROTTLE_TAG => {
                if self.tags >= MAX_TAGS {
                    return Err(TOO_MANY_TAGS.into());
                }
                if present(value)?.len() > MAX_TAG_LENGTH {
                    return Err(TAG_TOO_LONG.into());
                }
                self.tags += 1;
            }
            tr::SPAN_PARENT => {
                if present(value)?.len() != 33 {
                    return Err(INVALID_OPTION_VALUE.into());
                }
            }
            // Every read version the store gives is its latest, so it is
            // as valid a cached one as FDB's cache holds.
            tr::USE_GRV_CACHE => {
                flag(value)?;
                if !grv_cache_allowed() {
                    return Err(INVALID_OPTION.into());
                }
            }
            // Strings and bytes the store has no use for.
            tr::DEBUG_RETRY_LOGGING | tr::IDEMPOTENCY_ID | tr::AUTHORIZATION_TOKEN => {}
            tr::CAUSAL_WRITE_RISKY
            | tr::CAUSAL_READ_RISKY
            | tr::CAUSAL_READ_DISABLE
            | tr::INCLUDE_PORT_IN_ADDRESS
            | tr::COMMIT_ON_FIRST_PROXY
            | tr::CHECK_WRITES_ENABLE
            | tr::READ_AHEAD_DISABLE
            | tr::READ_SERVER_SIDE_CACHE_ENABLE
            | tr::READ_SERVER_SIDE_CACHE_DISABLE
            | tr::READ_PRIORITY_NORMAL
            | tr::READ_PRIORITY_LOW
            | tr::READ_PRIORITY_HIGH
            | tr::DURABILITY_DATACENTER
            | tr::DURABILITY_RISKY
            | tr::DURABILITY_DEV_NULL_IS_WEB_SCALE
            | tr::PRIORITY_SYSTEM_IMMEDIATE
            | tr::PRIORITY_BATCH
            | tr::RAW_ACCESS
            | tr::BYPASS_STORAGE_QUOTA
            | tr::DEBUG_DUMP
            | tr::SERVER_REQUEST_TRACING
            | tr::LOCK_AWARE
            | tr::USED_DURING_COMMIT_PROTECTION_DISABLE
            | tr::READ_LOCK_AWARE
            | tr::FIRST_IN_BATCH
            | tr::USE_PROVISIONAL_PROXIES
            | tr::REPORT_CONFLICTING_KEYS
            | tr::SPECIAL_KEY_SPACE_RELAXED
            | tr::EXPENSIVE_CLEAR_COST_ESTIMATION_ENABLE
            | tr::BYPASS_UNREADABLE
            | tr::SKIP_GRV_CACHE => flag(value)?,
            _ => return Err(Refused::Unknown),
        }
        Ok(())
    }
}

/// A database's options: the defaults of its new transactions, and the
/// ceiling of its outstanding watches.
#[derive(Clone, Debug, Default)]
pub struct DbOptions {
    /// Transaction options (code and value) every new transaction starts
    /// with, in the order they were set.
    pub defaults: Vec<(FDBTransactionOption, Option<Vec<u8>>)>,
    pub max_watches: Option<i64>,
}

impl DbOptions {
    /// Applies database option `code`.
    pub fn apply(&mut self, code: FDBDatabaseOption, value: Option<&[u8]>) -> Result<(), Code> {
        let default_for = match code {
            db::TRANSACTION_LOGGING_MAX_FIELD_LENGTH => {
                Some(tr::TRANSACTION_LOGGING_MAX_FIELD_LENGTH)
            }
            db::TRANSACTION_TIMEOUT => Some(tr::TIMEOUT),
            db::TRANSACTION_RETRY_LIMIT => Some(tr::RETRY_LIMIT),
            db::TRANSACTION_MAX_RETRY_DELAY => Some(tr::MAX_RETRY_DELAY),
            db::TRANSACTION_SIZE_LIMIT => Some(tr::SIZE_LIMIT),
            db::TRANSACTION_CAUSAL_READ_RISKY => Some(tr::CAUSAL_READ_RISKY),
            db::TRANSACTION_INCLUDE_PORT_IN_ADDRESS => Some(tr::INCLUDE_PORT_IN_ADDRESS),
            db::TRANSACTION_AUTOMATIC_IDEMPOTENCY => Some(tr::AUTOMATIC_IDEMPOTENCY),
            db::TRANSACTION_BYPASS_UNREADABLE => Some(tr::BYPASS_UNREADABLE),
            db::TRANSACTION_USED_DURING_COMMIT_PROTECTION_DISABLE => {
                Some(tr::USED_DURING_COMMIT_PROTECTION_DISABLE)
            }
            db::TRANSACTION_REPORT_CONFLICTING_KEYS => Some(tr::REPORT_CONFLICTING_KEYS),
            // FDB counts the database's pair into each new transaction's
            // count, as the transaction's own options would.
            db::SNAPSHOT_RYW_ENABLE => Some(tr::SNAPSHOT_RYW_ENABLE),
            db::SNAPSHOT_RYW_DISABLE => Some(tr::SNAPSHOT_RYW_DISABLE),
            _ => None,
        };
        if let Some(tx_code) = default_for {
            // Checked now, so a bad value fails here rather than in every
            // transaction.
            TxOptions::default()
                .apply(tx_code, value)
                .map_err(Refused::code)?;
            self.defaults.push((tx_code, value.map(<[u8]>::to_vec)));
            return Ok(());
        }
        match code {
            db::LOCATION_CACHE_SIZE => {
                int(value, 0, i32::MAX.into())?;
            }
            db::MAX_WATCHES => self.max_watches = Some(int(value, 0, ABSOLUTE_MAX_WATCHES)?),
            db::MACHINE_ID | db::DATACENTER_ID => {}
            db::USE_CONFIG_DATABASE => {
                flag(value)?;
                return Err(UNSUPPORTED_OPERATION);
            }
            db::TEST_CAUSAL_READ_RISKY => {
                int(value, 0, 100)?;
            }
            _ => return Err(INVALID_OPTION),
        }
        Ok(())
    }

    pub fn max_watches(&self) -> usize {
        self.max_watches.unwrap_or(DEFAULT_MAX_WATCHES) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_value(v: i64) -> Vec<u8> {
        v.to_le_bytes().to_vec()
    }

    fn code(r: Result<(), Refused>) -> Result<(), Code> {
        r.map_err(Refused::code)
    }

    #[test]
    fn values_are_checked_as_fdb_checks_them() {
        let mut o = TxOptions::default();
        assert_eq!(
            code(o.apply(503, Some(&int_value(31)))),
            Err(INVALID_OPTION_VALUE)
        );
        assert_eq!(
            code(o.apply(503, Some(&int_value(10_000_001)))),
            Err(INVALID_OPTION_VALUE)
        );
        assert_eq!(code(o.apply(500, Some(&[1, 2]))), Err(INVALID_OPTION_VALUE));
        assert_eq!(code(o.apply(500, None)), Err(INVALID_OPTION_VALUE));
        assert_eq!(code(o.apply(30, Some(b"x"))), Err(INVALID_OPTION_VALUE));
        assert_eq!(code(o.apply(12345, None)), Err(INVALID_OPTION));
        assert_eq!(
            code(o.apply(-1i32 as FDBTransactionOption, None)),
            Err(INVALID_OPTION)
        );
        assert_eq!(code(o.apply(404, None)), Err(CLIENT_INVALID_OPERATION));
        for _ in 0..5 {
            o.apply(800, Some(b"tag")).unwrap();
        }
        assert_eq!(code(o.apply(800, Some(b"tag"))), Err(TOO_MANY_TAGS));
        assert_eq!(
            code(TxOptions::default().apply(801, Some(&[b'x'; 17]))),
            Err(TAG_TOO_LONG)
        );
        assert_eq!(code(o.apply(51, None)), Ok(()));
        assert_eq!(o.apply(12345, None), Err(Refused::Unknown));
        assert_eq!(code(o.apply(300, None)), Err(UNSUPPORTED_OPERATION));
    }

    #[test]
    fn database_options_become_transaction_defaults() {
        let mut d = DbOptions::default();
        d.apply(500, Some(&int_value(250))).unwrap();
        d.apply(504, None).unwrap();
        assert_eq!(d.defaults[0], (500, Some(int_value(250))));
        assert_eq!(d.defaults[1], (20, None));
        assert_eq!(
            d.apply(501, Some(&int_value(-2))),
            Err(INVALID_OPTION_VALUE)
        );
        assert_eq!(d.apply(9999, None), Err(INVALID_OPTION));
        assert_eq!(
            d.apply(-1i32 as FDBDatabaseOption, None),
            Err(INVALID_OPTION)
        );
        assert_eq!(d.apply(27, None), Ok(()));
        assert_eq!(d.defaults.last(), Some(&(601, None)));
        assert_eq!(d.apply(800, None), Err(UNSUPPORTED_OPERATION));
    }

    /// `automatic_idempotency` is a flag, set directly or as the
    /// database's default (506), and is what the commit reads.
    #[test]
    fn automatic_idempotency_is_honoured() {
        let mut o = TxOptions::default();
        assert!(!o.automatic_idempotency);
        assert_eq!(code(o.apply(505, Some(b"x"))), Err(INVALID_OPTION_VALUE));
        o.apply(505, None).unwrap();
        assert!(o.automatic_idempotency);
        let mut d = DbOptions::default();
        d.apply(506, None).unwrap();
        assert_eq!(d.defaults, vec![(505, None)]);
    }
}
