//! `fql cluster-file`: the one line that points FoundationDB clients at the
//! embedded database, through fql's libfdb_c.

use fql::kv::embedded::cluster_line;

use crate::args::StoreArgs;
use crate::error::CliError;
use crate::output;
use crate::store;

pub fn run(args: &StoreArgs) -> Result<(), CliError> {
    let path = store::file_path(args)?;
    let absolute = std::path::absolute(&path)
        .map_err(|e| CliError::Usage(format!("cannot make {} absolute: {e}", path.display())))?;
    let line = cluster_line(&absolute).map_err(|e| CliError::Usage(e.to_string()))?;
    // Opening creates a missing database and refuses a file that is not
    // one, so the line printed names a database that works.
    store::open(args)?;
    output::print(&format!("{line}\n"))
}
