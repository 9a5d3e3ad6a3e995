//! `fql status`: which database, does it answer, and may it be written.

use fql::kv::embedded::Access;
use fql::kv::{self, DatabaseExt, RetryOptions};

use crate::args::StoreArgs;
use crate::output::{self, Exit};
use crate::store;

pub fn run(args: &StoreArgs) -> Result<(), Exit> {
    let opened = store::open(args)?;
    let db = &opened.db;
    let retry = RetryOptions::default().with_timeout(opened.timeout);
    let version = db.run_with(retry, |tx, _| tx.read_version());
    let (version, _) = version.map_err(|e: kv::Error| {
        eprintln!("fql: {} did not answer: {e}", db.describe());
        match (&e, store::exit_of(&e)) {
            (kv::Error::Storage { .. }, _) => Exit::Usage,
            // A read version that fails otherwise did not come back.
            (_, Exit::Failed) => Exit::Unreachable,
            (_, exit) => exit,
        }
    })?;
    let mut report = format!("database: {}\nread version: {version}\n", db.describe());
    // Only a file can refuse writes.
    let access = opened.file.as_ref().map(|file| file.access());
    if let Some(access) = &access {
        let line = match access {
            Access::ReadWrite => "read-write".to_string(),
            Access::ReadOnly(why) => format!("read-only: {why}"),
            Access::Damaged(what) => format!("corrupt, so writes are refused: {what}"),
        };
        report.push_str(&format!("access: {line}\n"));
    }
    output::print(&report)?;
    match access {
        Some(Access::Damaged(_)) => Err(Exit::Usage),
        _ => Ok(()),
    }
}
