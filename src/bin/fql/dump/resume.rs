//! The resume point of a load: a file beside the dump, FILE.resume,
//! that names the last line committed, rewritten after each commit and
//! removed when the load is done.
//!
//! It is written after the commit it records, so a load that dies in
//! between resumes a transaction early and writes that transaction's sets
//! again, the same bytes; it never skips one that did not commit.

use std::cell::Cell;
use std::ffi::OsString;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use fql::dump::{Checked, LoadOptions};

use crate::error::{CliError, io_reason};

pub struct Point {
    path: PathBuf,
    /// The dump and the targets it is for, as the file's further lines.
    identity: String,
    warned: Cell<bool>,
}

impl Point {
    pub fn new(file: &Path, options: &LoadOptions, checked: Option<&Checked>) -> Point {
        let mut path = OsString::from(file.as_os_str());
        path.push(".resume");
        let roots = checked.map(|c| c.roots.clone()).unwrap_or_default();
        let targets: Vec<String> = match &options.to {
            Some(to) => vec![fql::directory::show(to)],
            None => roots.iter().map(|r| fql::directory::show(r)).collect(),
        };
        let version = checked
            .and_then(|c| c.versions.first())
            .map_or("none".to_string(), u64::to_string);
        Point {
            path: path.into(),
            identity: format!("dump read at {version}\nto {}\n", targets.join(", ")),
            warned: Cell::new(false),
        }
    }

    fn shown(&self) -> String {
        fql::syntax::printable(&self.path.display().to_string()).into_owned()
    }

    /// The last line an earlier load of this dump into these targets
    /// committed.
    pub fn recorded(&self, name: &str) -> Result<u64, CliError> {
        let text = std::fs::read_to_string(&self.path).map_err(|e| {
            CliError::Usage(format!(
                "--resume: {name} has no resume point: {}: {}",
                self.shown(),
                io_reason(&e)
            ))
        })?;
        let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
        let line = first.strip_prefix("line ").and_then(|n| n.parse().ok());
        match line {
            Some(line) if rest == self.identity => Ok(line),
            _ => Err(CliError::Usage(format!(
                "--resume: {} is not the resume point of this dump into these \
                     directories (it says: {})",
                self.shown(),
                fql::syntax::printable(rest.trim_end()).replace('\n', "; ")
            ))),
        }
    }

    /// Records `line` as committed; a point that cannot be written is
    /// said once, and the load goes on.
    pub fn record(&self, line: u64) {
        let mut partial = OsString::from(self.path.as_os_str());
        partial.push(".partial");
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&partial)
            .and_then(|mut f| write!(f, "line {line}\n{}", self.identity))
            .and_then(|()| std::fs::rename(&partial, &self.path));
        if let Err(e) = written
            && !self.warned.replace(true)
        {
            crate::error::warn(format_args!(
                "fql: cannot record the resume point in {}: {}; a load that stops \
                 must start again (with --force)",
                self.shown(),
                io_reason(&e)
            ));
        }
    }

    /// Removes the point of a load that is done.
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
