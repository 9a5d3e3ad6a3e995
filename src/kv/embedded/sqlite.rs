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
//! The lock waits of opening, reading and committing end at the store's
//! timeout, or at the transaction's own deadline when that comes first
//! ([`busy`]). Upkeep that no caller waits on keeps waits of its own: the
//! WAL restart after a commit, up to [`checkpoint`]'s window and 0.3 s
//! (5.3 s by default) once the WAL is far past its limit, and marking a
//! damaged file, up to 2 s ([`guard`]). Read transactions end when their
//! window (five seconds by default) is up
//! ([`sweep`]), the WAL is kept bounded ([`checkpoint`]), and a commit to a
//! file that is no longer the one at the path is refused ([`identity`]).

mod busy;
mod checkpoint;
mod identity;
mod pool;
mod sweep;

mod guard;
mod history;
mod open;
mod setup;
mod target;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OptionalExtension, params};

use self::busy::patiently;
use self::checkpoint::{Checkpoints, WAL_LIMIT};
use self::identity::FileId;
use self::pool::{Pool, storage};
use self::sweep::{Held, Sweeper};
use super::OpenOptions;
use super::store::{Snapshot, Store, Writer, batch};
use super::watches::{Place, Rung};
use crate::kv::{Error, KeyValue, Result, lock};

pub(crate) use guard::Guarded;

/// More than the statements the store prepares, so none is compiled twice.
const STATEMENTS: usize = 32;

/// How long after its deadline a read transaction is ended for its owner:
/// enough that the owner's own check (`transaction_too_old`) comes first.
const SWEEP_MARGIN: Duration = Duration::from_millis(100);

pub(crate) struct SqliteStore {
    pool: Arc<Pool>,
    /// How long a read transaction lives ([`Limits::window`](crate::kv::Limits::window)).
    window: Duration,
    /// Ends snapshots that outlive their window, handing their
    /// connections back to `pool`.
    sweeper: Arc<Sweeper>,
    /// The connection watches poll with, opened by the first poll.
    watcher: Mutex<Option<Connection>>,
    checkpoints: Checkpoints,
    /// The bells beside the file, which each commit touches to wake
    /// other processes' watches of the keys it changed; none for a file
    /// opened immutable, which nobody writes.
    bell: Option<Place>,
}

/// What every connection needs to neither hang nor block others.
///
/// - Lock waits last at most `timeout`, in fql's busy handler, which
///   tries again sooner than SQLite's ([`busy`]); the store's waits set
///   their own deadline.
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
fn configure(conn: &mut Connection, timeout: Duration) -> rusqlite::Result<()> {
    busy::install(conn, timeout)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.set_prepared_statement_cache_capacity(STATEMENTS);
    conn.pragma_update(None, "journal_size_limit", WAL_LIMIT as i64)?;
    Ok(())
}

impl SqliteStore {
    /// Opens the database at `path` as `options` say (see [`open`]): a
    /// store that refuses the writes the file cannot take.
    pub fn open(path: &Path, options: &OpenOptions) -> Result<Guarded> {
        let timeout = options.timeout;
        let open::Opened {
            target,
            conn,
            read_only,
            marked,
        } = open::open(path, options.read_only, timeout)?;
        let file = FileId::of(target.file()).map_err(|e| storage(path, e))?;
        let bell = (target.mode != target::Mode::Immutable)
            .then(|| Place::new(target.beside("-wal"), target.beside("-bells")));
        let store = SqliteStore {
            pool: Arc::new(Pool::new(target, conn, file)),
            window: options.limits.window,
            sweeper: Arc::default(),
            watcher: Mutex::default(),
            checkpoints: Checkpoints::new(options.limits.window),
            bell,
        };
        Ok(Guarded::new(store, read_only, marked))
    }
}

impl Drop for SqliteStore {
    /// Copies what the WAL holds into the database file, as far as no
    /// reader still needs it, so a closed database is whole in its main
    /// file. PASSIVE: it waits for no one and blocks no one, unlike the
    /// checkpoint SQLite would do on close (see [`configure`]).
    fn drop(&mut self) {
        if let Ok(conn) = self.pool.take(&self.pool.wait(None)) {
            let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
            self.pool.give(conn);
        }
    }
}

