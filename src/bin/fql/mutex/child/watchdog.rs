//! The command's process group must not outlive fql, even when fql is
//! killed with SIGKILL and cannot stop it: the parent-death signal ends
//! the command itself, but not what it started. A small process forked
//! from fql holds the read end of a pipe whose only write end fql holds;
//! when fql dies the pipe reads end-of-file, and the watchdog kills the
//! whole group and ends. When the command has ended and fql has stopped
//! its group, fql writes a byte and the watchdog ends without killing.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use nix::libc;
use nix::unistd::{ForkResult, Pid};

/// A running watchdog of one process group.
pub struct Watchdog {
    write: OwnedFd,
    pid: Pid,
}

impl Watchdog {
    /// Forks a watchdog of `group`; `None` if it cannot be made, and the
    /// group is then only as safe as the command's parent-death signal.
    #[allow(unsafe_code)]
    pub fn start(group: Pid) -> Option<Watchdog> {
        let (read, write) = nix::unistd::pipe().ok()?;
        // Closed on exec: no command fql starts later holds the pipe open.
        for fd in [&read, &write] {
            fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).ok()?;
        }
        let (read_fd, write_fd) = (read.as_raw_fd(), write.as_raw_fd());
        // SAFETY: the child makes only async-signal-safe calls (`watch`).
        match unsafe { nix::unistd::fork() }.ok()? {
            ForkResult::Child => unsafe { watch(read_fd, write_fd, group.as_raw()) },
            ForkResult::Parent { child } => Some(Watchdog { write, pid: child }),
        }
    }

    /// The group is stopped: the watchdog ends without killing anything.
    pub fn disarm(self) {
        let _ = nix::unistd::write(&self.write, b"x");
        drop(self.write);
        let _ = nix::sys::wait::waitpid(self.pid, None);
    }
}

/// The watchdog's life, in a fork of a process with threads: only
/// async-signal-safe calls, no allocation. It leaves fql's process group
/// (a kill of fql's job leaves it to do its work), takes the default
/// action for the signals fql catches, holds no descriptor but the pipe,
/// and waits.
#[allow(unsafe_code)]
unsafe fn watch(read_fd: RawFd, write_fd: RawFd, group: libc::pid_t) -> ! {
    // SAFETY: plain system calls on plain values.
    unsafe {
        libc::close(write_fd);
        libc::setpgid(0, 0);
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaction(signal, &default, std::ptr::null_mut());
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        for fd in 0..3 {
            libc::dup2(null, fd);
        }
        libc::dup2(read_fd, 3);
        close_from(4);
        let mut byte = 0u8;
        loop {
            match libc::read(3, (&raw mut byte).cast(), 1) {
                1 => libc::_exit(0),
                -1 if nix::errno::Errno::last() == nix::errno::Errno::EINTR => continue,
                _ => {
                    libc::kill(-group, libc::SIGKILL);
                    libc::_exit(0)
                }
            }
        }
    }
}

/// Closes every descriptor from `first` on.
#[allow(unsafe_code)]
unsafe fn close_from(first: libc::c_int) {
    // SAFETY: plain system calls on plain values.
    unsafe {
        #[cfg(target_os = "linux")]
        if libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, 0) == 0 {
            return;
        }
        let max = libc::sysconf(libc::_SC_OPEN_MAX).clamp(0, 65_536) as libc::c_int;
        for fd in first..max {
            libc::close(fd);
        }
    }
}
