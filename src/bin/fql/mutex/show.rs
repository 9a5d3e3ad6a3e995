//! `fql mutex show`: one snapshot of a mutex, as text or as JSON.

use std::sync::Arc;
use std::time::Duration;

use fql::kv::Database;
use fql::mutex::State;
use fql::syntax::plain_or_quoted;

use crate::args::Format;
use crate::output::Exit;

/// Prints the state of the mutex in `dir`. A directory that does not
/// exist is no mutex to show: printing it as free would hide a mistyped
/// path, so that exits 1 (a check that found things not as required).
pub fn run(
    db: &Arc<dyn Database>,
    dir: &[String],
    timeout: Duration,
    format: Format,
) -> Result<(), Exit> {
    let engine = fql::exec::Engine::new(db.clone()).timeout(timeout);
    let state = State::read(&engine, dir).map_err(super::failed)?;
    if !state.exists {
        eprintln!(
            "fql: no mutex at {}: the directory does not exist",
            fql::directory::show(dir)
        );
        return Err(Exit::Unmet);
    }
    let report = match format {
        Format::Text => text(&state),
        Format::Json | Format::Jsonl => format!("{}\n", json(&state, dir)),
    };
    crate::output::print(&report)
}

/// A line for each fact; names quoted and escaped as FQL strings when
/// they are not plain.
fn text(state: &State) -> String {
    let mut out = String::new();
    let age = |name: &str| match state.heartbeat_age(name) {
        Some(v) => format!(
            "last beat {} before this snapshot",
            fql::syntax::counted(v, "version", "versions")
        ),
        None => "no heartbeat".into(),
    };
    match &state.owner {
        Some(owner) => out.push_str(&format!(
            "owner: {} ({})\n",
            plain_or_quoted(owner),
            age(owner)
        )),
        None => out.push_str("owner: none (free)\n"),
    }
    match state.token {
        Some(token) => out.push_str(&format!("token: {token}\n")),
        None => out.push_str("token: none\n"),
    }
    out.push_str(&format!("queue: {} waiting\n", state.queue.len()));
    for (n, w) in state.queue.iter().enumerate() {
        out.push_str(&format!(
            "  {}. {} (queued at {}, {})\n",
            n + 1,
            plain_or_quoted(&w.name),
            const_hex::encode(w.since),
            age(&w.name)
        ));
    }
    out.push_str(&format!("read version: {}\n", state.read_version));
    out
}

/// The same facts as one JSON object: `owner` and `token` are `null`
/// when the mutex is free or fql did not grant it; `heartbeat_age` is
/// how many versions before the snapshot a client last beat, `null`
/// when it never did.
fn json(state: &State, dir: &[String]) -> String {
    let client = |name: &str| {
        serde_json::json!({
            "name": name,
            "heartbeat_age": state.heartbeat_age(name),
        })
    };
    let queue: Vec<serde_json::Value> = state
        .queue
        .iter()
        .map(|w| {
            let mut waiter = client(&w.name);
            waiter["queued_at"] = const_hex::encode(w.since).into();
            waiter
        })
        .collect();
    fql::exec::json::to_string(&serde_json::json!({
        "path": dir,
        "owner": state.owner.as_deref().map(client),
        "token": state.token.map(|t| t.to_string()),
        "queue": queue,
        "read_version": state.read_version,
    }))
}
