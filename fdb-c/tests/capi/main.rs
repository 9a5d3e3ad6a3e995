//! libfdb_c through its C ABI: every call here is an exported function,
//! called as a C client calls it, against a real embedded database file.

mod support;

mod futures;
mod mapped;
mod options;
mod ranges;
mod system;
mod tenants;
mod transactions;
mod unsupported;
mod watches;
