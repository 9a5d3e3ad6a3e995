//! Running scripts for people: the checks, the write gate, one transaction
//! after another with `--on-error`, results through the printer,
//! diagnostics, timing and progress on standard error, and Ctrl-C.
//!
//! `fql -q/-f`, `fql run`, a script on standard input and every line of the
//! interactive shell go through [`Session::run`].

use std::sync::Arc;
use std::time::Duration;

use fql::exec::Engine;
use fql::kv::{Activity, Database, Observed, Transaction};
use fql::plan::{Params, Plan, Planner, Root, Supply};
use fql::syntax::{Report, Sources};

use crate::args::{BytesShown, Color, ExecArgs, Format, OnError};
use crate::error::{CliError, Exit};
use crate::output;
use crate::source::{Script, Typed};

mod check;
mod fingerprints;
mod params;
mod run;

pub use check::{Checked, check};
use check::{WriteAt, first_write};
pub use params::params;
use run::Run;
pub use run::exit_of;

/// How scripts run; the shell changes these as it goes.
#[derive(Clone, Debug)]
pub struct Settings {
    pub params: Params,
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
    /// How to supply a parameter, for the help of errors that need one.
    pub supply: Supply,
    /// Where relative paths start: `--root`, then the shell's `\cd`.
    pub root: Root,
}

impl Settings {
    pub fn from_args(args: &ExecArgs, color: Color) -> Result<Settings, CliError> {
        let root = root(args.root.as_deref(), color.enabled_for_stderr())?;
        Ok(Settings {
            params: params(&args.params, &root, color.enabled_for_stderr())?,
            write: args.write,
            on_error: args.on_error.unwrap_or_default(),
            timing: args.timing,
            format: args.format.unwrap_or_default(),
            bytes: args.bytes.unwrap_or_default(),
            color: color.enabled_for_stderr(),
            color_out: color.enabled_for_stdout(),
            write_hint: "pass -w/--write to allow writes",
            supply: Supply::Flag,
            root,
        })
    }
}

/// `--root DIR`, read as `\cd DIR` from `/` reads it; `/` without one.
/// A bad one is reported against its text and is a usage error.
pub fn root(text: Option<&str>, color: bool) -> Result<Root, CliError> {
    let Some(text) = text else {
        return Ok(Root::default());
    };
    Root::default().change(text).map_err(|e| {
        let sources = Sources::single("--root", text.to_string());
        CliError::Diagnostics {
            text: fql::syntax::render(&e, &sources, color, output::width()),
            exit: Exit::Usage,
        }
    })
}

/// How a run that did not succeed ended: its worst status, and apart,
/// what became of standard output if writing to it failed, which ends the
/// shell whatever else failed first.
#[derive(Clone, Copy, Debug)]
pub struct Failure {
    pub exit: Exit,
    pub output: Option<Exit>,
}

impl From<Exit> for Failure {
    fn from(exit: Exit) -> Failure {
        Failure { exit, output: None }
    }
}

impl From<CliError> for Failure {
    /// The error told, as a run tells each failure as it happens.
    fn from(error: CliError) -> Failure {
        Failure::from(error.tell())
    }
}

impl From<Failure> for CliError {
    fn from(failure: Failure) -> CliError {
        CliError::Told(failure.exit)
    }
}

/// A database, the engine over it, and the switch Ctrl-C pulls.
pub struct Session {
    pub engine: Engine,
    pub db: Arc<dyn Database>,
    pub activity: Arc<Activity>,
    pub settings: Settings,
    /// Where results go instead of standard output: the shell's `\o`
    /// file or its pager.
    pub destination: Option<Box<dyn Destination>>,
}

/// Somewhere results go other than straight to standard output.
pub trait Destination {
    /// A writer for one run's results: flushing it ends them.
    fn open(&self) -> Target;
}

