//! Starting the command: found and executable as a shell would find it,
//! in a process group of its own, bound to fql's life, with the terminal.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{BorrowedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

use nix::libc;
use nix::sys::signal::Signal;
use nix::unistd::Pid;

use crate::error::{CliError, Exit};

/// The shell's status for a command that was not found.
const NOT_FOUND: u8 = 127;
/// The shell's status for a command found but not executable.
const NOT_EXECUTABLE: u8 = 126;

/// Looks for `program` as the command will be looked for: a name with a
/// slash as it is, any other in `PATH`. Made before waiting in line, so a
/// mistyped command neither waits for the mutex nor takes it from others.
pub fn check(program: &str) -> Result<(), CliError> {
    let candidates: Vec<PathBuf> = if program.contains('/') {
        vec![program.into()]
    } else {
        let path = std::env::var_os("PATH").unwrap_or_else(|| "/bin:/usr/bin".into());
        path.as_bytes()
            .split(|&b| b == b':')
            .map(|dir| match dir {
                b"" => PathBuf::from(".").join(program),
                dir => PathBuf::from(OsStr::from_bytes(dir)).join(program),
            })
            .collect()
    };
    let mut found = false;
    for candidate in candidates {
        let Ok(meta) = std::fs::metadata(&candidate) else {
            continue;
        };
        found = true;
        if meta.is_file() && meta.permissions().mode() & 0o111 != 0 {
            return Ok(());
        }
    }
    Err(cannot_run(program, found))
}

fn cannot_run(program: &str, found: bool) -> CliError {
    let shown = fql::syntax::plain_or_quoted(program);
    if found {
        CliError::failed(
            Exit::Command(NOT_EXECUTABLE),
            format!("cannot run {shown}: not an executable file; the command did not run"),
        )
    } else {
        CliError::failed(
            Exit::Command(NOT_FOUND),
            format!("{shown}: command not found; the command did not run"),
        )
    }
}

/// Starts `argv` with `env` in a process group of its own, whose leader
/// it is; with `tty`, that group becomes the terminal's foreground. Must
/// be called from a thread that lives as long as fql (the main thread):
/// on Linux the command gets SIGKILL when the thread that started it ends.
#[allow(unsafe_code)]
pub fn spawn(argv: &[String], env: &[(&str, String)], tty: Option<RawFd>) -> Result<Pid, CliError> {
    let mut command = Command::new(&argv[0]);
    command.args(&argv[1..]).process_group(0);
    for (name, value) in env {
        command.env(name, value);
    }
    let parent = nix::unistd::getpid();
    // SAFETY: `in_child` makes only async-signal-safe calls, and the
    // terminal's descriptor is open until exec: `tty` is borrowed from the
    // caller's `Terminal`, which outlives the spawn.
    unsafe {
        command.pre_exec(move || in_child(parent, tty.map(|fd| BorrowedFd::borrow_raw(fd))));
    }
    match command.spawn() {
        Ok(child) => Ok(Pid::from_raw(child.id() as libc::pid_t)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(cannot_run(&argv[0], false)),
        Err(e) => {
            let shown = fql::syntax::plain_or_quoted(&argv[0]);
            Err(CliError::failed(
                Exit::Command(NOT_EXECUTABLE),
                format!("cannot run {shown}: {e}; the command did not run"),
            ))
        }
    }
}

/// The command's side, between fork and exec: dies with fql (Linux's
/// parent-death signal; if fql died before it was set, at once), and
/// takes the terminal's foreground.
fn in_child(parent: Pid, tty: Option<BorrowedFd<'_>>) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)?;
        if nix::unistd::getppid() != parent {
            nix::sys::signal::raise(Signal::SIGKILL)?;
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = parent;
    if let Some(tty) = tty {
        super::terminal::set_foreground(tty, nix::unistd::getpid());
    }
    Ok(())
}
