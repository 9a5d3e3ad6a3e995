//! Exit codes and writing to standard output.

use std::io::{self, Write};
use std::process::ExitCode;

/// Why `fql` stops with a non-zero status, least serious first. The codes
/// are documented in `docs/cli.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
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
    /// 5: the database cannot be reached or did not answer in time.
    Unreachable,
    /// 130: Ctrl-C stopped it (the shell's 128 + SIGINT).
    Interrupted,
    /// The exit status of a command `fql mutex run` ran.
    Command(u8),
}

impl Exit {
    pub fn status(self) -> i32 {
        match self {
            Exit::Unmet => 1,
            Exit::Usage => 2,
            Exit::Invalid => 3,
            Exit::Failed => 4,
            Exit::Unreachable => 5,
            Exit::Interrupted => 130,
            Exit::Command(code) => i32::from(code),
        }
    }

    pub fn code(self) -> ExitCode {
        ExitCode::from(self.status() as u8)
    }
}

/// Writes to standard output. A closed pipe (`fql ... | head`) is not an
/// error: the reader has all it wanted, so the command stops quietly.
pub fn print(text: &str) -> Result<(), Exit> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            eprintln!("fql: cannot write to standard output: {e}");
            Err(Exit::Usage)
        }
    }
}

/// The terminal width for diagnostics, or 80.
pub fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&w: &usize| w >= 40)
        .unwrap_or(80)
}
