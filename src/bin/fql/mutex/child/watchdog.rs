//! The command's process group must not outlive fql, even when fql is
//! killed with SIGKILL and cannot stop it: the parent-death signal ends
//! the command itself, but not what it started. A small process forked
//! from fql holds the read end of a pipe whose only write end fql holds,
//! through which fql tells it the group once the command has started;
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
    /// Forks a watchdog, before the command starts: forked after, it
    /// would leave a moment in which fql could die with the command
    /// running and nobody to kill its group. `None` if it cannot be made,
    /// and the group is then only as safe as the command's parent-death
    /// signal.
    #[allow(unsafe_code)]
    pub fn start() -> Option<Watchdog> {
        let (read, write) = nix::unistd::pipe().ok()?;
        // Closed on exec: no command fql starts holds the pipe open.
        for fd in [&read, &write] {
            fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).ok()?;
        }
        let (read_fd, write_fd) = (read.as_raw_fd(), write.as_raw_fd());
        // SAFETY: the child makes only async-signal-safe calls (`watch`).
        match unsafe { nix::unistd::fork() }.ok()? {
            ForkResult::Child => unsafe { watch(read_fd, write_fd) },
            ForkResult::Parent { child } => Some(Watchdog { write, pid: child }),
        }
    }

    /// Tells the watchdog the command's group, as soon as it exists.
    pub fn arm(&self, group: Pid) {
        let _ = nix::unistd::write(&self.write, &group.as_raw().to_ne_bytes());
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
/// reads the group, and waits.
#[allow(unsafe_code)]
unsafe fn watch(read_fd: RawFd, write_fd: RawFd) -> ! {
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
        let mut group = [0u8; 4];
        if read_all(&mut group) != group.len() {
            // fql ended before the command started.
            libc::_exit(0);
        }
        let mut byte = [0u8; 1];
        if read_all(&mut byte) == 0 {
            libc::kill(-libc::pid_t::from_ne_bytes(group), libc::SIGKILL);
        }
        libc::_exit(0)
    }
}

/// Reads `buf` whole from descriptor 3, unless the pipe ends first: the
/// bytes read.
#[allow(unsafe_code)]
unsafe fn read_all(buf: &mut [u8]) -> usize {
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: a read into the unread rest of `buf`.
        match unsafe { libc::read(3, buf[got..].as_mut_ptr().cast(), buf.len() - got) } {
            n if n > 0 => got += n as usize,
            -1 if nix::errno::Errno::last() == nix::errno::Errno::EINTR => continue,
            _ => break,
        }
    }
    got
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
