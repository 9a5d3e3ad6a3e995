//! API versioning and the process-wide functions: `fdb_select_api_version_impl`,
//! `fdb_get_max_api_version`, `fdb_get_client_version`, `fdb_get_error`
//! and `fdb_error_predicate`.
//!
//! The library implements API version 730's behaviour. It accepts a
//! runtime version from 610 (the first without the cluster object, which
//! the embedded store has no use for) up to 730 and behaves as 730 for
//! all of them; earlier versions are `api_version_not_supported`.

use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicI32, Ordering};

use crate::errors::{
    self, API_VERSION_ALREADY_SET, API_VERSION_INVALID, API_VERSION_NOT_SUPPORTED,
    API_VERSION_UNSET, Code,
};
use crate::guard;
use crate::types::{FdbBool, FdbError};

/// The API version of fdb_c.h this library implements.
pub const MAX_API_VERSION: i32 = 730;
/// The oldest runtime version it accepts.
pub const MIN_API_VERSION: i32 = 610;

/// The version `fdb_select_api_version_impl` selected; 0 before.
static SELECTED: AtomicI32 = AtomicI32::new(0);

/// The version a client selected, or `api_version_unset` when none was:
/// FDB's library leaves calls made before the selection undefined; this
/// one refuses them.
pub fn selected() -> Result<i32, Code> {
    match SELECTED.load(Ordering::SeqCst) {
        0 => Err(API_VERSION_UNSET),
        v => Ok(v),
    }
}

/// FDB's checks, in FDB's order.
fn select(runtime: i32, header: i32) -> Result<(), Code> {
    if SELECTED.load(Ordering::SeqCst) != 0 {
        return Err(API_VERSION_ALREADY_SET);
    }
    if runtime > header {
        return Err(API_VERSION_INVALID);
    }
    if header > MAX_API_VERSION || runtime < MIN_API_VERSION {
        return Err(API_VERSION_NOT_SUPPORTED);
    }
    SELECTED
        .compare_exchange(0, runtime, Ordering::SeqCst, Ordering::SeqCst)
        .map(|_| ())
        .map_err(|_| API_VERSION_ALREADY_SET)
}

#[unsafe(no_mangle)]
pub extern "C" fn fdb_select_api_version_impl(
    runtime_version: c_int,
    header_version: c_int,
) -> FdbError {
    guard::code(|| select(runtime_version, header_version))
}

#[unsafe(no_mangle)]
pub extern "C" fn fdb_get_max_api_version() -> c_int {
    MAX_API_VERSION
}

/// FDB's `release,source version,protocol`: the release whose client API
/// this library provides, this library in place of FDB's source version,
/// and 7.3's protocol.
#[unsafe(no_mangle)]
pub extern "C" fn fdb_get_client_version() -> *const c_char {
    c"7.3.27,fql-embedded,fdb00b073000000".as_ptr()
}

#[unsafe(no_mangle)]
pub extern "C" fn fdb_get_error(code: FdbError) -> *const c_char {
    guard::or(errors::message_ptr(errors::INTERNAL_ERROR), || {
        errors::message_ptr(code)
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fdb_error_predicate(predicate_test: c_int, code: FdbError) -> FdbBool {
    guard::or(0, || errors::predicate(predicate_test, code) as FdbBool)
}

/// FDB's `fdb_use_future_protocol_version`, a testing hook of FDB's own;
/// the embedded store has one protocol.
#[unsafe(no_mangle)]
pub extern "C" fn fdb_use_future_protocol_version() {}
