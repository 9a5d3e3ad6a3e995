//! `fql status`: which database, and does it answer.

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
        match e {
            kv::Error::Storage(_) => Exit::Usage,
            _ => Exit::Unreachable,
        }
    })?;
    output::print(&format!(
        "database: {}\nread version: {version}\n",
        db.describe()
    ))
}
