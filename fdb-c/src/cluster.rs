//! Cluster files: how a client names the database it opens.
//!
//! An FDB cluster file holds one connection string,
//! `description:ID@coordinators`. For this library it is
//! `fql:embedded@<absolute path of the database file>`: description `fql`,
//! ID `embedded`, and the file in place of the coordinators (`fql --db
//! PATH cluster-file` prints it). Whitespace around it, a final newline
//! included, is ignored. Any other string is `connection_string_invalid`.
//!
//! With no path, the file is found as FDB finds it: `FDB_CLUSTER_FILE`
//! (and nothing else when it is set), else `fdb.cluster` in the current
//! directory, else `/etc/foundationdb/fdb.cluster`.

use std::path::{Path, PathBuf};

use crate::errors::{CONNECTION_STRING_INVALID, Code, NO_CLUSTER_FILE_FOUND};

/// The longest cluster file read, as FDB's limit.
const MAX_CLUSTER_FILE_BYTES: u64 = 60_000;

/// FDB's default cluster file on Linux.
const DEFAULT_CLUSTER_FILE: &str = "/etc/foundationdb/fdb.cluster";

/// The database file a connection string names: fql's own reading of the
/// line (`fql::kv::embedded::parse_cluster_line`), which `fql
/// cluster-file` writes.
pub fn parse(connection_string: &str) -> Result<PathBuf, Code> {
    fql::kv::embedded::parse_cluster_line(connection_string).ok_or(CONNECTION_STRING_INVALID)
}

/// The cluster file to read for `given` (`None` or empty: the default).
pub fn locate(given: Option<&str>) -> PathBuf {
    if let Some(path) = given.filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    if let Some(path) = std::env::var_os("FDB_CLUSTER_FILE") {
        return PathBuf::from(path);
    }
    let local = Path::new("fdb.cluster");
    if local.is_file() {
        return local.to_path_buf();
    }
    PathBuf::from(DEFAULT_CLUSTER_FILE)
}

/// The connection string in the cluster file `path`.
pub fn read(path: &Path) -> Result<String, Code> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|_| NO_CLUSTER_FILE_FOUND)?;
    let mut text = String::new();
    file.take(MAX_CLUSTER_FILE_BYTES)
        .read_to_string(&mut text)
        .map_err(|_| CONNECTION_STRING_INVALID)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_an_absolute_path_and_nothing_else_parses() {
        assert_eq!(
            parse("  fql:embedded@/tmp/x.db\n").unwrap(),
            PathBuf::from("/tmp/x.db")
        );
        assert_eq!(parse("fql:embedded@/a@b").unwrap(), PathBuf::from("/a@b"));
        for bad in [
            "",
            "fql:embedded@",
            "fql:embedded@relative.db",
            "abc:xyz@127.0.0.1:4500",
            "fql:other@/tmp/x.db",
        ] {
            assert_eq!(parse(bad), Err(CONNECTION_STRING_INVALID), "{bad:?}");
        }
    }
}
