//! `fql mutex`: the distributed mutex from the shell.

mod child;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use clap::Subcommand;
use fql::kv::Database;
use fql::mutex::{Mutex, Reaped, Reaper, State, Timing};

use crate::args::StoreArgs;
use crate::output::Exit;

#[derive(Debug, Subcommand)]
pub enum MutexCommand {
    /// Take the mutex, waiting in line for it; prints the fencing token.
    ///
    /// Exits 0 holding the mutex, 1 when --timeout passed first (the client
    /// then leaves the queue). A token that cannot be printed is handed
    /// back: exit 1 for a closed pipe, 4 for a failed write. The holder
    /// must beat (`fql mutex heartbeat`) at least every --stale seconds or
    /// a reaper hands the mutex on.
    Acquire {
        #[command(flatten)]
        client: Client,
        /// Give up after this many seconds.
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
    },
    /// Take the mutex only if it is free and nobody waits; prints the
    /// fencing token. Exits 1, having changed nothing, otherwise; a token
    /// that cannot be printed is handed back, as with acquire.
    TryAcquire {
        #[command(flatten)]
        client: Client,
    },
    /// Release the mutex to the longest-waiting client. Exits 1 if this
    /// client does not hold it.
    Release {
        #[command(flatten)]
        client: Client,
    },
    /// Beat as the owner. Exits 1 if this client no longer holds the mutex.
    Heartbeat {
        #[command(flatten)]
        client: Client,
    },
    /// Leave the queue. Exits 1 if this client is not waiting.
    Cancel {
        #[command(flatten)]
        client: Client,
    },
    /// Print the owner, the fencing token, heartbeats and the queue, from
    /// one snapshot.
    Show {
        /// The mutex directory, such as `/locks/nightly`.
        dir: String,
    },
    /// Hand on the mutex when its owner stops beating, and drop dead
    /// waiters; runs until interrupted.
    Reap {
        /// The mutex directory, such as `/locks/nightly`.
        dir: String,
        #[command(flatten)]
        timing: TimingArgs,
    },
    /// Run a command while holding the mutex.
    ///
    /// Acquires, beats while the command runs, and releases when it ends.
    /// The command gets the fencing token in FQL_MUTEX_TOKEN. If the mutex
    /// is lost, the command's process group gets SIGTERM, then SIGKILL
    /// after --grace seconds. SIGINT, SIGTERM and SIGHUP are passed on to
    /// it. Exits with the command's status, or 128+N if signal N ended it.
    Run {
        #[command(flatten)]
        client: Client,
        /// Seconds between SIGTERM and SIGKILL.
        #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
        grace: f64,
        /// The command and its arguments.
        #[arg(last = true, required = true, value_name = "CMD")]
        command: Vec<String>,
    },
}

/// A client of a mutex.
#[derive(Debug, clap::Args)]
pub struct Client {
    /// The mutex directory, such as `/locks/nightly`.
    dir: String,
    /// This client's name; unique among the clients of the mutex.
    #[arg(long)]
    name: String,
    #[command(flatten)]
    timing: TimingArgs,
}

#[derive(Debug, Clone, Copy, clap::Args)]
pub struct TimingArgs {
    /// Write only what the Go client janderland/fdb-mutex writes, so Go
    /// clients can share the mutex (no fencing token; waiters wake at
    /// every heartbeat).
    #[arg(long)]
    compat: bool,
    /// Seconds between heartbeats (h).
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    heartbeat: f64,
    /// Seconds a heartbeat may stand still before the owner is reaped (L,
    /// at least 3h).
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    stale: f64,
}

impl TimingArgs {
    fn timing(self) -> Result<Timing, Exit> {
        Ok(Timing {
            heartbeat: seconds(self.heartbeat, "--heartbeat")?,
            stale: seconds(self.stale, "--stale")?,
        })
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

pub fn run(command: MutexCommand, store_args: &StoreArgs) -> Result<(), Exit> {
    let opened = crate::store::open(store_args)?;
    let timeout = opened.timeout;
    let db: Arc<dyn Database> = Arc::from(opened.db);
    let mutex = |client: &Client| client.mutex(db.clone(), timeout);
    match command {
        MutexCommand::Acquire { client, timeout } => {
            let timeout = timeout.map(|t| seconds(t, "--timeout")).transpose()?;
            let mutex = mutex(&client)?;
            granted(&mutex, mutex.acquire(timeout))
        }
        MutexCommand::TryAcquire { client } => {
            let mutex = mutex(&client)?;
            granted(&mutex, mutex.try_acquire())
        }
        MutexCommand::Release { client } => done(mutex(&client)?.release(), "does not hold"),
        MutexCommand::Heartbeat { client } => done(mutex(&client)?.heartbeat(), "does not hold"),
        MutexCommand::Cancel { client } => done(mutex(&client)?.cancel(), "is not waiting for"),
        MutexCommand::Show { dir } => show(&db, &directory(&dir)?, timeout),
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
            grace,
            command,
        } => {
            let grace = seconds(grace, "--grace")?;
            let mutex = mutex(&client)?;
            child::run(&mutex, &client.dir, &client.name, grace, &command)
        }
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

/// The names of an absolute directory path.
pub fn directory(arg: &str) -> Result<Vec<String>, Exit> {
    if !arg.starts_with('/') {
        eprintln!("fql: a directory is an absolute path such as /locks/nightly, not `{arg}`");
        return Err(Exit::Usage);
    }
    match crate::repl::path::directory(arg, &[]) {
        Ok(path) if !path.is_empty() => Ok(path),
        Ok(_) => {
            eprintln!("fql: the directory cannot be the root");
            Err(Exit::Usage)
        }
        Err(e) => {
            eprintln!("fql: {e}");
            Err(Exit::Usage)
        }
    }
}

fn failed(e: fql::mutex::Error) -> Exit {
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

fn show(db: &Arc<dyn Database>, dir: &[String], timeout: Duration) -> Result<(), Exit> {
    let engine = fql::exec::Engine::new(db.clone()).timeout(timeout);
    let state = State::read(&engine, dir).map_err(failed)?;
    let mut out = String::new();
    let age = |name: &str| match state.heartbeat_age(name) {
        Some(v) => format!("last beat {v} versions before this snapshot"),
        None => "no heartbeat".into(),
    };
    match &state.owner {
        Some(owner) => out.push_str(&format!(
            "owner: {} ({})\n",
            fql::syntax::plain_or_quoted(owner),
            age(owner)
        )),
        None => out.push_str("owner: none (free)\n"),
    }
    match state.token {
        Some(token) => out.push_str(&format!("token: {token}\n")),
        None => out.push_str("token: none\n"),
    }
    out.push_str(&format!("queue: {} waiting\n", state.queue.len()));
    for (n, w) in state.queue.iter().enumerate() {
        out.push_str(&format!(
            "  {}. {} (queued at {}, {})\n",
            n + 1,
            fql::syntax::plain_or_quoted(&w.name),
            const_hex::encode(w.since),
            age(&w.name)
        ));
    }
    out.push_str(&format!("read version: {}\n", state.read_version));
    crate::output::print(&out)
}
