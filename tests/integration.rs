//! The integration tests, but for the conformance suite and FoundationDB's
//! clients (binaries of their own, with their own harnesses): one binary,
//! so a change to the library relinks one test executable rather than a
//! dozen. Each folder of tests/ is a module here, named as the folder, so
//! `cargo test --test integration kv::` runs the tests of `tests/kv/`.

#[path = "architecture/main.rs"]
mod architecture;
#[path = "cli/main.rs"]
mod cli;
#[path = "codec/main.rs"]
mod codec;
#[path = "directory/main.rs"]
mod directory;
mod docs;
mod engine;
/// The fuzz targets' checks on generated inputs.
#[path = "fuzz/checks/main.rs"]
mod fuzz;
#[path = "grammar/main.rs"]
mod grammar;
#[path = "kv/main.rs"]
mod kv;
#[path = "mutex/main.rs"]
mod mutex;
mod repl;
#[path = "roundtrip/main.rs"]
mod roundtrip;
#[path = "schema/main.rs"]
mod schema;
mod snapshots;

/// Helpers that more than one of the modules above use.
mod support {
    pub mod eventually;
    pub mod hooked;
    pub mod mutex_show;
    pub mod reach;
    pub mod repo;
    pub mod window;
}
