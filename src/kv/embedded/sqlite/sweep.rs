//! Ending read transactions at their deadline, whether or not their owner
//! is still busy with them.
//!
//! A snapshot is an open SQLite read transaction, and while it is open the
//! WAL cannot be checkpointed past the state it reads: an idle shell after
//! `\begin`, or a process that forgot a transaction, would make the WAL grow
//! for ever. A transaction may only read for its window anyway (five
//! seconds by default), so one thread per store ends every read transaction
//! when that window closes; the snapshot's next read then fails with
//! `transaction_too_old`, as it would have.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use rusqlite::Connection;

use super::pool::Pool;
use crate::kv::lock;

/// A snapshot's connection, shared with the sweeper; `None` once the read
/// transaction has been ended.
pub(super) type Held = Arc<Mutex<Option<Connection>>>;

#[derive(Default)]
pub(super) struct Sweeper {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Deadlines in the order snapshots were taken, which is their order.
    queue: VecDeque<(Instant, Weak<Mutex<Option<Connection>>>)>,
    running: bool,
}

/// Ends `held`'s read transaction at `deadline`, starting the thread if
/// none runs. Should the thread fail to start, the snapshot is only ended
/// by its owner, as before, and the next snapshot tries again.
pub(super) fn watch(sweeper: &Arc<Sweeper>, pool: &Arc<Pool>, held: &Held, deadline: Instant) {
    let mut state = lock(&sweeper.state);
    state.queue.push_back((deadline, Arc::downgrade(held)));
    if state.running {
        // The thread waits for an earlier deadline, and looks again then.
        return;
    }
    let (shared, weak_pool) = (Arc::clone(sweeper), Arc::downgrade(pool));
    let spawned = std::thread::Builder::new()
        .name("fql-snapshots".into())
        .spawn(move || sweep(&shared, &weak_pool));
    state.running = spawned.is_ok();
}

fn sweep(sweeper: &Sweeper, pool: &Weak<Pool>) {
    loop {
        let (due, next) = {
            let mut state = lock(&sweeper.state);
            let now = Instant::now();
            let mut due = Vec::new();
            while let Some((at, held)) = state.queue.front() {
                if held.strong_count() > 0 && *at > now {
                    break;
                }
                if *at <= now {
                    due.push(held.clone());
                }
                state.queue.pop_front();
            }
            let next = state.queue.front().map(|(at, _)| *at);
            if due.is_empty() && next.is_none() {
                state.running = false;
                return;
            }
            (due, next)
        };
        end(&due, pool);
        if let Some(next) = next {
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
    }
}

/// Rolls back the read transactions of `due` and returns their connections.
fn end(due: &[Weak<Mutex<Option<Connection>>>], pool: &Weak<Pool>) {
    for held in due.iter().filter_map(Weak::upgrade) {
        let conn = lock(&held).take();
        if let Some(conn) = conn
            && conn.execute_batch("ROLLBACK").is_ok()
            && let Some(pool) = pool.upgrade()
        {
            pool.give(conn);
        }
    }
}