/// One run's writer, as [`Destination::open`] gives it.
pub struct Target {
    pub out: Box<dyn std::io::Write>,
    /// Whether each line goes out as soon as it is printed, as a
    /// terminal shows them.
    pub by_line: bool,
    /// Whether results may be coloured there (as they would be on
    /// standard output).
    pub color: bool,
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
            destination: None,
        }
    }

    /// Checks, plans and runs a script, in `tx` when the caller holds an
    /// open transaction (the shell's `\begin`), else transaction by
    /// transaction in the retry loop.
    pub fn run(&self, script: &Script, tx: Option<&mut dyn Transaction>) -> Result<(), Failure> {
        self.activity.restart();
        let settings = &self.settings;
        // A shell entry need not use every parameter: they last the session.
        let checked = check(script, settings, false)?;
        self.run_checked(script, &checked, tx)
    }

    /// Runs a script that [`check`] checked and planned as a whole,
    /// planning each transaction again as it comes, so that only one
    /// transaction's text and plan is held at a time.
    pub fn run_checked(
        &self,
        script: &Script,
        checked: &Checked,
        tx: Option<&mut dyn Transaction>,
    ) -> Result<(), Failure> {
        self.gate(checked.first_write.as_ref())?;
        if tx.is_some() && checked.transactions > 1 {
            let error =
                CliError::Usage("`@commit` inside an open transaction; use \\commit".into());
            return Err(error.into());
        }
        script.unchanged()?;
        let mut run = Run::new(self, tx).typed(script.shown());
        self.run_pieces(script, checked, &mut run);
        run.finish()
    }

    /// Refuses a statement that writes unless writes are allowed.
    fn gate(&self, write: Option<&WriteAt>) -> Result<(), CliError> {
        gate(&self.settings, write)
    }

    /// The script again, a transaction at a time, each piece of text
    /// run only if it is the one checked, planned as it comes with what
    /// the check found of the whole.
    fn run_pieces(&self, script: &Script, checked: &Checked, run: &mut Run<'_, '_>) {
        let mut planner = Planner::new(&self.settings.params)
            .with_root(self.settings.root.clone())
            .with_supply(self.settings.supply)
            .with_feeders(checked.feeders.clone());
        // How many pieces were read, and the input and line after the last.
        let mut read = 0;
        let mut end = (script.name(), 1);
        for piece in script.pieces() {
            let sources = match piece {
                Ok(sources) => sources,
                Err(exit) => return run.fail(exit),
            };
            if !checked.pieces.matches(read, &sources) {
                return run.fail(changed_at(&sources));
            }
            read += 1;
            // The text checked parses and plans as it did.
            let Ok(parsed) = fql::check::load(sources.text()) else {
                return run.fail(changed_at(&sources));
            };
            let Ok(plan) = planner.plan(&parsed) else {
                return run.fail(changed_at(&sources));
            };
            // Checked already, unless the text changed: never a write
            // without the flag, whatever happens to the file.
            if !self.settings.write
                && let Err(exit) = self.gate(first_write(&sources, &plan).as_ref())
            {
                return run.fail(exit);
            }
            if run.piece(&sources, &plan).is_break() {
                return;
            }
            run.retire(planner.take_retired());
            let (name, line) = sources.locate(sources.text().len());
            end = (name.to_string(), line);
        }
        if read < checked.pieces.len() {
            run.fail(changed(&end.0, end.1));
        }
    }

    /// After a transaction ran out of `--timeout`: the attempt it was at
    /// and why it was last retried, when it was, since
    /// `transaction_timed_out` alone does not tell a hot key from a
    /// database that does not answer.
    fn explain_timeout(&self) {
        if let Some(attempt) = crate::progress::attempt(&self.activity) {
            crate::error::warn(format_args!(
                "fql: --timeout ran out while retrying: {attempt}"
            ));
        }
    }

    /// Lets Ctrl-C stop the running query (see [`crate::interrupt`]).
    pub fn stop_on_interrupt(&self) {
        crate::interrupt::stop_on_interrupt(self.activity.clone());
    }
}

/// Refuses a statement that writes unless `settings` allow writes.
fn gate(settings: &Settings, write: Option<&WriteAt>) -> Result<(), CliError> {
    match write {
        Some(WriteAt { name, line, noun }) if !settings.write => Err(CliError::Usage(format!(
            "refusing to write: {name} has a {noun} at line {line}; {}",
            settings.write_hint
        ))),
        _ => Ok(()),
    }
}

/// Refuses `plan`, planned from `sources`, if it writes and `settings`
/// do not allow writes.
pub fn refuse_writes(
    settings: &Settings,
    sources: &Sources,
    plan: &Plan<'_>,
) -> Result<(), CliError> {
    gate(settings, first_write(sources, plan).as_ref())
}

/// [`changed`] at the start of `piece`.
fn changed_at(piece: &Sources) -> CliError {
    let (name, line) = piece.locate(0);
    changed(name, line)
}

/// The failure of a script whose text changed between the check and
/// the run, at line `line` of the input called `name`.
fn changed(name: &str, line: usize) -> CliError {
    CliError::failed(
        Exit::Failed,
        format!(
            "{name} changed while it ran: from line {line} on it is not what was checked; the transactions before it are committed"
        ),
    )
}

/// Parses, checks and plans a script by `planner` (which says where
/// relative paths start and how a missing parameter is supplied),
/// reporting every error against its sources, or against what the user
/// typed (`typed`) when the shell rewrote it, and hands the plan to `f`.
pub fn with_plan_typed<T>(
    sources: &Sources,
    typed: Option<&Typed>,
    planner: Planner<'_>,
    color: bool,
    f: impl FnOnce(&Plan<'_>) -> Result<T, CliError>,
) -> Result<T, CliError> {
    planned(sources, typed, planner, color, false, f)
}

/// [`with_plan_typed`] for a script given whole on the command line (`fql
/// explain`, a schema): a parameter that no statement uses is an error too.
pub fn with_whole_plan<T>(
    sources: &Sources,
    params: &Params,
    root: &Root,
    color: bool,
    f: impl FnOnce(&Plan<'_>) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let planner = Planner::new(params).with_root(root.clone());
    planned(sources, None, planner, color, true, f)
}

fn planned<T>(
    sources: &Sources,
    typed: Option<&Typed>,
    mut planner: Planner<'_>,
    color: bool,
    all_used: bool,
    f: impl FnOnce(&Plan<'_>) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let width = output::width();
    let script = fql::check::load(sources.text()).map_err(|errors| {
        let mut report = Report::default();
        let shown = crate::source::add(typed, &mut report, &errors, sources, color, width);
        CliError::invalid(format!("{shown}{}", report.summary(&sources.name())))
    })?;
    let plan = planner.plan(&script);
    let unused = match all_used {
        true => params::all_used(planner.params(), planner.wanted()),
        false => Ok(()),
    };
    let plan = plan.map_err(|errors| {
        let mut report = Report::default();
        let shown = crate::source::add(typed, &mut report, &errors, sources, color, width);
        CliError::invalid(format!("{shown}{}", report.more()))
    });
    match (unused, plan) {
        (Ok(()), plan) => f(&plan?),
        // Told first: a misspelt `-p` is what leaves a reference unbound.
        (Err(unused), Ok(_)) => Err(unused),
        (Err(unused), Err(plan)) => {
            let exit = unused.tell();
            plan.tell();
            Err(exit.into())
        }
    }
}
