//! Waiting for locks other connections hold, up to a deadline.
//!
//! SQLite waits for most locks in its busy handler (`busy_timeout`) and
//! answers "busy" once that wait is spent. Some busy answers come at once,
//! without the handler: while another connection recovers the WAL, changes
//! the journal mode, sets up the shared memory or checkpoints. Every lock
//! wait of the file store runs through [`patiently`]: each attempt waits in
//! the handler no longer than the time left, and one answered busy early
//! is tried again after a short pause, so the whole wait ends at its
//! deadline and not one attempt's timeout after it.

use std::time::{Duration, Instant};

use rusqlite::{Connection, ffi};

use crate::kv::error::sqlite_busy;

/// The first pause after an early busy answer; it doubles up to
/// [`LAST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(1);
const LAST_PAUSE: Duration = Duration::from_millis(50);

/// Runs `attempt` on `conn` until it succeeds, fails with an answer other
/// than busy, or `deadline` passes; then sets the connection's lock wait
/// back to `usual`.
pub(super) fn patiently<T>(
    conn: &Connection,
    deadline: Instant,
    usual: Duration,
    mut attempt: impl FnMut() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    let mut pause = FIRST_PAUSE;
    let result = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match conn.busy_timeout(left).and_then(|()| attempt()) {
            Err(e) if sqlite_busy(&e) && Instant::now() + pause < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(LAST_PAUSE);
            }
            result => break result,
        }
    };
    let _ = conn.busy_timeout(usual);
    result
}

/// A busy answer for what SQLite reports as a result rather than an error
/// (a checkpoint that readers kept from finishing), so that
/// [`patiently`] tries it again.
pub(super) fn error(what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(ffi::SQLITE_BUSY), Some(what.into()))
}
