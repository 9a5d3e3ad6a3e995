//! `fql mutex break DIR -w`: a fenced force-release, for operators.

use std::sync::Arc;
use std::time::Duration;

use fql::kv::Database;
use fql::syntax::plain_or_quoted;
use serde_json::json;

use crate::args::Format;
use crate::error::{CliError, Exit};

/// Breaks the mutex in `dir` and prints what it did: who held it, the new
/// token, and who holds it now. Needs -w/--write; a directory that does
/// not exist exits 1 and is not made.
pub fn run(
    db: &Arc<dyn Database>,
    dir: &[String],
    timeout: Duration,
    format: Format,
    write: bool,
) -> Result<(), CliError> {
    if !write {
        return Err(CliError::Usage(
            "mutex break writes; pass -w/--write to allow writes".to_string(),
        ));
    }
    let engine = fql::exec::Engine::new(db.clone()).timeout(timeout);
    let Some(broken) = fql::lock::mutex::break_mutex(&engine, dir).map_err(super::failed)? else {
        return Err(CliError::missing_directory(Exit::Unmet, dir));
    };
    let report = match format {
        Format::Text => {
            let name = |n: &Option<String>, none: &str| {
                n.as_deref()
                    .map_or(none.to_string(), |n| plain_or_quoted(n).into_owned())
            };
            format!(
                "previous owner: {}\ntoken: {}\nowner: {}\n",
                name(&broken.previous, "none (free)"),
                broken.token,
                name(&broken.owner, "none (free)"),
            )
        }
        Format::Json | Format::Jsonl => {
            let shown = json!({
                "path": dir,
                "previous_owner": broken.previous,
                "token": broken.token.to_string(),
                "owner": broken.owner,
            });
            format!("{}\n", fql::exec::json::to_string(&shown))
        }
    };
    crate::output::print(&report)
}
