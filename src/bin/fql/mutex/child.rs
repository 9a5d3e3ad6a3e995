//! `fql mutex run -- CMD`: a command that runs only while this client
//! holds the mutex.
//!
//! The command runs in its own process group, so that everything it starts
//! can be stopped together: when the mutex is lost (a heartbeat finds
//! another owner, or none commits for longer than the staleness less one
//! heartbeat, after which a reaper may already have handed it on), and when
//! the command ends while children it left behind still run.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::{Handle, Signals};

use super::held::Held;
use crate::output::Exit;

/// What `run --stats` reports: how long the client waited and held the
/// mutex, the heartbeats it committed, whether it lost the mutex.
#[derive(Debug, Default)]
pub struct Stats {
    pub waited: Duration,
    /// `None` when the mutex was never held.
    pub held: Option<Duration>,
    pub token: Option<fql::mutex::Token>,
    pub heartbeats: u64,
    pub lost: bool,
}

/// Runs `command` while holding `mutex` (of directory and client name
/// `names`): acquires, waiting at most `wait` (`None`: as long as it
/// takes), beats while the command runs, and releases when it ends; the
/// exit status is the command's.
pub fn run<M: Held>(
    mutex: &M,
    (dir, name): (&str, &str),
    wait: Option<Duration>,
    grace: Duration,
    command: &[String],
    stats: &mut Stats,
) -> Result<(), Exit> {
    let began = Instant::now();
    let acquired = mutex.acquire(wait);
    stats.waited = began.elapsed();
    let token = match acquired.map_err(M::failed)? {
        Some(token) => token,
        None => {
            eprintln!("fql: not acquired within --wait; the command did not run");
            return Err(Exit::Unmet);
        }
    };
    // Signals for fql go to the command's group instead; caught from before
    // the command starts, so none is lost in between.
    let signals = Signals::new([SIGINT, SIGTERM, SIGHUP]).map_err(|e| {
        eprintln!("fql: cannot handle signals: {e}");
        Exit::Failed
    })?;
    let spawned = Command::new(&command[0])
        .args(&command[1..])
        .process_group(0)
        .env("FQL_MUTEX_TOKEN", token.to_string())
        .env("FQL_MUTEX_DIR", dir)
        .env("FQL_MUTEX_NAME", name)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            eprintln!("fql: cannot run {}: {e}", command[0]);
            let _ = mutex.release();
            return Err(Exit::Usage);
        }
    };
    let granted = Instant::now();
    stats.token = Some(token);
    let group = Pid::from_raw(child.id() as i32);
    let forwarder = forward(signals, group);
    let (done, ended) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait());
    });
    let (status, lost) = hold(mutex, &ended, group, grace, &mut stats.heartbeats);
    forwarder.close();
    // Whatever the command left running must not outlive the lock.
    stop_group(group, grace);
    stats.held = Some(granted.elapsed());
    stats.lost = lost;
    if !lost {
        match mutex.release() {
            Ok(true) => {}
            Ok(false) => eprintln!("fql: the mutex was lost before the command ended"),
            Err(e) => eprintln!("fql: cannot release the mutex: {e}"),
        }
    }
    exit_of(status, lost)
}

/// Passes every signal `signals` catches on to the process group
/// `group`, until the returned handle is closed.
fn forward(mut signals: Signals, group: Pid) -> Handle {
    let handle = signals.handle();
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if let Ok(signal) = Signal::try_from(signal) {
                let _ = killpg(group, signal);
            }
        }
    });
    handle
}

/// Beats every heartbeat until the command ends; stops the command's
/// group if the mutex is lost. The command's status, and whether the
/// mutex was lost.
fn hold<M: Held>(
    mutex: &M,
    ended: &mpsc::Receiver<std::io::Result<ExitStatus>>,
    group: Pid,
    grace: Duration,
    beats: &mut u64,
) -> (std::io::Result<ExitStatus>, bool) {
    let timing = mutex.timing();
    let mut last_beat = Instant::now();
    let mut lost = false;
    loop {
        match ended.recv_timeout(timing.heartbeat) {
            Ok(status) => return (status, lost),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return (Err(std::io::Error::other("lost the command")), lost);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if lost {
            continue;
        }
        match mutex.heartbeat() {
            Ok(true) => {
                last_beat = Instant::now();
                *beats += 1;
            }
            Ok(false) => lost = true,
            // A beat that cannot commit for L - h may already be too late.
            Err(e) => {
                lost = last_beat.elapsed() + timing.heartbeat >= timing.stale;
                if lost {
                    eprintln!("fql: the heartbeat failed: {e}");
                }
            }
        }
        if lost {
            eprintln!("fql: lost the mutex; stopping the command");
            stop_group(group, grace);
        }
    }
}

/// fql's status for the command's: a command that ended well after the
/// mutex was lost still did part of its work without it.
fn exit_of(status: std::io::Result<ExitStatus>, lost: bool) -> Result<(), Exit> {
    match status {
        Ok(status) => match code(status) {
            0 if lost => Err(Exit::Failed),
            0 => Ok(()),
            n => Err(Exit::Command(n)),
        },
        Err(e) => {
            eprintln!("fql: cannot wait for the command: {e}");
            Err(Exit::Failed)
        }
    }
}

/// SIGTERM to the group, then SIGKILL after `grace` if any of it remains.
fn stop_group(group: Pid, grace: Duration) {
    if killpg(group, Signal::SIGTERM).is_err() {
        return;
    }
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

/// The shell's convention: the exit code, or 128 + the signal.
fn code(status: ExitStatus) -> u8 {
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    u8::try_from(code).unwrap_or(1)
}
