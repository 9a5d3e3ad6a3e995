//! Where fql keeps its files by default, in the user's XDG base
//! directories (etcetera's XDG strategy, on every Unix).
//!
//! Only absolute paths count: as the XDG Base Directory specification
//! says, a relative `XDG_DATA_HOME` or `XDG_STATE_HOME` is ignored, and so
//! is a relative `HOME`, so that no default depends on the current
//! directory. With no `HOME` at all, the home directory is the user's
//! entry in the password database.

use std::path::PathBuf;

use etcetera::BaseStrategy;
use etcetera::base_strategy::Xdg;

/// The embedded database file: `fql/fql.db` in the data directory
/// (`$XDG_DATA_HOME`, else `~/.local/share`); `None` when there is no
/// absolute one.
pub fn database() -> Option<PathBuf> {
    let dir = Xdg::new().ok()?.data_dir();
    absolute(dir.join("fql").join("fql.db"))
}

/// The shell's history: `FQL_HISTORY`, else `fql/history` in the state
/// directory (`$XDG_STATE_HOME`, else `~/.local/state`); `None` when
/// there is no absolute one.
pub fn history() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("FQL_HISTORY").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let dir = Xdg::new().ok()?.state_dir()?;
    absolute(dir.join("fql").join("history"))
}

/// The path, if it does not depend on the current directory (a relative
/// `HOME` gives a relative default).
fn absolute(path: PathBuf) -> Option<PathBuf> {
    path.is_absolute().then_some(path)
}
