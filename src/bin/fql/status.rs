//! `fql status`: which database, does it answer, and may it be written.

use fql::kv::embedded::Access;
use fql::kv::fdb::ClientLibrary;
use fql::kv::{self, DatabaseExt, RetryOptions};

use crate::args::{Format, StoreArgs};
use crate::error::{CliError, Exit};
use crate::output;
use crate::store::{self, Missing};

/// What `fql status` found out.
struct Status {
    /// The database, as it describes itself.
    database: String,
    read_version: u64,
    /// Whether a database file takes writes; a cluster does not say.
    access: Option<Access>,
    /// The FoundationDB client library, for a cluster.
    client: Option<&'static ClientLibrary>,
}

pub fn run(args: &StoreArgs, format: Option<Format>) -> Result<(), CliError> {
    // Asking about a database is no reason to create one.
    let opened = store::open_as(args, Missing::Refuse)?;
    let db = &opened.db;
    let retry = RetryOptions::default().with_timeout(opened.timeout);
    let version = db.run_with(retry, |tx, _| tx.read_version());
    let (read_version, _) = version.map_err(|e: kv::Error| {
        let exit = match (&e, store::exit_of(&e)) {
            (kv::Error::Storage { .. }, _) => Exit::Usage,
            // A read version that fails otherwise did not come back.
            (_, Exit::Failed) => Exit::Unreachable,
            (_, exit) => exit,
        };
        CliError::failed(exit, format!("{} did not answer: {e}", db.describe()))
    })?;
    let status = Status {
        database: db.describe(),
        read_version,
        // Only a file can refuse writes.
        access: opened.file.as_ref().map(|file| file.access()),
        client: opened.client,
    };
    let report = match format.unwrap_or_default() {
        Format::Text => status.text(),
        Format::Json | Format::Jsonl => format!("{}\n", status.json()),
    };
    output::print(&report)?;
    match status.access {
        Some(Access::Damaged(_)) => Err(Exit::Usage.into()),
        _ => Ok(()),
    }
}

impl Status {
    fn text(&self) -> String {
        let mut report = format!(
            "database: {}\nread version: {}\n",
            self.database, self.read_version
        );
        if let Some(access) = &self.access {
            let line = match access {
                Access::ReadWrite => "read-write".to_string(),
                Access::ReadOnly(why) => format!("read-only: {why}"),
                Access::Damaged(what) => format!("corrupt, so writes are refused: {what}"),
            };
            report.push_str(&format!("access: {line}\n"));
        }
        if let Some(client) = self.client {
            let line = crate::output::describe_client(client);
            report.push_str(&format!("client library: {line}\n"));
        }
        report
    }

    /// The same facts as one JSON object: `access` is `read-write`,
    /// `read-only` or `corrupt`, and `detail` says why when it is not
    /// `read-write`; both are left out for a cluster, which has `client`
    /// instead: the library's `path` and `version`.
    fn json(&self) -> String {
        let mut object = serde_json::json!({
            "database": self.database,
            "read_version": self.read_version,
        });
        let access = match &self.access {
            None => None,
            Some(Access::ReadWrite) => Some(("read-write", None)),
            Some(Access::ReadOnly(why)) => Some(("read-only", Some(why))),
            Some(Access::Damaged(what)) => Some(("corrupt", Some(what))),
        };
        if let Some((access, detail)) = access {
            object["access"] = access.into();
            if let Some(detail) = detail {
                object["detail"] = detail.as_str().into();
            }
        }
        if let Some(client) = self.client {
            object["client"] = serde_json::json!({
                "path": client.path().to_string_lossy(),
                "version": client.version(),
            });
        }
        fql::exec::json::to_string(&object)
    }
}
