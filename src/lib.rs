//! fql: an interpreter for FQL, the query language for FoundationDB.
//!
//! FQL queries look like the key-values they describe:
//!
//! ```text
//! /app/users(42,"ann")=<str>     % read one value
//! /app/users(42,"ann")="x"       % write it
//! /app/users(...)=clear          % clear a range
//! ```
//!
//! The crate is layered the way a query flows: [`syntax`] turns text into an
//! AST with spans and prints ASTs back as canonical FQL; [`codec`] turns the
//! AST's data into the bytes of keys and values and back; [`check`] finds,
//! through the codec, what can be known wrong before a script runs. Later
//! layers (planner, executor, key-value backends) stand on that AST; the
//! `fql` binary and its REPL are thin shells over this library.
//!
//! ```
//! let script = fql::syntax::parse(r#"/app/users(42,"ann")=<str>"#).unwrap();
//! assert_eq!(script.to_string(), r#"/app/users(42,"ann")=<str>"#);
//! ```

// Two exceptions, each one call: starting FDB's client network, whose
// guard the caller must drop before exit (`kv::fdb::Network::start`), and
// taking decoded text already checked to be ASCII as a `str` (in
// `codec::unpack`), which a range read does for every string it prints.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod check;
pub mod codec;
pub mod directory;
pub mod exec;
pub mod kv;
pub mod mutex;
pub mod plan;
pub mod schema;
pub mod scripts;
pub mod syntax;
