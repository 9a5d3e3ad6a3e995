//! Tenants, as a FoundationDB 7.3 cluster whose tenant mode is
//! `optional_experimental` has them: transactions of the database reach
//! every key, a tenant's reach only its own.
//!
//! [`map`] keeps the tenant map in the store's system keys; [`Tenanted`]
//! makes a tenant's transaction. Above them, the transaction's special
//! keys `\xff\xff/management/tenant/map/` create, delete and list
//! tenants, and the `FDBTenant` handle (`transaction::tenant_handle`)
//! opens a tenant's transactions.

mod layer;
pub mod map;

pub use layer::Tenanted;
