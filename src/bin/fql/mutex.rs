//! `fql mutex`: the distributed mutex from the shell.

mod child;
mod gate;
mod show;
mod signals;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use fql::kv::Database;
use fql::mutex::{Mutex, Reaped, Reaper, Timing};

use crate::args::{Client, Format, MutexCommand, StoreArgs, TimingArgs, WaitArgs};
use crate::output::Exit;
use crate::store::Missing;

impl TimingArgs {
    fn timing(self) -> Result<Timing, Exit> {
        Ok(Timing {
            heartbeat: seconds(self.heartbeat, "--heartbeat")?,
            stale: seconds(self.stale, "--stale")?,
        })
    }
}

impl WaitArgs {
    /// The longest wait in line; `None`, without `--wait`, waits as long
    /// as it takes.
    fn duration(self) -> Result<Option<Duration>, Exit> {
        self.wait.map(|w| seconds(w, "--wait")).transpose()
    }
}

fn seconds(value: f64, flag: &str) -> Result<Duration, Exit> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            eprintln!("fql: {flag} must be a positive number of seconds");
            Exit::Usage
        })
}

/// Runs a mutex command; `format` is a `--format` given before `mutex`,
/// which `show` takes as its own.
pub fn run(
    command: MutexCommand,
    store_args: &StoreArgs,
    format: Option<Format>,
) -> Result<(), Exit> {
    // Only `show` merely looks: it creates no database file.
    let missing = match command {
        MutexCommand::Show { .. } => Missing::Refuse,
        _ => Missing::Create,
    };
    let opened = crate::store::open_as(store_args, missing)?;
    let timeout = opened.timeout;
    let db: Arc<dyn Database> = Arc::from(opened.db);
    let mutex = |client: &Client| client.mutex(db.clone(), timeout);
    match command {
        MutexCommand::Acquire { client, wait } => {
            let wait = wait.duration()?;
            let (mutex, caught) = leaving(&client, &db, timeout)?;
            let printed = granted(&mutex, mutex.acquire(wait));
            caught.done();
            printed
        }
        MutexCommand::TryAcquire { client } => {
            let mutex = mutex(&client)?;
            granted(&mutex, mutex.try_acquire())
        }
        MutexCommand::Release { client } => done(mutex(&client)?.release(), "does not hold"),
        MutexCommand::Heartbeat { client } => done(mutex(&client)?.heartbeat(), "does not hold"),
        MutexCommand::Cancel { client } => done(mutex(&client)?.cancel(), "is not waiting for"),
        MutexCommand::Show { dir, format: own } => {
            let format = own.or(format).unwrap_or_default();
            show::run(&db, &directory(&dir)?, timeout, format)
        }
        MutexCommand::Reap { dir, timing } => {
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
                    Ok(Reaped::Owner(name)) => {
                        format!("reaped owner {}\n", fql::syntax::plain_or_quoted(name))
                    }
                    Ok(Reaped::Waiter(name)) => {
                        format!("dropped waiter {}\n", fql::syntax::plain_or_quoted(name))
                    }
                    Err(e) => return eprintln!("fql: the reaper goes on after: {e}"),
                };
                if let Err(exit) = crate::output::print(&line) {
                    unwritten = Some(exit);
                    stop.store(true, std::sync::atomic::Ordering::SeqCst);
                }
            });
            ran.map_err(failed)?;
            unwritten.map_or(Ok(()), Err)
        }
        MutexCommand::Run {
            client,
            wait,
            grace,
            command,
        } => {
            let wait = wait.duration()?;
            let grace = seconds(grace, "--grace")?;
            child::check(&command[0])?;
            let (mutex, caught) = leaving(&client, &db, timeout)?;
            let Some(token) = mutex.acquire(wait).map_err(failed)? else {
                caught.done();
                eprintln!("fql: not acquired within --wait; the command did not run");
                return Err(Exit::Unmet);
            };
            let env = [
                ("FQL_MUTEX_TOKEN", token.to_string()),
                ("FQL_MUTEX_DIR", client.dir.clone()),
                ("FQL_MUTEX_NAME", client.name.clone()),
            ];
            let child = child::Child {
                argv: &command,
                env: &env,
                grace,
            };
            child::run_child(&*mutex, &caught, child)
        }
    }
}

