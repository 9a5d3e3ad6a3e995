//! SIGINT, SIGTERM and SIGHUP for `fql mutex acquire` and `run`: what
//! each means depends on how far the command has got.
//!
//! - While the client waits in line, or holds a grant nobody has seen
//!   yet, the signal makes it leave: [`Leave`] cancels its queue entry
//!   (and hands back a grant that came meanwhile), then fql ends by the
//!   same signal, as an uncaught one would end it, so that a shell sees
//!   128 + N and a script that ran it stops too. A dead client left in
//!   the queue would be granted the mutex and hold it until someone
//!   noticed it was dead.
//! - While `run`'s command runs, the signal goes to the command's process
//!   group, and fql ends with the command's status.
//! - Once the command has ended, or the token is printed, fql finishes on
//!   its own: its last steps are each bounded by `--timeout`.
//!
//! A second signal while the first is being handled ends fql at once.
//! A signal fql was started with ignored (`nohup`, a background job of a
//! shell without job control) stays ignored.

use std::sync::{Arc, Mutex, MutexGuard};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use signal_hook::low_level::emulate_default_handler;

use crate::error::{CliError, Exit};

/// What a signal does while the client waits or holds an unseen grant:
/// leave the queue and hand back a grant, each step bounded.
pub type Leave = Box<dyn FnOnce() + Send>;

/// How far the command has got.
enum Phase {
    /// Waiting in line, or holding a grant nobody has used yet.
    Waiting(Leave),
    /// A signal is being handled.
    Leaving,
    /// The command runs in this process group.
    Running(Pid),
    /// fql finishes on its own.
    Done,
}

/// The signals of one `acquire` or `run`, caught until fql ends.
pub struct Caught {
    phase: Arc<Mutex<Phase>>,
}

impl Caught {
    /// Catches the signals, to `leave` until told otherwise.
    pub fn new(leave: Leave) -> Result<Caught, CliError> {
        let phase = Arc::new(Mutex::new(Phase::Waiting(leave)));
        let caught: Vec<i32> = [SIGINT, SIGTERM, SIGHUP]
            .into_iter()
            .filter(|&s| !ignored(s))
            .collect();
        let mut signals = Signals::new(&caught)
            .map_err(|e| CliError::failed(Exit::Failed, format!("cannot handle signals: {e}")))?;
        let shared = phase.clone();
        std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                for signal in signals.forever() {
                    on_signal(&shared, signal);
                }
            })
            .map_err(|e| CliError::failed(Exit::Failed, format!("cannot handle signals: {e}")))?;
        Ok(Caught { phase })
    }

    fn phase(&self) -> MutexGuard<'_, Phase> {
        lock(&self.phase)
    }

    /// Runs `start` (which starts the command and returns its process
    /// group) unless a signal is making the client leave, in which case
    /// this thread waits for the end of the process. Signals from then on
    /// go to the group.
    pub fn start<T>(
        &self,
        start: impl FnOnce() -> Result<(T, Pid), CliError>,
    ) -> Result<T, CliError> {
        let mut phase = self.phase();
        if matches!(*phase, Phase::Leaving) {
            drop(phase);
            wait_for_the_end();
        }
        let (started, group) = start()?;
        *phase = Phase::Running(group);
        Ok(started)
    }

    /// From now on fql finishes on its own; if a signal is making the
    /// client leave, this thread waits for the end of the process.
    pub fn done(&self) {
        let mut phase = self.phase();
        if matches!(*phase, Phase::Leaving) {
            drop(phase);
            wait_for_the_end();
        }
        *phase = Phase::Done;
    }
}

fn lock(phase: &Mutex<Phase>) -> MutexGuard<'_, Phase> {
    phase.lock().unwrap_or_else(|e| e.into_inner())
}

fn on_signal(phase: &Mutex<Phase>, signal: i32) {
    let mut now = lock(phase);
    match std::mem::replace(&mut *now, Phase::Leaving) {
        Phase::Waiting(leave) => {
            drop(now);
            leave();
            end_by(signal);
        }
        Phase::Leaving => end_by(signal),
        Phase::Running(group) => {
            *now = Phase::Running(group);
            if let Ok(signal) = Signal::try_from(signal) {
                let _ = killpg(group, signal);
            }
        }
        Phase::Done => *now = Phase::Done,
    }
}

/// Ends the process by `signal`, under its default action, as if fql had
/// not caught it; this runs no exit handler, which FoundationDB's client
/// allows while its network thread runs.
fn end_by(signal: i32) -> ! {
    let _ = emulate_default_handler(signal);
    std::process::abort()
}

/// Parks the calling thread: another is ending the process.
fn wait_for_the_end() -> ! {
    loop {
        std::thread::park();
    }
}

/// Whether `signal` is ignored, as fql was started.
#[allow(unsafe_code)]
fn ignored(signal: i32) -> bool {
    // SAFETY: a query of the current action, with no new one installed.
    unsafe {
        let mut old: nix::libc::sigaction = std::mem::zeroed();
        nix::libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == nix::libc::SIG_IGN
    }
}
