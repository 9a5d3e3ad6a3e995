//! Watches: the store's watch, driven by the network thread, behind an
//! `FDBFuture`.
//!
//! The store resolves a watch from its own poller thread and wakes
//! whoever polls it; here the waker queues a poll on the network thread,
//! so the future resolves there and its callbacks run there, as FDB's do.
//! Cancelling or destroying the future drops the store's watch, which
//! stops watching. Each watch counts against its database's
//! `max_watches` until it resolves or is dropped.

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::task::{Context, Poll, Wake, Waker};

use fql::kv::Watch;

use crate::future::{Future, Value};
use crate::network;

/// The store's watch, while the future waits on it.
struct Watching {
    watch: Watch,
    _count: Counted,
}

/// One outstanding watch of a database, counted until dropped.
struct Counted(Arc<AtomicUsize>);

impl Counted {
    fn new(count: Arc<AtomicUsize>) -> Counted {
        count.fetch_add(1, Ordering::SeqCst);
        Counted(count)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A pending future that resolves when `watch` does.
pub fn future(watch: Watch, count: Arc<AtomicUsize>) -> Arc<Future> {
    let f = Future::pending();
    f.hold(Box::new(Watching {
        watch,
        _count: Counted::new(count),
    }));
    let first = f.clone();
    network::spawn(Box::new(move || poll(&first)));
    f
}

/// Polls the store's watch once, on the network thread.
fn poll(f: &Arc<Future>) {
    let waker = Waker::from(Arc::new(Repoll(Arc::downgrade(f))));
    let mut cx = Context::from_waker(&waker);
    let outcome = f
        .with_operation(|op| {
            let watching = op.downcast_mut::<Watching>()?;
            match Pin::new(&mut watching.watch).poll(&mut cx) {
                Poll::Ready(r) => Some(r),
                Poll::Pending => None,
            }
        })
        .flatten();
    if let Some(r) = outcome {
        f.resolve(r.map(|()| Value::Void).map_err(|e| crate::errors::of(&e)));
    }
}

/// Wakes a watch's future by queueing a poll on the network thread; a
/// future already gone is left alone.
struct Repoll(Weak<Future>);

impl Wake for Repoll {
    fn wake(self: Arc<Self>) {
        if let Some(f) = self.0.upgrade() {
            network::spawn(Box::new(move || poll(&f)));
        }
    }
}
