//! `fql mutex run -- CMD`: a command that runs only while this client
//! holds a lock.
//!
//! The command runs in its own process group, so that everything it starts
//! can be stopped together: when the lock is lost, and when the command
//! ends while children it left behind still run. The group is the
//! terminal's foreground while it runs ([`terminal`]), dies with fql even
//! when fql is killed ([`spawn`], [`watchdog`]), and is stopped on fql's
//! own clock once no heartbeat has committed for the staleness less one
//! heartbeat, whatever the database does meanwhile: heartbeats run on a
//! thread of their own, so a call that hangs cannot delay the stop.
//!
//! [`run_child`] takes any lock through [`Held`], so every kind of lock
//! that beats can run a command the same way.

mod spawn;
mod terminal;
mod watchdog;

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use fql::lock::Timing;
use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use self::terminal::Terminal;
use self::watchdog::Watchdog;
pub use super::held::Held;
use super::signals::Caught;
use crate::error::{CliError, Exit, warn};

pub use self::spawn::check;

pub use super::report::Stats;

/// Runs `argv` while `holder` holds its lock (of directory and client
/// name `names`): checks the command can run, acquires, waiting at most
/// `wait` (`None`: as long as it takes), then [`run_child`]. Signals
/// `caught` while waiting make the client leave the queue.
pub fn run<H: Held + Sync>(
    holder: &H,
    caught: &Caught,
    (dir, name): (&str, &str),
    (wait, grace): (Option<Duration>, Duration),
    argv: &[String],
    stats: &mut Stats,
) -> Result<(), CliError> {
    check(&argv[0])?;
    let began = Instant::now();
    let acquired = holder.acquire(wait);
    stats.waited = began.elapsed();
    let Some(token) = acquired.map_err(H::failed)? else {
        caught.done();
        return Err(CliError::failed(
            Exit::Unmet,
            "not acquired within --wait; the command did not run".to_string(),
        ));
    };
    stats.token = Some(token);
    let env = [
        ("FQL_MUTEX_TOKEN", token.to_string()),
        ("FQL_MUTEX_DIR", dir.to_string()),
        ("FQL_MUTEX_NAME", name.to_string()),
    ];
    let child = Child {
        argv,
        env: &env,
        grace,
    };
    let granted = Instant::now();
    let ran = run_child(holder, caught, child, stats);
    stats.held = Some(granted.elapsed());
    ran
}

/// The command to run: its words, what to add to its environment, and
/// the seconds between SIGTERM and SIGKILL when it must stop.
pub struct Child<'a> {
    pub argv: &'a [String],
    pub env: &'a [(&'static str, String)],
    pub grace: Duration,
}

/// What the threads around the command report.
enum Event {
    /// The command ended, with the shell's status for it.
    Ended(Result<u8, Errno>),
    /// The command was stopped (Ctrl-Z).
    Stopped,
    /// A heartbeat committed; its call returned at this instant.
    Beat(Instant),
    /// A heartbeat failed; the next may still commit.
    Failed(String),
    Lost,
}

/// Runs `child` while `holder` holds its lock, which it does now: beats
/// while the command runs, stops its group if the lock is lost, and hands
/// the lock on when it ends. The exit status is the command's, or
/// [`Exit::Lost`] once the lock was lost. Signals `caught` go to the
/// command's group while it runs. Call it from the main thread.
pub fn run_child<H: Held + Sync>(
    holder: &H,
    caught: &Caught,
    child: Child,
    stats: &mut Stats,
) -> Result<(), CliError> {
    // A first beat, before the command starts: it shows the lock is still
    // held, and the stale clock starts from it.
    let beat = holder.heartbeat();
    let began = Instant::now();
    match beat {
        Ok(true) => {}
        Ok(false) => {
            caught.done();
            return Err(CliError::failed(
                Exit::Lost,
                "the lock was lost before the command started; it did not run",
            ));
        }
        Err(e) => {
            let _ = holder.release();
            caught.done();
            return Err(H::failed(e));
        }
    }
    let terminal = Terminal::foreground();
    let watchdog = Watchdog::start();
    let group = caught.start(|| {
        let pid = spawn::spawn(child.argv, child.env, terminal.as_ref().map(Terminal::raw))?;
        if let Some(watchdog) = &watchdog {
            watchdog.arm(pid);
        }
        Ok((pid, pid))
    });
    let group = match group {
        Ok(group) => group,
        Err(error) => {
            if let Some(watchdog) = watchdog {
                watchdog.disarm();
            }
            let _ = holder.release();
            caught.done();
            return Err(error);
        }
    };
    if let Some(terminal) = &terminal {
        terminal.give(group);
    }
    let (status, lost) = supervise(
        holder,
        group,
        (began, &mut stats.heartbeats),
        terminal.as_ref(),
        child.grace,
    );
    stats.lost = lost;
    if let Some(watchdog) = watchdog {
        watchdog.disarm();
    }
    caught.done();
    match holder.release() {
        Ok(_) if lost => {}
        Ok(true) => {}
        Ok(false) => warn("fql: the lock was lost before the command ended"),
        Err(e) => warn(format_args!("fql: cannot hand the lock on: {e}")),
    }
    exit_of(status, lost)
}

