//! How a database file is opened, for every connection to it: read-write,
//! read-only and why, or as it is (`immutable`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use super::busy::patiently;

/// Why a database opened read-only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadOnly {
    /// The caller asked for it.
    Asked,
    /// This user may not write the file.
    NotPermitted,
    /// The file system is mounted read-only.
    FileSystem,
    /// The directory does not let SQLite create the `-wal` and `-shm`
    /// files, which reading a WAL database in the ordinary way needs.
    NoJournal,
}

impl ReadOnly {
    /// The reason, as the end of "the database ... is read-only: ".
    pub(crate) fn reason(self) -> &'static str {
        match self {
            ReadOnly::Asked => "it was opened read-only",
            ReadOnly::NotPermitted => "this user may not write the file (permission denied)",
            ReadOnly::FileSystem => "it is on a read-only file system",
            ReadOnly::NoJournal => {
                "this user may not create files in its directory, which writing needs"
            }
        }
    }
}

/// How SQLite opens the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    ReadWrite,
    ReadOnly,
    /// Read-only, without locks or the `-wal` and `-shm` files: SQLite's
    /// `immutable` URI parameter.
    Immutable,
}

/// How every connection to one database is opened.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The path as the caller gave it, for messages.
    pub(crate) shown: PathBuf,
    /// The path made absolute, for SQLite.
    pub(super) file: PathBuf,
    pub(super) mode: Mode,
    /// The longest wait for a lock another process holds.
    pub(super) timeout: Duration,
}

impl Target {
    /// The file, its path made absolute.
    pub(crate) fn file(&self) -> &Path {
        &self.file
    }

    /// The file SQLite keeps beside the database with this suffix (`-wal`,
    /// `-shm`), its path made absolute.
    pub(crate) fn beside(&self, suffix: &str) -> PathBuf {
        beside(&self.file, suffix)
    }

    /// [`Target::beside`] as the caller named the database, for messages.
    pub(crate) fn shown_beside(&self, suffix: &str) -> PathBuf {
        beside(&self.shown, suffix)
    }

    /// A new connection with fql's settings, waiting for other processes'
    /// locks until `deadline`.
    pub(crate) fn connect(&self, deadline: Instant) -> rusqlite::Result<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = match self.mode {
            Mode::ReadWrite => {
                Connection::open_with_flags(&self.file, flags | OpenFlags::SQLITE_OPEN_READ_WRITE)?
            }
            Mode::ReadOnly => {
                Connection::open_with_flags(&self.file, flags | OpenFlags::SQLITE_OPEN_READ_ONLY)?
            }
            Mode::Immutable => Connection::open_with_flags(
                immutable_uri(&self.file),
                flags | OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
            )?,
        };
        super::configure(&mut conn, self.timeout)?;
        // Reads the schema, so it may wait for a lock.
        patiently(deadline, || conn.pragma_update(None, "synchronous", "FULL"))?;
        Ok(conn)
    }
}

/// `path` with `suffix` added to its last part.
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// `file:` and the absolute path, percent-encoded, with `immutable=1`.
fn immutable_uri(file: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file:");
    for &b in file.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri + "?immutable=1"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_immutable_uri_escapes_what_a_uri_would_read() {
        assert_eq!(
            immutable_uri(Path::new("/tmp/a b/x?y#z%.db")),
            "file:/tmp/a%20b/x%3Fy%23z%25.db?immutable=1"
        );
    }
}
