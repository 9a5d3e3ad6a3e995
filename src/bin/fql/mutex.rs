//! `fql mutex`: the distributed mutex from the shell.

mod breaking;
mod child;
mod elect;
mod held;
mod kinds;
mod list;
mod refused;
mod report;
mod show;
mod signals;
mod task;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use fql::kv::{Activity, Database, Observed};
use fql::lock::Timing;
use fql::lock::mutex::{Mutex, Reaper};

use crate::args::{Client, Format, JudgeArgs, MutexCommand, StoreArgs, TimingArgs, WaitArgs};
use crate::error::{CliError, Exit, warn};
use crate::store::Missing;
use held::Held;

impl TimingArgs {
    fn timing(self) -> Result<Timing, CliError> {
        Ok(Timing {
            heartbeat: seconds(self.heartbeat, "--heartbeat")?,
            stale: seconds(self.stale, "--stale")?,
        })
    }
}

impl JudgeArgs {
    fn timing(self) -> Result<Timing, CliError> {
        Ok(Timing {
            heartbeat: seconds(self.heartbeat, "--heartbeat")?,
            stale: seconds(self.stale, "--stale")?,
        })
    }
}

impl WaitArgs {
    /// The longest wait in line; `None`, without `--wait`, waits as long
    /// as it takes.
    fn duration(self) -> Result<Option<Duration>, CliError> {
        self.wait.map(|w| seconds(w, "--wait")).transpose()
    }
}

fn seconds(value: f64, flag: &str) -> Result<Duration, CliError> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| CliError::Usage(format!("{flag} must be a positive number of seconds")))
}

/// Runs a mutex command; `format` and `write` are `--format` and `-w`
/// given before `mutex`, which the commands take as their own.
pub fn run(
    command: MutexCommand,
    store_args: &StoreArgs,
    format: Option<Format>,
    write: bool,
) -> Result<(), CliError> {
    // `show`, `observe` and `list` merely look, and `break` needs a mutex
    // there: they create no database file.
    let missing = match command {
        MutexCommand::Show { .. }
        | MutexCommand::Observe { .. }
        | MutexCommand::List { .. }
        | MutexCommand::Break { .. } => Missing::Refuse,
        _ => Missing::Create,
    };
    let opened = crate::store::open_as(store_args, missing)?;
    let timeout = opened.timeout;
    let db: Arc<dyn Database> = Arc::from(opened.db);
    // Read-write locks and semaphores: the commands their flags name, and
    // `show` of a directory that holds one.
    if let Some(done) = kinds::run(&command, &db, timeout, format) {
        return done;
    }
    let mutex = |client: &Client| client.mutex(db.clone(), timeout);
    let format_of = |own: Option<Format>| own.or(format).unwrap_or_default();
    match command {
        MutexCommand::Acquire { client, wait } => {
            let wait = wait.duration()?;
            let (mutex, caught) = leaving(|db| client.mutex(db, timeout), &db, timeout)?;
            let printed = granted(&*mutex, mutex.acquire(wait), &client, format);
            caught.done();
            printed
        }
        MutexCommand::TryAcquire { client } => {
            let mutex = mutex(&client)?;
            granted(&mutex, mutex.try_acquire(), &client, format)
        }
        MutexCommand::Release { ref client } => {
            let done = mutex(client)?.release();
            report::done(done, client, format_of(client.format), report::RELEASE)
        }
        MutexCommand::Heartbeat { ref client } => {
            let done = mutex(client)?.heartbeat();
            report::done(done, client, format_of(client.format), report::HEARTBEAT)
        }
        MutexCommand::Cancel { ref client } => {
            let done = mutex(client)?.cancel();
            report::done(done, client, format_of(client.format), report::CANCEL)
        }
        MutexCommand::Show {
            dir,
            format: own,
            judge,
        } => {
            let timing = judge.timing()?;
            show::run(&db, &directory(&dir)?, timeout, format_of(own), timing)
        }
        MutexCommand::List {
            dir,
            format: own,
            judge,
        } => {
            let timing = judge.timing()?;
            // `/`, the top, holds every directory: list all of them.
            let dir = if dir == "/" {
                Vec::new()
            } else {
                directory(&dir)?
            };
            list::run(&db, &dir, timeout, format_of(own), timing)
        }
        MutexCommand::Break {
            dir,
            write: own,
            format: own_format,
        } => {
            let dir = directory(&dir)?;
            breaking::run(&db, &dir, timeout, format_of(own_format), write || own)
        }
        MutexCommand::Reap {
            dir,
            timing,
            format: own,
        } => {
            let format = format_of(own);
            let mut reaper = Reaper::new(db, directory(&dir)?, timing.timing()?)
                .map_err(failed)?
                .compat(timing.compat)
                .timeout(timeout);
            let stop = Arc::new(AtomicBool::new(false));
            for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
                let _ = signal_hook::flag::register(signal, stop.clone());
            }
            // A reaper whose reports cannot be written stops, as any
            // command does.
            let mut unwritten = None;
            let ran = reaper.run(&stop, &mut |r| {
                let line = match r {
                    Ok(reaped) => report::reaped(reaped, format),
                    Err(e) => return warn(format_args!("fql: the reaper goes on after: {e}")),
                };
                if let Err(error) = crate::output::print(&line) {
                    unwritten = Some(error);
                    stop.store(true, std::sync::atomic::Ordering::SeqCst);
                }
            });
            ran.map_err(failed)?;
            unwritten.map_or(Ok(()), Err)
        }
        MutexCommand::Elect {
            client,
            wait,
            grace,
            command,
        } => elect::elect(
            db,
            &client,
            wait,
            (client.format.or(format), grace),
            &command,
            timeout,
        ),
        MutexCommand::Observe {
            dir,
            count,
            for_secs,
            format: own,
        } => elect::observe(
            &db,
            &directory(&dir)?,
            (count, for_secs),
            own.or(format),
            timeout,
        ),
        MutexCommand::Task { command } => task::run(db, command, timeout),
        MutexCommand::Run {
            client,
            wait,
            grace,
            stats,
            command,
        } => {
            let holder = |db| client.mutex(db, timeout);
            let how = Holding {
                wait,
                grace,
                stats: stats.then(|| format_of(client.format)),
            };
            holding(holder, (&db, timeout), &client, how, &command)
        }
    }
}

