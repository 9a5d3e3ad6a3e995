//! What a database file holds, and the tables a new one gets.
//!
//! Processes that start at once on a new file must agree on one set of
//! tables. What a file holds (its application id, damage mark, tables and
//! storage format) is read in one transaction; a file that needs its
//! tables gets them in one `BEGIN IMMEDIATE` transaction that reads the
//! file again first, so the process that comes second finds the work
//! done. Locks other processes hold meanwhile (one changing the journal
//! mode, recovering the WAL or setting up the shared memory) are waited
//! out, up to a deadline ([`busy`](super::busy)).
//!
//! A file of the format before ([`OLDER`], without the undo table that
//! reads at older versions need) gets it when opened for writing, in one
//! `BEGIN IMMEDIATE` transaction likewise: the table, the commit log's
//! `kept` column and the version the history starts from, all or nothing.
//! The column also stops an older fql still running on the file from
//! committing: its insert into the log names three columns, so no commit
//! lands without its undo entries. Opened read-only, such a file reads
//! as before and has no history: a read at an older version is
//! `transaction_too_old`.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension};

use super::busy::patiently;
use super::target::{Mode, Target};

/// `PRAGMA application_id` of fql databases ("FQL1"), so fql refuses to
/// use some other program's SQLite file as its keyspace.
const APPLICATION_ID: i32 = 0x4651_4c31;

/// The layout of the tables; a file of another layout is refused, but
/// for [`OLDER`], which opening for writing brings up to this one.
pub(super) const FORMAT: i64 = 2;

/// The layout before the undo table.
const OLDER: i64 = 1;

/// The tables every fql database has, in the order [`SCHEMA`] makes them;
/// a file of format [`OLDER`] has the first three.
const TABLES: [&str; 4] = ["kv", "meta", "commits", "undo"];

/// `undo`: what each logged commit replaced, by commit version and key:
/// the value before it, or NULL for a key it created (see
/// [`history`](super::history)).
const SCHEMA: &str = "
    CREATE TABLE kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
    CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE commits (version INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL,
                          ranges BLOB NOT NULL, kept INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX commits_by_age ON commits (at_ms);
    CREATE TABLE undo (version INTEGER NOT NULL, key BLOB NOT NULL, value BLOB,
                       PRIMARY KEY (version, key)) WITHOUT ROWID;
    INSERT INTO meta VALUES ('format', 2), ('floor', 0);
";

/// From [`OLDER`] to [`FORMAT`]: the history starts at the latest
/// version, since the commits before kept no undo entries.
const UPGRADE: &str = "
    CREATE TABLE undo (version INTEGER NOT NULL, key BLOB NOT NULL, value BLOB,
                       PRIMARY KEY (version, key)) WITHOUT ROWID;
    ALTER TABLE commits ADD COLUMN kept INTEGER NOT NULL DEFAULT 0;
    INSERT INTO meta SELECT 'history', value FROM meta WHERE name = 'version';
    UPDATE meta SET value = 2 WHERE name = 'format';
";

/// The version a new file starts from: the clock in microseconds, as FDB's
/// versions advance, so it exceeds every version of any file that was at
/// the same path before (commits take the clock too, or one more than the
/// last when that is more).
fn first_version() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

/// What a file holds, read in one transaction.
pub(super) struct Found {
    pub(super) application_id: i32,
    /// `PRAGMA user_version`: fql's damage mark.
    pub(super) mark: i32,
    /// Which of [`TABLES`] exist.
    tables: [bool; 4],
    /// Whether any other table or index exists.
    others: bool,
    /// `meta.format`, when the row exists.
    format: Option<i64>,
}

pub(super) enum State {
    /// Nothing in it yet: a new file, or an empty SQLite database.
    Empty,
    /// An fql database this fql reads.
    Ready,
    /// An fql database of the format before, which this fql reads and,
    /// opening it for writing, upgrades.
    Older,
    /// Another application's database.
    Foreign(i32),
    /// An fql database of another storage format.
    Format(i64),
    /// An fql database that has lost part of itself.
    Damaged(String),
}

impl Found {
    pub(super) fn state(&self) -> State {
        if self.application_id != APPLICATION_ID {
            let empty = self.application_id == 0 && !self.others && !self.tables.contains(&true);
            return if empty {
                State::Empty
            } else {
                State::Foreign(self.application_id)
            };
        }
        let required = match self.format {
            Some(FORMAT) => &TABLES[..],
            Some(OLDER) => &TABLES[..3],
            Some(v) => return State::Format(v),
            None => &TABLES[..3],
        };
        let missing: Vec<_> = required
            .iter()
            .zip(self.tables)
            .filter(|(_, there)| !there)
            .map(|(name, _)| *name)
            .collect();
        if !missing.is_empty() {
            return State::Damaged(format!("fql's tables are missing: {}", missing.join(", ")));
        }
        match self.format {
            Some(FORMAT) => State::Ready,
            Some(OLDER) => State::Older,
            Some(v) => State::Format(v),
            None => State::Damaged("its storage format is not recorded".into()),
        }
    }
}

/// Reads what the file holds; inside a transaction when called in one.
fn inspect(conn: &Connection) -> rusqlite::Result<Found> {
    let (application_id, mark, names) = conn
        .prepare_cached(
            "SELECT (SELECT application_id FROM pragma_application_id()),
                    (SELECT user_version FROM pragma_user_version()),
                    (SELECT group_concat(name, ' ') FROM sqlite_schema)",
        )?
        .query_row([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get::<_, Option<String>>(2)?))
        })?;
    let mut found = Found {
        application_id,
        mark,
        tables: [false; 4],
        others: false,
        format: None,
    };
    for name in names.iter().flat_map(|n| n.split(' ')) {
        match TABLES.iter().position(|t| *t == name) {
            Some(i) => found.tables[i] = true,
            None => found.others |= name != "commits_by_age" && !name.starts_with("sqlite_"),
        }
    }
    if found.application_id == APPLICATION_ID && found.tables[1] {
        found.format = conn
            .prepare_cached("SELECT value FROM meta WHERE name = 'format'")?
            .query_row([], |r| r.get(0))
            .optional()?;
    }
    Ok(found)
}

