//! `FDBDatabase`: an opened embedded database and its options.
//!
//! The cluster file (see [`crate::cluster`]) names the database
//! file, which is opened as fql's CLI opens it: created if missing (its
//! directory must exist), read-only if this process may not write it,
//! and wrapped in `fql::kv::Faulty` when `FQL_FAULTS` plans faults.
//!
//! As FDB's, creating a database does not fail for a missing or bad
//! cluster file, nor here for a database file that cannot be opened: the
//! database is made, and its transactions fail their operations with the
//! error (see [`crate::unopened`]). The reason is written to standard
//! error when the database is created, since FDB's errors carry no
//! message.

use std::ffi::{CStr, c_char, c_int};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use fql::kv::embedded::Embedded;
use fql::kv::{Database, FaultPlan, Faulty};

use crate::errors::{CLIENT_INVALID_OPERATION, Code, INVALID_OPTION_VALUE, NETWORK_NOT_SETUP};
use crate::future::{Future, Value};
use crate::guard::{self, lock, put};
use crate::handle::Handle;
use crate::options::DbOptions;
use crate::types::{FDBDatabase, FDBDatabaseOption, FDBFuture, FdbError};
use crate::unopened::Unopened;
use crate::{api, cluster, network};

/// FDB 7.3's protocol version, as `fdb_database_get_server_protocol`
/// reports it.
pub const PROTOCOL_VERSION: u64 = 0x0FDB_00B0_7300_0000;

/// An open database.
pub struct Db {
    pub store: Arc<dyn Database>,
    pub options: Mutex<DbOptions>,
    /// Watches made on this database that have not resolved.
    pub watches: Arc<AtomicUsize>,
    /// The cluster file it was opened by, if any.
    pub cluster_file: Option<PathBuf>,
    pub connection_string: String,
    /// Why the database could not be opened, if it could not: every
    /// transaction starts with this error deferred.
    pub open_error: Option<Code>,
}

/// Why a database could not be opened: FDB's code for it, and what to
/// tell the user.
struct Failure {
    code: Code,
    why: String,
}

/// The store a connection string names.
fn open_store(connection_string: &str) -> Result<Embedded, Failure> {
    let path = cluster::parse(connection_string).map_err(|code| Failure {
        code,
        why: format!(
            "the connection string {:?} names no database of this library (fql:embedded@<absolute path>)",
            connection_string.trim()
        ),
    })?;
    Embedded::open(&path).map_err(|e| Failure {
        code: e.code(),
        why: format!("cannot open the database {}: {e}", path.display()),
    })
}

impl Db {
    /// The database a connection string names (`Err` when none could be
    /// read): opened, or one whose operations fail with why it could not
    /// be. Only a fault plan that cannot be read fails here.
    fn open(
        connection_string: Result<String, Failure>,
        cluster_file: Option<PathBuf>,
    ) -> Result<Arc<Db>, Code> {
        // Before the file is opened, so a bad plan creates no database.
        let plan = fault_plan()?;
        let opened = connection_string.and_then(|cs| open_store(&cs).map(|store| (cs, store)));
        let (store, connection_string, open_error): (Arc<dyn Database>, String, Option<Code>) =
            match opened {
                // Every transaction of the library goes through the faults.
                Ok((cs, embedded)) => {
                    let store: Arc<dyn Database> = match plan {
                        Some(plan) => Arc::new(Faulty::new(embedded, plan)),
                        None => Arc::new(embedded),
                    };
                    (store, cs.trim().to_string(), None)
                }
                Err(Failure { code, why }) => {
                    // FDB would log this to its trace files; a user of this
                    // library has only standard error to learn why.
                    let name = match code {
                        crate::errors::NO_CLUSTER_FILE_FOUND => "no_cluster_file_found",
                        crate::errors::CONNECTION_STRING_INVALID => "connection_string_invalid",
                        code => fql::kv::error_name(code).unwrap_or("an error"),
                    };
                    eprintln!(
                        "libfdb_c (fql): {why}; the database's operations fail with {name} ({code})"
                    );
                    let store = Arc::new(Unopened::new(code, why));
                    (store, String::new(), Some(code))
                }
            };
        Ok(Arc::new(Db {
            store,
            options: Mutex::new(DbOptions::default()),
            watches: Arc::new(AtomicUsize::new(0)),
            cluster_file,
            connection_string,
            open_error,
        }))
    }

    /// Whether another watch may be made now.
    pub fn watch_allowed(&self) -> bool {
        self.watches.load(Ordering::SeqCst) < lock(&self.options).max_watches()
    }

    /// `fdb_database_get_client_status`'s report.
    fn client_status(&self) -> String {
        serde_json::json!({
            "Healthy": true,
            "InitializationState": "created",
            "ConnectionRecord": self.connection_string,
            "ProtocolVersion": format!("{PROTOCOL_VERSION:x}"),
            "AvailableClients": [{
                "ProtocolVersion": format!("{PROTOCOL_VERSION:x}"),
                "ReleaseVersion": "7.3.27",
                "ThreadIndex": 0,
            }],
            "DatabaseStatus": {
                "Healthy": true,
                "Storage": self.store.describe(),
            },
        })
        .to_string()
    }
}

