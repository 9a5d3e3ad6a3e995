//! `libfdb_c.so`: FoundationDB's C client API (API version 730) served by
//! fql's embedded store, so that FDB's bindings (the `foundationdb` crate,
//! the official Python package, any binding over `fdb_c.h`) run against an
//! fql database file with no cluster.
//!
//! # Design
//!
//! The C API is a thin shell over fql's transaction interface
//! ([`fql::kv`]), which already has FDB's semantics. The shell adds what
//! FDB's client adds around a transaction:
//!
//! - [`future`]: every asynchronous call returns an `FDBFuture` that owns
//!   its result's buffers; since the store's calls are synchronous, most
//!   are ready when returned. Futures that resolve later (watches, the
//!   versionstamp, `on_error`'s back-off) do so on the network thread,
//!   where their callbacks run, as FDB's do.
//! - [`network`]: the thread a client hands to `fdb_run_network`, running
//!   callbacks, timers and the polling of watches.
//! - [`database`] and [`cluster`]: a cluster file of one line,
//!   `fql:embedded@<absolute path>`, names the database file.
//! - [`transaction`]: deferred errors, timeouts, cancellation,
//!   `on_error`'s retries and back-off, read versions, and the checks FDB's
//!   client makes before a call reaches the store; [`selector`] and
//!   [`range`] resolve key selectors and read ranges to FDB's limits;
//!   [`mapper`] maps the index entries of a mapped range to their records.
//! - [`options`]: which options are honoured, accepted as no-ops, or
//!   refused.
//! - [`unsupported`]: what the store cannot honour (tenants, blob
//!   granules, cluster administration) fails with FDB's own
//!   error for a cluster without the feature.
//! - [`errors`]: FDB's codes, messages, and retry predicates.
//!
//! # Safety at the border
//!
//! Every exported function runs under `catch_unwind` ([`guard`]): a panic
//! becomes `internal_error` (4100) and never unwinds into C. Handles are
//! reference-counted objects handed out as raw pointers ([`handle`]); null handles and
//! null or negative-length byte strings are `client_invalid_operation`.
//! Beyond that the exported functions are `unsafe` in the C sense: their
//! pointers must be what fdb_c.h says they are, which no library can
//! check.

// Every exported function's contract is fdb_c.h's, stated once above.
#![allow(clippy::missing_safety_doc)]

pub mod api;
pub mod cluster;
pub mod database;
pub mod errors;
pub mod future;
pub mod guard;
pub mod handle;
pub mod mapper;
pub mod network;
pub mod option_codes;
pub mod options;
pub mod range;
pub mod selector;
pub mod tenant;
pub mod transaction;
pub mod types;
pub mod unopened;
pub mod unsupported;
pub mod watch;
