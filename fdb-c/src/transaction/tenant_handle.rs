//! `FDBTenant`: a name and its database, unchecked until used, as FDB's;
//! its transactions are the database's, through the tenant's layer
//! ([`crate::tenant::Tenanted`]).

use std::ffi::c_int;
use std::sync::Arc;

use super::Tx;
use crate::database::Db;
use crate::errors::Code;
use crate::future::{Future, Value};
use crate::guard::{self, put};
use crate::handle::Handle;
use crate::tenant::map;
use crate::types::{FDBDatabase, FDBFuture, FDBTenant, FDBTransaction, FdbError};

/// `tenant_not_found`.
pub const TENANT_NOT_FOUND: Code = 2131;

/// An opened tenant: its database and its name.
pub struct Tenant {
    db: Arc<Db>,
    name: Vec<u8>,
}

impl Handle for Tenant {
    type Raw = FDBTenant;
}

impl Tenant {
    /// A new transaction of this tenant, as the caller's pointer.
    fn create_transaction(&self) -> Result<*mut FDBTransaction, Code> {
        Tx::create_in(self.db.clone(), Some(self.name.clone()))
    }

    /// The tenant's id, read in a transaction of its own.
    fn id(&self) -> Result<i64, Code> {
        let mut tx = self
            .db
            .store
            .create_trx()
            .map_err(|e| crate::errors::of(&e))?;
        map::id(&mut *tx, &self.name)?.ok_or(TENANT_NOT_FOUND)
    }
}

/// Opens the tenant `tenant_name` of the database without looking it up:
/// its transactions fail with `tenant_not_found` while it does not exist.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_open_tenant(
    d: *mut FDBDatabase,
    tenant_name: *const u8,
    tenant_name_length: c_int,
    out_tenant: *mut *mut FDBTenant,
) -> FdbError {
    guard::code(|| {
        // SAFETY: the caller's database and name.
        let db = unsafe { Db::borrow(d) }?;
        let name = unsafe { guard::bytes(tenant_name, tenant_name_length) }?.to_vec();
        let tenant = Arc::new(Tenant { db, name });
        // SAFETY: the caller's out pointer.
        unsafe { put(out_tenant, Tenant::into_raw(tenant)) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_tenant_create_transaction(
    t: *mut FDBTenant,
    out_transaction: *mut *mut FDBTransaction,
) -> FdbError {
    guard::code(|| {
        // SAFETY: the caller's tenant.
        let tenant = unsafe { Tenant::borrow(t) }?;
        let tx = tenant.create_transaction()?;
        // SAFETY: the caller's out pointer.
        unsafe { put(out_transaction, tx) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_tenant_get_id(t: *mut FDBTenant) -> *mut FDBFuture {
    guard::or(Future::error(crate::errors::INTERNAL_ERROR), || {
        // SAFETY: the caller's tenant.
        match unsafe { Tenant::borrow(t) } {
            Ok(tenant) => Future::raw(tenant.id().map(Value::Int64)),
            Err(code) => Future::error(code),
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_tenant_destroy(t: *mut FDBTenant) {
    guard::quietly(|| {
        // SAFETY: the caller gives its reference back.
        drop(unsafe { Tenant::take(t) });
    })
}
