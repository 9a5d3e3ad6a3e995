//! `fql mutex list PATH`: every lock in and under a directory, from one
//! snapshot, as a table or as JSON.

use std::sync::Arc;
use std::time::Duration;

use fql::kv::Database;
use fql::lock::Timing;
use fql::lock::list::{Listed, Lock, Survey};
use fql::syntax::plain_or_quoted;
use serde_json::{Value, json};

use super::show::{beat_text, secs_text};
use crate::args::Format;
use crate::error::{CliError, Exit};

/// Lists the locks under `dir`. A directory that does not exist exits 1,
/// as `show` does; a subtree too large to read in one transaction says
/// so and exits 4.
pub fn run(
    db: &Arc<dyn Database>,
    dir: &[String],
    timeout: Duration,
    format: Format,
    timing: Timing,
) -> Result<(), CliError> {
    let engine = fql::exec::Engine::new(db.clone()).timeout(timeout);
    let survey = fql::lock::list(&engine, dir).map_err(|e| too_large(e, dir))?;
    if !survey.exists {
        return Err(CliError::missing_directory(Exit::Unmet, dir));
    }
    let report = match format {
        Format::Text => table(&survey, timing),
        Format::Json => format!("{}\n", fql::exec::json::to_string(&whole(&survey, timing))),
        Format::Jsonl => lines(&survey, timing),
    };
    crate::output::print(&report)
}

/// The error for a failed list; a subtree that outlived the five seconds
/// of a transaction is named as the cause.
fn too_large(e: fql::lock::rwlock::Error, dir: &[String]) -> CliError {
    let too_old = fql::kv::AsKvError::as_kv(&e) == Some(&fql::kv::Error::TransactionTooOld);
    if !too_old {
        return super::held::failed(e);
    }
    CliError::failed(
        Exit::Failed,
        format!(
            "the directories under {} took more than the five seconds a transaction may last: list a smaller part of the tree (a subdirectory), which is read from one snapshot too",
            fql::directory::show(dir)
        ),
    )
}

/// One lock as JSON: its path and kind, and its state as `show` prints it.
fn lock(listed: &Listed, timing: Timing) -> Value {
    let mut shown = match &listed.lock {
        Lock::Mutex(state) => super::show::json(state, timing),
        Lock::ReadWrite(state) | Lock::Semaphore(state) => super::kinds::facts(state),
        _ => json!({}),
    };
    shown["path"] = json!(listed.path);
    shown["kind"] = json!(listed.lock.kind());
    shown
}

fn whole(survey: &Survey, timing: Timing) -> Value {
    let locks: Vec<Value> = survey.locks.iter().map(|l| lock(l, timing)).collect();
    json!({
        "locks": locks,
        "others": survey.others,
        "read_version": survey.read_version,
    })
}

/// One line per lock (`"type":"lock"`), then a summary line.
fn lines(survey: &Survey, timing: Timing) -> String {
    let mut out = String::new();
    for listed in &survey.locks {
        let mut line = lock(listed, timing);
        line["type"] = json!("lock");
        out.push_str(&fql::exec::json::to_string(&line));
        out.push('\n');
    }
    let summary = json!({
        "type": "summary",
        "locks": survey.locks.len(),
        "others": survey.others,
        "read_version": survey.read_version,
    });
    out.push_str(&fql::exec::json::to_string(&summary));
    out.push('\n');
    out
}

/// A row of the table for `listed`: path, kind, owner, token, heartbeat,
/// queue length. A read-write lock or a semaphore shows its holders,
/// joined by commas, and the token and heartbeat of the first (the
/// longest holder's are as good as any: each holds on its own).
fn row(listed: &Listed, timing: Timing) -> [String; 6] {
    let path = fql::directory::show(&listed.path);
    let kind = listed.lock.kind().to_string();
    match &listed.lock {
        Lock::Mutex(state) => {
            let owner = state.owner.as_deref();
            [
                path,
                kind,
                owner.map_or("-".into(), |o| plain_or_quoted(o).into_owned()),
                state.token.map_or("-".into(), |t| t.to_string()),
                owner.map_or("-".into(), |o| beat_text(state, o, timing)),
                state.queue.len().to_string(),
            ]
        }
        Lock::ReadWrite(state) | Lock::Semaphore(state) => {
            let names: Vec<String> = state
                .holders
                .iter()
                .map(|h| plain_or_quoted(&h.name).into_owned())
                .collect();
            let first = state.holders.first();
            [
                path,
                kind,
                if names.is_empty() {
                    "-".into()
                } else {
                    names.join(",")
                },
                first
                    .and_then(|h| h.token)
                    .map_or("-".into(), |t| t.to_string()),
                first.map_or("-".into(), |h| super::kinds::beat(state, h.heartbeat_age)),
                state.queue.len().to_string(),
            ]
        }
        _ => [path, kind, "?".into(), "?".into(), "?".into(), "?".into()],
    }
}

/// The locks as a table with a header, then how many directories are
/// no lock.
fn table(survey: &Survey, timing: Timing) -> String {
    const HEADER: [&str; 6] = ["PATH", "KIND", "OWNER", "TOKEN", "HEARTBEAT", "QUEUE"];
    let rows: Vec<[String; 6]> = survey.locks.iter().map(|l| row(l, timing)).collect();
    let mut widths = HEADER.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[&str]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut out = String::new();
    if !rows.is_empty() {
        out.push_str(&line(&HEADER));
    }
    for row in &rows {
        out.push_str(&line(&row.each_ref().map(String::as_str)));
    }
    out.push_str(&format!(
        "{}, {}; stale after {} without a heartbeat\n",
        fql::syntax::counted(survey.locks.len() as u64, "lock", "locks"),
        fql::syntax::counted(survey.others as u64, "other directory", "other directories"),
        secs_text(timing.stale)
    ));
    out
}
