//! `fql mutex … --read | --write | --permits N`: read-write locks and
//! semaphores, with the mutex's commands; and `show` of their
//! directories.

use std::sync::Arc;
use std::time::Duration;

use fql::kv::Database;
use fql::lock::rwlock::{Kind, Lock, Mode, State};
use fql::syntax::plain_or_quoted;

use super::held::failed;
use super::show::{secs, secs_text};
use super::{directory, granted, seconds};
use crate::args::{Client, Format, KindArgs, MutexCommand};
use crate::error::{CliError, Exit};

impl KindArgs {
    /// The kind and mode these flags ask for; `None` for a plain mutex.
    fn lock(self) -> Option<(Kind, Mode)> {
        match (self.read, self.write, self.permits) {
            (true, _, _) => Some((Kind::ReadWrite, Mode::Read)),
            (_, true, _) => Some((Kind::ReadWrite, Mode::Write)),
            (_, _, Some(n)) => Some((Kind::Semaphore(n), Mode::Permit)),
            _ => None,
        }
    }
}

/// Runs `command` if it is for a read-write lock or a semaphore: a
/// client command with a kind flag, or `show` of a directory that holds
/// such a lock. `None` leaves it to the mutex.
pub fn run(
    command: &MutexCommand,
    db: &Arc<dyn Database>,
    timeout: Duration,
    format: Option<Format>,
) -> Option<Result<(), CliError>> {
    let lock = |client: &Client| -> Option<Result<Lock, CliError>> {
        let kind = client.kind.lock()?;
        Some(open(client, kind, db.clone(), timeout))
    };
    let done = match command {
        MutexCommand::Acquire { client, wait } => {
            let kind = client.kind.lock()?;
            acquire(client, kind, (db, timeout), wait.wait, format)
        }
        MutexCommand::TryAcquire { client } => {
            let lock = lock(client)?;
            lock.and_then(|l| granted(&l, l.try_acquire(), client, format))
        }
        MutexCommand::Release { client } => {
            lock(client)?.and_then(|l| done(l.release(), "does not hold"))
        }
        MutexCommand::Heartbeat { client } => {
            lock(client)?.and_then(|l| done(l.heartbeat(), "does not hold"))
        }
        MutexCommand::Cancel { client } => {
            lock(client)?.and_then(|l| done(l.cancel(), "is not waiting for"))
        }
        MutexCommand::Run {
            client,
            wait,
            grace,
            stats,
            command,
        } => {
            let kind = client.kind.lock()?;
            let how = super::Holding {
                wait: *wait,
                grace: *grace,
                stats: stats.then(|| client.format.or(format).unwrap_or_default()),
            };
            let open = |db| open(client, kind, db, timeout);
            super::holding(open, (db, timeout), client, how, command)
        }
        MutexCommand::Show {
            dir, format: own, ..
        } => {
            return show(db, dir, timeout, own.or(format).unwrap_or_default());
        }
        MutexCommand::Elect { client, .. } if client.kind.lock().is_some() => Err(CliError::Usage(
            "an election is held in a mutex: elect without --read, --write or --permits"
                .to_string(),
        )),
        MutexCommand::Reap { .. }
        | MutexCommand::Elect { .. }
        | MutexCommand::Observe { .. }
        | MutexCommand::Task { .. }
        | MutexCommand::List { .. }
        | MutexCommand::Break { .. } => return None,
    };
    Some(done)
}

/// Waits in line for the lock, leaving the line on SIGINT, SIGTERM or
/// SIGHUP as a mutex's waiter does, and prints the grant.
fn acquire(
    client: &Client,
    kind: (Kind, Mode),
    (db, timeout): (&Arc<dyn Database>, Duration),
    wait: Option<f64>,
    format: Option<Format>,
) -> Result<(), CliError> {
    let wait = wait.map(|w| seconds(w, "--wait")).transpose()?;
    let (lock, caught) = super::leaving(|db| open(client, kind, db, timeout), db, timeout)?;
    let printed = granted(&*lock, lock.acquire(wait), client, format);
    caught.done();
    printed
}

fn open(
    client: &Client,
    kind: (Kind, Mode),
    db: Arc<dyn Database>,
    timeout: Duration,
) -> Result<Lock, CliError> {
    if client.timing.compat {
        return Err(CliError::Usage("--compat is for a mutex shared with Go clients; a read-write lock or a semaphore has no Go counterpart".to_string()));
    }
    let timing = client.timing.timing()?;
    Lock::new(db, directory(&client.dir)?, &client.name, timing, kind)
        .map(|l| l.timeout(timeout))
        .map_err(|e| CliError::Usage(e.to_string()))
}

