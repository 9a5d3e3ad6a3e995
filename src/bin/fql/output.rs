//! Exit codes and writing to standard output.

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
    /// `/dev/full`); the message is printed already.
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

/// Writes to standard output, and stops the command if that fails: see
/// [`write_failed`].
pub fn print(text: &str) -> Result<(), Exit> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| write_failed(&e))
}

/// What a failed write to standard output means for the command. A closed
/// pipe (`fql ... | head`) is not an error: the reader has all it wanted,
/// so the command stops quietly ([`Exit::Closed`], status 0). Any other
/// error (a full disk, `/dev/full`) loses output the user asked for, so
/// it is reported and the command fails ([`Exit::Output`], status 4).
pub fn write_failed(e: &io::Error) -> Exit {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Exit::Closed
    } else {
        eprintln!("fql: cannot write to standard output: {e}");
        Exit::Output
    }
}

/// The width diagnostics wrap at: `COLUMNS` when set, else the width of
/// the terminal standard error is, else 80. A width under 40 is passed
/// over, as too narrow for a report.
pub fn width() -> usize {
    let wide = |w: &usize| *w >= 40;
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
    let terminal = || terminal_size::terminal_size_of(io::stderr()).map(|(w, _)| usize::from(w.0));
    columns
        .filter(wide)
        .or_else(|| terminal().filter(wide))
        .unwrap_or(80)
}

/// The client library in one line: its file and what it says its version
/// is (`fdb_get_client_version`), for `--version` and `fql status`; a path
/// with control characters in it shows them escaped.
pub fn describe_client(client: &fql::kv::fdb::ClientLibrary) -> String {
    let path = client.path().display().to_string();
    format!(
        "{}, version {}",
        fql::syntax::printable(&path),
        fql::syntax::printable(client.version())
    )
}
