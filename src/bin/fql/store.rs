//! Opening the database the flags and the environment select.
//!
//! `--memory` and `--db` pick the embedded store; `-C`, `--fdb` or a set
//! `FDB_CLUSTER_FILE` pick FoundationDB; otherwise the embedded file in the
//! user's data directory. FoundationDB's client library is loaded only for
//! a cluster, so the embedded store never needs it; when it cannot be
//! loaded, fql says what it searched and what to install, and exits 2.
//!
//! Directories fql creates for a database file are private (0700), as the
//! XDG Base Directory specification asks; existing ones are left as they
//! are.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use fql::kv::embedded::{Access, Embedded, OpenOptions};
use fql::kv::faults::{self, FaultPlan, Faulty};
use fql::kv::fdb::ClientLibrary;
use fql::kv::{self, Database};

use crate::args::StoreArgs;
use crate::error::{CliError, Exit};

/// The database, and the FDB client network when it is a cluster.
pub struct Opened {
    pub db: Box<dyn Database>,
    /// The same database when it is an embedded file, for what only a
    /// file can say (whether it refuses writes).
    pub file: Option<Embedded>,
    /// `--timeout`: the deadline of every transaction's retry loop, on
    /// every backend.
    pub timeout: Duration,
    /// The FoundationDB client library, when the database is a cluster.
    pub client: Option<&'static ClientLibrary>,
    // Dropped after `db`, so the network outlives the database.
    _network: Option<fql::kv::fdb::Network>,
}

/// What the flags ask for.
enum Choice {
    Memory,
    File(PathBuf),
    Cluster(Option<PathBuf>),
}

fn choose(args: &StoreArgs) -> Result<Choice, CliError> {
    if args.memory {
        return Ok(Choice::Memory);
    }
    if let Some(path) = &args.db {
        return Ok(Choice::File(path.clone()));
    }
    if args.cluster_file.is_some() || args.fdb {
        return Ok(Choice::Cluster(args.cluster_file.clone()));
    }
    if let Some(path) = fql::kv::cluster_file_from_env() {
        if args.read_only {
            return Err(CliError::Usage("--read-only applies to the embedded database, but FDB_CLUSTER_FILE selects FoundationDB; add --db PATH".to_string()));
        }
        return Ok(Choice::Cluster(Some(path)));
    }
    match crate::paths::database() {
        Some(path) => Ok(Choice::File(path)),
        None => {
                        Err(CliError::Usage("there is no default database: neither XDG_DATA_HOME nor HOME is set to an absolute path; give one with --db PATH, or use --memory".to_string()))
        }
    }
}

/// The embedded database file the flags select, for commands that only
/// make sense for one (`fql cluster-file`); says why when they select
/// memory or a cluster.
pub fn file_path(args: &StoreArgs) -> Result<PathBuf, CliError> {
    match choose(args)? {
        Choice::File(path) => Ok(path),
        Choice::Memory => {
                        Err(CliError::Usage("an in-memory database lives only as long as its process; give --db PATH".to_string()))
        }
        Choice::Cluster(_) => {
                        Err(CliError::Usage("-C, --fdb or FDB_CLUSTER_FILE select a FoundationDB cluster, which has its cluster file already; give --db PATH for an embedded database".to_string()))
        }
    }
}

/// Whether opening a database file that is missing creates it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// Create it: the commands that may write (queries, the shell, the
    /// mutex's operations, `cluster-file`).
    Create,
    /// Refuse it: the commands that only read (`validate`, `infer`,
    /// `status`, `mutex show`), for which a new empty file would only
    /// hide a mistyped `--db`.
    Refuse,
}

/// Opens the database, creating a missing database file.
pub fn open(args: &StoreArgs) -> Result<Opened, CliError> {
    open_as(args, Missing::Create)
}

/// Opens the database the flags select; a missing database file is
/// created or refused as `missing` says.
pub fn open_as(args: &StoreArgs, missing: Missing) -> Result<Opened, CliError> {
    let timeout = timeout(args.timeout)?;
    let faults = faults()?;
    let (db, file): (Box<dyn Database>, _) = match choose(args)? {
        Choice::Memory => (Box::new(Embedded::memory()), None),
        Choice::File(path) => {
            if missing == Missing::Refuse {
                exists(&path)?;
            }
            let db = open_file(&path, args.read_only, timeout)?;
            (Box::new(db.clone()), Some(db))
        }
        // fql's libfdb_c reads the plan itself; FoundationDB's would not.
        Choice::Cluster(path) if faults.is_some() && !names_embedded(path.as_deref()) => {
            return Err(CliError::Usage(format!(
                "{} injects faults into the embedded database only (directly, or through a cluster file `fql cluster-file` wrote); unset it to use FoundationDB",
                faults::ENV
            )));
        }
        Choice::Cluster(path) => return open_cluster(path.as_deref(), timeout),
    };
    let db = match faults {
        Some(plan) => Box::new(Faulty::new(db, plan)),
        None => db,
    };
    Ok(Opened {
        db,
        file,
        timeout,
        client: None,
        _network: None,
    })
}