impl SqliteStore {
    /// A read transaction on the latest state, ended by the sweeper after
    /// the window.
    fn latest(&self, deadline: Option<Instant>) -> Result<SqliteSnapshot> {
        let wait = self.pool.wait(deadline);
        let conn = self.pool.take(&wait)?;
        let version = self.pool.begin_read(&conn, &wait)?;
        let held: Held = Arc::new(Mutex::new(Some(conn)));
        sweep::watch(
            &self.sweeper,
            &self.pool,
            &held,
            Instant::now() + self.window + SWEEP_MARGIN,
        );
        Ok(SqliteSnapshot {
            conn: held,
            pool: self.pool.clone(),
            version,
        })
    }
}

impl Store for SqliteStore {
    fn snapshot(&self, deadline: Option<Instant>) -> Result<Box<dyn Snapshot>> {
        Ok(Box::new(self.latest(deadline)?))
    }

    /// The latest state, overlaid with the undo entries of the commits
    /// after `version` ([`history`]).
    fn snapshot_at(&self, version: u64, deadline: Option<Instant>) -> Result<Box<dyn Snapshot>> {
        let latest = self.latest(deadline)?;
        let newest = latest.version;
        if version > newest {
            return Err(Error::future_version(version, newest));
        }
        if version == newest {
            return Ok(Box::new(latest));
        }
        let (undone, superseded_ms) = latest.with(|conn| history::load(conn, version))?;
        Ok(Box::new(history::Past {
            latest,
            undone,
            version,
            superseded_ms,
        }))
    }

    fn write(
        &self,
        deadline: Option<Instant>,
        f: &mut dyn FnMut(&mut dyn Writer) -> Result<()>,
    ) -> Result<()> {
        let wait = self.pool.wait(deadline);
        let conn = self.pool.take(&wait)?;
        let mut rung = Rung::default();
        let result = patiently(wait.until, || conn.execute_batch("BEGIN IMMEDIATE"))
            .map_err(Error::from)
            .and_then(|()| {
                // Checked holding the write lock, so no commit of this process
                // lands in a file that was replaced before it began.
                self.pool.check_file()?;
                f(&mut SqliteWriter {
                    conn: &conn,
                    rung: &mut rung,
                    version: None,
                    kept: 0,
                })?;
                conn.execute_batch("COMMIT")?;
                if let Some(place) = &self.bell {
                    super::watches::ring(place, &rung);
                }
                Ok(())
            });
        if result.is_err() && !conn.is_autocommit() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        self.pool.give(conn);
        result.map_err(|e| self.pool.error_after(e, &wait))
    }

    fn after_commit(&self) {
        if let Ok(conn) = self.pool.take(&self.pool.wait(None)) {
            self.checkpoints.after_commit(&conn, &self.pool.target);
            self.pool.give(conn);
        }
    }

    fn change_token(&self) -> Result<u64> {
        let wait = self.pool.wait(None);
        let mut watcher = lock(&self.watcher);
        if watcher.is_none() {
            *watcher = Some(self.pool.take(&wait)?);
        }
        let conn = watcher.as_ref().expect("just opened");
        let version = patiently(wait.until, || {
            conn.pragma_query_value(None, "data_version", |r| r.get::<_, i64>(0))
        });
        version
            .map(|v| v as u64)
            .map_err(|e| self.pool.error_after(e.into(), &wait))
    }

    fn bell(&self) -> Option<&Place> {
        self.bell.as_ref()
    }

    fn describe(&self) -> String {
        self.pool.target.shown.display().to_string()
    }
}

fn read_meta(conn: &Connection, name: &str) -> rusqlite::Result<u64> {
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
        let conn = lock(&self.conn);
        f(conn.as_ref().ok_or(Error::TransactionTooOld)?).map_err(|e| self.pool.error(e))
    }
}

impl Drop for SqliteSnapshot {
    fn drop(&mut self) {
        let conn = lock(&self.conn).take();
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

/// The ranges of [`encode_ranges`]. fql never writes a malformed blob, so
/// one is damage to the file.
fn decode_ranges(blob: &[u8]) -> Ranges<'_> {
    Ranges(blob)
}

struct Ranges<'a>(&'a [u8]);

impl<'a> Ranges<'a> {
    fn bound(&mut self) -> Option<&'a [u8]> {
        let len = u32::from_le_bytes(self.0.get(..4)?.try_into().ok()?) as usize;
        let bound = self.0.get(4..)?.get(..len)?;
        self.0 = &self.0[4 + len..];
        Some(bound)
    }
}

