//! `FDBFuture`: a value or an error delivered now or later.
//!
//! An `FDBFuture*` is an `Arc<Future>` turned into a raw pointer; the
//! caller's `fdb_future_destroy` gives that reference back. A callback
//! that is queued holds a reference of its own, so the pointer it is
//! called with stays valid even if the caller destroyed the future
//! meanwhile (FDB calls the callbacks of a future destroyed while pending,
//! with `operation_cancelled`, and bindings such as the `foundationdb`
//! crate free their callback's state only then).
//!
//! The future owns its result's buffers: keys, values and the arrays of
//! `FDBKeyValue` point into them until `fdb_future_destroy` or
//! `fdb_future_release_memory`.

pub mod exports;
pub mod mapped;

use std::any::Any;
use std::ffi::{CString, c_char, c_void};
use std::sync::{Arc, Condvar, Mutex};

use fql::kv::KeyValue;

use crate::errors::{
    BLOCKED_FROM_NETWORK_THREAD, CLIENT_INVALID_OPERATION, Code, FUTURE_NOT_SET, FUTURE_RELEASED,
    OPERATION_CANCELLED,
};
use crate::guard::lock;
use crate::handle::Handle;
use crate::network;
use crate::types::{FDBFuture, FDBKey, FDBKeyValue};

/// What a future resolves to.
pub enum Value {
    /// `fdb_future_get_error` only.
    Void,
    Int64(i64),
    Uint64(u64),
    Double(f64),
    Bool(bool),
    /// A key, or any byte string `fdb_future_get_key` returns.
    Key(Vec<u8>),
    /// A value that may be absent.
    Value(Option<Vec<u8>>),
    KeyValues(KeyValues),
    MappedKeyValues(mapped::MappedKeyValues),
    Keys(Keys),
    Strings(Strings),
}

/// Rows as an array of `FDBKeyValue` pointing into one buffer.
pub struct KeyValues {
    _bytes: Vec<u8>,
    kvs: Vec<FDBKeyValue>,
    more: bool,
}

// SAFETY: the pointers point into `_bytes`, owned alongside and never
// changed after construction.
unsafe impl Send for KeyValues {}

impl KeyValues {
    pub fn new(rows: &[KeyValue], more: bool) -> KeyValues {
        let total = rows.iter().map(|r| r.key.len() + r.value.len()).sum();
        let mut bytes = Vec::with_capacity(total);
        for r in rows {
            bytes.extend_from_slice(&r.key);
            bytes.extend_from_slice(&r.value);
        }
        let base = bytes.as_ptr();
        let mut at = 0;
        let kvs = rows
            .iter()
            .map(|r| {
                // SAFETY: `at` stays within `bytes`, which is filled and
                // never reallocated again.
                let key = unsafe { base.add(at) };
                at += r.key.len();
                let value = unsafe { base.add(at) };
                at += r.value.len();
                FDBKeyValue {
                    key,
                    key_length: r.key.len() as i32,
                    value,
                    value_length: r.value.len() as i32,
                }
            })
            .collect();
        KeyValues {
            _bytes: bytes,
            kvs,
            more,
        }
    }
}

/// Keys as an array of `FDBKey` pointing into one buffer.
pub struct Keys {
    _bytes: Vec<u8>,
    keys: Vec<FDBKey>,
}

// SAFETY: as for `KeyValues`.
unsafe impl Send for Keys {}

impl Keys {
    pub fn new(keys: &[Vec<u8>]) -> Keys {
        let bytes: Vec<u8> = keys.concat();
        let base = bytes.as_ptr();
        let mut at = 0;
        let keys = keys
            .iter()
            .map(|k| {
                // SAFETY: as in `KeyValues::new`.
                let key = unsafe { base.add(at) };
                at += k.len();
                FDBKey {
                    key,
                    key_length: k.len() as i32,
                }
            })
            .collect();
        Keys {
            _bytes: bytes,
            keys,
        }
    }
}

/// NUL-terminated strings and the array of pointers to them.
pub struct Strings {
    _owned: Vec<CString>,
    ptrs: Vec<*const c_char>,
}

