//! What the mutex commands print: a line of text, or with `--format json`
//! (or `jsonl`) one JSON object a program can read; docs/mutex.md names
//! every field.

use std::time::Duration;

use fql::lock::Token;
use fql::lock::mutex::Reaped;
use fql::syntax::plain_or_quoted;
use serde_json::{Value, json};

use super::show::{secs, secs_text};
use crate::args::{Client, Format};
use crate::error::{CliError, Exit};

/// A command that answers yes or no: its JSON field, and what the no
/// says in words.
pub struct Done {
    field: &'static str,
    not: &'static str,
}

pub const RELEASE: Done = Done {
    field: "released",
    not: "does not hold",
};
pub const HEARTBEAT: Done = Done {
    field: "held",
    not: "does not hold",
};
pub const CANCEL: Done = Done {
    field: "cancelled",
    not: "is not waiting for",
};

/// The client's directory and name, which every JSON answer starts with.
fn client_json(client: &Client) -> Value {
    json!({ "dir": client.dir, "name": client.name })
}

/// One JSON object and its line break.
fn line(value: &Value) -> String {
    format!("{}\n", fql::exec::json::to_string(value))
}

/// Prints `text` unless it is empty.
pub fn print(text: &str) -> Result<(), CliError> {
    if text.is_empty() {
        return Ok(());
    }
    crate::output::print(text)
}

/// The answer of `acquire` and `try-acquire`: the token alone as text,
/// or `{"dir","name","acquired","token"}`; nothing as text when not
/// acquired (the message goes to standard error).
pub fn acquired(token: Option<Token>, client: &Client, format: Format) -> String {
    match format {
        Format::Text => token.map_or(String::new(), |t| format!("{t}\n")),
        Format::Json | Format::Jsonl => {
            let mut value = client_json(client);
            value["acquired"] = json!(token.is_some());
            value["token"] = json!(token.map(|t| t.to_string()));
            line(&value)
        }
    }
}

/// The answer of `release`, `heartbeat` and `cancel`: exit 1 with a
/// message when this client was not the one to do it; with JSON,
/// `{"dir","name",FIELD: true|false}` either way.
pub fn done(
    result: Result<bool, fql::lock::mutex::Error>,
    client: &Client,
    format: Format,
    what: Done,
) -> Result<(), CliError> {
    let did = result.map_err(super::failed)?;
    if format != Format::Text {
        let mut value = client_json(client);
        value[what.field] = json!(did);
        print(&line(&value))?;
    }
    if did {
        Ok(())
    } else {
        Err(CliError::failed(
            Exit::Unmet,
            format!("this client {} the mutex", what.not),
        ))
    }
}

/// A reaper's report of what it did: a line of text, or
/// `{"event":"reaped_owner"|"dropped_waiter","name"}`.
pub fn reaped(reaped: &Reaped, format: Format) -> String {
    let (event, words, name) = match reaped {
        Reaped::Owner(name) => ("reaped_owner", "reaped owner", name),
        Reaped::Waiter(name) => ("dropped_waiter", "dropped waiter", name),
        Reaped::Granted(name) => ("granted_head", "granted the free mutex to", name),
    };
    match format {
        Format::Text => format!("{words} {}\n", plain_or_quoted(name)),
        Format::Json | Format::Jsonl => line(&json!({ "event": event, "name": name })),
    }
}

/// What `run --stats` prints on standard error at the end.
pub fn stats(stats: &Stats, format: Format) -> String {
    let held = |d: Option<Duration>| d.map(secs);
    match format {
        Format::Text => {
            let held_text = stats
                .held
                .map_or("not held".to_string(), |h| format!("held {}", secs_text(h)));
            format!(
                "fql: waited {}, {held_text}, {}, {}\n",
                secs_text(stats.waited),
                fql::syntax::counted(stats.heartbeats, "heartbeat", "heartbeats"),
                if stats.lost {
                    "lost the mutex"
                } else {
                    "kept the mutex"
                }
            )
        }
        Format::Json | Format::Jsonl => line(&json!({
            "waited_s": secs(stats.waited),
            "held_s": held(stats.held),
            "token": stats.token.map(|t| t.to_string()),
            "heartbeats": stats.heartbeats,
            "lost": stats.lost,
        })),
    }
}

/// What `run --stats` reports: how long the client waited and held the
/// lock, the heartbeats it committed, whether it lost the lock.
#[derive(Debug, Default)]
pub struct Stats {
    pub waited: Duration,
    /// `None` when the lock was never held.
    pub held: Option<Duration>,
    pub token: Option<fql::lock::Token>,
    pub heartbeats: u64,
    pub lost: bool,
}
