//! Writing to standard output, and the width diagnostics wrap at.

use std::io::{self, Write};

use crate::error::CliError;

/// Writes to standard output, and stops the command if that fails: see
/// [`CliError::output`].
pub fn print(text: &str) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(CliError::output)
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
