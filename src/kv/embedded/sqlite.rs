//! The file store: one SQLite database in WAL mode, shared by every process
//! that opens the file.
//!
//! Each transaction's snapshot is an open SQLite read transaction on a
//! connection of its own (WAL readers see a fixed state and block no one);
//! each commit is a short `BEGIN IMMEDIATE` transaction, which serializes
//! commits across processes. `synchronous=FULL` makes every commit durable,
//! so commit versions, and with them versionstamps, never repeat even after
//! a crash; a new file's versions start from the clock, so they never
//! repeat those of a file that was at the same path before.
//!
//! Every lock wait is bounded by the store's timeout, read transactions end
//! when their five seconds are up ([`sweep`]), the WAL is kept bounded
//! ([`checkpoint`]), and a commit to a file that is no longer the one at
//! the path is refused ([`identity`]).

mod checkpoint;
mod identity;
mod sweep;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

use self::checkpoint::{Checkpoints, WAL_LIMIT};
use self::identity::FileId;
use self::sweep::{Held, Sweeper};
use super::store::{Snapshot, Store, Writer, batch};
use super::tx::MAX_AGE;
use crate::kv::{Error, KeyValue, Result};

/// `PRAGMA application_id` of fql databases ("FQL1"), so fql refuses to
/// use some other program's SQLite file as its keyspace.
const APPLICATION_ID: i32 = 0x4651_4c31;

/// More than the statements the store prepares, so none is compiled twice.
const STATEMENTS: usize = 32;

/// How long after its deadline a read transaction is ended for its owner:
/// enough that the owner's own check (`transaction_too_old`) comes first.
const SWEEP_MARGIN: Duration = Duration::from_millis(100);

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS commits (version INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL,
                                        ranges BLOB NOT NULL);
    CREATE INDEX IF NOT EXISTS commits_by_age ON commits (at_ms);
    INSERT OR IGNORE INTO meta VALUES ('format', 1), ('version', FIRST_VERSION), ('floor', 0);
";

/// The version a new file starts from: the clock in microseconds, as FDB's
/// versions advance, so it exceeds every version of any file that was at
/// the same path before (each commit adds one, and no file commits a
/// million times a second).
fn first_version() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

pub(crate) struct SqliteStore {
    path: PathBuf,
    pool: Arc<Pool>,
    /// The connection watches poll with, opened by the first poll.
    watcher: Mutex<Option<Connection>>,
    checkpoints: Checkpoints,
}

struct Pool {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    /// The longest wait for a lock another process holds.
    timeout: Duration,
    /// The file opened; a connection to any other is refused.
    file: FileId,
    sweeper: Arc<Sweeper>,
}

fn storage(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Storage(format!("{}: {e}", path.display()))
}

impl Pool {
    fn take(&self) -> Result<Connection> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match idle {
            Some(c) => Ok(c),
            None => {
                let conn = connect(&self.path, self.timeout).map_err(|e| self.error(e.into()))?;
                self.check_file()?;
                Ok(conn)
            }
        }
    }

    /// Fails if the file at the path is no longer the one opened.
    fn check_file(&self) -> Result<()> {
        match FileId::of(&self.path) {
            Ok(id) if id == self.file => Ok(()),
            Ok(_) => Err(Error::Replaced(self.path.display().to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(Error::Replaced(self.path.display().to_string()))
            }
            Err(e) => Err(storage(&self.path, e)),
        }
    }

    /// Names the file in an error, and the wait in a lock wait that ran out.
    fn error(&self, e: Error) -> Error {
        self.error_after(e, self.timeout)
    }

    fn error_after(&self, e: Error, waited: Duration) -> Error {
        match e {
            Error::Storage(msg) => storage(&self.path, msg),
            Error::Locked { .. } => Error::Locked {
                path: self.path.display().to_string(),
                waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
            },
            e => e,
        }
    }

    fn give(&self, conn: Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < 16 {
            idle.push(conn);
        }
    }
}

fn connect(path: &Path, timeout: Duration) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    configure(&conn, timeout)?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(conn)
}