/// Reads what the file holds and, when `target` is writable, gives an
/// empty file its tables, waiting for other processes until `deadline`.
pub(super) fn setup(
    conn: &Connection,
    target: &Target,
    deadline: Instant,
) -> rusqlite::Result<Found> {
    patiently(deadline, || {
        let found = in_transaction(conn, "BEGIN DEFERRED", || inspect(conn))?;
        if target.mode != Mode::ReadWrite {
            return Ok(found);
        }
        match found.state() {
            State::Empty => {
                conn.pragma_update(None, "journal_mode", "WAL")?;
                in_transaction(conn, "BEGIN IMMEDIATE", || create(conn))
            }
            State::Ready => {
                conn.pragma_update(None, "journal_mode", "WAL")?;
                Ok(found)
            }
            State::Older => {
                conn.pragma_update(None, "journal_mode", "WAL")?;
                in_transaction(conn, "BEGIN IMMEDIATE", || upgrade(conn))
            }
            _ => Ok(found),
        }
    })
}

/// Inside a write transaction: makes the tables if the file is still
/// empty (another process may have made them since it was read).
fn create(conn: &Connection) -> rusqlite::Result<Found> {
    if let State::Empty = inspect(conn)?.state() {
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
        conn.execute_batch(SCHEMA)?;
        conn.execute(
            "INSERT INTO meta VALUES ('version', ?1), ('history', ?1)",
            [first_version()],
        )?;
    }
    inspect(conn)
}

/// Inside a write transaction: brings a file of the format before up to
/// this one, unless another process did since it was read.
fn upgrade(conn: &Connection) -> rusqlite::Result<Found> {
    if let State::Older = inspect(conn)?.state() {
        conn.execute_batch(UPGRADE)?;
    }
    inspect(conn)
}

/// Runs `f` between `begin` and `COMMIT`, rolling back if it fails.
fn in_transaction<T>(
    conn: &Connection,
    begin: &str,
    f: impl FnOnce() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.execute_batch(begin)?;
    let result = f().and_then(|v| conn.execute_batch("COMMIT").map(|()| v));
    if result.is_err() && !conn.is_autocommit() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    result
}
