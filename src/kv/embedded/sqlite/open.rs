//! Opening a database file.
//!
//! The path is a plain file name: SQLite is handed it made absolute, so it
//! never reads it as a `file:` URI or as `:memory:`. A missing file is
//! created here, empty and with mode 0600, before SQLite sees it: SQLite
//! gives the `-wal` and `-shm` files it makes beside a database the
//! database's mode, so all three stay private to their owner.
//!
//! A file this process may not write, or one on a read-only file system,
//! is opened read-only, as is any file when asked. Where SQLite cannot
//! create the `-wal` and `-shm` files it reads a WAL database through, and
//! there is no `-wal` file to read, the file holds every commit and is
//! read as it is (SQLite's `immutable` mode), read-only.
//!
//! What the file holds, and the tables a new file gets, are
//! [`setup`](super::setup)'s.

use std::fs;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::stat::{Mode as FileMode, SFlag, mknod};
use nix::unistd::{AccessFlags, access};
use rusqlite::{Connection, ErrorCode};

use super::guard;
use super::setup::{FORMAT, Found, State, setup};
use super::target::{Mode, ReadOnly, Target};
use crate::kv::{Error, Result};

/// An open database: how to connect, a first connection, and what was
/// found in it.
pub(crate) struct Opened {
    pub(crate) target: Target,
    pub(crate) conn: Connection,
    pub(crate) read_only: Option<ReadOnly>,
    /// The damage mark found in the file's header, if any.
    pub(crate) marked: bool,
}

/// Opens the database at `path`, creating it (and nothing else: its
/// directory must exist) when it is missing and `read_only` is false.
/// Waits for other processes that hold the file up to `timeout`.
pub(crate) fn open(path: &Path, read_only: bool, timeout: Duration) -> Result<Opened> {
    let deadline = Instant::now() + timeout;
    if path.as_os_str().is_empty() {
        return Err(Error::storage(
            "the database path is empty; give the name of a file",
        ));
    }
    let mut target = Target {
        shown: path.to_owned(),
        file: std::path::absolute(path).map_err(|e| cannot("open", path, e))?,
        mode: Mode::ReadWrite,
        timeout,
    };
    let why = probe(&target, read_only)?;
    if why.is_some() {
        target.mode = Mode::ReadOnly;
    }
    match connect_and_read(&target, deadline) {
        Ok((conn, found)) => finish(target, conn, why, found),
        // SQLite reads a WAL database through its -wal and -shm files;
        // where it cannot create them and there is no log to read, the
        // file holds everything and is read as it is.
        Err(e) if needs_journal(&e) && !target.beside("-wal").exists() => {
            target.mode = Mode::Immutable;
            let (conn, found) = connect_and_read(&target, deadline)
                .map_err(|e| sqlite_error(path, "open", e, timeout))?;
            finish(
                target,
                conn,
                Some(why.unwrap_or(ReadOnly::NoJournal)),
                found,
            )
        }
        Err(e) => {
            let e = sqlite_error(path, "open", e, timeout);
            if matches!(e, Error::Corrupt(_)) && target.mode == Mode::ReadWrite {
                guard::mark(&target);
            }
            Err(e)
        }
    }
}

/// A first connection, and what the file holds (given its tables, when it
/// is new and writable).
fn connect_and_read(target: &Target, deadline: Instant) -> rusqlite::Result<(Connection, Found)> {
    let conn = target.connect(deadline)?;
    let found = setup(&conn, target, deadline)?;
    Ok((conn, found))
}

/// Checks what the found file allows, and marks it when it is damaged.
fn finish(
    target: Target,
    conn: Connection,
    read_only: Option<ReadOnly>,
    found: Found,
) -> Result<Opened> {
    let path = &target.shown;
    match found.state() {
        // An older file opened read-only reads without a history.
        State::Ready | State::Older => Ok(Opened {
            marked: found.mark != 0,
            target,
            conn,
            read_only,
        }),
        State::Empty => Err(Error::storage(format!(
            "cannot open the database {} read-only: the file is empty, and only a write can make it an fql database",
            path.display()
        ))),
        State::Foreign(id) => Err(Error::storage(format!(
            "{} is a SQLite database of another application (application_id {id:#x}), not an fql database",
            path.display()
        ))),
        State::Format(v) => Err(Error::storage(format!(
            "{} has storage format {v}; this fql reads format {FORMAT}",
            path.display()
        ))),
        State::Damaged(what) => {
            if read_only.is_none() {
                guard::mark(&target);
            }
            Err(Error::Corrupt(guard::corrupt_message(path, &what)))
        }
    }
}

/// What the file lets this process do: `None` when it may read and write
/// the file, else why it may only read it. Creates the file, empty and
/// private, when it is missing and a write is allowed.
///
/// It never opens the file: closing any descriptor of a file drops every
/// POSIX lock this process holds on it, SQLite's included, and another
/// connection of this process may have it open.
fn probe(target: &Target, read_only: bool) -> Result<Option<ReadOnly>> {
    let (path, file) = (target.shown.as_path(), target.file());
    if !read_only {
        no_files_left_beside(target)?;
        if create_private(file).map_err(|e| cannot("create", path, e))? {
            return Ok(None);
        }
    }
    let meta = fs::metadata(file).map_err(|e| cannot("open", path, e))?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "it is a directory"
        } else {
            "it is not a regular file"
        };
        return Err(Error::storage(format!(
            "cannot open the database {}: {what}",
            path.display()
        )));
    }
    access(file, AccessFlags::R_OK).map_err(|e| cannot("open", path, e.into()))?;
    readable_beside(target)?;
    if read_only {
        return Ok(Some(ReadOnly::Asked));
    }
    match access(file, AccessFlags::W_OK) {
        Ok(()) => Ok(None),
        Err(Errno::EACCES | Errno::EPERM) => Ok(Some(ReadOnly::NotPermitted)),
        Err(Errno::EROFS) => Ok(Some(ReadOnly::FileSystem)),
        Err(e) => Err(cannot("open", path, e.into())),
    }
}