impl<'a> Iterator for Ranges<'a> {
    type Item = Result<(&'a [u8], &'a [u8])>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        Some(match (self.bound(), self.bound()) {
            (Some(begin), Some(end)) => Ok((begin, end)),
            _ => {
                self.0 = &[];
                Err(Error::Corrupt("a malformed entry in the commit log".into()))
            }
        })
    }
}

struct SqliteWriter<'a> {
    conn: &'a Connection,
    /// The keys it changed, whose bells the commit rings.
    rung: &'a mut Rung,
    /// The commit's version, once set: the writes after it keep what they
    /// replace in the undo table under it ([`history`]). A write outside
    /// a commit keeps nothing.
    version: Option<i64>,
    /// The undo entries the commit wrote.
    kept: i64,
}

impl SqliteWriter<'_> {
    /// Keeps the values that `sql` (the commit's version, then `keys`)
    /// selects into the undo table, unless the commit kept its key's
    /// already.
    fn keep(&mut self, sql: &str, keys: &[&[u8]]) -> Result<()> {
        let Some(version) = self.version else {
            return Ok(());
        };
        let mut stmt = self.conn.prepare_cached(sql)?;
        stmt.raw_bind_parameter(1, version)?;
        for (i, key) in keys.iter().enumerate() {
            stmt.raw_bind_parameter(i + 2, key)?;
        }
        self.kept += stmt.raw_execute()? as i64;
        Ok(())
    }
}

/// The value a key had, or NULL where it had none.
const KEEP_ONE: &str =
    "INSERT OR IGNORE INTO undo VALUES (?1, ?2, (SELECT value FROM kv WHERE key = ?2))";
/// The value of a key that has one.
const KEEP_IF_ANY: &str = "INSERT OR IGNORE INTO undo SELECT ?1, key, value FROM kv WHERE key = ?2";
/// The rows of a range.
const KEEP_RANGE: &str =
    "INSERT OR IGNORE INTO undo SELECT ?1, key, value FROM kv WHERE key >= ?2 AND key < ?3";

impl Writer for SqliteWriter<'_> {
    fn version(&mut self) -> Result<u64> {
        Ok(read_meta(self.conn, "version")?)
    }

    fn set_version(&mut self, version: u64) -> Result<()> {
        self.version = Some(version as i64);
        self.conn
            .prepare_cached("UPDATE meta SET value = ?1 WHERE name = 'version'")?
            .execute([version as i64])?;
        Ok(())
    }

    fn log_floor(&mut self) -> Result<u64> {
        Ok(read_meta(self.conn, "floor")?)
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
            for range in decode_ranges(blob) {
                let (b, e) = range?;
                if f(b, e) {
                    return Ok(true);
                }
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
                .prepare_cached("DELETE FROM undo WHERE version <= ?1")?
                .execute([v])?;
            self.conn
                .prepare_cached("UPDATE meta SET value = max(value, ?1) WHERE name = 'floor'")?
                .execute([v])?;
        }
        self.conn
            .prepare_cached("INSERT INTO commits VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![
                version as i64,
                now_ms as i64,
                encode_ranges(ranges),
                self.kept
            ])?;
        Ok(())
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        get(self.conn, key)
    }

    fn set(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.keep(KEEP_ONE, &[key])?;
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO kv VALUES (?1, ?2)")?
            .execute([key, value])?;
        self.rung.key(key);
        Ok(())
    }

    fn clear(&mut self, key: &[u8]) -> Result<()> {
        self.keep(KEEP_IF_ANY, &[key])?;
        let removed = self
            .conn
            .prepare_cached("DELETE FROM kv WHERE key = ?1")?
            .execute([key])?;
        if removed > 0 {
            self.rung.key(key);
        }
        Ok(())
    }

    /// Rings the bells of the keys it removed: a watched key the range
    /// held no value for has none still.
    fn clear_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        self.keep(KEEP_RANGE, &[begin, end])?;
        let mut stmt = self
            .conn
            .prepare_cached("DELETE FROM kv WHERE key >= ?1 AND key < ?2 RETURNING key")?;
        let mut rows = stmt.query([begin, end])?;
        while let Some(row) = rows.next()? {
            let key = row.get_ref(0)?.as_blob().map_err(rusqlite::Error::from)?;
            self.rung.key(key);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