/// What every connection needs to neither hang nor block others.
///
/// - Lock waits last at most `timeout`.
/// - A statement is compiled once per connection: the query planner's
///   stability guarantee keeps SQLite (built with STAT4) from compiling a
///   range scan again for every new pair of bounds, which made a
///   transaction's reads cost a parse each; the statement cache holds
///   every statement the store uses.
/// - No checkpoint when a connection closes: SQLite's checkpoint-on-close
///   takes an exclusive lock on the file, and a process stopped or killed
///   while holding it keeps every other process from even reading. The WAL
///   is checkpointed after commits instead ([`checkpoint`]).
/// - The WAL file is cut back to [`WAL_LIMIT`] when it restarts.
fn configure(conn: &Connection, timeout: Duration) -> rusqlite::Result<()> {
    conn.busy_timeout(timeout)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.set_prepared_statement_cache_capacity(STATEMENTS);
    conn.pragma_update(None, "journal_size_limit", WAL_LIMIT as i64)?;
    Ok(())
}

impl SqliteStore {
    /// Opens the database at `path`, creating it (and nothing else: its
    /// directory must exist) if missing.
    pub fn open(path: &Path, timeout: Duration) -> Result<SqliteStore> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| storage(path, e))?;
        let locked = |e: rusqlite::Error| match Error::from(e) {
            Error::Locked { .. } => Error::Locked {
                path: path.display().to_string(),
                waited_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            },
            e => storage(path, e),
        };
        configure(&conn, timeout).map_err(locked)?;
        init(&conn).map_err(|e| match e {
            InitError::Foreign(id) => Error::Storage(format!(
                "{} is a SQLite database of another application (application_id {id:#x}), not an fql database",
                path.display()
            )),
            InitError::Format(v) => Error::Storage(format!(
                "{} has storage format {v}; this fql reads format {FORMAT}",
                path.display()
            )),
            InitError::Sqlite(e) => locked(e),
        })?;
        let file = FileId::of(path).map_err(|e| storage(path, e))?;
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        Ok(SqliteStore {
            path: path.to_owned(),
            pool: Arc::new(Pool {
                path: path.to_owned(),
                idle: Mutex::new(vec![conn]),
                timeout,
                file,
                sweeper: Arc::default(),
            }),
            watcher: Mutex::default(),
            checkpoints: Checkpoints::new(wal.into()),
        })
    }
}

impl Drop for SqliteStore {
    /// Copies what the WAL holds into the database file, as far as no
    /// reader still needs it, so a closed database is whole in its main
    /// file. PASSIVE: it waits for no one and blocks no one, unlike the
    /// checkpoint SQLite would do on close (see [`configure`]).
    fn drop(&mut self) {
        if let Ok(conn) = self.pool.take() {
            let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
            self.pool.give(conn);
        }
    }
}

/// The layout of the tables; a file of another layout is refused.
const FORMAT: u64 = 1;

enum InitError {
    Foreign(i32),
    Format(u64),
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for InitError {
    fn from(e: rusqlite::Error) -> Self {
        InitError::Sqlite(e)
    }
}

fn init(conn: &Connection) -> Result<(), InitError> {
    // Reading the schema fails with "file is not a database" for any other
    // kind of file, before anything is written to it.
    let id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
    if id != APPLICATION_ID && (id != 0 || tables > 0) {
        return Err(InitError::Foreign(id));
    }
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    if id == 0 {
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE; PRAGMA application_id = {APPLICATION_ID}; {} COMMIT;",
            SCHEMA.replace("FIRST_VERSION", &first_version().to_string())
        ))?;
    }
    let format = conn.query_row("SELECT value FROM meta WHERE name = 'format'", [], |r| {
        r.get::<_, i64>(0)
    })?;
    if format as u64 != FORMAT {
        return Err(InitError::Format(format as u64));
    }
    Ok(())
}

