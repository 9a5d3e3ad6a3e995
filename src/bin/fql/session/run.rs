//! One run of a script's transactions: where their results go, the rows
//! they bind for later ones, and the worst that happened so far.

use std::io::{self, IsTerminal, Write};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use fql::exec::{self, Bindings};
use fql::kv::{AsKvError, Transaction};
use fql::plan::{Plan, Step};
use fql::syntax::Sources;

use super::{Failure, Session};
use crate::args::OnError;
use crate::error::{CliError, Exit};
use crate::output;
use crate::print::Printer;
use crate::progress::Progress;
use crate::source::Typed;

/// The state of a run between its transactions.
pub struct Run<'s, 't> {
    session: &'s Session,
    /// The transaction the shell's `\begin` opened, if any.
    tx: Option<&'t mut dyn Transaction>,
    printer: Printer<Box<dyn Write>>,
    progress: Progress,
    /// What the transactions so far bound, for later ones.
    bindings: Bindings,
    /// The worst status so far.
    failed: Option<Exit>,
    /// Why standard output stopped taking results, if it did.
    broken: Option<io::Error>,
    /// What the user typed, when the script is the shell's rewriting of it.
    typed: Option<Arc<Typed>>,
}

impl<'s, 't> Run<'s, 't> {
    pub fn new(session: &'s Session, tx: Option<&'t mut dyn Transaction>) -> Run<'s, 't> {
        let settings = &session.settings;
        let (out, terminal, color) = match &session.destination {
            Some(destination) => {
                let target = destination.open();
                let color = target.color && settings.color_out;
                (target.out, target.by_line, color)
            }
            None => standard_output(settings.color_out),
        };
        Run {
            session,
            tx,
            printer: Printer::new(out, settings.format, settings.bytes, color, terminal),
            progress: Progress::start(session.activity.clone(), io::stderr().is_terminal()),
            bindings: Bindings::default(),
            failed: None,
            broken: None,
            typed: None,
        }
    }

    /// Shows errors against what was typed, when the text run is the
    /// shell's rewriting of it.
    pub fn typed(mut self, typed: Option<Arc<Typed>>) -> Self {
        self.typed = typed;
        self
    }

    /// Tells a failure as it happens; the worst one is the run's status.
    pub fn fail(&mut self, error: CliError) {
        worst(&mut self.failed, error.tell());
    }

    /// Drops the rows of the statements `ids`, which no statement still
    /// to run uses.
    pub fn retire(&mut self, ids: Vec<usize>) {
        for id in ids {
            self.bindings.forget(id);
        }
    }

    /// Runs the transactions of one piece of the script, planned from
    /// `sources`; `Break` stops the run.
    pub fn piece(&mut self, sources: &Sources, plan: &Plan<'_>) -> ControlFlow<()> {
        for steps in plan.transactions().filter(|s| !s.is_empty()) {
            self.transaction(sources, steps)?;
        }
        ControlFlow::Continue(())
    }

    /// Runs one transaction, reports it if it fails, and says whether the
    /// run goes on.
    fn transaction(&mut self, sources: &Sources, steps: &[Step<'_>]) -> ControlFlow<()> {
        let session = self.session;
        let start = Instant::now();
        let before = self.printer.count();
        let ran = {
            let (printer, progress, broken) = (&mut self.printer, &self.progress, &mut self.broken);
            let sink = &mut exec::Each(|found: exec::Found<'_>| {
                progress.before_output();
                printer.print_found(found).map_err(|e| {
                    *broken = Some(e);
                    exec::Error::Kv(fql::kv::Error::TransactionCancelled)
                })
            });
            match self.tx.as_deref_mut() {
                Some(tx) => session.engine.run_in(tx, steps, &mut self.bindings, sink),
                None => session
                    .engine
                    .run_transaction(steps, &mut self.bindings, sink)
                    .map(|_| ()),
            }
        };
        if self.broken.is_some() {
            return ControlFlow::Break(());
        }
        if session.settings.timing {
            // The time follows the results it is for, also those held
            // back (the shell's pager holds a screenful).
            if let Err(e) = self.printer.flush() {
                self.broken = Some(e);
                return ControlFlow::Break(());
            }
            let n = self.printer.count() - before;
            crate::error::warn(format_args!(
                "Time: {:.3} ms, {n} result{}",
                start.elapsed().as_secs_f64() * 1e3,
                if n == 1 { "" } else { "s" }
            ));
        }
        let Err(e) = ran else {
            return ControlFlow::Continue(());
        };
        if session.activity.stopped() {
            self.fail(Exit::Interrupted.into());
            return ControlFlow::Break(());
        }
        let exit = exit_of(&e);
        let _ = self.printer.flush();
        // The error starts on a line of its own.
        self.progress.clear();
        let (color, width) = (session.settings.color, output::width());
        let typed = self.typed.as_deref();
        let text = crate::source::render(typed, &e, sources, color, width);
        self.fail(CliError::Diagnostics { text, exit });
        if exit == Exit::Unreachable {
            session.explain_timeout();
        }
        match session.settings.on_error {
            OnError::Stop => ControlFlow::Break(()),
            OnError::Continue => ControlFlow::Continue(()),
        }
    }

    /// Ends the run: the progress line wiped, the output flushed, and the
    /// worst status, that of the output included.
    pub fn finish(mut self) -> Result<(), Failure> {
        drop(self.progress);
        let finished = self.printer.finish();
        let output = self.broken.or(finished.err()).map(|e| {
            let exit = CliError::output(e).tell();
            worst(&mut self.failed, exit);
            exit
        });
        if self.failed == Some(Exit::Interrupted) {
            crate::error::report(&CliError::interrupted());
        }
        match self.failed {
            None => Ok(()),
            Some(exit) => Err(Failure { exit, output }),
        }
    }
}

/// Keeps the worse of `failed` and `exit`.
fn worst(failed: &mut Option<Exit>, exit: Exit) {
    *failed = Some(failed.map_or(exit, |f| f.max(exit)));
}

/// Standard output, whether it is a terminal, and whether results may be
/// coloured there (`color`).
fn standard_output(color: bool) -> (Box<dyn Write>, bool, bool) {
    let stdout = io::stdout();
    let terminal = stdout.is_terminal();
    // A terminal shows each line as it comes; a pipe or file gets
    // large writes.
    let out: Box<dyn Write> = if terminal {
        Box::new(stdout.lock())
    } else {
        Box::new(io::BufWriter::with_capacity(1 << 16, stdout.lock()))
    };
    (out, terminal, color)
}

/// The exit status of a transaction that failed: a guard's is 1, a
/// database error's what [`crate::store::exit_of`] says, anything else 4.
pub fn exit_of(e: &exec::Error) -> Exit {
    match e {
        exec::Error::Guard { .. } => Exit::Unmet,
        exec::Error::Interrupted { source, .. } => crate::store::exit_of(source),
        e => e.as_kv().map_or(Exit::Failed, crate::store::exit_of),
    }
}