fn done(result: Result<bool, fql::lock::rwlock::Error>, not: &str) -> Result<(), CliError> {
    if result.map_err(failed)? {
        Ok(())
    } else {
        Err(CliError::failed(
            Exit::Unmet,
            format!("this client {not} the lock"),
        ))
    }
}

/// Shows the lock in `dir` if it is a read-write lock or a semaphore;
/// `None` leaves anything else to the mutex's `show`.
fn show(
    db: &Arc<dyn Database>,
    dir: &str,
    timeout: Duration,
    format: Format,
) -> Option<Result<(), CliError>> {
    let names = match directory(dir) {
        Ok(names) => names,
        Err(exit) => return Some(Err(exit)),
    };
    let state = match fql::lock::rwlock::inspect(db.clone(), &names, timeout) {
        Ok(Some(state)) => state,
        Ok(_) => return None,
        Err(e) => return Some(Err(failed(e))),
    };
    let report = match format {
        Format::Text => text(&state),
        Format::Json | Format::Jsonl => format!("{}\n", json(&state, &names)),
    };
    Some(crate::output::print(&report))
}

fn kind_text(state: &State) -> String {
    let (h, l) = state.timing_ms;
    let what = match state.kind {
        Kind::Semaphore(n) => format!(
            "semaphore of {}",
            fql::syntax::counted(u64::from(n), "permit", "permits")
        ),
        Kind::ReadWrite => "read-write lock".into(),
    };
    format!("{what} (heartbeat {h} ms, stale {l} ms)")
}

/// What a heartbeat `age` old says, in words, as a mutex's `show` puts
/// it: `live, last beat 0.2 s ago`.
pub(super) fn beat(state: &State, age: Option<Duration>) -> String {
    let verdict = state.verdict(age).word();
    match age {
        Some(age) => format!("{verdict}, last beat {} ago", secs_text(age)),
        None => verdict.to_string(),
    }
}

/// A line for each fact; names quoted and escaped when not plain.
fn text(state: &State) -> String {
    let mut out = format!("kind: {}\n", kind_text(state));
    out.push_str(&format!("holders: {}\n", state.holders.len()));
    for h in &state.holders {
        let permit = h.permit.map(|n| format!(" {n}")).unwrap_or_default();
        let token = h.token.map(|t| t.to_string()).unwrap_or_default();
        out.push_str(&format!(
            "  {} {}{permit}, token {token} ({})\n",
            plain_or_quoted(&h.name),
            h.mode,
            beat(state, h.heartbeat_age)
        ));
    }
    out.push_str(&format!("queue: {} waiting\n", state.queue.len()));
    for (n, w) in state.queue.iter().enumerate() {
        out.push_str(&format!(
            "  {}. {} {} ({})\n",
            n + 1,
            plain_or_quoted(&w.name),
            plain_or_quoted(&w.mode),
            beat(state, w.heartbeat_age)
        ));
    }
    out.push_str(&format!(
        "stale after: {} without a heartbeat\n",
        secs_text(state.stale())
    ));
    out.push_str(&format!("read version: {}\n", state.read_version));
    out
}

/// The same facts as one JSON string.
fn json(state: &State, dir: &[String]) -> String {
    let mut shown = facts(state);
    shown["path"] = serde_json::json!(dir);
    fql::exec::json::to_string(&shown)
}

/// The facts of `show` as one JSON object, with a mutex's field names
/// for what both have (`list` prints the same for each lock).
pub(super) fn facts(state: &State) -> serde_json::Value {
    let (kind, permits) = match state.kind {
        Kind::Semaphore(n) => ("semaphore", Some(n)),
        Kind::ReadWrite => ("rwlock", None),
    };
    let (h, l) = state.timing_ms;
    let holders: Vec<serde_json::Value> = state
        .holders
        .iter()
        .map(|h| {
            serde_json::json!({
                "name": h.name,
                "mode": h.mode,
                "permit": h.permit,
                "token": h.token.map(|t| t.to_string()),
                "heartbeat_age_s": h.heartbeat_age.map(secs),
                "verdict": state.verdict(h.heartbeat_age).name(),
            })
        })
        .collect();
    let queue: Vec<serde_json::Value> = state
        .queue
        .iter()
        .map(|w| {
            serde_json::json!({
                "name": w.name,
                "mode": w.mode,
                "heartbeat_age_s": w.heartbeat_age.map(secs),
                "verdict": state.verdict(w.heartbeat_age).name(),
            })
        })
        .collect();
    serde_json::json!({
        "kind": kind,
        "permits": permits,
        "heartbeat_ms": h,
        "stale_ms": l,
        "holders": holders,
        "queue": queue,
        "queue_depth": state.queue.len(),
        "stale_after_s": secs(state.stale()),
        "read_version": state.read_version,
        "version_now": state.version_now,
    })
}
