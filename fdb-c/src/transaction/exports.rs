//! The `fdb_transaction_*` functions of fdb_c.h that the store serves.
//!
//! A null transaction, or a key given as a null pointer with a length or
//! a negative length, is `client_invalid_operation`: returned by the
//! calls that return an error or a future, deferred by those that return
//! nothing.

use std::ffi::c_int;
use std::sync::Arc;

use super::Tx;
use super::mapped::mapped_future;
use super::reads::{key_future, keys_future, rows_future, strings_future, value_future};
use crate::database::Db;
use crate::errors::{Code, INTERNAL_ERROR};
use crate::future::{Future, Value};
use crate::guard::{self, bytes, put};
use crate::handle::Handle;
use crate::option_codes::mode;
use crate::range;
use crate::selector::Selector;
use crate::types::{
    FDBConflictRangeType, FDBDatabase, FDBFuture, FDBMutationType, FDBStreamingMode,
    FDBTransaction, FDBTransactionOption, FdbBool, FdbError,
};

/// Runs `f` on the caller's transaction, returning its future or a ready
/// future with its error (`internal_error` if it panics).
unsafe fn future(
    tr: *mut FDBTransaction,
    f: impl FnOnce(&Arc<Tx>) -> Result<Arc<Future>, Code>,
) -> *mut FDBFuture {
    guard::or(Future::error(INTERNAL_ERROR), || {
        // SAFETY: the caller's transaction.
        let result = unsafe { Tx::borrow(tr) }.and_then(|tx| f(&tx));
        match result {
            Ok(f) => Future::into_raw(f),
            Err(code) => Future::error(code),
        }
    })
}

