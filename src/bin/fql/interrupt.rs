//! Ctrl-C while a script or a shell line runs.
//!
//! The first SIGINT stops the running query at its next database
//! operation, through the session's [`Activity`]. A second, if the first
//! has not ended the run yet, ends the process as an uncaught SIGINT does:
//! by the signal, under its default action. That runs no exit handler,
//! no static destructor and no `atexit` function, so nothing in the
//! process runs under the FoundationDB client's network thread while it
//! still runs, which `process::exit` would do; a process ended by a signal
//! is what FoundationDB's client allows for. A shell shows the status as
//! 130, as it does for any command Ctrl-C ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fql::kv::Activity;
use signal_hook::consts::SIGINT;
use signal_hook::iterator::Signals;
use signal_hook::low_level::emulate_default_handler;

/// Whether the shell's pager is showing results. Ctrl-C then never ends
/// the process: that would leave the pager holding the terminal with no
/// shell behind it. Quitting the pager ends the result instead.
static PAGING: AtomicBool = AtomicBool::new(false);

/// Says that a pager starts (`true`) or has ended (`false`).
pub fn paging(running: bool) {
    PAGING.store(running, Ordering::SeqCst);
}

/// How many SIGINTs the interrupt thread has acted on.
static HANDLED: AtomicU64 = AtomicU64::new(0);

/// How many SIGINTs have been acted on so far: the count to pass to
/// [`await_handled`].
pub fn handled() -> u64 {
    HANDLED.load(Ordering::SeqCst)
}

/// Waits, a second at most, until a SIGINT after the first `since` has
/// been acted on. Ctrl-C reaches the pager and fql at once: the pager's
/// end can end the result, and the next entry start, before the
/// interrupt thread has stopped the activity, which would then stop that
/// next entry instead. A pager that Ctrl-C ended waits for this first.
pub fn await_handled(since: u64) {
    let deadline = Instant::now() + Duration::from_secs(1);
    while handled() <= since && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Catches SIGINT for the rest of the process: the first stops
/// `activity`, the next while it is stopped ends the process.
pub fn stop_on_interrupt(activity: Arc<Activity>) {
    // Without a handler, Ctrl-C keeps its default action, which ends the
    // process at once: the second press's behaviour, from the first.
    let Ok(mut signals) = Signals::new([SIGINT]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("interrupt".into())
        .spawn(move || {
            for _ in signals.forever() {
                if activity.stopped() && !PAGING.load(Ordering::SeqCst) {
                    // Does not return: SIGINT's default action ends the
                    // process, and should it not, this aborts.
                    let _ = emulate_default_handler(SIGINT);
                }
                activity.stop();
                HANDLED.fetch_add(1, Ordering::SeqCst);
            }
        });
}
