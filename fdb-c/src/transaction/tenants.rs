//! The special keys' tenant management module,
//! `\xff\xff/management/tenant/`, which the library answers from the
//! tenant map (see [`crate::tenant::map`]) as FDB 7.3's client answers it
//! from its cluster's:
//!
//! - `\xff\xff/management/tenant/map/<name>` reads as the tenant's JSON
//!   entry, and a range of the map as the tenants in it, by name;
//! - with `special_key_space_enable_writes`, a set of a map key creates
//!   the tenant (nothing if it exists), a clear deletes it (nothing if it
//!   does not; `tenant_not_empty` while it holds keys), a range clear
//!   deletes every tenant in the range.
//!
//! The changes are made when the write is given, in the transaction's
//! own keys, so they commit with it; their errors are deferred to the
//! commit, where FDB reports them. The module's other keys (FDB's
//! `configure/` and `rename/`) are `unsupported_operation`. A tenant's
//! transaction may not use the module (`illegal_tenant_access`), as in
//! FDB, whose module does not support tenants.

use fql::kv::KeyValue;

use super::State;
use crate::errors::{Code, UNSUPPORTED_OPERATION};
use crate::tenant::map;

/// The module's keys.
pub const BEGIN: &[u8] = b"\xff\xff/management/tenant/";
pub const END: &[u8] = b"\xff\xff/management/tenant0";
/// The map's keys: a tenant's name after the prefix.
const MAP: &[u8] = b"\xff\xff/management/tenant/map/";
const MAP_END: &[u8] = b"\xff\xff/management/tenant/map0";

/// `special_keys_write_disabled`.
const WRITE_DISABLED: Code = 2114;
/// `special_keys_cross_module_clear`.
const CROSS_MODULE_CLEAR: Code = 2116;
/// `illegal_tenant_access`.
const ILLEGAL_TENANT_ACCESS: Code = 2138;

/// Whether `key` is the module's.
pub fn holds(key: &[u8]) -> bool {
    BEGIN <= key && key < END
}

/// Where a key of the map falls among names: the name it holds, `""`
/// before the map, `"\xff"` (past every name) after it.
fn name_at(key: &[u8]) -> &[u8] {
    if key < MAP {
        b""
    } else if key >= MAP_END {
        b"\xff"
    } else {
        &key[MAP.len()..]
    }
}

impl State {
    /// A single key of the module.
    pub(super) fn tenant_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, Code> {
        self.outside_tenants()?;
        let Some(name) = key.strip_prefix(MAP) else {
            return Ok(None);
        };
        Ok(map::id(&mut *self.inner, name)?.map(|id| map::json(id, name).into_bytes()))
    }

    /// Every key of the module, in order.
    pub(super) fn tenant_rows(&mut self) -> Result<Vec<KeyValue>, Code> {
        self.outside_tenants()?;
        let tenants = map::list(&mut *self.inner, b"", b"\xff")?;
        Ok(tenants
            .into_iter()
            .map(|(name, id)| KeyValue {
                value: map::json(id, &name).into_bytes(),
                key: [MAP, &name].concat(),
            })
            .collect())
    }

    /// The module is the database's, not a tenant's.
    fn outside_tenants(&self) -> Result<(), Code> {
        if self.in_tenant {
            Err(ILLEGAL_TENANT_ACCESS)
        } else {
            Ok(())
        }
    }

    fn tenant_writable(&self) -> Result<(), Code> {
        self.outside_tenants()?;
        if self.options.special_writes {
            Ok(())
        } else {
            Err(WRITE_DISABLED)
        }
    }

    /// A set of the module's key `key`: creates the tenant it names.
    pub(super) fn tenant_set(&mut self, key: &[u8]) -> Result<(), Code> {
        self.tenant_writable()?;
        let name = key.strip_prefix(MAP).ok_or(UNSUPPORTED_OPERATION)?;
        map::create(&mut *self.inner, name)
    }

    /// A clear of the module's key `key`: deletes the tenant it names.
    pub(super) fn tenant_clear(&mut self, key: &[u8]) -> Result<(), Code> {
        self.tenant_writable()?;
        let name = key.strip_prefix(MAP).ok_or(UNSUPPORTED_OPERATION)?;
        map::delete(&mut *self.inner, name)
    }

    /// A clear of `[begin, end)`, which begins or ends in the module:
    /// deletes the tenants in it, if it lies in the module.
    pub(super) fn tenant_clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<(), Code> {
        self.tenant_writable()?;
        if !(holds(begin) && BEGIN <= end && end <= END) {
            return Err(CROSS_MODULE_CLEAR);
        }
        if begin >= end {
            return Ok(());
        }
        // The map is the only part of the module that is written.
        if begin < MAP || end > MAP_END {
            return Err(UNSUPPORTED_OPERATION);
        }
        for (name, _) in map::list(&mut *self.inner, name_at(begin), name_at(end))? {
            map::delete(&mut *self.inner, &name)?;
        }
        Ok(())
    }
}
