//! Running scripts for people: the checks, the write gate, one transaction
//! after another with `--on-error`, results through the printer,
//! diagnostics, timing and progress on standard error, and Ctrl-C.
//!
//! `fql -q/-f`, `fql run`, a script on standard input and every line of the
//! interactive shell go through [`Session::run`].

use std::collections::HashMap;
use std::io::{self, IsTerminal, Write};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fql::exec::{self, Bindings, Engine};
use fql::kv::{Activity, AsKvError, Database, Observed, Transaction};
use fql::plan::{Plan, Planner, Step};
use fql::syntax::ast::Elem;
use fql::syntax::{Diagnostics, Report, Sources};

use crate::args::{BytesShown, Color, ExecArgs, Format, OnError};
use crate::output::{self, Exit};
use crate::print::Printer;
use crate::progress::Progress;
use crate::source::Script;

mod check;

pub use check::{Checked, check};

/// How scripts run; the shell changes these as it goes.
#[derive(Clone, Debug)]
pub struct Settings {
    pub params: HashMap<String, Elem<'static>>,
    pub write: bool,
    pub on_error: OnError,
    pub timing: bool,
    pub format: Format,
    pub bytes: BytesShown,
    /// Colored diagnostics on standard error.
    pub color: bool,
    /// Colored results on standard output (text format only).
    pub color_out: bool,
    /// How to allow writes, for the refusal's message.
    pub write_hint: &'static str,
}

impl Settings {
    pub fn from_args(args: &ExecArgs, color: Color) -> Result<Settings, Exit> {
        Ok(Settings {
            params: params(&args.params)?,
            write: args.write,
            on_error: args.on_error.unwrap_or_default(),
            timing: args.timing,
            format: args.format.unwrap_or_default(),
            bytes: args.bytes.unwrap_or_default(),
            color: color.enabled_for_stderr(),
            color_out: color.enabled_for_stdout(),
            write_hint: "pass -w/--write to allow writes",
        })
    }
}

/// `-p name=value` pairs; each value is FQL data, else a string.
pub fn params(pairs: &[String]) -> Result<HashMap<String, Elem<'static>>, Exit> {
    pairs
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !name.is_empty() => {
                Ok((name.to_string(), fql::plan::parse_param(value)))
            }
            _ => {
                eprintln!("fql: a parameter is NAME=VALUE, not `{pair}`");
                Err(Exit::Usage)
            }
        })
        .collect()
}

/// A database, the engine over it, and the switch Ctrl-C pulls.
pub struct Session {
    pub engine: Engine,
    pub db: Arc<dyn Database>,
    pub activity: Arc<Activity>,
    pub settings: Settings,
}

impl Session {
    /// A session on `db` whose transactions give up after `timeout`
    /// (`--timeout`), retries included.
    pub fn new(
        db: Box<dyn Database>,
        settings: Settings,
        split_reads: bool,
        timeout: Duration,
    ) -> Session {
        let activity = Arc::new(Activity::default());
        let db: Arc<dyn Database> = Arc::new(Observed::new(db, activity.clone()));
        let engine = Engine::new(db.clone())
            .split_reads(split_reads)
            .timeout(timeout);
        Session {
            engine,
            db,
            activity,
            settings,
        }
    }

    /// Checks, plans and runs a script given whole, in `tx` when the
    /// caller holds an open transaction (the shell's `\begin`), else
    /// transaction by transaction in the retry loop.
    pub fn run(&self, sources: &Sources, tx: Option<&mut dyn Transaction>) -> Result<(), Exit> {
        self.activity.restart();
        let script = Script::from_sources(sources);
        let checked = check(&script, &self.settings.params, self.settings.color)?;
        self.run_checked(&script, &checked, tx)
    }

    /// Runs a script that [`check`] checked and planned as a whole,
    /// planning each transaction again as it comes, so that only one
    /// transaction's text and plan is held at a time.
    pub fn run_checked(
        &self,
        script: &Script,
        checked: &Checked,
        tx: Option<&mut dyn Transaction>,
    ) -> Result<(), Exit> {
        self.gate(checked)?;
        if tx.is_some() && checked.transactions > 1 {
            eprintln!("fql: `@commit` inside an open transaction; use \\commit");
            return Err(Exit::Usage);
        }
        script.unchanged()?;
        self.execute(script, checked, tx)
    }

    /// Refuses a script that writes unless writes are allowed.
    fn gate(&self, checked: &Checked) -> Result<(), Exit> {
        if self.settings.write {
            return Ok(());
        }
        match &checked.first_write {
            None => Ok(()),
            Some((name, line, noun)) => {
                eprintln!(
                    "fql: refusing to write: {name} has a {noun} at line {line}; {}",
                    self.settings.write_hint
                );
                Err(Exit::Usage)
            }
        }
    }

