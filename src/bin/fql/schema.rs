//! `fql validate` and `fql infer`.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use fql::kv::{Activity, Database, Observed, RetryOptions};
use fql::plan::{Params, Root};
use fql::schema::{Shape, Summary};
use fql::syntax::Sources;
use fql::syntax::ast::Span;

use crate::args::{InferArgs, StoreArgs, ValidateArgs};
use crate::error::{CliError, Exit};
use crate::output;
use crate::progress::Progress;
use crate::store::Missing;

mod report;

use report::Report;

/// A schema to check the data against: its text, parameters, and the
/// root its relative paths start from.
struct Schema<'a> {
    src: &'a str,
    params: &'a Params,
    root: &'a Root,
}

pub fn validate(args: &ValidateArgs, store: &StoreArgs, color: bool) -> Result<(), CliError> {
    let root = crate::session::root(args.root.as_deref(), color)?;
    let params = crate::session::params(&args.params, &root, color)?;
    let (name, src) = crate::source::read_named_or_file(Some(&args.schema))?;
    let sources = Sources::single(name.clone(), src.clone());
    // Report schema errors with their spans before touching the database.
    crate::session::with_whole_plan(&sources, &params, &root, color, |plan| {
        fql::schema::patterns(plan).map(|_| ()).map_err(|e| {
            let shown = fql::syntax::printable(&name);
            CliError::failed(Exit::Invalid, format!("{shown}: {e}"))
        })
    })?;
    let schema = Schema {
        src: &src,
        params: &params,
        root: &root,
    };
    // A validation only reads: a missing database file is a mistake to
    // report, not one to create.
    let opened = crate::store::open_as(store, Missing::Refuse)?;
    let retry = RetryOptions::default().with_timeout(opened.timeout);
    let activity = Arc::new(Activity::default());
    let db = Observed::new(opened.db, activity.clone());
    let progress = Progress::start(activity.clone(), std::io::stderr().is_terminal());
    let mut report = Report::new(
        std::io::BufWriter::new(std::io::stdout().lock()),
        args.format.unwrap_or_default(),
    );
    let result = run(&db, retry, &schema, args, &progress, &activity, &mut report);
    drop(progress);
    let summary = match result {
        Ok(summary) => summary,
        // Nothing more to say once the report cannot be written.
        Err(Failure::Unwritten(error)) => return Err(error),
        Err(Failure::Schema(e)) => {
            // Told before the report is closed with it.
            let exit = CliError::failed(failed(&e), e.to_string()).tell();
            return match report.failed(&e.to_string()) {
                Ok(()) => Err(exit.into()),
                Err(e) => Err(exit.max(CliError::output(e).tell()).into()),
            };
        }
    };
    report.summary(&summary).map_err(CliError::output)?;
    if let Some(empty) = nothing_checked(&summary, &db).filter(|_| !args.allow_empty) {
        return Err(CliError::failed(
            Exit::Unmet,
            format!("{empty}: are --db and the schema's paths right? (--allow-empty accepts this)"),
        ));
    }
    if summary.violations > 0 {
        Err(Exit::Unmet.into())
    } else {
        Ok(())
    }
}

/// What to say of a validation that read no key at all: it checked
/// nothing, which is more often a mistyped `--db`, path or parameter than
/// data that conforms. `None` when it read keys.
pub fn nothing_checked(summary: &Summary, db: &dyn Database) -> Option<String> {
    (summary.keys == 0).then(|| {
        format!(
            "no keys matched the schema's patterns in {}, so nothing was checked",
            db.describe()
        )
    })
}

/// Why a validation ended without a summary to print.
enum Failure {
    /// Standard output failed while violations were written. It stopped
    /// the scan, so it comes before any error the scan then gave.
    Unwritten(CliError),
    /// The schema could not be checked.
    Schema(fql::schema::Error),
}

/// Validates, writing each violation to `report` as it is found. A write
/// that fails stops the scan through `activity`.
fn run<W: Write>(
    db: &dyn Database,
    retry: RetryOptions,
    schema: &Schema<'_>,
    args: &ValidateArgs,
    progress: &Progress,
    activity: &Activity,
    report: &mut Report<W>,
) -> Result<Summary, Failure> {
    let mut failed = None;
    let (src, params, root) = (schema.src, schema.params, schema.root);
    let max = args.max_violations;
    let summary = fql::schema::validate_in(db, retry, src, params, root, max, &mut |v| {
        progress.before_output();
        if failed.is_some() {
            return;
        }
        if let Err(e) = report.violation(v) {
            failed = Some(e);
            activity.stop();
        }
    });
    match failed {
        None => summary.map_err(Failure::Schema),
        Some(e) => Err(Failure::Unwritten(CliError::output(e))),
    }
}

