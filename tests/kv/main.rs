//! The embedded backend beyond the conformance suite: several real
//! processes on one file, persistence, fault injection, foreign files, and
//! a model check of read-your-writes against a plain map.

mod support;

mod embedded;
mod faults;
mod model;
mod processes;
mod retry;
mod soak;
mod stalls;