/// Whether the cluster file `-C` or the environment selects names an
/// embedded database (one only fql's `libfdb_c` opens, which injects
/// `FQL_FAULTS` itself).
fn names_embedded(path: Option<&Path>) -> bool {
    let file = path
        .map(Path::to_path_buf)
        .or_else(kv::cluster_file_from_env)
        .unwrap_or_else(|| PathBuf::from("fdb.cluster"));
    std::fs::read_to_string(file)
        .is_ok_and(|text| kv::embedded::parse_cluster_line(&text).is_some())
}

/// The fault plan of `FQL_FAULTS`, if it is set (see
/// [`fql::kv::faults`]); a plan that cannot be read is a usage error.
fn faults() -> Result<Option<FaultPlan>, CliError> {
    FaultPlan::from_env().map_err(|e| CliError::Usage(e.to_string()))
}

/// The exit status of a transaction error: 5 when it ran out of
/// `--timeout` (`transaction_timed_out`, 1031), as for a database that
/// cannot be reached; 2 when the database refused (a write to a read-only
/// or damaged file), as for one that cannot be opened; else 4.
pub fn exit_of(e: &kv::Error) -> Exit {
    match e {
        kv::Error::ReadOnly(_) | kv::Error::Corrupt(_) => Exit::Usage,
        e if e.code() == 1031 => Exit::Unreachable,
        _ => Exit::Failed,
    }
}

/// `--timeout` as a duration: a positive number of seconds.
fn timeout(seconds: f64) -> Result<Duration, CliError> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| {
            CliError::Usage(format!(
                "--timeout must be a positive number of seconds, not {seconds}"
            ))
        })
}

fn open_file(path: &Path, read_only: bool, timeout: Duration) -> Result<Embedded, CliError> {
    if !read_only {
        make_dirs(path)?;
    }
    let options = OpenOptions {
        read_only,
        timeout,
        ..OpenOptions::default()
    };
    let db = Embedded::open_with(path, &options).map_err(|e| {
        let message = match &e {
            kv::Error::Storage { message, .. } => message.clone(),
            e => e.to_string(),
        };
        let exit = match e {
            kv::Error::Locked { .. } => Exit::Unreachable,
            _ => Exit::Usage,
        };
        CliError::failed(exit, message)
    })?;
    if let Access::Damaged(detail) = db.access() {
        crate::error::warn(format_args!(
            "fql: warning: the database {} is corrupt ({detail}); writes are refused, and reads may fail or miss data",
            path.display()
        ));
    }
    Ok(db)
}

/// Refuses a database file that does not exist, naming it: a command
/// that only reads would find nothing there, and would otherwise leave a
/// new empty file behind.
fn exists(path: &Path) -> Result<(), CliError> {
    match path.try_exists() {
        Ok(true) => Ok(()),
        Ok(false) => Err(CliError::Usage(format!(
            "there is no database at {}: the file does not exist (is --db right?); commands that only read do not create it",
            path.display()
        ))),
        Err(e) => Err(CliError::Usage(format!(
            "cannot open the database {}: {e}",
            path.display()
        ))),
    }
}

/// Creates the directories above a database file that are missing, mode
/// 0700.
fn make_dirs(path: &Path) -> Result<(), CliError> {
    let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    private_dirs(dir).map_err(|e| {
        CliError::Usage(format!(
            "cannot create the directory {}: {e}",
            dir.display()
        ))
    })
}

/// `mkdir -p -m 0700`: only directories it creates get the mode. The
/// error reads plainly ("permission denied").
pub fn private_dirs(dir: &Path) -> Result<(), String> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            std::io::ErrorKind::ReadOnlyFilesystem => "read-only file system".to_string(),
            std::io::ErrorKind::NotADirectory => "a part of the path is not a directory".into(),
            _ => e.to_string(),
        })
}

fn open_cluster(path: Option<&Path>, timeout: Duration) -> Result<Opened, CliError> {
    use fql::kv::fdb::{Fdb, Network, client_library, cluster_file};

    let client = client_library().map_err(|e| {
        // The places searched come from the environment: shown escaped.
        CliError::Usage(format!("{}", fql::syntax::printable(&e.to_string())))
    })?;
    // SAFETY: the network is kept in `Opened`, which main drops before it
    // returns; fql never calls `process::exit` while it lives: a second
    // Ctrl-C ends the process by the signal, which runs no exit handler
    // (see `crate::interrupt`).
    #[allow(unsafe_code)]
    let network = unsafe { Network::start() }.map_err(|e| {
        CliError::failed(
            Exit::Unreachable,
            format!("cannot start the FoundationDB client: {e}"),
        )
    })?;
    let path = cluster_file(path);
    let db = Fdb::open(&network, path.as_deref(), Some(timeout))
        .map_err(|e| CliError::failed(Exit::Unreachable, e.to_string()))?;
    Ok(Opened {
        db: Box::new(db),
        file: None,
        timeout,
        client: Some(client),
        _network: Some(network),
    })
}