/// Fails, naming the file, when the `-wal` or `-shm` file SQLite keeps
/// beside the database exists and this user may not read it: SQLite would
/// only say it is "unable to open database file". They keep the mode the
/// database had when they were made, so a database shared later by its
/// own mode alone is one.
fn readable_beside(target: &Target) -> Result<()> {
    for suffix in ["-wal", "-shm"] {
        if access(&target.beside(suffix), AccessFlags::R_OK) == Err(Errno::EACCES) {
            return Err(Error::storage(format!(
                "cannot open the database {}: permission denied on {}",
                target.shown.display(),
                target.shown_beside(suffix).display()
            )));
        }
    }
    Ok(())
}

/// Fails, naming them, when the database is missing but its `-wal` or
/// `-shm` file is still there: the database was deleted without them.
///
/// A new database would take them over. SQLite discards a WAL beside an
/// empty file, but a process that still has the deleted database open
/// shares its `-shm` file with whoever opens the path next, and the new
/// database's reads then fail ("disk I/O error") or read the old WAL.
/// fql does not delete them itself: it cannot tell whether such a process
/// exists, and another process creating the database at the same moment
/// may already be using them.
///
/// The database is looked for once more after finding them, so a
/// database another process has just created, with its files, is opened.
fn no_files_left_beside(target: &Target) -> Result<()> {
    let exists = |path: &Path| fs::symlink_metadata(path).is_ok();
    if exists(target.file()) {
        return Ok(());
    }
    let left: Vec<&str> = ["-wal", "-shm"]
        .into_iter()
        .filter(|suffix| exists(&target.beside(suffix)))
        .collect();
    if left.is_empty() || exists(target.file()) {
        return Ok(());
    }
    let names: Vec<String> = left
        .iter()
        .map(|suffix| target.shown_beside(suffix).display().to_string())
        .collect();
    let (are, them) = if names.len() == 1 {
        ("is", "it")
    } else {
        ("are", "them")
    };
    Err(Error::storage(format!(
        "cannot create the database {}: {} of a deleted database {are} still there; delete \
         {them} too, once no process has the deleted database open",
        target.shown.display(),
        names.join(" and ")
    )))
}

/// Creates `file`, empty and with mode 0600, unless it exists; says
/// whether it did. `mknod` makes it without opening it; where only the
/// superuser may call `mknod` for a regular file (not Linux), it is opened
/// and closed at once, before SQLite can have opened it.
fn create_private(file: &Path) -> io::Result<bool> {
    let private = FileMode::S_IRUSR | FileMode::S_IWUSR;
    let made = match mknod(file, SFlag::S_IFREG, private, 0) {
        Err(Errno::EPERM) => fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(file)
            .map(drop),
        made => made.map_err(io::Error::from),
    };
    match made {
        Ok(()) => Ok(true),
        // Whatever stopped the creation (it exists; a read-only file
        // system), a file that is there is opened as it is.
        Err(_) if fs::symlink_metadata(file).is_ok() => Ok(false),
        Err(e) => Err(e),
    }
}

/// "cannot open the database PATH: permission denied".
fn cannot(what: &str, path: &Path, e: io::Error) -> Error {
    let message = format!(
        "cannot {what} the database {}: {}",
        path.display(),
        io_reason(what, &e)
    );
    Error::storage_caused(message, e)
}

/// An I/O error in a few plain words, without Rust's "(os error 13)".
fn io_reason(what: &str, e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        io::ErrorKind::NotFound if what == "create" => "its directory does not exist".into(),
        io::ErrorKind::NotFound => "no such file".into(),
        io::ErrorKind::ReadOnlyFilesystem => "read-only file system".into(),
        io::ErrorKind::NotADirectory => "a part of the path is not a directory".into(),
        io::ErrorKind::IsADirectory => "it is a directory".into(),
        _ => {
            let text = e.to_string();
            let text = text.split(" (os error").next().unwrap_or(&text);
            let mut chars = text.chars();
            chars.next().map_or_else(String::new, |c| {
                c.to_lowercase().chain(chars).collect::<String>()
            })
        }
    }
}

/// A SQLite failure while opening, named after the file once.
/// A lock another process held for all of `waited` is
/// [`Error::Locked`].
fn sqlite_error(path: &Path, what: &str, e: rusqlite::Error, waited: Duration) -> Error {
    if e.sqlite_error_code() == Some(ErrorCode::NotADatabase) {
        let message = format!(
            "cannot open the database {}: the file is not a database (not SQLite, or its first page is damaged)",
            path.display()
        );
        return Error::storage_caused(message, e);
    }
    match Error::from(e) {
        Error::Corrupt(detail) => Error::Corrupt(guard::corrupt_message(path, &detail)),
        Error::Locked { .. } => super::pool::locked(path, waited),
        Error::ReadOnly(detail) => Error::storage(format!(
            "cannot {what} the database {}: {detail}",
            path.display()
        )),
        Error::Storage { message, cause } => Error::Storage {
            message: format!("cannot {what} the database {}: {message}", path.display()),
            cause,
        },
        e => e,
    }
}

/// Whether opening failed because SQLite could not make the `-wal` or
/// `-shm` file a WAL database is read through.
fn needs_journal(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_read_plainly() {
        let e = io::Error::from_raw_os_error(13);
        assert_eq!(io_reason("open", &e), "permission denied");
        let e = io::Error::from_raw_os_error(40);
        assert_eq!(io_reason("open", &e), "too many levels of symbolic links");
    }
}
