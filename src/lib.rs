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
//! # From text to results
//!
//! A script goes through four stages, each a module that uses only the ones
//! before it, and its results come back as a stream:
//!
//! ```
//! use std::{collections::HashMap, sync::Arc};
//! use fql::exec::{Engine, Output};
//! use fql::kv::embedded::Embedded;
//!
//! // The embedded store, in memory; `kv::fdb` is FoundationDB (feature `fdb`).
//! let engine = Engine::new(Arc::new(Embedded::memory()));
//!
//! let text = "/app/users(42,\"ann\")=\"x\"\n@commit\n/app/users(<int>,<str>)=<str>";
//! let script = fql::check::load(text).unwrap();      // syntax, then check
//! let plan = fql::plan::plan(&script, &HashMap::new()).unwrap();
//! let mut rows = Vec::new();
//! engine.run(&plan, &mut |row: Output| Ok(rows.push(row))).unwrap();
//! assert_eq!(rows[0].to_string(), r#"/app/users(42,"ann")="x""#);
//! ```
//!
//! [`Engine::run_text`](exec::Engine::run_text) does all of it in one call,
//! and [`Engine::query`](exec::Engine::query) runs it on a tokio blocking
//! thread and hands back [`Results`](exec::Results), a `futures` stream.
//!
//! # Modules
//!
//! | Module | Holds | Uses |
//! |---|---|---|
//! | [`syntax`] | text to AST with spans and back; diagnostics | nothing |
//! | [`kv`] | one transaction interface: the embedded store and FoundationDB | nothing |
//! | [`codec`] | AST data to key and value bytes and back (the tuple layer) | syntax, kv |
//! | [`directory`] | FoundationDB's directory layer | syntax, kv |
//! | [`check`] | what can be known wrong before a script runs | syntax, codec |
//! | [`plan`] | a checked script as transactions of statements | check and below |
//! | [`exec`] | plans run in the retry loop, results streamed | plan and below |
//! | [`schema`] | schemas validated against and inferred from a keyspace | exec and below |
//! | [`dump`] | directory subtrees written as FQL and loaded back | directory, codec and below |
//! | [`watch`] | a query's key-values followed as they change | exec and below |
//! | [`scripts`] | named FQL scripts, shipped inside fql | plan and below |
//! | [`lock`] | the locks built from the scripts: mutex, read-write lock and semaphore, election, task lock | scripts and below |
//!
//! The `fql` binary (feature `cli`, on by default) is a thin shell over this
//! library. An embedding program turns default features off and compiles no
//! command-line crate; feature `serde` adds the JSON form of results
//! ([`exec::json`]), and `fdb` the FoundationDB backend.

// One exception: starting FDB's client network, whose guard the caller
// must drop before exit (`kv::fdb::Network::start`).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod check;
pub mod codec;
pub mod directory;
pub mod dump;
pub mod exec;
pub mod kv;
pub mod lock;
pub mod plan;
pub mod schema;
pub mod scripts;
pub mod syntax;
pub mod watch;
