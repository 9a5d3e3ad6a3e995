//! Any bytes as a stored key or value: fql's decoder and the
//! `foundationdb_tuple` crate read the same elements or both refuse, and
//! what fql reads writes back to bytes that read the same
//! (`checks/decode.rs`).

#![no_main]

#[path = "../checks/decode.rs"]
mod decode;

libfuzzer_sys::fuzz_target!(|data: &[u8]| decode::check(data));
