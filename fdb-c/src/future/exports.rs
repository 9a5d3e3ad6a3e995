//! The `fdb_future_*` functions of fdb_c.h.
//!
//! A getter called on a future that is not ready fails with
//! `future_not_set`, on a failed future with its error, after
//! `fdb_future_release_memory` with `future_released`, and on a future of
//! another kind (which FDB leaves undefined) with
//! `client_invalid_operation`.

use std::ffi::{c_char, c_int, c_void};

use super::{Future, Value};
use crate::errors::{CLIENT_INVALID_OPERATION, FUTURE_NOT_SET, UNSUPPORTED_OPERATION};
use crate::guard::{self, put};
use crate::handle::Handle;
use crate::types::{
    FDBBGFileDescription, FDBFuture, FDBGranuleSummary, FDBKey, FDBKeyRange, FDBKeyValue,
    FDBMappedKeyValue, FdbBool, FdbCallback, FdbError,
};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_cancel(f: *mut FDBFuture) {
    guard::quietly(|| {
        // SAFETY: a future of ours, as fdb_c.h requires.
        if let Ok(f) = unsafe { Future::borrow(f) } {
            f.cancel();
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_release_memory(f: *mut FDBFuture) {
    guard::quietly(|| {
        // SAFETY: as above.
        if let Ok(f) = unsafe { Future::borrow(f) } {
            f.release_memory();
        }
    })
}

/// Cancels the future if it is pending (its callbacks then run with
/// `operation_cancelled`) and gives back the caller's reference.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_destroy(f: *mut FDBFuture) {
    guard::quietly(|| {
        // SAFETY: the caller hands its reference back.
        if let Some(f) = unsafe { Future::take(f) } {
            f.cancel();
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_block_until_ready(f: *mut FDBFuture) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        unsafe { Future::borrow(f) }?.block()
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_is_ready(f: *mut FDBFuture) -> FdbBool {
    guard::or(0, || {
        // SAFETY: as above.
        unsafe { Future::borrow(f) }.is_ok_and(|f| f.is_ready()) as FdbBool
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_set_callback(
    f: *mut FDBFuture,
    callback: FdbCallback,
    callback_parameter: *mut c_void,
) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        let f = unsafe { Future::borrow(f) }?;
        let callback = callback.ok_or(CLIENT_INVALID_OPERATION)?;
        f.set_callback(callback, callback_parameter);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_error(f: *mut FDBFuture) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        match unsafe { Future::borrow(f) }?.error_code() {
            0 => Ok(()),
            code => Err(code),
        }
    })
}

/// The `fdb_future_is_error` of API versions before 23.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_is_error(f: *mut FDBFuture) -> FdbBool {
    guard::or(0, || {
        // SAFETY: as above.
        unsafe { Future::borrow(f) }.is_ok_and(|f| !matches!(f.error_code(), 0 | FUTURE_NOT_SET))
            as FdbBool
    })
}

/// Reads one scalar out of the future into `out`.
unsafe fn scalar<T>(f: *mut FDBFuture, out: *mut T, read: fn(&Value) -> Option<T>) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        let v = unsafe { Future::borrow(f) }?.get(read)?;
        // SAFETY: the caller's out pointer.
        unsafe { put(out, v) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_bool(f: *mut FDBFuture, out: *mut FdbBool) -> FdbError {
    // SAFETY: forwarded.
    unsafe { scalar(f, out, |v| v.boolean().map(FdbBool::from)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_int64(f: *mut FDBFuture, out: *mut i64) -> FdbError {
    // SAFETY: forwarded.
    unsafe { scalar(f, out, Value::int64) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_uint64(f: *mut FDBFuture, out: *mut u64) -> FdbError {
    // SAFETY: forwarded.
    unsafe { scalar(f, out, Value::uint64) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_double(f: *mut FDBFuture, out: *mut f64) -> FdbError {
    // SAFETY: forwarded.
    unsafe { scalar(f, out, Value::double) }
}

/// The `fdb_future_get_version` of API versions before 620: a read
/// version.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_version(f: *mut FDBFuture, out: *mut i64) -> FdbError {
    // SAFETY: forwarded.
    unsafe { scalar(f, out, Value::int64) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_key(
    f: *mut FDBFuture,
    out_key: *mut *const u8,
    out_key_length: *mut c_int,
) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        let (ptr, len) = unsafe { Future::borrow(f) }?.get(Value::key)?;
        // SAFETY: the caller's out pointers.
        unsafe {
            put(out_key, ptr)?;
            put(out_key_length, len)
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_value(
    f: *mut FDBFuture,
    out_present: *mut FdbBool,
    out_value: *mut *const u8,
    out_value_length: *mut c_int,
) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        let value = unsafe { Future::borrow(f) }?.get(Value::value)?;
        // SAFETY: the caller's out pointers.
        unsafe {
            put(out_present, value.is_some() as FdbBool)?;
            if let Some((ptr, len)) = value {
                put(out_value, ptr)?;
                put(out_value_length, len)?;
            }
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_keyvalue_array(
    f: *mut FDBFuture,
    out_kv: *mut *const FDBKeyValue,
    out_count: *mut c_int,
    out_more: *mut FdbBool,
) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        let (ptr, count, more) = unsafe { Future::borrow(f) }?.get(Value::key_values)?;
        // SAFETY: the caller's out pointers.
        unsafe {
            put(out_kv, ptr)?;
            put(out_count, count)?;
            put(out_more, more as FdbBool)
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_key_array(
    f: *mut FDBFuture,
    out_key_array: *mut *const FDBKey,
    out_count: *mut c_int,
) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        let (ptr, count) = unsafe { Future::borrow(f) }?.get(Value::keys)?;
        // SAFETY: the caller's out pointers.
        unsafe {
            put(out_key_array, ptr)?;
            put(out_count, count)
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_string_array(
    f: *mut FDBFuture,
    out_strings: *mut *mut *const c_char,
    out_count: *mut c_int,
) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        let (ptr, count) = unsafe { Future::borrow(f) }?.get(Value::strings)?;
        // SAFETY: the caller's out pointers.
        unsafe {
            // The header's `const char**` out value is a mutable pointer
            // to the array; callers only read through it.
            put(out_strings, ptr.cast_mut())?;
            put(out_count, count)
        }
    })
}

/// Reads a result kind the store never produces (key ranges of blob
/// granules, granule summaries): the future's own error, or
/// `client_invalid_operation` for a future of another kind.
unsafe fn never_produced(f: *mut FDBFuture) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        unsafe { Future::borrow(f) }?.get(|_| None::<()>)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_mappedkeyvalue_array(
    f: *mut FDBFuture,
    out_kv: *mut *const FDBMappedKeyValue,
    out_count: *mut c_int,
    out_more: *mut FdbBool,
) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        let (ptr, count, more) = unsafe { Future::borrow(f) }?.get(Value::mapped_key_values)?;
        // SAFETY: the caller's out pointers.
        unsafe {
            put(out_kv, ptr)?;
            put(out_count, count)?;
            put(out_more, more as FdbBool)
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_keyrange_array(
    f: *mut FDBFuture,
    _out_ranges: *mut *const FDBKeyRange,
    _out_count: *mut c_int,
) -> FdbError {
    // SAFETY: forwarded.
    unsafe { never_produced(f) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_get_granule_summary_array(
    f: *mut FDBFuture,
    _out_summaries: *mut *const FDBGranuleSummary,
    _out_count: *mut c_int,
) -> FdbError {
    // SAFETY: forwarded.
    unsafe { never_produced(f) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_future_readbg_get_descriptions(
    f: *mut FDBFuture,
    _out: *mut *mut FDBBGFileDescription,
    _desc_count: *mut c_int,
) -> FdbError {
    guard::code(|| {
        // SAFETY: as above.
        let f = unsafe { Future::borrow(f) }?;
        match f.error_code() {
            0 => Err(UNSUPPORTED_OPERATION),
            code => Err(code),
        }
    })
}
