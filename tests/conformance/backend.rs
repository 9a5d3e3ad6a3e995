//! The backends the suite runs on, each case on a fresh, empty database.
//!
//! `scoped` and `fdb` run every case inside a new directory of their
//! database, seen through [`Scoped`] as a keyspace of its own and removed
//! afterwards: that is how the suite shares a real cluster with other
//! users, and `scoped` proves the view on the embedded store.

use std::fmt;
use std::sync::{Arc, OnceLock};

use fql::directory::DirectoryLayer;
use fql::kv::embedded::Embedded;
use fql::kv::{self, Database, DatabaseExt, Limits};

use crate::scoped::Scoped;

/// Where scoped cases make their directories.
const SCOPE_ROOT: &str = "fql-conformance";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Memory,
    File,
    Scoped,
    Fdb,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Memory, Kind::File, Kind::Scoped, Kind::Fdb];
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Memory => "memory",
            Kind::File => "file",
            Kind::Scoped => "scoped",
            Kind::Fdb => "fdb",
        })
    }
}

/// The cluster the `fdb` cases run on, once main has connected.
pub static CLUSTER: OnceLock<Arc<dyn Database>> = OnceLock::new();

/// A database under test, with whatever keeps it alive and cleans it up.
pub struct Backend {
    db: Arc<dyn Database>,
    reopen: Box<dyn Fn() -> Arc<dyn Database> + Send + Sync>,
    /// The longest key this database accepts.
    pub key_limit: usize,
    scope: Option<(Arc<dyn Database>, Vec<String>)>,
    _dir: Option<tempfile::TempDir>,
}

impl Backend {
    pub fn new(kind: Kind) -> Backend {
        match kind {
            Kind::Memory => {
                let db = Embedded::memory();
                let again = db.clone();
                Backend::plain(Arc::new(db), move || Arc::new(again.clone()), None)
            }
            Kind::File => {
                let dir = tempfile::tempdir().expect("a temporary directory");
                let path = dir.path().join("test.db");
                let db = Embedded::open(&path).expect("open");
                let reopen = move || Arc::new(Embedded::open(&path).expect("reopen")) as _;
                Backend::plain(Arc::new(db), reopen, Some(dir))
            }
            Kind::Scoped => Backend::scoped(Arc::new(Embedded::memory())),
            Kind::Fdb => Backend::scoped(CLUSTER.get().expect("connected to a cluster").clone()),
        }
    }

    fn plain(
        db: Arc<dyn Database>,
        reopen: impl Fn() -> Arc<dyn Database> + Send + Sync + 'static,
        dir: Option<tempfile::TempDir>,
    ) -> Backend {
        Backend {
            db,
            reopen: Box::new(reopen),
            key_limit: Limits::default().key,
            scope: None,
            _dir: dir,
        }
    }

    /// A fresh directory of `inner`, as a keyspace of its own.
    fn scoped(inner: Arc<dyn Database>) -> Backend {
        let name = format!("{:016x}", rand::random::<u64>());
        let path = vec![SCOPE_ROOT.to_string(), name];
        let dir = inner
            .run(|tx, _| DirectoryLayer::new().create(tx, &path, b""))
            .expect("a directory for the case");
        let prefix = dir.prefix().expect("a directory, not a partition").to_vec();
        let view = Arc::new(Scoped::new(inner.clone(), &prefix));
        let again = (inner.clone(), prefix.clone());
        Backend {
            db: view,
            reopen: Box::new(move || Arc::new(Scoped::new(again.0.clone(), &again.1))),
            key_limit: Limits::default().key - prefix.len(),
            scope: Some((inner, path)),
            _dir: None,
        }
    }

    /// The database under test, as a handle of its own.
    pub fn handle(&self) -> Arc<dyn Database> {
        self.db.clone()
    }

    /// Another handle on the same data, as a second client would have.
    pub fn reopen(&self) -> Arc<dyn Database> {
        (self.reopen)()
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        if let Some((inner, path)) = self.scope.take() {
            let removed = inner.run(|tx, _| DirectoryLayer::new().remove_if_exists(tx, &path));
            if let Err(e) = removed {
                eprintln!(
                    "could not remove the case's directory /{}: {e}",
                    path.join("/")
                );
            }
        }
    }
}

impl Database for Backend {
    fn create_trx(&self) -> kv::Result<Box<dyn kv::Transaction>> {
        self.db.create_trx()
    }

    fn describe(&self) -> String {
        self.db.describe()
    }
}
