//! Waiting on many watches at once, with a deadline and a stop request.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::thread;
use std::time::{Duration, Instant};

use crate::kv::{Result, Watch, thread_waker};

/// How often `stop` is asked while nothing fires: a Ctrl-C ends a wait
/// within this.
const TICK: Duration = Duration::from_millis(100);

/// Waits until at least one watch resolves, `until` passes, or `stop`
/// says so; returns the index and outcome of each watch that resolved
/// (none when the wait ended otherwise). A resolved watch is spent: the
/// caller drops it.
pub(crate) fn any(
    watches: &mut [(usize, &mut Watch)],
    until: Option<Instant>,
    stop: &dyn Fn() -> bool,
) -> Vec<(usize, Result<()>)> {
    let waker = thread_waker();
    let mut cx = Context::from_waker(&waker);
    loop {
        let fired: Vec<_> = watches
            .iter_mut()
            .filter_map(|(i, w)| match Pin::new(&mut **w).poll(&mut cx) {
                Poll::Ready(r) => Some((*i, r)),
                Poll::Pending => None,
            })
            .collect();
        if !fired.is_empty() || stop() {
            return fired;
        }
        let now = Instant::now();
        let left = match until {
            Some(u) if now >= u => return fired,
            Some(u) => (u - now).min(TICK),
            None => TICK,
        };
        thread::park_timeout(left);
    }
}
