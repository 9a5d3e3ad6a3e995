//! `fql status`: which database, and does it answer.

use fql::kv::{self, DatabaseExt};

use crate::args::StoreArgs;
use crate::output::{self, Exit};
use crate::store;

pub fn run(args: &StoreArgs) -> Result<(), Exit> {
    let opened = store::open(args)?;
    let db = &opened.db;
    let version = db.run(|tx, _| tx.read_version()).map_err(|e: kv::Error| {
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
