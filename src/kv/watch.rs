//! Watches: futures that resolve when a key's value changes.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use super::{Result, lock};

/// A future that resolves when the watched key changes, or with an error
/// when the watch can no longer fire (its transaction never committed, the
/// database was closed).
///
/// It is a plain [`Future`], so async callers can `.await` it; synchronous
/// callers use [`Watch::wait`].
pub struct Watch {
    future: Pin<Box<dyn Future<Output = Result<()>> + Send>>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch")
    }
}

impl Watch {
    /// Wraps any future, such as the FDB client's watch future.
    pub fn new(future: impl Future<Output = Result<()>> + Send + 'static) -> Self {
        Watch {
            future: Box::pin(future),
        }
    }

    /// Blocks until the watch fires (`Ok(true)`), fails, or `timeout`
    /// passes (`Ok(false)`; the watch stays armed and can be waited on
    /// again).
    pub fn wait(&mut self, timeout: Option<Duration>) -> Result<bool> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let waker = thread_waker();
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(r) = self.future.as_mut().poll(&mut cx) {
                return r.map(|()| true);
            }
            match deadline {
                None => thread::park(),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Ok(false);
                    }
                    thread::park_timeout(d - now);
                }
            }
        }
    }
}

impl Future for Watch {
    type Output = Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.future.as_mut().poll(cx)
    }
}

/// A waker that unparks the calling thread: what a synchronous wait on
/// watches parks on between polls.
pub(crate) fn thread_waker() -> Waker {
    Waker::from(Arc::new(Unpark(thread::current())))
}

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// The shared state behind a backend's own watches: the backend resolves
/// it, the [`Watch`] polls it.
#[derive(Clone, Default)]
pub struct WatchFuture {
    state: Arc<Mutex<WatchState>>,
}

#[derive(Default)]
struct WatchState {
    outcome: Option<Result<()>>,
    waker: Option<Waker>,
}

impl WatchFuture {
    /// Resolves the watch; later calls are ignored.
    pub fn resolve(&self, outcome: Result<()>) {
        let mut state = lock(&self.state);
        if state.outcome.is_none() {
            state.outcome = Some(outcome);
            if let Some(w) = state.waker.take() {
                w.wake();
            }
        }
    }

    /// Whether the watch has been resolved.
    pub fn is_resolved(&self) -> bool {
        let state = lock(&self.state);
        state.outcome.is_some()
    }

    /// Whether anyone still holds the [`Watch`]; a backend drops watches
    /// nobody can observe.
    pub fn is_abandoned(&self) -> bool {
        Arc::strong_count(&self.state) == 1
    }

    /// The [`Watch`] to hand out.
    pub fn watch(&self) -> Watch {
        Watch::new(self.clone())
    }
}

impl Future for WatchFuture {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = lock(&self.state);
        match &state.outcome {
            Some(r) => Poll::Ready(r.clone()),
            None => {
                state.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