    fn execute(
        &self,
        script: &Script,
        checked: &Checked,
        mut tx: Option<&mut dyn Transaction>,
    ) -> Result<(), Exit> {
        let stdout = io::stdout();
        let terminal = stdout.is_terminal();
        // A terminal shows each line as it comes; a pipe or file gets
        // large writes.
        let out: Box<dyn Write> = if terminal {
            Box::new(stdout.lock())
        } else {
            Box::new(io::BufWriter::with_capacity(1 << 16, stdout.lock()))
        };
        let mut printer = Printer::new(
            out,
            self.settings.format,
            self.settings.bytes,
            self.settings.color_out,
            terminal,
        );
        let progress = Progress::start(self.activity.clone(), io::stderr().is_terminal());
        let mut bindings = Bindings::default();
        let mut failed: Option<Exit> = None;
        // Why standard output stopped taking results, if it did.
        let mut broken: Option<io::Error> = None;
        // One transaction, in the order of the script; `Break` stops the run.
        let mut transaction =
            |sources: &Sources, steps: &[Step<'_>], bindings: &mut Bindings| -> ControlFlow<()> {
                let start = Instant::now();
                let before = printer.count();
                let sink = &mut exec::Each(|found: exec::Found<'_>| {
                    progress.before_output();
                    printer.print_found(found).map_err(|e| {
                        broken = Some(e);
                        exec::Error::Kv(fql::kv::Error::TransactionCancelled)
                    })
                });
                let ran = match tx.as_deref_mut() {
                    Some(tx) => self.engine.run_in(tx, steps, bindings, sink),
                    None => self
                        .engine
                        .run_transaction(steps, bindings, sink)
                        .map(|_| ()),
                };
                if broken.is_some() {
                    return ControlFlow::Break(());
                }
                if self.settings.timing {
                    let n = printer.count() - before;
                    eprintln!(
                        "Time: {:.3} ms, {n} result{}",
                        start.elapsed().as_secs_f64() * 1e3,
                        if n == 1 { "" } else { "s" }
                    );
                }
                if let Err(e) = ran {
                    if self.activity.stopped() {
                        failed = Some(Exit::Interrupted);
                        return ControlFlow::Break(());
                    }
                    let kv = match &e {
                        exec::Error::Interrupted { source, .. } => Some(source),
                        e => e.as_kv(),
                    };
                    let exit = match (&e, kv) {
                        (exec::Error::Guard { .. }, _) => Exit::Unmet,
                        (_, Some(kv)) if kv.code() == 1031 => Exit::Unreachable,
                        (_, Some(kv)) => crate::store::refused(kv).unwrap_or(Exit::Failed),
                        _ => Exit::Failed,
                    };
                    let _ = printer.flush();
                    eprint!(
                        "{}",
                        fql::syntax::render(&e, sources, self.settings.color, output::width())
                    );
                    if exit == Exit::Unreachable {
                        self.explain_timeout();
                    }
                    failed = Some(failed.map_or(exit, |f| f.max(exit)));
                    if self.settings.on_error == OnError::Stop {
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            };
        // The script again, a transaction at a time, planned as it comes
        // with what the check found of the whole.
        let mut planner = Planner::new(&self.settings.params).with_feeders(checked.feeders.clone());
        let mut stopped = None;
        'run: for piece in script.pieces() {
            let sources = match piece {
                Ok(sources) => sources,
                Err(exit) => {
                    stopped = Some(exit);
                    break;
                }
            };
            // Checked before, a piece fails now only if its file changed.
            let Ok(parsed) = fql::syntax::load(sources.text()) else {
                stopped = Some(changed(&sources));
                break;
            };
            let Ok(plan) = planner.plan(&parsed) else {
                stopped = Some(changed(&sources));
                break;
            };
            for steps in plan.transactions().filter(|s| !s.is_empty()) {
                if transaction(&sources, steps, &mut bindings).is_break() {
                    break 'run;
                }
            }
            // Rows no statement still to run can use.
            for id in planner.take_retired() {
                bindings.forget(id);
            }
        }
        if let Some(exit) = stopped {
            failed = Some(failed.map_or(exit, |f| f.max(exit)));
        }
        drop(progress);
        let finished = printer.finish();
        if let Some(e) = broken.or(finished.err()) {
            return match output::write_failed(&e) {
                Exit::Closed => Err(Exit::Closed),
                exit => Err(failed.map_or(exit, |f| f.max(exit))),
            };
        }
        if failed == Some(Exit::Interrupted) {
            eprintln!("fql: interrupted; the open transaction was rolled back");
        }
        failed.map_or(Ok(()), Err)
    }

    /// After a transaction ran out of `--timeout`: how often it was
    /// retried and why, when it was, since `transaction_timed_out` alone
    /// does not tell a hot key from a database that does not answer.
    fn explain_timeout(&self) {
        if let (retries @ 1.., Some(why)) = self.activity.retries() {
            eprintln!(
                "fql: the transaction was tried {} times before --timeout ran out; the last retry was after {}",
                retries + 1,
                why.name()
            );
        }
    }

    /// Lets Ctrl-C stop the running query: the first press stops it at
    /// its next database operation; a second, if that did not happen,
    /// ends the process.
    pub fn stop_on_interrupt(&self) {
        let activity = self.activity.clone();
        let _ = ctrlc::set_handler(move || {
            if activity.stopped() {
                std::process::exit(Exit::Interrupted.status());
            }
            activity.stop();
        });
    }
}

/// The failure of a script whose text changed between the check and
/// the run, at the transaction that starts `sources`.
fn changed(sources: &Sources) -> Exit {
    let (name, line) = sources.locate(0);
    eprintln!(
        "fql: {name} changed while it ran: from line {line} on it is not what was checked; the transactions before it are committed"
    );
    Exit::Failed
}

/// Parses, checks and plans a script, reporting every error against its
/// sources, and hands the plan to `f`.
pub fn with_plan<T>(
    sources: &Sources,
    params: &HashMap<String, Elem<'static>>,
    color: bool,
    f: impl FnOnce(&Plan<'_>) -> Result<T, Exit>,
) -> Result<T, Exit> {
    let script = fql::syntax::load(sources.text()).map_err(|errors| {
        let diagnostics = Diagnostics::of(sources.clone(), errors);
        eprint!("{}", diagnostics.render(color, output::width()));
        Exit::Invalid
    })?;
    let plan = fql::plan::plan(&script, params).map_err(|errors| {
        let mut report = Report::default();
        let shown = report.add(&errors, sources, color, output::width());
        eprint!("{shown}{}", report.more());
        Exit::Invalid
    })?;
    f(&plan)
}
