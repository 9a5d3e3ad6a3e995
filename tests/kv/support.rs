//! Backends for the tests, and child processes for cross-process tests.

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::Duration;

use fql::kv::embedded::Embedded;
use fql::kv::{self, Database, DatabaseExt, KeyValue, Limits, RangeOption};

/// A database under test, with whatever keeps it alive.
pub struct Backend {
    pub db: Embedded,
    pub path: Option<PathBuf>,
    limits: Limits,
    _dir: Option<tempfile::TempDir>,
}

impl Backend {
    pub fn memory() -> Backend {
        Backend::memory_with(Limits::default())
    }

    pub fn file() -> Backend {
        Backend::file_with(Limits::default())
    }

    /// [`Backend::memory`] with other limits.
    pub fn memory_with(limits: Limits) -> Backend {
        Backend {
            db: Embedded::memory_with_limits(limits),
            path: None,
            limits,
            _dir: None,
        }
    }

    /// [`Backend::file`] with other limits, which its reopens keep.
    pub fn file_with(limits: Limits) -> Backend {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("test.db");
        Backend {
            db: Embedded::open_with_limits(&path, limits).expect("open"),
            path: Some(path),
            limits,
            _dir: Some(dir),
        }
    }

    /// Another handle on the same store, as a second client would have:
    /// a new open of the file, or a clone of the in-memory database.
    pub fn reopen(&self) -> Embedded {
        match &self.path {
            Some(p) => Embedded::open_with_limits(p, self.limits).expect("reopen"),
            None => self.db.clone(),
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

    fn window(&self) -> Duration {
        self.db.window()
    }
}

pub fn set_all(db: &dyn Database, kvs: &[(&[u8], &[u8])]) {
    db.run(|tx, _| {
        for (k, v) in kvs {
            tx.set(k, v)?;
        }
        Ok::<_, kv::Error>(())
    })
    .unwrap();
}

pub fn read_all(db: &dyn Database, range: RangeOption) -> Vec<KeyValue> {
    db.run(|tx, _| kv::collect_range(tx, &range, false))
        .unwrap()
}

pub fn get(db: &dyn Database, key: &[u8]) -> Option<Vec<u8>> {
    db.run(|tx, _| tx.get(key, false)).unwrap()
}

/// Runs the ignored test `name` (`stalls::x`, below this module's parent)
/// of this test binary in a new process, with `env` set: how
/// cross-process tests get real concurrent processes.
pub fn child(name: &str, env: &[(&str, String)]) -> Child {
    let exe = std::env::current_exe().expect("test binary");
    let mut cmd = Command::new(exe);
    cmd.args([
        "--ignored",
        "--exact",
        &in_binary(name),
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawn child")
}

/// The value of a variable a parent gave this child process.
pub fn param(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is set by the parent test"))
}

/// A test's path below this module's parent as the test binary names it:
/// from the binary's root, which `module_path!` names first.
fn in_binary(name: &str) -> String {
    let parent = module_path!().rsplit_once("::").map_or("", |(p, _)| p);
    match parent.split_once("::") {
        Some((_, below_root)) => format!("{below_root}::{name}"),
        None => name.to_string(),
    }
}
