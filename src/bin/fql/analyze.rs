//! `fql explain --analyze` and the shell's `\explain analyze`: a script
//! run, and its plan printed with what each statement cost.

use std::sync::Arc;
use std::time::{Duration, Instant};

use fql::exec::{self, Bindings, Conflict, Costs, StatementCost, TransactionCost};
use fql::plan::{Plan, Step};
use fql::syntax::{Sources, bytes_literal, counted};
use serde_json::{Value, json};

use crate::args::Format;
use crate::error::{CliError, Exit};
use crate::output;
use crate::session::{Session, exit_of};
use crate::source::Typed;

/// What became of one transaction of the plan.
enum Outcome {
    /// A transaction with no statements (a script that ends with
    /// `@commit`): nothing to run.
    Empty,
    Committed,
    Failed(String),
    NotRun,
}

/// One transaction of the plan, run.
struct Ran {
    costs: TransactionCost,
    time: Duration,
    outcome: Outcome,
}

/// Runs `plan`'s transactions in `session`, each in the retry loop, its
/// results counted and dropped; reports a failure as a run does, on
/// standard error, and stops there. Returns the plan annotated with what
/// each statement cost, in the session's format, and the run's status.
pub fn analyze(
    session: &Session,
    plan: &Plan<'_>,
    sources: &Sources,
    typed: Option<&Typed>,
) -> (String, Result<(), CliError>) {
    session.activity.restart();
    let costs = Arc::new(Costs::default());
    let engine = session.engine.metered(costs.clone());
    let mut bindings = Bindings::default();
    let mut ran = Vec::new();
    let mut status = Ok(());
    for steps in plan.transactions() {
        if status.is_err() || steps.is_empty() {
            ran.push(Ran {
                costs: TransactionCost::default(),
                time: Duration::ZERO,
                outcome: match status {
                    Ok(()) => Outcome::Empty,
                    Err(_) => Outcome::NotRun,
                },
            });
            continue;
        }
        let began = Instant::now();
        let sink = &mut exec::Each(|_: exec::Found<'_>| Ok(()));
        let result = engine.run_transaction(steps, &mut bindings, sink);
        let time = began.elapsed();
        let outcome = match result {
            Ok(_) => Outcome::Committed,
            Err(e) => {
                status = Err(report(session, &e, sources, typed).into());
                Outcome::Failed(e.to_string())
            }
        };
        ran.push(Ran {
            costs: TransactionCost::merged(costs.take()),
            time,
            outcome,
        });
    }
    let text = match session.settings.format {
        Format::Text => text(plan, &ran),
        Format::Json | Format::Jsonl => format!("{}\n", document(plan, sources, &ran)),
    };
    (text, status)
}

/// Tells a failed transaction's error as a run tells it; its status.
fn report(session: &Session, e: &exec::Error, sources: &Sources, typed: Option<&Typed>) -> Exit {
    if session.activity.stopped() {
        return CliError::interrupted().tell();
    }
    let (color, width) = (session.settings.color, output::width());
    let text = crate::source::render(typed, e, sources, color, width);
    CliError::Diagnostics {
        text,
        exit: exit_of(e),
    }
    .tell()
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// The plan as `fql explain` prints it, each statement followed by what
/// it cost and each transaction by its commit, retries and conflicts.
fn text(plan: &Plan<'_>, ran: &[Ran]) -> String {
    plan.annotated(&mut |n, step| {
        let Some(ran) = ran.get(n) else {
            return String::new();
        };
        match (step, &ran.outcome) {
            (Some(_), Outcome::NotRun) => String::new(),
            (Some(step), _) => match ran.costs.statements.iter().find(|s| s.id == step.id) {
                Some(cost) => statement_text(cost),
                None => "    not run\n".to_string(),
            },
            (None, _) => transaction_text(ran),
        }
    })
}

fn statement_text(s: &StatementCost) -> String {
    let mut out = format!(
        "    time: {} ({})\n",
        ms(s.time),
        counted(s.runs, "run", "runs")
    );
    for (n, level) in s.levels.iter().enumerate() {
        out += &format!(
            "    directory level {}: {} in {}\n",
            n + 1,
            counted(level.reads, "read", "reads"),
            ms(level.time)
        );
    }
    if s.directory_other.reads > 0 {
        out += &format!(
            "    directory layer, other: {} in {}\n",
            counted(s.directory_other.reads, "read", "reads"),
            ms(s.directory_other.time)
        );
    }
    out += &format!(
        "    round trips: {} ({} of directories, {}, {})\n",
        s.round_trips(),
        s.directory_reads().reads,
        counted(s.data.point_reads, "point read", "point reads"),
        counted(s.data.range_batches, "range batch", "range batches"),
    );
    out += &format!(
        "    read: {}, {}\n",
        counted(s.data.keys, "key", "keys"),
        counted(s.data.bytes, "byte", "bytes")
    );
    // A write that read nothing has no rows to speak of.
    let rows = s.data.keys > 0 || s.returned > 0 || s.writes == 0;
    out += &match s.filtered() {
        _ if !rows => String::new(),
        Some(filtered) => format!(
            "    rows: {} returned, {} filtered on the client\n",
            s.returned, filtered
        ),
        None => format!(
            "    rows: {} read, folded into {}\n",
            s.data.keys,
            counted(s.returned, "result", "results")
        ),
    };
    if s.writes > 0 {
        out += &format!(
            "    written: {}, {}\n",
            counted(s.writes, "write", "writes"),
            counted(s.bytes_written, "byte", "bytes")
        );
    }
    out
}

fn transaction_text(ran: &Ran) -> String {
    let costs = &ran.costs;
    let mut out = match &ran.outcome {
        Outcome::Empty => return String::new(),
        Outcome::NotRun => return "  not run\n".to_string(),
        Outcome::Committed => format!("  committed in {}", ms(ran.time)),
        Outcome::Failed(_) => format!("  failed after {}", ms(ran.time)),
    };
    out += &format!(" (commit: {})\n", ms(costs.commit_time));
    out += &format!("  retries: {}", costs.retries.len());
    if !costs.retries.is_empty() {
        out += &format!(", after {}", retried(&costs.retries));
    }
    out += &format!("\n  conflicts: {}", costs.conflicts());
    out += &conflicting_text(costs);
    out.push('\n');
    out
}

/// The ranges the conflicts were on, as raw keys in hex, each with the
/// statements that read it when known; and how many conflicts came
/// without their range.
fn conflicting_text(costs: &TransactionCost) -> String {
    let mut out = String::new();
    let ranges: Vec<String> = costs.conflicting.iter().map(conflict_text).collect();
    match ranges.len() {
        0 => {}
        1 => out += &format!("; the conflicting range: {}", ranges[0]),
        _ => out += &format!("; the conflicting ranges: {}", ranges.join(", ")),
    }
    match (costs.unreported, ranges.is_empty()) {
        (0, _) => {}
        (_, true) => out += "; the conflicting range: not reported by this backend",
        (n, false) => out += &format!("; {} not reported", counted(n as u64, "range", "ranges")),
    }
    out
}

/// `0x..0x.. (read by statement N)`: hex, so no stored byte reaches the
/// terminal raw.
fn conflict_text(c: &Conflict) -> String {
    let range = format!("{}..{}", bytes_literal(&c.begin), bytes_literal(&c.end));
    let ids: Vec<String> = c.statements.iter().map(|id| (id + 1).to_string()).collect();
    match ids.len() {
        0 => range,
        1 => format!("{range} (read by statement {})", ids[0]),
        _ => format!("{range} (read by statements {})", ids.join(", ")),
    }
}

/// The errors retried after, in order, a run of the same error once:
/// `not_committed (1020) 5 times`.
fn retried(errors: &[fql::kv::Error]) -> String {
    let mut runs: Vec<(&fql::kv::Error, usize)> = Vec::new();
    for e in errors {
        match runs.last_mut() {
            Some((last, n)) if *last == e => *n += 1,
            _ => runs.push((e, 1)),
        }
    }
    let shown: Vec<String> = runs
        .iter()
        .map(|(e, n)| match n {
            1 => format!("{} ({})", e.name(), e.code()),
            n => format!("{} ({}) {n} times", e.name(), e.code()),
        })
        .collect();
    shown.join(", ")
}

/// The same as one JSON document.
fn document(plan: &Plan<'_>, sources: &Sources, ran: &[Ran]) -> Value {
    let transactions: Vec<Value> = plan
        .transactions()
        .zip(ran)
        .enumerate()
        .map(|(n, (steps, ran))| transaction_json(n, steps, sources, ran))
        .collect();
    json!({ "transactions": transactions })
}

fn transaction_json(n: usize, steps: &[Step<'_>], sources: &Sources, ran: &Ran) -> Value {
    let costs = &ran.costs;
    let statements: Vec<Value> = steps
        .iter()
        .map(|step| {
            let cost = costs.statements.iter().find(|s| s.id == step.id);
            statement_json(step, sources, cost)
        })
        .collect();
    let (outcome, error) = match &ran.outcome {
        Outcome::Empty | Outcome::Committed => ("committed", Value::Null),
        Outcome::Failed(e) => ("failed", Value::from(e.as_str())),
        Outcome::NotRun => ("not run", Value::Null),
    };
    let retries: Vec<Value> = costs
        .retries
        .iter()
        .map(|e| json!({ "code": e.code(), "name": e.name() }))
        .collect();
    json!({
        "transaction": n + 1,
        "writes": steps.iter().any(|s| s.kind.writes()),
        "outcome": outcome,
        "error": error,
        "time_ms": millis(ran.time),
        "commit_ms": millis(costs.commit_time),
        "retries": retries,
        "conflicts": costs.conflicts(),
        "conflicting_ranges": conflicting_json(costs),
        "conflicting_ranges_reported": costs.conflicts_reported(),
        "conflicting_ranges_read_by": read_by_json(costs),
        "statements": statements,
    })
}

/// `[[begin, end], ...]` in hex; `null` when a conflict's range was not
/// reported.
fn conflicting_json(costs: &TransactionCost) -> Value {
    if !costs.conflicts_reported() {
        return Value::Null;
    }
    let ranges: Vec<Value> = costs
        .conflicting
        .iter()
        .map(|c| json!([const_hex::encode(&c.begin), const_hex::encode(&c.end)]))
        .collect();
    Value::from(ranges)
}

/// The statements (from 1) that read each conflicting range, in the
/// order of `conflicting_ranges`.
fn read_by_json(costs: &TransactionCost) -> Value {
    let read_by: Vec<Vec<usize>> = costs
        .conflicting
        .iter()
        .map(|c| c.statements.iter().map(|id| id + 1).collect())
        .collect();
    json!(read_by)
}

fn statement_json(step: &Step<'_>, sources: &Sources, cost: Option<&StatementCost>) -> Value {
    let (_, line) = sources.locate(step.span.start as usize);
    let plan: Vec<String> = step.to_string().lines().map(|l| l.trim().into()).collect();
    let mut out = json!({
        "statement": step.id + 1,
        "line": line,
        "query": step.query().to_string(),
        "plan": plan,
    });
    let Some(s) = cost else {
        out["ran"] = Value::from(false);
        return out;
    };
    let levels: Vec<Value> = s
        .levels
        .iter()
        .enumerate()
        .map(|(n, l)| json!({ "level": n + 1, "reads": l.reads, "time_ms": millis(l.time) }))
        .collect();
    let measured = json!({
        "ran": true,
        "runs": s.runs,
        "time_ms": millis(s.time),
        "directory_levels": levels,
        "directory_other": { "reads": s.directory_other.reads, "time_ms": millis(s.directory_other.time) },
        "round_trips": s.round_trips(),
        "point_reads": s.data.point_reads,
        "range_batches": s.data.range_batches,
        "keys_read": s.data.keys,
        "bytes_read": s.data.bytes,
        "rows_returned": s.returned,
        "rows_filtered": s.filtered(),
        "writes": s.writes,
        "bytes_written": s.bytes_written,
    });
    if let (Some(out), Value::Object(m)) = (out.as_object_mut(), measured) {
        out.extend(m);
    }
    out
}

/// Milliseconds, to the microsecond.
fn millis(d: Duration) -> f64 {
    d.as_micros() as f64 / 1e3
}
