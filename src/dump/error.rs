//! What can go wrong in a dump or a load.

use crate::{codec, directory, kv};

/// Why a dump or a load failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading the dump or writing it failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The first line is not [`MAGIC`](super::MAGIC).
    #[error("line 1: not a dump of fql: the first line is not `{}`", super::MAGIC)]
    NotADump,
    /// A line the loader cannot take.
    #[error("line {line}: {message}")]
    Line {
        /// The line, from 1.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// A statement whose directory lies outside every directory dumped.
    #[error("line {line}: {path} is outside {roots}, what the dump holds; nothing was written")]
    Outside {
        /// The line, from 1.
        line: u64,
        /// The statement's directory.
        path: String,
        /// The dump's roots.
        roots: String,
    },
    /// The dump has no `% end` line, or one with another count.
    #[error("the dump is cut short: {0}")]
    Truncated(String),
    /// The directory to load into holds data.
    #[error("{0} is not empty (--force loads into it anyway)")]
    NotEmpty(String),
    /// A directory to dump does not exist.
    #[error("directory {0} does not exist")]
    NotFound(String),
    /// One directory to dump lies inside another.
    #[error("{inner} is inside {outer}, which the dump holds already")]
    Nested {
        /// The inner directory.
        inner: String,
        /// The outer one.
        outer: String,
    },
    /// `--to` given for a dump of the whole database, whose keys have one
    /// place only.
    #[error("the dump holds the whole database, which loads only where it was: drop --to")]
    WholeTo,
    /// `--to` given for a dump of several directories.
    #[error("the dump holds {0} directories; a target takes one")]
    ManyRoots(usize),
    /// The directory layer failed.
    #[error(transparent)]
    Directory(#[from] directory::Error),
    /// A key or value could not be encoded.
    #[error(transparent)]
    Codec(#[from] codec::Error),
    /// The database failed.
    #[error(transparent)]
    Kv(#[from] kv::Error),
}

impl kv::AsKvError for Error {
    fn as_kv(&self) -> Option<&kv::Error> {
        match self {
            Error::Kv(e) => Some(e),
            Error::Directory(d) => d.as_kv(),
            _ => None,
        }
    }
}
