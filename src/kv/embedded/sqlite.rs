//! The file store: one SQLite database in WAL mode, shared by every process
//! that opens the file.
//!
//! Each transaction's snapshot is an open SQLite read transaction on a
//! connection of its own (WAL readers see a fixed state and block no one);
//! each commit is a short `BEGIN IMMEDIATE` transaction, which serializes
//! commits across processes. `synchronous=FULL` makes every commit durable,
//! so commit versions, and with them versionstamps, never repeat even after
//! a crash.

mod guard;
mod open;
mod setup;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::OpenOptions;
use super::store::{Snapshot, Store, Writer, batch};
use crate::kv::{Error, KeyValue, Result};

pub(crate) use guard::Guarded;

/// How long a commit waits for another process's commit to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) struct SqliteStore {
    path: PathBuf,
    pool: Arc<Pool>,
    /// The connection watches poll with, opened by the first poll.
    watcher: Mutex<Option<Connection>>,
}

struct Pool {
    target: open::Target,
    idle: Mutex<Vec<Connection>>,
}

fn storage(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Storage(format!("{}: {e}", path.display()))
}

impl Pool {
    fn take(&self) -> Result<Connection> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match idle {
            Some(c) => Ok(c),
            None => self
                .target
                .connect()
                .map_err(|e| storage(&self.target.shown, e)),
        }
    }

    fn give(&self, conn: Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < 16 {
            idle.push(conn);
        }
    }
}

impl SqliteStore {
    /// Opens the database at `path` as `options` say (see [`open`]): a
    /// store that refuses the writes the file cannot take.
    pub fn open(path: &Path, options: &OpenOptions) -> Result<Guarded> {
        let deadline = Instant::now() + BUSY_TIMEOUT;
        let open::Opened {
            target,
            conn,
            read_only,
            marked,
        } = open::open(path, options.read_only, deadline)?;
        let store = SqliteStore {
            path: path.to_owned(),
            pool: Arc::new(Pool {
                target: target.clone(),
                idle: Mutex::new(vec![conn]),
            }),
            watcher: Mutex::default(),
        };
        Ok(Guarded::new(store, target, read_only, marked))
    }
}

impl Store for SqliteStore {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>> {
        let conn = self.pool.take()?;
        conn.execute_batch("BEGIN DEFERRED")?;
        // The first read fixes the WAL snapshot this transaction sees.
        let version = read_meta(&conn, "version");
        let version = match version {
            Ok(v) => v,
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        };
        Ok(Box::new(SqliteSnapshot {
            conn: Some(conn),
            pool: self.pool.clone(),
            version,
        }))
    }

    fn write(&self, f: &mut dyn FnMut(&mut dyn Writer) -> Result<()>) -> Result<()> {
        let mut conn = self.pool.take()?;
        let result = (|| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            f(&mut SqliteWriter { conn: &tx })?;
            tx.commit()?;
            Ok(())
        })();
        self.pool.give(conn);
        result.map_err(|e| match e {
            Error::Storage(msg) => storage(&self.path, msg),
            e => e,
        })
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
    conn: Option<Connection>,
    pool: Arc<Pool>,
    version: u64,
}

impl SqliteSnapshot {
    fn conn(&self) -> &Connection {
        self.conn.as_ref().expect("connection is held until drop")
    }
}

impl Drop for SqliteSnapshot {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take()
            && conn.execute_batch("ROLLBACK").is_ok()
        {
            self.pool.give(conn);
        }
    }
}

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
        get(self.conn(), key)
    }

    fn scan(
        &mut self,
        begin: &[u8],
        end: &[u8],
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<KeyValue>> {
        let sql = if reverse {
            "SELECT key, value FROM kv WHERE key >= ?1 AND key < ?2 ORDER BY key DESC LIMIT ?3"
        } else {
            "SELECT key, value FROM kv WHERE key >= ?1 AND key < ?2 ORDER BY key LIMIT ?3"
        };
        let mut out = batch(limit);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self.conn().prepare_cached(sql)?;
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