/// As the database error inside says ([`crate::store::exit_of`]), else 4.
fn failed(e: &fql::schema::Error) -> Exit {
    match e {
        fql::schema::Error::Run(e) => {
            fql::kv::AsKvError::as_kv(e).map_or(Exit::Failed, crate::store::exit_of)
        }
        _ => Exit::Failed,
    }
}

pub fn infer(args: &InferArgs, store: &StoreArgs, color: bool) -> Result<(), CliError> {
    let root = crate::session::root(args.root.as_deref(), color)?;
    if fql::syntax::starts_bytes(&args.dir) {
        return infer_prefix(args, store);
    }
    // `/` itself: the keys outside every directory, and with --depth the
    // directories at the top.
    let dir = match root.change(&args.dir) {
        Ok(top) if top.names().is_empty() && args.dir.starts_with('/') => Vec::new(),
        _ => directory(&args.dir, &root, color)?,
    };
    let opened = crate::store::open_as(store, Missing::Refuse)?;
    let retry = RetryOptions::default().with_timeout(opened.timeout);
    let shapes = fql::schema::infer(&*opened.db, retry, &dir, args.depth, args.sample)
        .map_err(|e| CliError::failed(failed(&e), e.to_string()))?;
    output::print(&shapes_text(&shapes, relative(&args.dir, &root)))
}

/// `fql infer 0xPREFIX`: the shapes of the keys after raw bytes, a
/// subspace that is no directory, which has no subdirectories to go on to.
fn infer_prefix(args: &InferArgs, store: &StoreArgs) -> Result<(), CliError> {
    let prefix = match fql::syntax::parse_element(&args.dir).map(|e| e.kind) {
        Ok(fql::syntax::ast::ElemKind::Bytes(bytes)) => bytes,
        Ok(_) | Err(_) => {
            let problem = fql::syntax::printable(&args.dir);
            let how = "bytes are `0x` and hex digits, or `b\"...\"` with `\\xNN` escapes";
            return Err(CliError::Usage(format!("{problem} is not bytes: {how}")));
        }
    };
    let opened = crate::store::open_as(store, Missing::Refuse)?;
    let retry = RetryOptions::default().with_timeout(opened.timeout);
    let shapes = fql::schema::infer_prefix(&*opened.db, retry, &prefix, args.sample)
        .map_err(|e| CliError::failed(failed(&e), e.to_string()))?;
    output::print(&shapes_text(&shapes, None))
}

/// The root that inferred patterns are written relative to, if any: the
/// root, when one other than `/` is set or `dir` is written relative;
/// otherwise the patterns are written absolute. The shell's `\infer`
/// follows the same rule with its current root.
pub fn relative<'r>(dir: &str, root: &'r Root) -> Option<&'r Root> {
    (!dir.starts_with('/') || !root.names().is_empty()).then_some(root)
}

/// Each shape as a pattern with a comment that counts its keys.
pub fn shapes_text(shapes: &[Shape], relative: Option<&Root>) -> String {
    let mut text = String::new();
    for shape in shapes {
        let sampled = if shape.sampled { " in a sample" } else { "" };
        let plural = if shape.count == 1 { "" } else { "s" };
        let pattern = match relative {
            Some(root) => shape.relative_to(root),
            None => shape.to_string(),
        };
        text.push_str(&format!(
            "{pattern} % {} key{plural}{sampled}\n",
            thousands(shape.count)
        ));
    }
    text
}

/// The directory `arg` names from `root`, by the rule `--root` follows;
/// one that is not a path, or is `/` itself, is a usage error shown
/// against the text.
pub fn directory(arg: &str, root: &Root, color: bool) -> Result<Vec<String>, CliError> {
    let at = Span::new(0, arg.len());
    let shown: Box<dyn miette::Diagnostic> = match root.change(arg) {
        Ok(dir) if !dir.names().is_empty() => return Ok(dir.names().to_vec()),
        Ok(_) => Box::new(fql::plan::Error::TopPath { at }),
        Err(e) => Box::new(e),
    };
    let sources = Sources::single("DIR", arg.to_string());
    Err(CliError::Diagnostics {
        text: fql::syntax::render(&*shown, &sources, color, output::width()),
        exit: Exit::Usage,
    })
}

/// `1203` as `1,203`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
