//! Handles: the library's objects as C holds them, pointers to the opaque
//! types of `fdb_c.h` (`FDBDatabase*`, `FDBTransaction*`, `FDBFuture*`,
//! `FDBResult*`).
//!
//! Every handle is reference-counted. The caller's pointer is one strong
//! reference of an `Arc`, cast to the opaque type ([`Handle::into_raw`]);
//! each call on it takes one more for the call's duration
//! ([`Handle::borrow`]), so the object outlives a destroy that races the
//! call, and work queued for later (a future's callbacks, a timer) holds
//! references of its own; the destroy function gives the caller's back
//! ([`Handle::take`]). The casts and the null checks live here once:
//! borrowing null is `client_invalid_operation`, taking null does
//! nothing.

use std::sync::Arc;

use crate::errors::{CLIENT_INVALID_OPERATION, Code};

/// An object handed to C as a pointer to `Raw`; a type becomes one by
/// naming its opaque type: `impl Handle for Db { type Raw = FDBDatabase; }`.
pub trait Handle: Sized {
    /// The opaque type of `fdb_c.h` the caller's pointer points to.
    type Raw;

    /// The caller's pointer to a new reference: `this`, given away.
    fn into_raw(this: Arc<Self>) -> *mut Self::Raw {
        Arc::into_raw(this).cast_mut().cast()
    }

    /// The pointer the caller holds for `this`, with no reference of its
    /// own: what a callback is called with.
    fn as_raw(this: &Arc<Self>) -> *mut Self::Raw {
        Arc::as_ptr(this).cast_mut().cast()
    }

    /// The object behind a caller's pointer, as one more reference.
    ///
    /// # Safety
    ///
    /// `ptr` must be null or a pointer [`Handle::into_raw`] of this type
    /// returned whose reference the caller still holds.
    unsafe fn borrow(ptr: *mut Self::Raw) -> Result<Arc<Self>, Code> {
        if ptr.is_null() {
            return Err(CLIENT_INVALID_OPERATION);
        }
        let ptr = ptr.cast_const().cast::<Self>();
        // SAFETY: the caller's reference is alive; we take one more.
        unsafe {
            Arc::increment_strong_count(ptr);
            Ok(Arc::from_raw(ptr))
        }
    }

    /// Takes back the caller's reference; `None` for a null pointer.
    ///
    /// # Safety
    ///
    /// As [`Handle::borrow`]; the caller may not use `ptr` again.
    unsafe fn take(ptr: *mut Self::Raw) -> Option<Arc<Self>> {
        if ptr.is_null() {
            return None;
        }
        // SAFETY: the caller gives its reference back.
        Some(unsafe { Arc::from_raw(ptr.cast_const().cast::<Self>()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Object;
    struct Opaque;

    impl Handle for Object {
        type Raw = Opaque;
    }

    #[test]
    fn null_is_refused_and_references_are_counted() {
        let null = std::ptr::null_mut();
        assert!(matches!(
            unsafe { Object::borrow(null) },
            Err(CLIENT_INVALID_OPERATION)
        ));
        assert!(unsafe { Object::take(null) }.is_none());
        let object = Arc::new(Object);
        let ptr = Object::into_raw(object.clone());
        assert_eq!(ptr, Object::as_raw(&object));
        let borrowed = unsafe { Object::borrow(ptr) }.unwrap();
        assert_eq!(Arc::strong_count(&object), 3);
        drop(borrowed);
        drop(unsafe { Object::take(ptr) });
        assert_eq!(Arc::strong_count(&object), 1);
    }
}