/// Waits for the command, beating on another thread; stops its group
/// when the lock is lost, and whatever the command left running once it
/// has ended. The command's status, and whether the lock was lost.
fn supervise(
    holder: &(impl Held + Sync),
    group: Pid,
    (began, beats): (Instant, &mut u64),
    terminal: Option<&Terminal>,
    grace: Duration,
) -> (Result<u8, Errno>, bool) {
    let (events, reports) = mpsc::channel();
    let waiter = events.clone();
    std::thread::spawn(move || wait_for(group, &waiter));
    std::thread::scope(|scope| {
        let (stop, stopped) = mpsc::channel::<()>();
        let every = holder.timing().heartbeat;
        scope.spawn(move || beat(holder, every, &events, &stopped));
        let ended = watch(
            holder.timing(),
            &reports,
            stop,
            group,
            (began, beats),
            terminal,
            grace,
        );
        // Whatever the command left running must not outlive the lock.
        stop_group(group, grace);
        if let Some(terminal) = terminal {
            terminal.take_back();
        }
        ended
    })
}

/// Reports the command's stops and its end.
fn wait_for(pid: Pid, events: &Sender<Event>) {
    loop {
        let event = match waitpid(pid, Some(WaitPidFlag::WUNTRACED)) {
            Ok(WaitStatus::Exited(_, code)) => Event::Ended(Ok(code as u8)),
            Ok(WaitStatus::Signaled(_, signal, _)) => Event::Ended(Ok(128 + signal as u8)),
            Ok(WaitStatus::Stopped(..)) => Event::Stopped,
            Ok(_) | Err(Errno::EINTR) => continue,
            Err(e) => Event::Ended(Err(e)),
        };
        let ended = matches!(event, Event::Ended(_));
        if events.send(event).is_err() || ended {
            return;
        }
    }
}

/// Beats every `every`, measured from the start of the last beat (a slow
/// beat is followed at once by the next), until told to stop or the lock
/// is lost.
fn beat(holder: &(impl Held + Sync), every: Duration, events: &Sender<Event>, stop: &Receiver<()>) {
    let mut next = Instant::now() + every;
    loop {
        match stop.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return,
        }
        next = Instant::now() + every;
        let event = match holder.heartbeat() {
            Ok(true) => Event::Beat(Instant::now()),
            Ok(false) => Event::Lost,
            Err(e) => Event::Failed(e.to_string()),
        };
        let lost = matches!(event, Event::Lost);
        if events.send(event).is_err() || lost {
            return;
        }
    }
}

/// The supervisor's loop: the command's status, and whether the lock was
/// lost. The lock counts as lost when a beat finds another holder, or
/// when `L - h` has passed on this clock since the last beat committed
/// (its call returned), with no beat since: a waiter may take over once
/// it has seen that beat stand still for `L`, and sees it no sooner than
/// its commit, so the command is stopped about `h` before.
fn watch(
    timing: Timing,
    reports: &Receiver<Event>,
    stop_beating: Sender<()>,
    group: Pid,
    (mut last, beats): (Instant, &mut u64),
    terminal: Option<&Terminal>,
    grace: Duration,
) -> (Result<u8, Errno>, bool) {
    let allowed = timing.stale.saturating_sub(timing.heartbeat);
    // Beats stop with the lock: one after it would only keep the lock
    // looking held while the command is being stopped.
    let mut stop_beating = Some(stop_beating);
    let mut lost = false;
    let mut failure = None;
    loop {
        let wait = match lost {
            false => (last + allowed).saturating_duration_since(Instant::now()),
            true => Duration::from_secs(3600),
        };
        match reports.recv_timeout(wait) {
            Ok(Event::Ended(status)) => return (status, lost),
            Ok(Event::Stopped) => {
                if let Some(terminal) = terminal {
                    terminal.suspend(group);
                }
            }
            Ok(Event::Beat(at)) => {
                last = at;
                *beats += 1;
            }
            Ok(Event::Failed(e)) => failure = Some(e),
            Ok(Event::Lost) if !lost => {
                lost = true;
                drop(stop_beating.take());
                warn("fql: lost the lock: another client holds it; stopping the command");
                stop_group(group, grace);
            }
            Err(RecvTimeoutError::Timeout) if !lost && last.elapsed() >= allowed => {
                lost = true;
                drop(stop_beating.take());
                let why = failure
                    .take()
                    .map_or(String::new(), |e| format!(" (last: {e})"));
                warn(format_args!(
                    "fql: lost the lock: no heartbeat committed for {allowed:?}{why}; stopping the command"
                ));
                stop_group(group, grace);
            }
            Err(RecvTimeoutError::Disconnected) => return (Err(Errno::ECHILD), lost),
            _ => {}
        }
    }
}

/// fql's status for the command's: the command's own, unless the lock
/// was lost, which has a status of its own whatever the command did.
fn exit_of(status: Result<u8, Errno>, lost: bool) -> Result<(), CliError> {
    match (status, lost) {
        (Ok(code), true) => Err(CliError::failed(
            Exit::Lost,
            format!("the command ended with status {code} after the lock was lost"),
        )),
        (Ok(0), false) => Ok(()),
        (Ok(code), false) => Err(Exit::Command(code).into()),
        (Err(e), lost) => Err(CliError::failed(
            if lost { Exit::Lost } else { Exit::Failed },
            format!("cannot wait for the command: {e}"),
        )),
    }
}

/// SIGTERM to the group, then SIGKILL after `grace` if any of it remains.
fn stop_group(group: Pid, grace: Duration) {
    if killpg(group, Signal::SIGTERM).is_err() {
        return;
    }
    // A stopped process takes SIGTERM only once continued.
    let _ = killpg(group, Signal::SIGCONT);
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        // Signal 0: does any process of the group remain?
        if killpg(group, None).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = killpg(group, Signal::SIGKILL);
}
