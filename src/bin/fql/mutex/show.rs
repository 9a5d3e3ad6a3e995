//! `fql mutex show`: one snapshot of a mutex, as text or as JSON, with
//! ages in seconds, a live or stale verdict for each client, and what the
//! stored state says of waits, holds and breaks.

use std::sync::Arc;
use std::time::Duration;

use fql::kv::Database;
use fql::lock::mutex::State;
use fql::lock::{Timing, version_of};
use fql::syntax::plain_or_quoted;
use serde_json::{Value, json};

use crate::args::Format;
use crate::error::{CliError, Exit};

/// Prints the state of the mutex in `dir`, judging heartbeats by
/// `timing`. A directory that does not exist is no mutex to show:
/// printing it as free would hide a mistyped path, so that exits 1 (a
/// check that found things not as required).
pub fn run(
    db: &Arc<dyn Database>,
    dir: &[String],
    timeout: Duration,
    format: Format,
    timing: Timing,
) -> Result<(), CliError> {
    let engine = fql::exec::Engine::new(db.clone()).timeout(timeout);
    let state = State::read(&engine, dir).map_err(super::failed)?;
    if !state.exists {
        return Err(CliError::missing_directory(Exit::Unmet, dir));
    }
    let report = match format {
        Format::Text => text(&state, timing),
        Format::Json | Format::Jsonl => {
            let mut shown = json(&state, timing);
            shown["path"] = json!(dir);
            format!("{}\n", fql::exec::json::to_string(&shown))
        }
    };
    crate::output::print(&report)
}

/// Seconds, to the millisecond, as JSON numbers carry them.
pub(super) fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0).round() / 1000.0
}

/// Seconds as a person reads them: `0.4 s`.
pub(super) fn secs_text(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// What `name`'s heartbeat says, in words: `live, last beat 0.2 s ago`.
pub(super) fn beat_text(state: &State, name: &str, timing: Timing) -> String {
    let verdict = state.verdict(name, timing).word();
    match state.heartbeat_age(name) {
        Some(age) => format!("{verdict}, last beat {} ago", secs_text(age)),
        None => verdict.to_string(),
    }
}

/// A line for each fact; names quoted and escaped as FQL strings when
/// they are not plain.
fn text(state: &State, timing: Timing) -> String {
    let timing = state.timing(timing);
    let mut out = String::new();
    match &state.owner {
        Some(owner) => {
            let held = state
                .held_for()
                .map_or(String::new(), |h| format!("; held {}", secs_text(h)));
            out.push_str(&format!(
                "owner: {} ({}{held})\n",
                plain_or_quoted(owner),
                beat_text(state, owner, timing)
            ))
        }
        None => out.push_str("owner: none (free)\n"),
    }
    match state.token {
        Some(token) => out.push_str(&format!("token: {token}\n")),
        None => out.push_str("token: none\n"),
    }
    out.push_str(&format!("queue: {} waiting\n", state.queue.len()));
    for (n, w) in state.queue.iter().enumerate() {
        out.push_str(&format!(
            "  {}. {} ({}; waiting {}, queued at {})\n",
            n + 1,
            plain_or_quoted(&w.name),
            beat_text(state, &w.name, timing),
            secs_text(state.age(version_of(&w.since))),
            const_hex::encode(w.since),
        ));
    }
    out.push_str(&format!(
        "stale after: {} without a heartbeat\n",
        secs_text(timing.stale)
    ));
    for (counter, n) in &state.stats {
        out.push_str(&format!("{}: {n}\n", plain_or_quoted(counter)));
    }
    out.push_str(&format!("read version: {}\n", state.read_version));
    out
}

/// A client as JSON: its name, heartbeat age in seconds and verdict.
fn client(state: &State, name: &str, timing: Timing) -> Value {
    json!({
        "name": name,
        "heartbeat_age_s": state.heartbeat_age(name).map(secs),
        "verdict": state.verdict(name, timing).name(),
    })
}

/// The facts of `show` as one JSON object (`list` prints the same for
/// each mutex); docs/mutex.md describes each field.
pub(super) fn json(state: &State, timing: Timing) -> Value {
    let timing = state.timing(timing);
    let owner = state.owner.as_deref().map(|name| {
        let mut owner = client(state, name, timing);
        owner["held_s"] = json!(state.held_for().map(secs));
        owner
    });
    let queue: Vec<Value> = state
        .queue
        .iter()
        .map(|w| {
            let mut waiter = client(state, &w.name, timing);
            waiter["queued_at"] = const_hex::encode(w.since).into();
            waiter["waited_s"] = json!(secs(state.age(version_of(&w.since))));
            waiter
        })
        .collect();
    json!({
        "owner": owner,
        "token": state.token.map(|t| t.to_string()),
        "queue": queue,
        "queue_depth": state.queue.len(),
        "stale_after_s": secs(timing.stale),
        "stats": state.stats,
        "read_version": state.read_version,
        "version_now": state.version_now,
    })
}
