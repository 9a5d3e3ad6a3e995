//! What stops a command, and the one place it is written.
//!
//! Commands return a [`CliError`]; `main` hands it to [`report`] and exits
//! with its [`CliError::exit`]. The shell, which goes on after an error,
//! and a run that reports each failed transaction as it happens, call
//! [`report`] too, so every error reads the same wherever it comes from.
//! Neither [`report`] nor [`warn`] panics when standard error cannot be
//! written (`2>&-`, `2>/dev/full`): there is nowhere left to say so, and
//! the exit status still tells what happened.

use std::fmt::Display;
use std::io::{self, Write};
use std::process::ExitCode;

/// Why `fql` stops early, least serious first, so that the worst of
/// several is their `max`; all but a closed standard output with a
/// non-zero status. The codes are documented in `docs/cli.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// 0: standard output is a closed pipe (`fql ... | head`): the reader
    /// has all it wanted, so the command stops quietly, with the status
    /// of any failure before it.
    Closed,
    /// 1: a check found things not as required: `fmt --check` a file
    /// not in canonical form, a guard (`[absent]`, `[exists]`) the
    /// database.
    Unmet,
    /// 2: a bad flag or argument, a file that cannot be read, a write
    /// without `-w`.
    Usage,
    /// 3: the script does not parse or fails a static check.
    Invalid,
    /// 4: the script failed while running.
    Failed,
    /// 4: standard output could not be written (a full disk,
    /// `/dev/full`).
    Output,
    /// 5: the database cannot be reached or did not answer in time.
    Unreachable,
    /// 130: Ctrl-C stopped it (the shell's 128 + SIGINT).
    Interrupted,
    /// 75: `fql mutex run` lost the lock while its command ran, and
    /// stopped the command. Its own status, whatever the command then did:
    /// 143 or 137 would read as a command someone else signalled, and 0
    /// as work done under the lock. 75 is `EX_TEMPFAIL` of sysexits.h, "try
    /// again later": running again waits for the lock anew.
    Lost,
    /// The exit status of a command `fql mutex run` ran.
    Command(u8),
}

impl Exit {
    pub fn status(self) -> i32 {
        match self {
            Exit::Closed => 0,
            Exit::Unmet => 1,
            Exit::Usage => 2,
            Exit::Invalid => 3,
            Exit::Failed | Exit::Output => 4,
            Exit::Unreachable => 5,
            Exit::Interrupted => 130,
            Exit::Lost => 75,
            Exit::Command(code) => i32::from(code),
        }
    }

    pub fn code(self) -> ExitCode {
        ExitCode::from(self.status() as u8)
    }
}

/// Why a command stopped, with what to tell the user, if anything.
#[derive(Debug)]
pub enum CliError {
    /// Told already as it happened (the diagnostics of a script's
    /// transactions), or nothing to tell (a closed standard output):
    /// only the status is left.
    Told(Exit),
    /// A bad flag, argument or combination of them: status 2.
    Usage(String),
    /// A file that cannot be read or written: what was being done
    /// (`read`, `write to`, `rewrite`), the input as messages name it, and
    /// why: status 2.
    Io {
        doing: &'static str,
        name: String,
        error: io::Error,
    },
    /// The library's diagnostics, rendered against their sources.
    Diagnostics { text: String, exit: Exit },
    /// Any other failure: one message, or lines of it, and the status.
    Failed { message: String, exit: Exit },
    /// Standard output could not be written; a closed pipe is no error
    /// (see [`CliError::output`]).
    Output(io::Error),
}

impl CliError {
    /// A failure with status `exit` whose message is `message`.
    pub fn failed(exit: Exit, message: impl Into<String>) -> CliError {
        CliError::Failed {
            message: message.into(),
            exit,
        }
    }

    /// A failure told in several lines, each starting `fql: `.
    pub fn lines(exit: Exit, lines: impl IntoIterator<Item = String>) -> CliError {
        let lines: Vec<String> = lines.into_iter().collect();
        CliError::failed(exit, lines.join("\nfql: "))
    }

    /// The directory at `path` does not exist, worded as the directory
    /// layer words it, whichever command found it missing.
    pub fn missing_directory(exit: Exit, path: &[String]) -> CliError {
        let shown = fql::directory::show(path);
        CliError::failed(exit, format!("directory {shown} does not exist"))
    }

    /// Ctrl-C stopped the work, and what was not committed was rolled
    /// back: status 130.
    pub fn interrupted() -> CliError {
        CliError::failed(
            Exit::Interrupted,
            "interrupted; the open transaction was rolled back",
        )
    }

    /// Diagnostics rendered for a script that does not parse or check:
    /// status 3.
    pub fn invalid(text: String) -> CliError {
        CliError::Diagnostics {
            text,
            exit: Exit::Invalid,
        }
    }

    /// What a failed write to standard output means for the command. A
    /// closed pipe (`fql ... | head`) is not an error: the reader has all
    /// it wanted, so the command stops quietly ([`Exit::Closed`], status
    /// 0). Any other error (a full disk, `/dev/full`) loses output the
    /// user asked for, so it is reported and the command fails (status 4).
    pub fn output(e: io::Error) -> CliError {
        if e.kind() == io::ErrorKind::BrokenPipe {
            CliError::Told(Exit::Closed)
        } else {
            CliError::Output(e)
        }
    }

    /// The exit status this error ends `fql` with.
    pub fn exit(&self) -> Exit {
        match self {
            CliError::Told(exit)
            | CliError::Diagnostics { exit, .. }
            | CliError::Failed { exit, .. } => *exit,
            CliError::Usage(_) | CliError::Io { .. } => Exit::Usage,
            CliError::Output(_) => Exit::Output,
        }
    }

    /// The text standard error gets, empty when there is nothing to tell.
    pub fn render(&self) -> String {
        match self {
            CliError::Told(_) => String::new(),
            CliError::Usage(message) | CliError::Failed { message, .. } => {
                format!("fql: {message}\n")
            }
            CliError::Io { doing, name, error } => {
                format!("fql: cannot {doing} {name}: {}\n", io_reason(error))
            }
            CliError::Diagnostics { text, .. } => text.clone(),
            CliError::Output(e) => format!("fql: cannot write to standard output: {e}\n"),
        }
    }

    /// This error, told now, for a caller that goes on and returns only
    /// the status later.
    pub fn tell(self) -> Exit {
        report(&self);
        self.exit()
    }
}

/// A status alone: whatever there was to say is said.
impl From<Exit> for CliError {
    fn from(exit: Exit) -> CliError {
        CliError::Told(exit)
    }
}

/// Writes `error` to standard error: the one way errors reach the user.
pub fn report(error: &CliError) {
    write_stderr(&error.render());
}

/// A line for the user on standard error that is no error: a note, a
/// warning, the shell's answers. Like [`report`], it never panics.
pub fn warn(line: impl Display) {
    write_stderr(&format!("{line}\n"));
}

/// Writes `text` to standard error, ignoring a failure: nothing is left
/// to tell it to.
fn write_stderr(text: &str) {
    if text.is_empty() {
        return;
    }
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// The OS error without Rust's "(os error 2)" suffix.
pub fn io_reason(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(n) => text[..n].to_string(),
        None => text,
    }
}