impl Store for SqliteStore {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>> {
        let conn = self.pool.take()?;
        let deadline = Instant::now() + self.pool.timeout;
        // The first read fixes the WAL snapshot this transaction sees. A
        // lock SQLite does not wait for itself (a WAL being recovered, a
        // file being closed) is waited out here, up to the timeout.
        let version = loop {
            let begun = conn
                .execute_batch("BEGIN DEFERRED")
                .map_err(Error::from)
                .and_then(|()| read_meta(&conn, "version"));
            match begun {
                Ok(v) => break v,
                Err(e) => {
                    let _ = conn.execute_batch("ROLLBACK");
                    if !matches!(e, Error::Locked { .. }) || Instant::now() >= deadline {
                        return Err(self.pool.error(e));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
        };
        let held: Held = Arc::new(Mutex::new(Some(conn)));
        sweep::watch(&self.pool, &held, Instant::now() + MAX_AGE + SWEEP_MARGIN);
        Ok(Box::new(SqliteSnapshot {
            conn: held,
            pool: self.pool.clone(),
            version,
        }))
    }

    fn write(
        &self,
        deadline: Option<Instant>,
        f: &mut dyn FnMut(&mut dyn Writer) -> Result<()>,
    ) -> Result<()> {
        let mut conn = self.pool.take()?;
        // The lock wait follows the transaction's own timeout when that is
        // sooner than the store's.
        let wait = deadline.map_or(self.pool.timeout, |d| {
            d.saturating_duration_since(Instant::now())
                .min(self.pool.timeout)
        });
        let result = (|| {
            conn.busy_timeout(wait)?;
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            // Checked holding the write lock, so no commit of this process
            // lands in a file that was replaced before it began.
            self.pool.check_file()?;
            f(&mut SqliteWriter { conn: &tx })?;
            tx.commit()?;
            Ok(())
        })();
        let _ = conn.busy_timeout(self.pool.timeout);
        self.pool.give(conn);
        result.map_err(|e| self.pool.error_after(e, wait))
    }

    fn after_commit(&self) {
        if let Ok(conn) = self.pool.take() {
            self.checkpoints.after_commit(&conn, self.pool.timeout);
            self.pool.give(conn);
        }
    }

    fn change_token(&self) -> Result<u64> {
        let mut watcher = self.watcher.lock().unwrap_or_else(|e| e.into_inner());
        if watcher.is_none() {
            *watcher = Some(self.pool.take()?);
        }
        let conn = watcher.as_ref().expect("just opened");
        let v: i64 = conn.pragma_query_value(None, "data_version", |r| r.get(0))?;
        Ok(v as u64)
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

fn read_meta(conn: &Connection, name: &str) -> Result<u64> {
    let v: i64 = conn
        .prepare_cached("SELECT value FROM meta WHERE name = ?1")?
        .query_row([name], |r| r.get(0))?;
    Ok(v as u64)
}

struct SqliteSnapshot {
    /// Ended by the sweeper once the transaction is too old.
    conn: Held,
    pool: Arc<Pool>,
    version: u64,
}

impl SqliteSnapshot {
    /// Runs `f` on the read transaction, if it is still open.
    fn with<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = sweep::lock(&self.conn);
        f(conn.as_ref().ok_or(Error::TransactionTooOld)?).map_err(|e| self.pool.error(e))
    }
}

impl Drop for SqliteSnapshot {
    fn drop(&mut self) {
        let conn = sweep::lock(&self.conn).take();
        if let Some(conn) = conn
            && conn.execute_batch("ROLLBACK").is_ok()
        {
            self.pool.give(conn);
        }
    }
}

const SCAN: &str = "SELECT key, value FROM kv WHERE key >= ?1 AND key < ?2 ORDER BY key LIMIT ?3";
const SCAN_REVERSE: &str =
    "SELECT key, value FROM kv WHERE key >= ?1 AND key < ?2 ORDER BY key DESC LIMIT ?3";

fn get(conn: &Connection, key: &[u8]) -> Result<Option<Vec<u8>>> {
    Ok(conn
        .prepare_cached("SELECT value FROM kv WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?)
}

impl Snapshot for SqliteSnapshot {
    fn version(&self) -> u64 {
        self.version
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.with(|conn| get(conn, key))
    }

    fn scan(
        &mut self,
        begin: &[u8],
        end: &[u8],
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<KeyValue>> {
        let sql = if reverse { SCAN_REVERSE } else { SCAN };
        let mut out = batch(limit);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|conn| {
            let mut stmt = conn.prepare_cached(sql)?;
            let rows = stmt.query_map(params![begin, end, limit], |r| {
                Ok(KeyValue {
                    key: r.get(0)?,
                    value: r.get(1)?,
                })
            })?;
            for row in rows {
                out.push(row?);
            }
            Ok(out)
        })
    }
}

/// A commit's write ranges as one blob: each bound as a little-endian u32
/// length and its bytes.
fn encode_ranges(ranges: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for bound in ranges.iter().flat_map(|(b, e)| [b, e]) {
        out.extend((bound.len() as u32).to_le_bytes());
        out.extend_from_slice(bound);
    }
    out
}

/// The ranges of [`encode_ranges`]; stops at the first malformed bound.
fn decode_ranges(mut blob: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    let mut next = move || {
        let len = u32::from_le_bytes(blob.get(..4)?.try_into().ok()?) as usize;
        let bound = blob.get(4..4 + len)?;
        blob = &blob[4 + len..];
        Some(bound)
    };
    std::iter::from_fn(move || Some((next()?, next()?)))
}

struct SqliteWriter<'a> {
    conn: &'a Connection,
}

impl Writer for SqliteWriter<'_> {
    fn version(&mut self) -> Result<u64> {
        read_meta(self.conn, "version")
    }

    fn set_version(&mut self, version: u64) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE meta SET value = ?1 WHERE name = 'version'")?
            .execute([version as i64])?;
        Ok(())
    }

    fn log_floor(&mut self) -> Result<u64> {
        read_meta(self.conn, "floor")
    }

    fn any_write_since(
        &mut self,
        version: u64,
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<bool> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT ranges FROM commits WHERE version > ?1")?;
        let mut rows = stmt.query([version as i64])?;
        while let Some(row) = rows.next()? {
            let blob: &[u8] = row.get_ref(0)?.as_blob().map_err(rusqlite::Error::from)?;
            let mut ranges = decode_ranges(blob);
            if ranges.any(|(b, e)| f(b, e)) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn log(
        &mut self,
        version: u64,
        now_ms: u64,
        ranges: &[(Vec<u8>, Vec<u8>)],
        forget_before_ms: u64,
    ) -> Result<()> {
        let forgotten: Option<i64> = self
            .conn
            .prepare_cached("SELECT max(version) FROM commits WHERE at_ms < ?1")?
            .query_row([forget_before_ms as i64], |r| r.get(0))?;
        if let Some(v) = forgotten {
            self.conn
                .prepare_cached("DELETE FROM commits WHERE version <= ?1")?
                .execute([v])?;
            self.conn
                .prepare_cached("UPDATE meta SET value = max(value, ?1) WHERE name = 'floor'")?
                .execute([v])?;
        }
        self.conn
            .prepare_cached("INSERT INTO commits VALUES (?1, ?2, ?3)")?
            .execute(params![
                version as i64,
                now_ms as i64,
                encode_ranges(ranges)
            ])?;
        Ok(())
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        get(self.conn, key)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO kv VALUES (?1, ?2)")?
            .execute([key, value])?;
        Ok(())
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM kv WHERE key = ?1")?
            .execute([key])?;
        Ok(())
    }

    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM kv WHERE key >= ?1 AND key < ?2")?
            .execute([begin, end])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::StatementStatus;

    use super::*;

    /// Reads of many ranges in one transaction run one compiled statement:
    /// compiling it again for each range made the parser a large part of
    /// every read.
    #[test]
    fn range_reads_compile_their_statement_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("s.db"), Duration::from_secs(5)).unwrap();
        let mut snap = store.snapshot().unwrap();
        for i in 0..50u8 {
            snap.scan(&[i], &[i, 1], false, usize::from(i) + 1).unwrap();
            snap.scan(&[i], &[i + 1], true, 10).unwrap();
        }
        drop(snap);
        let conn = store.pool.take().unwrap();
        for sql in [SCAN, SCAN_REVERSE] {
            let stmt = conn.prepare_cached(sql).unwrap();
            assert_eq!(stmt.get_status(StatementStatus::Run), 50, "{sql}");
            assert_eq!(stmt.get_status(StatementStatus::RePrepare), 0, "{sql}");
        }
    }
}
