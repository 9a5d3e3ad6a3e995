//! The cluster file of an embedded database: one line that names the file,
//! so that any FoundationDB client using fql's `libfdb_c` (the `fdb-c`
//! crate) reaches it as it would reach a cluster, through `-C`,
//! `FDB_CLUSTER_FILE` or `fdb.open(path)`.
//!
//! The line has the shape of FoundationDB's `description:ID@coordinators`
//! with the database's absolute path in place of the coordinators:
//!
//! ```text
//! fql:embedded@/home/ann/.local/share/fql/fql.db
//! ```
//!
//! The path is taken whole, to the end of the line, so it may hold any
//! character but a line break; a relative path is refused, since clients
//! read the file from wherever they run.

use std::path::{Path, PathBuf};

use crate::kv::{Error, Result};

/// What every line starts with.
const PREFIX: &str = "fql:embedded@";

/// The cluster file line that names the database at `path`, which must be
/// absolute and hold no line break.
pub fn cluster_line(path: &Path) -> Result<String> {
    let text = path.to_str().ok_or_else(|| {
        Error::storage(format!(
            "the database path {} is not UTF-8, so no cluster file can name it",
            path.display()
        ))
    })?;
    if !path.is_absolute() {
        return Err(Error::storage(format!(
            "the database path {text} is relative; a cluster file needs an absolute one"
        )));
    }
    if text.contains(['\n', '\r']) {
        return Err(Error::storage(format!(
            "the database path {} holds a line break, so no one-line cluster file can name it",
            text.escape_debug()
        )));
    }
    Ok(format!("{PREFIX}{text}"))
}

/// The database a cluster file's text names: its one line, without the
/// whitespace around it. `None` when the text is not such a line (a real
/// cluster's file, or anything else).
pub fn parse_cluster_line(text: &str) -> Option<PathBuf> {
    let line = text.trim();
    let path = line.strip_prefix(PREFIX)?;
    let path = Path::new(path);
    (!line.contains(['\n', '\r']) && path.is_absolute()).then(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_its_path_and_reads_back() {
        let path = Path::new("/data/a b/fql.db");
        let line = cluster_line(path).unwrap();
        assert_eq!(line, "fql:embedded@/data/a b/fql.db");
        assert_eq!(
            parse_cluster_line(&format!("  {line}\n")).as_deref(),
            Some(path)
        );
    }

    #[test]
    fn relative_paths_and_line_breaks_are_refused() {
        assert!(cluster_line(Path::new("x.db")).is_err());
        assert!(cluster_line(Path::new("/a\nb.db")).is_err());
        assert_eq!(parse_cluster_line("fql:embedded@x.db"), None);
        assert_eq!(parse_cluster_line("fql:embedded@/a\n/b"), None);
    }

    #[test]
    fn a_real_cluster_file_is_not_an_embedded_one() {
        assert_eq!(parse_cluster_line("docker:docker@127.0.0.1:4500\n"), None);
        assert_eq!(parse_cluster_line(""), None);
    }
}
