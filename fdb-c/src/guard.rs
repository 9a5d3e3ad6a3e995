//! What every exported function does at the border: no panic may unwind
//! into C (that is undefined behaviour and would abort the caller), so
//! each body runs under `catch_unwind` and a panic becomes FDB's
//! `internal_error`; and the byte strings C hands in are checked before
//! they become slices.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::errors::{CLIENT_INVALID_OPERATION, Code, INTERNAL_ERROR};

/// Runs `f`, turning a panic into `internal_error` (4100).
pub fn code(f: impl FnOnce() -> Result<(), Code>) -> Code {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => 0,
        Ok(Err(code)) => code,
        Err(_) => INTERNAL_ERROR,
    }
}

/// Runs `f`, returning `on_panic` if it panics.
pub fn or<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(on_panic)
}

/// Runs `f`, which returns nothing C can see; a panic is swallowed.
pub fn quietly(f: impl FnOnce()) {
    let _ = catch_unwind(AssertUnwindSafe(f));
}

/// The `length` bytes at `ptr`: a null pointer with length 0 is the
/// empty string (C callers pass one for ""), a null pointer with a
/// positive length or a negative length is `client_invalid_operation`.
///
/// # Safety
///
/// A non-null `ptr` must point to `length` readable bytes that stay
/// valid for `'a`.
pub unsafe fn bytes<'a>(ptr: *const u8, length: i32) -> Result<&'a [u8], Code> {
    let len = usize::try_from(length).map_err(|_| CLIENT_INVALID_OPERATION)?;
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(CLIENT_INVALID_OPERATION);
    }
    // SAFETY: the caller promises `length` readable bytes at `ptr`.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// An option's value: absent when `ptr` is null, else its bytes.
///
/// # Safety
///
/// As [`bytes`].
pub unsafe fn option_value<'a>(ptr: *const u8, length: i32) -> Result<Option<&'a [u8]>, Code> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded from the caller.
    unsafe { bytes(ptr, length) }.map(Some)
}

/// Writes `value` through `out`, or fails with `client_invalid_operation`
/// when `out` is null.
///
/// # Safety
///
/// A non-null `out` must be valid for a write of `T`.
pub unsafe fn put<T>(out: *mut T, value: T) -> Result<(), Code> {
    if out.is_null() {
        return Err(CLIENT_INVALID_OPERATION);
    }
    // SAFETY: checked non-null; the caller promises it is writable.
    unsafe { out.write(value) };
    Ok(())
}

/// Locks `mutex` whatever a panicking holder left: every critical section
/// of this crate leaves its state whole, and a panic already became an
/// error for its caller.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic inside an exported function must reach C as
    /// `internal_error`, never as an unwind.
    #[test]
    fn a_panic_becomes_internal_error() {
        assert_eq!(code(|| panic!("a bug")), INTERNAL_ERROR);
        assert_eq!(or(7, || -> i32 { panic!("a bug") }), 7);
        quietly(|| panic!("a bug"));
        assert_eq!(code(|| Err(2004)), 2004);
    }

    #[test]
    fn byte_strings_from_c_are_checked() {
        assert_eq!(unsafe { bytes(std::ptr::null(), 0) }, Ok(&[][..]));
        assert_eq!(
            unsafe { bytes(std::ptr::null(), 1) },
            Err(CLIENT_INVALID_OPERATION)
        );
        assert_eq!(
            unsafe { bytes(b"ab".as_ptr(), -1) },
            Err(CLIENT_INVALID_OPERATION)
        );
        assert_eq!(unsafe { bytes(b"ab".as_ptr(), 2) }, Ok(&b"ab"[..]));
        assert_eq!(unsafe { option_value(std::ptr::null(), 5) }, Ok(None));
    }
}
