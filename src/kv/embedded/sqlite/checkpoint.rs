//! Keeping the WAL small while readers overlap.
//!
//! SQLite's automatic checkpoint (after a commit that leaves 1,000 pages in
//! the WAL) is PASSIVE: it copies pages back into the database only up to
//! what the oldest open reader still reads, and the WAL starts again from
//! its beginning only when a writer finds every page copied and no reader
//! using it. Under a steady load of overlapping readers that moment never
//! comes and the WAL grows without bound. So a committer that finds the WAL
//! past [`WAL_LIMIT`] runs a RESTART checkpoint: it holds off other writers
//! while it waits for the readers that started before it (readers that
//! start meanwhile read the copied pages from the database file), so the
//! next commit writes the WAL from its beginning, and `journal_size_limit`
//! cuts the file back to [`WAL_LIMIT`].
//!
//! The wait is short at first, so a reader in the middle of a long scan
//! costs writers little; once the WAL is past four times the limit it
//! waits as long as a read transaction may live (the sweeper ends each
//! within its window, five seconds by default), which bounds the WAL under
//! any load of live processes. A process that is stopped inside a read
//! transaction pins the WAL until it resumes or dies; attempts then back
//! off to once a minute.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::busy::{self, patiently};
use super::target::Target;

/// The WAL size past which a committer restarts the WAL, and to which
/// `journal_size_limit` truncates it then.
pub(crate) const WAL_LIMIT: u64 = 16 << 20;

/// Past this size the checkpoint waits out every reader.
const WAL_HARD_LIMIT: u64 = 4 * WAL_LIMIT;

/// How long a checkpoint waits for readers below the hard limit.
const SHORT_WAIT: Duration = Duration::from_millis(200);

/// How much longer than a read transaction lives it waits past it, so the
/// sweeper has ended every reader by then.
const PAST_WINDOW: Duration = Duration::from_millis(300);

/// The wait before a process tries again after waiting out the readers
/// failed to restart the WAL; it doubles up to [`MAX_BACKOFF`]. After a
/// short wait fails, the next commit past [`SHORT_WAIT`] tries again.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(60);

pub(super) struct Checkpoints {
    state: Mutex<Tries>,
    /// How long it waits past the hard limit: longer than any read
    /// transaction lives.
    long_wait: Duration,
}

struct Tries {
    not_before: Option<Instant>,
    backoff: Duration,
}

impl Default for Tries {
    fn default() -> Self {
        Tries {
            not_before: None,
            backoff: FIRST_BACKOFF,
        }
    }
}

impl Checkpoints {
    /// Checkpoints of a store whose read transactions live `window`.
    pub fn new(window: Duration) -> Checkpoints {
        Checkpoints {
            state: Mutex::default(),
            long_wait: window.saturating_add(PAST_WINDOW),
        }
    }

    /// After a commit, once the committing transaction has let go of its
    /// own snapshot (which the checkpoint would otherwise wait for):
    /// restarts the WAL of `target` if it is past the limit, on `conn`.
    /// Best effort: the commit has happened, and a checkpoint that fails is
    /// tried again by a later commit.
    pub fn after_commit(&self, conn: &Connection, target: &Target) {
        let Ok(size) = std::fs::metadata(target.beside("-wal")).map(|m| m.len()) else {
            return;
        };
        if size <= WAL_LIMIT {
            return;
        }
        // Another thread of this process may be checkpointing already.
        let mut tries = match self.state.try_lock() {
            Ok(tries) => tries,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        let now = Instant::now();
        if tries.not_before.is_some_and(|t| now < t) {
            return;
        }
        let long = size > WAL_HARD_LIMIT;
        let wait = if long { self.long_wait } else { SHORT_WAIT };
        if restart(conn, wait) {
            tries.not_before = None;
            tries.backoff = FIRST_BACKOFF;
        } else if long {
            // Readers did not end in time: a process stopped inside one.
            tries.not_before = Some(Instant::now() + tries.backoff);
            tries.backoff = (tries.backoff * 2).min(MAX_BACKOFF);
        } else {
            tries.not_before = Some(Instant::now() + SHORT_WAIT);
        }
    }
}

/// Runs RESTART checkpoints for at most `wait`; whether one restarted the
/// WAL. An attempt also fails at once while another connection
/// checkpoints (SQLite's automatic checkpoints after commits), so it is
/// tried again until the wait is spent.
fn restart(conn: &Connection, wait: Duration) -> bool {
    patiently(Instant::now() + wait, || {
        let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(RESTART)", [], |r| r.get(0))?;
        match busy {
            0 => Ok(()),
            _ => Err(busy::error("readers still use the WAL")),
        }
    })
    .is_ok()
}
