//! Scripts built from the input run through parse, checks, plan and the
//! engine on an in-memory store: no panic, and every failure a typed error
//! with a message (`checks/engine.rs`).

#![no_main]

#[path = "../checks/engine.rs"]
mod engine;

libfuzzer_sys::fuzz_target!(|data: &[u8]| engine::check(data));