/// Runs a call that returns nothing; an error in its arguments is
/// deferred like the call's own.
unsafe fn void(tr: *mut FDBTransaction, f: impl FnOnce(&Arc<Tx>) -> Result<(), Code>) {
    guard::quietly(|| {
        // SAFETY: the caller's transaction.
        if let Ok(tx) = unsafe { Tx::borrow(tr) }
            && let Err(code) = f(&tx)
        {
            tx.write(|_| Err(code));
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_destroy(tr: *mut FDBTransaction) {
    // SAFETY: the caller hands its reference back.
    guard::quietly(|| drop(unsafe { Tx::take(tr) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_cancel(tr: *mut FDBTransaction) {
    // SAFETY: the caller's transaction.
    unsafe {
        void(tr, |tx| {
            tx.cancel();
            Ok(())
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_reset(tr: *mut FDBTransaction) {
    // SAFETY: the caller's transaction.
    unsafe {
        void(tr, |tx| {
            tx.reset();
            Ok(())
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_set_option(
    tr: *mut FDBTransaction,
    option: FDBTransactionOption,
    value: *const u8,
    value_length: c_int,
) -> FdbError {
    guard::code(|| {
        // SAFETY: the caller's transaction and option value.
        let tx = unsafe { Tx::borrow(tr) }?;
        let value = unsafe { guard::option_value(value, value_length) }?;
        tx.set_option(option, value)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_set_read_version(tr: *mut FDBTransaction, version: i64) {
    // SAFETY: the caller's transaction.
    unsafe {
        void(tr, |tx| {
            tx.set_read_version(version);
            Ok(())
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_read_version(
    tr: *mut FDBTransaction,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction.
    unsafe {
        future(tr, |tx| {
            Ok(Future::ready(tx.read_version().map(Value::Int64)))
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get(
    tr: *mut FDBTransaction,
    key_name: *const u8,
    key_name_length: c_int,
    snapshot: FdbBool,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction and key.
    unsafe {
        future(tr, |tx| {
            let key = bytes(key_name, key_name_length)?;
            Ok(value_future(tx.get(key, snapshot != 0)))
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_key(
    tr: *mut FDBTransaction,
    key_name: *const u8,
    key_name_length: c_int,
    or_equal: FdbBool,
    offset: c_int,
    snapshot: FdbBool,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction and key.
    unsafe {
        future(tr, |tx| {
            let key = bytes(key_name, key_name_length)?;
            let selector = Selector::new(key, or_equal != 0, offset);
            Ok(key_future(tx.get_key(selector, snapshot != 0)))
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_addresses_for_key(
    tr: *mut FDBTransaction,
    key_name: *const u8,
    key_name_length: c_int,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction and key.
    unsafe {
        future(tr, |tx| {
            let key = bytes(key_name, key_name_length)?;
            Ok(strings_future(tx.addresses(key)))
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_range(
    tr: *mut FDBTransaction,
    begin_key_name: *const u8,
    begin_key_name_length: c_int,
    begin_or_equal: FdbBool,
    begin_offset: c_int,
    end_key_name: *const u8,
    end_key_name_length: c_int,
    end_or_equal: FdbBool,
    end_offset: c_int,
    limit: c_int,
    target_bytes: c_int,
    mode: FDBStreamingMode,
    iteration: c_int,
    snapshot: FdbBool,
    reverse: FdbBool,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction and keys.
    unsafe {
        future(tr, |tx| {
            // FDB checks the limits before anything else.
            let limits = range::limits(limit, target_bytes, mode, iteration)?;
            let b = bytes(begin_key_name, begin_key_name_length)?;
            let e = bytes(end_key_name, end_key_name_length)?;
            let begin = Selector::new(b, begin_or_equal != 0, begin_offset);
            let end = Selector::new(e, end_or_equal != 0, end_offset);
            Ok(rows_future(tx.get_range(
                begin,
                end,
                limits,
                snapshot != 0,
                reverse != 0,
            )))
        })
    }
}

/// FDB checks the limits first, as for `fdb_transaction_get_range`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_mapped_range(
    tr: *mut FDBTransaction,
    begin_key_name: *const u8,
    begin_key_name_length: c_int,
    begin_or_equal: FdbBool,
    begin_offset: c_int,
    end_key_name: *const u8,
    end_key_name_length: c_int,
    end_or_equal: FdbBool,
    end_offset: c_int,
    mapper_name: *const u8,
    mapper_name_length: c_int,
    limit: c_int,
    target_bytes: c_int,
    mode: FDBStreamingMode,
    iteration: c_int,
    snapshot: FdbBool,
    reverse: FdbBool,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction, keys and mapper.
    unsafe {
        future(tr, |tx| {
            let limits = range::limits(limit, target_bytes, mode, iteration)?;
            let b = bytes(begin_key_name, begin_key_name_length)?;
            let e = bytes(end_key_name, end_key_name_length)?;
            let mapper = bytes(mapper_name, mapper_name_length)?;
            let begin = Selector::new(b, begin_or_equal != 0, begin_offset);
            let end = Selector::new(e, end_or_equal != 0, end_offset);
            Ok(mapped_future(tx.get_mapped_range(
                begin,
                end,
                mapper,
                limits,
                snapshot != 0,
                reverse != 0,
            )))
        })
    }
}

/// The `fdb_transaction_get_range_selector` of API versions before 14:
/// an `EXACT` read with a row limit.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_range_selector(
    tr: *mut FDBTransaction,
    begin_key_name: *const u8,
    begin_key_name_length: c_int,
    begin_or_equal: FdbBool,
    begin_offset: c_int,
    end_key_name: *const u8,
    end_key_name_length: c_int,
    end_or_equal: FdbBool,
    end_offset: c_int,
    limit: c_int,
) -> *mut FDBFuture {
    // SAFETY: forwarded.
    unsafe {
        fdb_transaction_get_range(
            tr,
            begin_key_name,
            begin_key_name_length,
            begin_or_equal,
            begin_offset,
            end_key_name,
            end_key_name_length,
            end_or_equal,
            end_offset,
            limit,
            0,
            mode::EXACT,
            0,
            0,
            0,
        )
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_set(
    tr: *mut FDBTransaction,
    key_name: *const u8,
    key_name_length: c_int,
    value: *const u8,
    value_length: c_int,
) {
    // SAFETY: the caller's transaction, key and value.
    unsafe {
        void(tr, |tx| {
            let key = bytes(key_name, key_name_length)?;
            let value = bytes(value, value_length)?;
            tx.set(key, value);
            Ok(())
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_atomic_op(
    tr: *mut FDBTransaction,
    key_name: *const u8,
    key_name_length: c_int,
    param: *const u8,
    param_length: c_int,
    operation_type: FDBMutationType,
) {
    // SAFETY: the caller's transaction, key and parameter.
    unsafe {
        void(tr, |tx| {
            let key = bytes(key_name, key_name_length)?;
            let param = bytes(param, param_length)?;
            tx.atomic_op(key, param, operation_type);
            Ok(())
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_clear(
    tr: *mut FDBTransaction,
    key_name: *const u8,
    key_name_length: c_int,
) {
    // SAFETY: the caller's transaction and key.
    unsafe {
        void(tr, |tx| {
            tx.clear(bytes(key_name, key_name_length)?);
            Ok(())
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_clear_range(
    tr: *mut FDBTransaction,
    begin_key_name: *const u8,
    begin_key_name_length: c_int,
    end_key_name: *const u8,
    end_key_name_length: c_int,
) {
    // SAFETY: the caller's transaction and keys.
    unsafe {
        void(tr, |tx| {
            let b = bytes(begin_key_name, begin_key_name_length)?;
            let e = bytes(end_key_name, end_key_name_length)?;
            tx.clear_range(b, e);
            Ok(())
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_watch(
    tr: *mut FDBTransaction,
    key_name: *const u8,
    key_name_length: c_int,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction and key.
    unsafe { future(tr, |tx| tx.watch(bytes(key_name, key_name_length)?)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_commit(tr: *mut FDBTransaction) -> *mut FDBFuture {
    // SAFETY: the caller's transaction.
    unsafe {
        future(tr, |tx| {
            Ok(Future::ready(tx.commit().map(|()| Value::Void)))
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_committed_version(
    tr: *mut FDBTransaction,
    out_version: *mut i64,
) -> FdbError {
    guard::code(|| {
        // SAFETY: the caller's transaction and out pointer.
        let tx = unsafe { Tx::borrow(tr) }?;
        unsafe { put(out_version, tx.committed_version()) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_tag_throttled_duration(
    tr: *mut FDBTransaction,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction.
    unsafe {
        future(tr, |tx| {
            Ok(Future::ready(
                tx.tag_throttled_duration().map(Value::Double),
            ))
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_total_cost(tr: *mut FDBTransaction) -> *mut FDBFuture {
    // SAFETY: the caller's transaction.
    unsafe {
        future(tr, |tx| {
            Ok(Future::ready(tx.total_cost().map(Value::Int64)))
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_approximate_size(
    tr: *mut FDBTransaction,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction.
    unsafe {
        future(tr, |tx| {
            Ok(Future::ready(tx.approximate_size().map(Value::Int64)))
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_versionstamp(
    tr: *mut FDBTransaction,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction.
    unsafe { future(tr, |tx| tx.versionstamp()) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_on_error(
    tr: *mut FDBTransaction,
    error: FdbError,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction.
    unsafe { future(tr, |tx| Ok(tx.on_error(error))) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_add_conflict_range(
    tr: *mut FDBTransaction,
    begin_key_name: *const u8,
    begin_key_name_length: c_int,
    end_key_name: *const u8,
    end_key_name_length: c_int,
    ty: FDBConflictRangeType,
) -> FdbError {
    guard::code(|| {
        // SAFETY: the caller's transaction and keys.
        let tx = unsafe { Tx::borrow(tr) }?;
        let b = unsafe { bytes(begin_key_name, begin_key_name_length) }?;
        let e = unsafe { bytes(end_key_name, end_key_name_length) }?;
        tx.add_conflict_range(b, e, ty)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_estimated_range_size_bytes(
    tr: *mut FDBTransaction,
    begin_key_name: *const u8,
    begin_key_name_length: c_int,
    end_key_name: *const u8,
    end_key_name_length: c_int,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction and keys.
    unsafe {
        future(tr, |tx| {
            let b = bytes(begin_key_name, begin_key_name_length)?;
            let e = bytes(end_key_name, end_key_name_length)?;
            Ok(Future::ready(tx.estimated_size(b, e).map(Value::Int64)))
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_transaction_get_range_split_points(
    tr: *mut FDBTransaction,
    begin_key_name: *const u8,
    begin_key_name_length: c_int,
    end_key_name: *const u8,
    end_key_name_length: c_int,
    chunk_size: i64,
) -> *mut FDBFuture {
    // SAFETY: the caller's transaction and keys.
    unsafe {
        future(tr, |tx| {
            let b = bytes(begin_key_name, begin_key_name_length)?;
            let e = bytes(end_key_name, end_key_name_length)?;
            Ok(keys_future(tx.split_points(b, e, chunk_size)))
        })
    }
}

/// Declared with the database's functions in fdb_c.h; it lives with the
/// transaction it makes, so the database knows nothing of transactions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_create_transaction(
    d: *mut FDBDatabase,
    out_transaction: *mut *mut FDBTransaction,
) -> FdbError {
    guard::code(|| {
        // SAFETY: the caller's database.
        let db = unsafe { Db::borrow(d) }?;
        let tx = Tx::create(db)?;
        // SAFETY: the caller's out pointer.
        unsafe { put(out_transaction, tx) }
    })
}