// SAFETY: the pointers point into `_owned`.
unsafe impl Send for Strings {}

impl Strings {
    pub fn new(strings: Vec<CString>) -> Strings {
        let ptrs = strings.iter().map(|s| s.as_ptr()).collect();
        Strings {
            _owned: strings,
            ptrs,
        }
    }
}

/// A callback and its parameter, as the caller gave them.
#[derive(Clone, Copy)]
struct Callback {
    f: unsafe extern "C" fn(*mut FDBFuture, *mut c_void),
    param: *mut c_void,
}

// SAFETY: FDB's contract: callbacks may run on any thread (the network
// thread or the caller's), and the caller synchronises what they touch.
unsafe impl Send for Callback {}

impl Callback {
    fn call(self, future: &Arc<Future>) {
        let ptr = Future::as_raw(future);
        // SAFETY: the caller's callback, called as fdb_c.h says, with a
        // future kept alive for the call.
        unsafe { (self.f)(ptr, self.param) }
    }
}

/// What runs behind a pending future; dropping it stops the work (a
/// watch stops watching).
pub type Operation = Box<dyn Any + Send>;

#[derive(Default)]
struct State {
    outcome: Option<Result<Value, Code>>,
    callbacks: Vec<Callback>,
    /// Successful `fdb_future_get_*` calls less the calls of
    /// `fdb_future_release_memory`, counted as FDB counts them.
    gets: i32,
    operation: Option<Operation>,
}

/// A future, shared by its `FDBFuture*` and whatever will resolve it.
#[derive(Default)]
pub struct Future {
    state: Mutex<State>,
    ready: Condvar,
}

impl Future {
    /// A future that is ready now.
    pub fn ready(outcome: Result<Value, Code>) -> Arc<Future> {
        let f = Future::default();
        lock(&f.state).outcome = Some(outcome);
        Arc::new(f)
    }

    /// A future that something will resolve later.
    pub fn pending() -> Arc<Future> {
        Arc::new(Future::default())
    }

    /// A ready future, as the caller's pointer.
    pub fn raw(outcome: Result<Value, Code>) -> *mut FDBFuture {
        Future::into_raw(Future::ready(outcome))
    }

    /// A ready future holding an error.
    pub fn error(code: Code) -> *mut FDBFuture {
        Future::raw(Err(code))
    }

    /// Keeps `op` running until the future resolves or is cancelled.
    pub fn hold(&self, op: Operation) {
        let mut state = lock(&self.state);
        if state.outcome.is_none() {
            state.operation = Some(op);
        }
    }

    /// Runs `f` on the operation behind a pending future, if any.
    pub fn with_operation<T>(&self, f: impl FnOnce(&mut Operation) -> T) -> Option<T> {
        let mut state = lock(&self.state);
        if state.outcome.is_some() {
            return None;
        }
        state.operation.as_mut().map(f)
    }

    /// Resolves the future unless it already is; returns whether it did.
    /// Its callbacks run on the network thread.
    pub fn resolve(self: &Arc<Self>, outcome: Result<Value, Code>) -> bool {
        let (callbacks, operation) = {
            let mut state = lock(&self.state);
            if state.outcome.is_some() {
                return false;
            }
            state.outcome = Some(outcome);
            (std::mem::take(&mut state.callbacks), state.operation.take())
        };
        self.ready.notify_all();
        drop(operation);
        for cb in callbacks {
            let me = self.clone();
            network::spawn(Box::new(move || cb.call(&me)));
        }
        true
    }

    /// `fdb_future_cancel`: a pending future fails with
    /// `operation_cancelled`; a ready one is left as it is.
    pub fn cancel(self: &Arc<Self>) {
        self.resolve(Err(OPERATION_CANCELLED));
    }

    pub fn is_ready(&self) -> bool {
        lock(&self.state).outcome.is_some()
    }