/// How `run` holds its lock while the command runs.
struct Holding {
    wait: WaitArgs,
    grace: f64,
    /// Print `--stats` at the end, in this format.
    stats: Option<Format>,
}

/// `run` for any kind of lock `make` opens: the command is looked for,
/// the client waits in line (leaving it on a signal), runs the command
/// while it holds the lock, and prints `--stats` if asked.
fn holding<H: Held + Send + Sync + 'static>(
    make: impl FnOnce(Arc<dyn Database>) -> Result<H, CliError>,
    (db, timeout): (&Arc<dyn Database>, Duration),
    client: &Client,
    how: Holding,
    command: &[String],
) -> Result<(), CliError> {
    let wait = how.wait.duration()?;
    let grace = seconds(how.grace, "--grace")?;
    child::check(&command[0])?;
    let (holder, caught) = leaving(make, db, timeout)?;
    let names = (client.dir.as_str(), client.name.as_str());
    let mut held = child::Stats::default();
    let ran = child::run(&*holder, &caught, names, (wait, grace), command, &mut held);
    let Some(format) = how.stats else {
        return ran;
    };
    // The error first, then the figures of the run it ended.
    let ran = ran.map_err(|e| CliError::Told(e.tell()));
    let stats = report::stats(&held, format);
    warn(stats.strip_suffix('\n').unwrap_or(&stats));
    ran
}

/// The client of `acquire` or `run`, with SIGINT, SIGTERM and SIGHUP
/// caught: one while it waits, or holds a grant nobody has seen yet,
/// makes it leave ([`leave`]) before fql ends by that signal.
fn leaving<H: Held + Send + Sync + 'static>(
    make: impl FnOnce(Arc<dyn Database>) -> Result<H, CliError>,
    db: &Arc<dyn Database>,
    timeout: Duration,
) -> Result<(Arc<H>, signals::Caught), CliError> {
    let activity = Arc::new(Activity::default());
    let observed = Observed::new(db.clone(), activity.clone());
    let holder = Arc::new(make(Arc::new(observed))?);
    let leaver = holder.clone();
    let caught = signals::Caught::new(Box::new(move || leave(&*leaver, &activity, timeout)))?;
    Ok((holder, caught))
}

