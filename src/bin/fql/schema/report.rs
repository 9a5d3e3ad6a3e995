//! `fql validate`'s report, in each `--format`: violations as they are
//! found, then the summary.
//!
//! `text` writes each violation as FQL with a comment on standard output
//! and the summary on standard error; `jsonl` one object per violation
//! and then the summary's, each on its line; `json` one document,
//! `{"violations":[...],"summary":{...}}`, streamed as `--format json`
//! streams query results.

use std::io::{self, Write};

use fql::schema::{Summary, Violation};
use serde_json::{Value, json};

use crate::args::Format;

/// Writes one validation's report to `out`.
pub struct Report<W: Write> {
    out: W,
    format: Format,
    /// Whether the JSON document's `{"violations":[` is out.
    opened: bool,
}

impl<W: Write> Report<W> {
    pub fn new(out: W, format: Format) -> Report<W> {
        Report {
            out,
            format,
            opened: false,
        }
    }

    /// Writes one violation.
    pub fn violation(&mut self, v: &Violation) -> io::Result<()> {
        match self.format {
            Format::Text => writeln!(self.out, "{} % {}", v.key, v.reason),
            Format::Jsonl => writeln!(self.out, "{}", tagged(violation(v), "violation")),
            Format::Json => {
                self.open()?;
                write!(self.out, "{}", fql::exec::json::to_string(&violation(v)))
            }
        }
    }

    /// Ends the report with the summary: on standard error as text, else
    /// here; and flushes.
    pub fn summary(&mut self, s: &Summary) -> io::Result<()> {
        match self.format {
            Format::Text => {
                let text = summary_text(s);
                crate::error::warn(text.strip_suffix('\n').unwrap_or(&text));
            }
            Format::Jsonl => writeln!(self.out, "{}", tagged(summary(s), "summary"))?,
            Format::Json => {
                let summary = fql::exec::json::to_string(&summary(s));
                let head = if self.opened {
                    "\n]"
                } else {
                    "{\"violations\":[]"
                };
                writeln!(self.out, "{head},\"summary\":{summary}}}")?;
            }
        }
        self.out.flush()
    }

    /// Ends a report whose validation failed (the error is on standard
    /// error): a JSON document already begun is closed with the error in
    /// place of the summary, so that what was written is still one
    /// document; and flushes.
    pub fn failed(&mut self, error: &str) -> io::Result<()> {
        if self.opened {
            let error = fql::exec::json::to_string(error);
            writeln!(self.out, "\n],\"error\":{error}}}")?;
        }
        self.out.flush()
    }

    /// Writes the document's head before its first violation, a comma
    /// before any later one.
    fn open(&mut self) -> io::Result<()> {
        if self.opened {
            return self.out.write_all(b",\n");
        }
        self.opened = true;
        self.out.write_all(b"{\"violations\":[\n")
    }
}

fn violation(v: &Violation) -> Value {
    json!({
        "key": v.key,
        "reason": v.reason,
        "kind": v.kind,
        "pattern": v.pattern,
    })
}

fn summary(s: &Summary) -> Value {
    json!({
        "directories": s.directories,
        "subspaces": s.subspaces,
        "keys": s.keys,
        "violations": s.violations,
        "matches": s.matches.iter().map(|(p, n)| json!({"pattern": p, "keys": n})).collect::<Vec<_>>(),
        "reasons": s.reasons,
        "transactions": s.transactions,
        "stopped": s.stopped,
    })
}

/// A JSON line: `value` with its `type`, for a reader of mixed lines.
fn tagged(mut value: Value, kind: &str) -> String {
    value["type"] = kind.into();
    fql::exec::json::to_string(&value)
}

/// The summary as text: the headline, the matches of each pattern, and
/// the violations by reason.
pub fn summary_text(s: &Summary) -> String {
    let mut text = format!("{}\n", s.headline());
    for (pattern, n) in &s.matches {
        text.push_str(&format!("  {n:>10}  {pattern}\n"));
    }
    for (reason, &n) in &s.reasons {
        let noun = if n == 1 { "violation" } else { "violations" };
        text.push_str(&format!("  {n:>10}  {noun}: {reason}\n"));
    }
    if s.transactions > 1 {
        text.push_str(&format!(
            "  the scan took {} transactions, so it is not one snapshot\n",
            s.transactions
        ));
    }
    if s.stopped {
        text.push_str("  stopped at --max-violations\n");
    }
    text
}
