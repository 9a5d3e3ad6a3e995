//! How an `fql` process under test reaches a database file.
//!
//! By default with `--db PATH`. When `FQL_TEST_VIA_CLIENT` is set (by
//! tests/client, which runs the release `fql` with `FDB_CLIENT_LIB_PATH`
//! at fql's libfdb_c), with `-C` and a cluster file beside the database
//! that names it, so the same processes run through FoundationDB's client
//! API.

use std::ffi::OsString;
use std::path::Path;

/// Set to run through the client library.
pub const VIA_CLIENT: &str = "FQL_TEST_VIA_CLIENT";

/// The flags that select `db`, writing its cluster file when needed.
pub fn reach(db: &Path) -> Vec<OsString> {
    if std::env::var_os(VIA_CLIENT).is_none() {
        return vec!["--db".into(), db.into()];
    }
    let db = std::path::absolute(db).expect("an absolute database path");
    let mut cluster = db.clone().into_os_string();
    cluster.push(".cluster");
    let line = format!("fql:embedded@{}\n", db.display());
    // Processes started before read the file while this call runs: it is
    // written once, whole, by a rename.
    if std::fs::read_to_string(&cluster).ok().as_deref() != Some(line.as_str()) {
        let mut partial = cluster.clone();
        partial.push(format!(".{}", std::process::id()));
        std::fs::write(&partial, line).expect("a writable cluster file");
        std::fs::rename(&partial, &cluster).expect("the cluster file renamed into place");
    }
    vec!["-C".into(), cluster]
}

/// The same flags as shell words, for a command line run by `sh -c`.
pub fn reach_shell(db: &Path) -> String {
    reach(db)
        .iter()
        .map(|a| format!("'{}'", a.to_string_lossy().replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ")
}