/// Takes a client out of the line, from the thread a signal woke: first
/// no other thread of fql may commit any more (what the waiting thread
/// was about to do, such as queueing, would undo the rest), then the
/// client cancels its entry, or, if it was granted meanwhile, hands the
/// lock on, as nobody will use the grant. Each step is bounded by
/// `timeout`.
fn leave<H: Held>(holder: &H, activity: &Activity, timeout: Duration) {
    if !activity.hold_commits(Instant::now() + timeout) {
        warn("fql: a commit in flight did not end within --timeout; leaving anyway");
    }
    let left = match holder.cancel() {
        Ok(true) => Ok(true),
        Ok(false) => holder.release(),
        Err(e) => Err(e),
    };
    if let Err(e) = left {
        warn(format_args!("fql: cannot leave the queue: {e}"));
    }
}

impl Client {
    fn mutex(&self, db: Arc<dyn Database>, timeout: Duration) -> Result<Mutex, CliError> {
        Mutex::new(db, directory(&self.dir)?, &self.name, self.timing.timing()?)
            .map(|m| m.compat(self.timing.compat).timeout(timeout))
            .map_err(|e| CliError::Usage(e.to_string()))
    }
}

/// The names of the mutex directory `arg`, read as a script's `-p dir=`
/// is, so that both name the same directory: an absolute path
/// (`/locks/nightly`) or a tuple of names (`("locks","nightly")`). A
/// relative path is refused: `fql mutex` has no root to start it from.
pub fn directory(arg: &str) -> Result<Vec<String>, CliError> {
    let refuse = || {
        CliError::Usage(format!(
            "the mutex directory is an absolute path such as /locks/nightly, or a tuple of names such as (\"locks\",\"nightly\"), not `{}`",
            fql::syntax::printable(arg)
        ))
    };
    if arg.starts_with('.') {
        return Err(refuse());
    }
    match fql::plan::Param::parse(arg, &fql::plan::Root::default()) {
        Ok(param) => param.directory().ok_or_else(refuse),
        Err(e) => {
            let sources = fql::syntax::Sources::single("DIR", arg.to_string());
            let width = crate::output::width();
            Err(CliError::Diagnostics {
                text: fql::syntax::render(&e, &sources, false, width),
                exit: Exit::Usage,
            })
        }
    }
}

/// A mutex's error, with any advice on the refusal, and the exit status
/// it calls for.
pub(crate) fn failed(e: fql::lock::mutex::Error) -> CliError {
    match refused::advise(&e) {
        Some((advice, exit)) => CliError::lines(exit, [e.to_string(), advice]),
        None => {
            let exit = fql::kv::AsKvError::as_kv(&e).map_or(Exit::Failed, crate::store::exit_of);
            CliError::failed(exit, e.to_string())
        }
    }
}

/// Prints the token of a grant. A grant whose token cannot be printed, to
/// a closed pipe as to a full disk, is handed back at once: nobody saw the
/// token, so nobody would use the mutex or release it. The exit status
/// then says the mutex is not held: 1 (not acquired) for a closed pipe,
/// where other commands end with 0, and 4 for output that failed.
fn granted<M: Held>(
    mutex: &M,
    result: Result<Option<fql::lock::Token>, M::Error>,
    client: &Client,
    format: Option<Format>,
) -> Result<(), CliError> {
    let format = client.format.or(format).unwrap_or_default();
    let Some(token) = result.map_err(M::failed)? else {
        // Told before the report on standard output.
        let exit = CliError::failed(Exit::Unmet, "not acquired").tell();
        return report::print(&report::acquired(None, client, format)).and(Err(exit.into()));
    };
    let Err(unprinted) = crate::output::print(&report::acquired(Some(token), client, format))
    else {
        return Ok(());
    };
    let unprinted = match unprinted {
        CliError::Told(Exit::Closed) => CliError::failed(
            Exit::Unmet,
            "standard output is closed, so the token went unseen; handing the mutex back",
        ),
        error => error,
    };
    match mutex.release() {
        Ok(_) => Err(unprinted),
        Err(e) => {
            let exit = unprinted.tell();
            let release = M::failed(e).tell();
            warn(
                "fql: the mutex stays held until this client releases it, or the head of the queue takes it over",
            );
            Err(exit.max(release).into())
        }
    }
}
