//! Opening the database the flags and the environment select.
//!
//! `--memory` and `--db` pick the embedded store; `-C`, `--fdb` or a set
//! `FDB_CLUSTER_FILE` pick FoundationDB; otherwise the embedded file in the
//! user's data directory. A binary built without the `fdb` feature that is
//! asked for a cluster says how to build one that can reach it.

use std::path::{Path, PathBuf};

use fql::kv::Database;
use fql::kv::embedded::{Embedded, OpenOptions};

use crate::args::StoreArgs;
use crate::output::Exit;

/// The database, and the FDB client network when it is a cluster.
pub struct Opened {
    pub db: Box<dyn Database>,
    // Dropped after `db`, so the network outlives the database.
    #[cfg(feature = "fdb")]
    _network: Option<fql::kv::fdb::Network>,
}

/// What the flags ask for.
enum Choice {
    Memory,
    File(PathBuf),
    Cluster(Option<PathBuf>),
}

fn choose(args: &StoreArgs) -> Choice {
    if args.memory {
        return Choice::Memory;
    }
    if let Some(path) = &args.db {
        return Choice::File(path.clone());
    }
    if args.cluster_file.is_some() || args.fdb {
        return Choice::Cluster(args.cluster_file.clone());
    }
    match fql::kv::cluster_file_from_env() {
        Some(path) => Choice::Cluster(Some(path)),
        None => Choice::File(Embedded::default_path()),
    }
}

pub fn open(args: &StoreArgs) -> Result<Opened, Exit> {
    let db: Box<dyn Database> = match choose(args) {
        Choice::Memory => Box::new(Embedded::memory()),
        Choice::File(path) => Box::new(open_file(&path, timeout(args.timeout)?)?),
        Choice::Cluster(path) => return open_cluster(path.as_deref(), args.timeout),
    };
    Ok(Opened {
        db,
        #[cfg(feature = "fdb")]
        _network: None,
    })
}

/// `--timeout` as a duration: a positive number of seconds.
fn timeout(seconds: f64) -> Result<std::time::Duration, Exit> {
    std::time::Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| {
            eprintln!("fql: --timeout must be a positive number of seconds");
            Exit::Usage
        })
}

fn open_file(path: &Path, timeout: std::time::Duration) -> Result<Embedded, Exit> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        eprintln!("fql: cannot create the directory {}: {e}", dir.display());
        return Err(Exit::Usage);
    }
    let options = OpenOptions {
        timeout,
        ..OpenOptions::default()
    };
    Embedded::open_with(path, &options).map_err(|e| {
        eprintln!("fql: cannot open the database {}: {e}", path.display());
        match e {
            fql::kv::Error::Locked { .. } => Exit::Unreachable,
            _ => Exit::Usage,
        }
    })
}

#[cfg(feature = "fdb")]
fn open_cluster(path: Option<&Path>, timeout: f64) -> Result<Opened, Exit> {
    use fql::kv::fdb::{Fdb, Network, cluster_file};

    let timeout = self::timeout(timeout)?;
    // SAFETY: the network is kept in `Opened`, which main drops before it
    // returns; fql never calls `process::exit` while it lives.
    let network = unsafe { Network::start() }.map_err(|e| {
        eprintln!("fql: cannot start the FoundationDB client: {e}");
        Exit::Unreachable
    })?;
    let path = cluster_file(path);
    let db = Fdb::open(&network, path.as_deref(), Some(timeout)).map_err(|e| {
        eprintln!("fql: {e}");
        Exit::Unreachable
    })?;
    Ok(Opened {
        db: Box::new(db),
        _network: Some(network),
    })
}

#[cfg(not(feature = "fdb"))]
fn open_cluster(path: Option<&Path>, _timeout: f64) -> Result<Opened, Exit> {
    let what = match path {
        Some(p) => format!("the cluster file {}", p.display()),
        None => "the default cluster file".into(),
    };
    eprintln!(
        "fql: this fql was built without FoundationDB support, so it cannot use {what}\n  \
         rebuild it with the `fdb` feature: cargo install --path . --features fdb\n  \
         (building needs libclang; running needs the FoundationDB client library, libfdb_c)\n  \
         or use the embedded database with --db PATH or --memory"
    );
    Err(Exit::Usage)
}
