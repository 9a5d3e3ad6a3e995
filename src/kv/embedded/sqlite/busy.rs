//! Waiting for locks other connections hold, up to a deadline.
//!
//! SQLite waits for most locks in its busy handler and answers "busy"
//! once that wait is spent. The handler is fql's own ([`install`]): SQLite's
//! (`busy_timeout`) sleeps 1, 2, 5, 10, 15, 20, 25 ms … between tries, so
//! a commit that finds the write lock held by another commit, which holds
//! it about a millisecond, often waited ten or more; fql's tries again
//! after pauses of 0.1 ms doubling up to [`LAST_TRY_PAUSE`]. Some busy answers come at once,
//! without the handler: while another connection recovers the WAL, changes
//! the journal mode, sets up the shared memory or checkpoints. Every lock
//! wait of the file store runs through [`patiently`]: each attempt waits in
//! the handler no longer than the time left, and one answered busy early
//! is tried again after a short pause, so the whole wait ends at its
//! deadline and not one attempt's timeout after it.

use std::cell::Cell;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ffi};

use crate::kv::error::sqlite_busy;

/// The first pause after an early busy answer; it doubles up to
/// [`LAST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(1);
const LAST_PAUSE: Duration = Duration::from_millis(50);

/// The handler's first pause between tries; it doubles up to
/// [`LAST_TRY_PAUSE`].
const FIRST_TRY_PAUSE: Duration = Duration::from_micros(100);
const LAST_TRY_PAUSE: Duration = Duration::from_millis(2);

thread_local! {
    /// The deadline of the [`patiently`] running on this thread, which the
    /// busy handler keeps to (SQLite calls it on the thread that waits).
    static UNTIL: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Makes `conn` wait for locks in fql's busy handler: until the deadline
/// of the [`patiently`] running, or else for `usual`.
pub(super) fn install(conn: &mut Connection, usual: Duration) -> rusqlite::Result<()> {
    let mut until = Instant::now();
    conn.busy_handler(Some(move |count: i32| {
        if count == 0 {
            until = UNTIL
                .with(Cell::get)
                .unwrap_or_else(|| Instant::now() + usual);
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        let doublings = count.clamp(0, 5) as u32;
        let pause = (FIRST_TRY_PAUSE * (1 << doublings)).min(LAST_TRY_PAUSE);
        std::thread::sleep(pause.min(left));
        true
    }))
}

/// Runs `attempt` (on a connection with fql's handler, [`install`])
/// until it succeeds, fails with an answer other than busy, or `deadline`
/// passes.
pub(super) fn patiently<T>(
    deadline: Instant,
    mut attempt: impl FnMut() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    let outer = UNTIL.with(|u| u.replace(Some(deadline)));
    let mut pause = FIRST_PAUSE;
    let result = loop {
        match attempt() {
            Err(e) if sqlite_busy(&e) && Instant::now() + pause < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(LAST_PAUSE);
            }
            result => break result,
        }
    };
    UNTIL.with(|u| u.set(outer));
    result
}

/// A busy answer for what SQLite reports as a result rather than an error
/// (a checkpoint that readers kept from finishing), so that
/// [`patiently`] tries it again.
pub(super) fn error(what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(ffi::SQLITE_BUSY), Some(what.into()))
}
