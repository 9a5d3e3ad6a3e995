//! Which file a path names: its device and inode.
//!
//! A database file deleted or replaced (by `rm`, `mv`, a restore) while a
//! process has it open stays readable and writable for that process, which
//! would go on committing to a file nobody else sees, with versions the new
//! file repeats. The store notes the file's identity when it opens it and
//! checks it again inside every write transaction and for every new
//! connection.

use std::io;
use std::path::Path;

/// A file's identity on this machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of the file at `path` now.
    pub fn of(path: &Path) -> io::Result<FileId> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path)?;
        Ok(FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }
}
