//! The terminal's foreground for the command: a command that reads the
//! terminal from a background process group is stopped (SIGTTIN) and
//! waits for ever, and Ctrl-C reaches only the foreground group. So while
//! the command runs its group is the foreground, as a shell makes a job's,
//! and fql's own group is again once it has ended.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
use nix::unistd::Pid;

/// fql's controlling terminal, whose foreground fql's group was.
pub struct Terminal {
    tty: OwnedFd,
    ours: Pid,
}

impl Terminal {
    /// The controlling terminal, if fql has one and its process group is
    /// the terminal's foreground: otherwise the command gets no terminal
    /// from fql, as fql had none to give.
    pub fn foreground() -> Option<Terminal> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(nix::libc::O_NOCTTY)
            .open("/dev/tty")
            .ok()?;
        let ours = nix::unistd::getpgrp();
        let foreground = nix::unistd::tcgetpgrp(&tty).ok()?;
        (foreground == ours).then(|| Terminal {
            tty: tty.into(),
            ours,
        })
    }

    /// The descriptor, for the command's side of the hand-over, made
    /// between fork and exec (it is closed on exec).
    pub fn raw(&self) -> RawFd {
        self.tty.as_raw_fd()
    }

    /// Makes `group` the foreground. The command's side does it too, so
    /// that whichever runs first, the command never reads from the
    /// background.
    pub fn give(&self, group: Pid) {
        set_foreground(self.tty.as_fd(), group);
    }

    /// Makes fql's group the foreground again, so that the shell or
    /// script that ran fql can read the terminal after it.
    pub fn take_back(&self) {
        set_foreground(self.tty.as_fd(), self.ours);
    }

    /// The command was stopped from the terminal (Ctrl-Z): fql takes the
    /// terminal back and stops too, so that the shell sees its job stopped
    /// and takes the terminal; when continued (`fg`), fql gives it back
    /// and continues the command. While fql is stopped it does not beat,
    /// so a stop longer than the staleness loses the mutex.
    pub fn suspend(&self, group: Pid) {
        self.take_back();
        let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGTSTP);
        self.give(group);
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGCONT);
    }
}

/// `tcsetpgrp` with SIGTTOU blocked in the calling thread: a process
/// outside the foreground group may then change it, where SIGTTOU would
/// otherwise stop it. Only async-signal-safe calls, so that the command's
/// side may make it between fork and exec.
pub fn set_foreground(tty: BorrowedFd<'_>, group: Pid) {
    let mut ttou = SigSet::empty();
    ttou.add(Signal::SIGTTOU);
    let mut old = SigSet::empty();
    let _ = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&ttou), Some(&mut old));
    let _ = nix::unistd::tcsetpgrp(tty, group);
    let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&old), None);
}