    /// `fdb_future_set_callback`: at once on this thread if ready, else on
    /// the network thread when it resolves.
    pub fn set_callback(
        self: &Arc<Self>,
        f: unsafe extern "C" fn(*mut FDBFuture, *mut c_void),
        param: *mut c_void,
    ) {
        let cb = Callback { f, param };
        let ready = {
            let mut state = lock(&self.state);
            if state.outcome.is_none() {
                state.callbacks.push(cb);
            }
            state.outcome.is_some()
        };
        if ready {
            cb.call(self);
        }
    }

    /// `fdb_future_block_until_ready`. On the network thread a pending
    /// future would never resolve (this thread resolves it), so FDB's
    /// `blocked_from_network_thread` is returned instead.
    pub fn block(&self) -> Result<(), Code> {
        let mut state = lock(&self.state);
        if state.outcome.is_some() {
            return Ok(());
        }
        if network::on_network_thread() {
            return Err(BLOCKED_FROM_NETWORK_THREAD);
        }
        while state.outcome.is_none() {
            state = self
                .ready
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        Ok(())
    }

    /// `fdb_future_get_error`.
    pub fn error_code(&self) -> Code {
        match &lock(&self.state).outcome {
            None => FUTURE_NOT_SET,
            Some(Err(code)) => *code,
            Some(Ok(_)) => 0,
        }
    }

    /// Reads the value with `f`, which fails for a value of the wrong
    /// kind; counts the read for `fdb_future_release_memory`.
    pub fn get<T>(&self, f: impl FnOnce(&Value) -> Option<T>) -> Result<T, Code> {
        let mut state = lock(&self.state);
        let value = match &state.outcome {
            None => return Err(FUTURE_NOT_SET),
            Some(Err(code)) => return Err(*code),
            Some(Ok(value)) => f(value).ok_or(CLIENT_INVALID_OPERATION)?,
        };
        state.gets = state.gets.saturating_add(1);
        Ok(value)
    }

    /// `fdb_future_release_memory`: once called as often as the getters
    /// succeeded, the result's buffers are freed and the future holds
    /// `future_released` instead, as FDB's does.
    pub fn release_memory(&self) {
        let freed = {
            let mut state = lock(&self.state);
            state.gets -= 1;
            if state.gets != 0 || !matches!(state.outcome, Some(Ok(_))) {
                return;
            }
            state.outcome.replace(Err(FUTURE_RELEASED))
        };
        drop(freed);
    }
}

impl Handle for Future {
    type Raw = FDBFuture;
}

impl Value {
    pub fn int64(&self) -> Option<i64> {
        match self {
            Value::Int64(v) => Some(*v),
            _ => None,
        }
    }

    pub fn uint64(&self) -> Option<u64> {
        match self {
            Value::Uint64(v) => Some(*v),
            _ => None,
        }
    }

    pub fn double(&self) -> Option<f64> {
        match self {
            Value::Double(v) => Some(*v),
            _ => None,
        }
    }

    pub fn boolean(&self) -> Option<bool> {
        match self {
            Value::Bool(v) => Some(*v),
            _ => None,
        }
    }

    /// The key's pointer and length.
    pub fn key(&self) -> Option<(*const u8, i32)> {
        match self {
            Value::Key(k) => Some((k.as_ptr(), k.len() as i32)),
            _ => None,
        }
    }

    /// Whether the value is present, and its pointer and length.
    pub fn value(&self) -> Option<Option<(*const u8, i32)>> {
        match self {
            Value::Value(v) => Some(v.as_ref().map(|v| (v.as_ptr(), v.len() as i32))),
            _ => None,
        }
    }

    pub fn key_values(&self) -> Option<(*const FDBKeyValue, i32, bool)> {
        match self {
            Value::KeyValues(kv) => Some((kv.kvs.as_ptr(), kv.kvs.len() as i32, kv.more)),
            _ => None,
        }
    }

    pub fn keys(&self) -> Option<(*const FDBKey, i32)> {
        match self {
            Value::Keys(k) => Some((k.keys.as_ptr(), k.keys.len() as i32)),
            _ => None,
        }
    }

    pub fn strings(&self) -> Option<(*const *const c_char, i32)> {
        match self {
            Value::Strings(s) => Some((s.ptrs.as_ptr(), s.ptrs.len() as i32)),
            _ => None,
        }
    }
}