impl Handle for Db {
    type Raw = FDBDatabase;
}

/// The fault plan of `FQL_FAULTS` (see `fql::kv::faults`), read when the
/// first database is opened, as FDB reads its environment's options once.
/// A plan that cannot be read fails every opening with
/// `invalid_option_value`, FDB's error for an option it cannot take, and
/// says why on standard error once.
fn fault_plan() -> Result<Option<FaultPlan>, Code> {
    static PLAN: OnceLock<Result<Option<FaultPlan>, ()>> = OnceLock::new();
    PLAN.get_or_init(|| FaultPlan::from_env().map_err(|e| eprintln!("libfdb_c (fql): {e}")))
        .clone()
        .map_err(|()| INVALID_OPTION_VALUE)
}

/// The checks FDB makes before it opens a database.
fn can_open() -> Result<(), Code> {
    api::selected()?;
    if !network::is_setup() {
        return Err(NETWORK_NOT_SETUP);
    }
    Ok(())
}

/// A C string argument; null is `None`.
///
/// # Safety
///
/// A non-null `s` must be NUL-terminated.
unsafe fn c_str<'a>(s: *const c_char) -> Result<Option<&'a str>, Code> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's NUL-terminated string.
    let s = unsafe { CStr::from_ptr(s) };
    s.to_str().map(Some).map_err(|_| CLIENT_INVALID_OPERATION)
}

fn open_cluster_file(given: Option<&str>) -> Result<Arc<Db>, Code> {
    let path = cluster::locate(given);
    let text = cluster::read(&path).map_err(|code| Failure {
        code,
        why: match code {
            crate::errors::NO_CLUSTER_FILE_FOUND => {
                format!("no cluster file at {}", path.display())
            }
            _ => format!("cannot read the cluster file {}", path.display()),
        },
    });
    let absolute = std::path::absolute(&path).unwrap_or(path);
    Db::open(text, Some(absolute))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_create_database(
    cluster_file_path: *const c_char,
    out_database: *mut *mut FDBDatabase,
) -> FdbError {
    guard::code(|| {
        can_open()?;
        // SAFETY: the caller's C string.
        let given = unsafe { c_str(cluster_file_path) }?;
        let db = open_cluster_file(given)?;
        // SAFETY: the caller's out pointer.
        unsafe { put(out_database, Db::into_raw(db)) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_create_database_from_connection_string(
    connection_string: *const c_char,
    out_database: *mut *mut FDBDatabase,
) -> FdbError {
    guard::code(|| {
        can_open()?;
        // SAFETY: the caller's C string.
        let cs = unsafe { c_str(connection_string) }?.ok_or(CLIENT_INVALID_OPERATION)?;
        let db = Db::open(Ok(cs.to_string()), None)?;
        // SAFETY: the caller's out pointer.
        unsafe { put(out_database, Db::into_raw(db)) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_destroy(d: *mut FDBDatabase) {
    guard::quietly(|| {
        // SAFETY: the caller gives its reference back.
        drop(unsafe { Db::take(d) });
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_set_option(
    d: *mut FDBDatabase,
    option: FDBDatabaseOption,
    value: *const u8,
    value_length: c_int,
) -> FdbError {
    guard::code(|| {
        // SAFETY: the caller's database and option value.
        let db = unsafe { Db::borrow(d) }?;
        let value = unsafe { guard::option_value(value, value_length) }?;
        lock(&db.options).apply(option, value)
    })
}

/// No event loop runs behind the store: never busy.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_get_main_thread_busyness(_d: *mut FDBDatabase) -> f64 {
    0.0
}

/// FDB 7.3's protocol; with `expected_version` equal to it, a future that
/// stays pending, as FDB's does until the cluster's protocol changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_get_server_protocol(
    d: *mut FDBDatabase,
    expected_version: u64,
) -> *mut FDBFuture {
    guard::or(Future::error(crate::errors::INTERNAL_ERROR), || {
        // SAFETY: the caller's database.
        if let Err(code) = unsafe { Db::borrow(d) } {
            return Future::error(code);
        }
        if expected_version == PROTOCOL_VERSION {
            return Future::into_raw(Future::pending());
        }
        Future::raw(Ok(Value::Uint64(PROTOCOL_VERSION)))
    })
}

/// A JSON report in the shape of FDB's multi-version client status.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_database_get_client_status(d: *mut FDBDatabase) -> *mut FDBFuture {
    guard::or(Future::error(crate::errors::INTERNAL_ERROR), || {
        // SAFETY: the caller's database.
        match unsafe { Db::borrow(d) } {
            Ok(db) => Future::raw(Ok(Value::Key(db.client_status().into_bytes()))),
            Err(code) => Future::error(code),
        }
    })
}

/// The file a `Db` was opened from, for `\xff\xff/cluster_file_path`.
pub fn cluster_file_path(db: &Db) -> Option<&Path> {
    db.cluster_file.as_deref()
}