/// The client of `acquire` or `run`, with SIGINT, SIGTERM and SIGHUP
/// caught: one while it waits, or holds a grant nobody has seen yet,
/// makes it leave ([`leave`]) before fql ends by that signal.
fn leaving(
    client: &Client,
    db: &Arc<dyn Database>,
    timeout: Duration,
) -> Result<(Arc<Mutex>, signals::Caught), Exit> {
    let gate = Arc::new(gate::Gate::default());
    let gated = gate::Gated {
        inner: db.clone(),
        gate: gate.clone(),
    };
    let mutex = Arc::new(client.mutex(Arc::new(gated), timeout)?);
    let leaver = mutex.clone();
    let caught = signals::Caught::new(Box::new(move || leave(&leaver, &gate, timeout)))?;
    Ok((mutex, caught))
}

/// Takes a client out of the line, from the thread a signal woke: first
/// no other thread of fql may commit any more (what the waiting thread
/// was about to do, such as queueing, would undo the rest), then the
/// client cancels its entry, or, if it was granted meanwhile, hands the
/// mutex on, as nobody will use the grant. Each step is bounded by
/// `timeout`.
fn leave(mutex: &Mutex, gate: &gate::Gate, timeout: Duration) {
    if !gate.close(Instant::now() + timeout) {
        eprintln!("fql: a commit in flight did not end within --timeout; leaving anyway");
    }
    let left = match mutex.cancel() {
        Ok(true) => Ok(true),
        Ok(false) => mutex.release(),
        Err(e) => Err(e),
    };
    if let Err(e) = left {
        eprintln!("fql: cannot leave the queue: {e}");
    }
}

impl Client {
    fn mutex(&self, db: Arc<dyn Database>, timeout: Duration) -> Result<Mutex, Exit> {
        Mutex::new(db, directory(&self.dir)?, &self.name, self.timing.timing()?)
            .map(|m| m.compat(self.timing.compat).timeout(timeout))
            .map_err(|e| {
                eprintln!("fql: {e}");
                Exit::Usage
            })
    }
}

/// The names of the mutex directory `arg`, read as a script's `-p dir=`
/// is, so that both name the same directory: an absolute path
/// (`/locks/nightly`) or a tuple of names (`("locks","nightly")`). A
/// relative path is refused: `fql mutex` has no root to start it from.
pub fn directory(arg: &str) -> Result<Vec<String>, Exit> {
    let refuse = || {
        eprintln!(
            "fql: the mutex directory is an absolute path such as /locks/nightly, or a tuple of names such as (\"locks\",\"nightly\"), not `{}`",
            fql::syntax::printable(arg)
        );
        Exit::Usage
    };
    if arg.starts_with('.') {
        return Err(refuse());
    }
    match fql::plan::Param::parse(arg, &fql::plan::Root::default()) {
        Ok(param) => param.directory().ok_or_else(refuse),
        Err(e) => {
            let sources = fql::syntax::Sources::single("DIR", arg.to_string());
            let width = crate::output::width();
            eprint!("{}", fql::syntax::render(&e, &sources, false, width));
            Err(Exit::Usage)
        }
    }
}

pub(crate) fn failed(e: fql::mutex::Error) -> Exit {
    eprintln!("fql: {e}");
    fql::kv::AsKvError::as_kv(&e).map_or(Exit::Failed, crate::store::exit_of)
}

/// Prints the token of a grant. A grant whose token cannot be printed, to
/// a closed pipe as to a full disk, is handed back at once: nobody saw the
/// token, so nobody would use the mutex or release it. The exit status
/// then says the mutex is not held: 1 (not acquired) for a closed pipe,
/// where other commands end with 0, and 4 for output that failed.
fn granted(
    mutex: &Mutex,
    result: Result<Option<fql::mutex::Token>, fql::mutex::Error>,
) -> Result<(), Exit> {
    let Some(token) = result.map_err(failed)? else {
        eprintln!("fql: not acquired");
        return Err(Exit::Unmet);
    };
    let Err(unprinted) = crate::output::print(&format!("{token}\n")) else {
        return Ok(());
    };
    let exit = match unprinted {
        Exit::Closed => {
            eprintln!(
                "fql: standard output is closed, so the token went unseen; handing the mutex back"
            );
            Exit::Unmet
        }
        exit => exit,
    };
    match mutex.release() {
        Ok(_) => Err(exit),
        Err(e) => {
            let release = failed(e);
            eprintln!(
                "fql: the mutex stays held until this client releases it or a reaper hands it on"
            );
            Err(exit.max(release))
        }
    }
}

fn done(result: Result<bool, fql::mutex::Error>, not: &str) -> Result<(), Exit> {
    if result.map_err(failed)? {
        Ok(())
    } else {
        eprintln!("fql: this client {not} the mutex");
        Err(Exit::Unmet)
    }
}
