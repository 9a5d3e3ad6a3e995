//! Waiting for what another thread or process does: poll its observable
//! effect (a file, a line of output, a key, a lock's state) until it shows,
//! rather than sleep for a time that a loaded machine may not keep.

#![allow(dead_code)]

use std::time::{Duration, Instant};

/// How long a test waits for another thread or process before it fails:
/// far more than any wait takes, so that a machine running several builds
/// at once fails nothing, while a hang still ends the test.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The first pause between two looks; it doubles up to [`MOST_PAUSE`], so
/// a quick condition costs little time and a slow one little work.
const FIRST_PAUSE: Duration = Duration::from_millis(2);
const MOST_PAUSE: Duration = Duration::from_millis(50);

/// Waits until `done` holds, and fails the test, naming `what`, if it
/// does not within [`PATIENCE`].
#[track_caller]
pub fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    eventually_some(what, || done().then_some(()))
}

/// Waits until `found` gives a value, and returns it; fails the test,
/// naming `what`, if it gives none within [`PATIENCE`].
#[track_caller]
pub fn eventually_some<T>(what: &str, found: impl FnMut() -> Option<T>) -> T {
    match within(PATIENCE, found) {
        Some(value) => value,
        None => panic!("{what}: not within {PATIENCE:?}"),
    }
}

/// The first value `found` gives within `limit`, or `None` once the limit
/// has passed: for a caller that has more to say when it fails.
pub fn within<T>(limit: Duration, mut found: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    let mut pause = FIRST_PAUSE;
    loop {
        if let Some(value) = found() {
            return Some(value);
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(MOST_PAUSE);
    }
}
