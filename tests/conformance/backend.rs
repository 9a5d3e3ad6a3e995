//! The backends the suite runs on, each case on a fresh, empty database.
//!
//! `scoped` and `fdb` run every case inside a new directory of their
//! database, seen through [`scoped::view`] as a keyspace of its own and removed
//! afterwards: that is how the suite shares a real cluster with other
//! users, and `scoped` proves the view on the embedded store.
//!
//! `fdb_whole` runs every case on the cluster's whole keyspace, through the
//! `fdb` adapter's own calls with no view between: one case at a time, each
//! after clearing everything. Only on a database given to the suite
//! alone, which [`WHOLE_KEYSPACE`] must say (tests/client sets it for the
//! fresh file it points fql's libfdb_c at).

use std::fmt;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use fql::directory::DirectoryLayer;
use fql::kv::embedded::Embedded;
use fql::kv::{self, Database, DatabaseExt, Limits};

use crate::{scoped, window};

/// Where scoped cases make their directories.
const SCOPE_ROOT: &str = "fql-conformance";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Memory,
    File,
    Scoped,
    Fdb,
    FdbWhole,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Memory,
        Kind::File,
        Kind::Scoped,
        Kind::Fdb,
        Kind::FdbWhole,
    ];
}

/// Set to let `fdb_whole` clear and use the cluster's whole keyspace.
pub const WHOLE_KEYSPACE: &str = "FQL_CONFORMANCE_WHOLE_KEYSPACE";

/// Whether an `fdb_whole` case runs: they share one keyspace, so they
/// take turns.
static WHOLE_BUSY: Mutex<bool> = Mutex::new(false);
static WHOLE_FREE: Condvar = Condvar::new();

/// An `fdb_whole` case's turn, given back when dropped.
struct Turn;

impl Turn {
    fn take() -> Turn {
        let mut busy = WHOLE_BUSY.lock().unwrap_or_else(|e| e.into_inner());
        while *busy {
            busy = WHOLE_FREE.wait(busy).unwrap_or_else(|e| e.into_inner());
        }
        *busy = true;
        Turn
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        *WHOLE_BUSY.lock().unwrap_or_else(|e| e.into_inner()) = false;
        WHOLE_FREE.notify_one();
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Memory => "memory",
            Kind::File => "file",
            Kind::Scoped => "scoped",
            Kind::Fdb => "fdb",
            Kind::FdbWhole => "fdb_whole",
        })
    }
}

/// The cluster the `fdb` cases run on, once main has connected.
pub static CLUSTER: OnceLock<Arc<dyn Database>> = OnceLock::new();

/// A database under test, with whatever keeps it alive and cleans it up.
pub struct Backend {
    kind: Kind,
    db: Arc<dyn Database>,
    reopen: Box<dyn Fn() -> Arc<dyn Database> + Send + Sync>,
    /// The longest key this database accepts.
    pub key_limit: usize,
    scope: Option<(Arc<dyn Database>, Vec<String>)>,
    _dir: Option<tempfile::TempDir>,
    _whole: Option<Turn>,
}

impl Backend {
    pub fn new(kind: Kind) -> Backend {
        let mut backend = Backend::of(kind);
        backend.kind = kind;
        backend
    }

    fn of(kind: Kind) -> Backend {
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
            Kind::FdbWhole => {
                Backend::whole(CLUSTER.get().expect("connected to a cluster").clone())
            }
        }
    }

    /// The whole keyspace of `db`, cleared, for this case alone.
    fn whole(db: Arc<dyn Database>) -> Backend {
        let turn = Turn::take();
        db.run(|tx, _| tx.clear_range(b"", b"\xff"))
            .expect("the keyspace cleared");
        let again = db.clone();
        let mut backend = Backend::plain(db, move || again.clone(), None);
        backend._whole = Some(turn);
        backend
    }

    fn plain(
        db: Arc<dyn Database>,
        reopen: impl Fn() -> Arc<dyn Database> + Send + Sync + 'static,
        dir: Option<tempfile::TempDir>,
    ) -> Backend {
        Backend {
            kind: Kind::Memory,
            db,
            reopen: Box::new(reopen),
            key_limit: Limits::default().key,
            scope: None,
            _dir: dir,
            _whole: None,
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
        let view = scoped::view(inner.clone(), &prefix);
        let again = (inner.clone(), prefix.clone());
        Backend {
            kind: Kind::Scoped,
            db: view,
            reopen: Box::new(move || scoped::view(again.0.clone(), &again.1)),
            key_limit: Limits::default().key - prefix.len(),
            scope: Some((inner, path)),
            _dir: None,
            _whole: None,
        }
    }

    /// The database under test, as a handle of its own.
    pub fn handle(&self) -> Arc<dyn Database> {
        self.db.clone()
    }

    /// Whether the database is a directory's keys seen as a keyspace of
    /// their own, as a tenant would be: it has no system keys.
    pub fn is_scoped(&self) -> bool {
        self.scope.is_some()
    }

    /// Whether the database is a cluster's whole keyspace, as fql's
    /// libfdb_c serves one: a FoundationDB 7.3 cluster whose tenant mode is
    /// `optional_experimental`, where fql's own stores have no tenants.
    pub fn has_tenants(&self) -> bool {
        self.kind == Kind::FdbWhole
    }

    /// A database of the same kind whose transactions grow too old in a
    /// moment ([`window::SHORT`]), fresh and empty, where the backend can
    /// open one: the embedded kinds. A cluster keeps its own window, FDB's
    /// five seconds, and the cluster's database is given as it is.
    pub fn short_lived(&self) -> Arc<dyn Database> {
        let limits = window::short();
        match self.kind {
            Kind::Memory => Arc::new(Embedded::memory_with_limits(limits)),
            Kind::File => {
                let dir = self._dir.as_ref().expect("a file backend's directory");
                let path = dir.path().join("short.db");
                Arc::new(Embedded::open_with_limits(path, limits).expect("open"))
            }
            Kind::Scoped => {
                scoped::view(Arc::new(Embedded::memory_with_limits(limits)), b"\x15\x07")
            }
            Kind::Fdb | Kind::FdbWhole => self.db.clone(),
        }
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

    fn window(&self) -> std::time::Duration {
        self.db.window()
    }
}
