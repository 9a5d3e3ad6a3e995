//! Errors of the directory layer.
//!
//! Each failure of the caller's request has its own variant, carrying the
//! absolute path it is about, so the executor can point at the directory in
//! the query; transaction errors pass through untouched so the retry loop
//! can still retry conflicts.

use crate::kv;

use super::show;

/// Shorthand for results of the directory layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A directory operation that failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum Error {
    /// `open`, `list`, `remove` or a move's source named a missing path.
    #[error("directory {} does not exist", show(.path))]
    #[diagnostic(
        code(fql::directory::not_found),
        help("create it first, or check the spelling of each name in the path")
    )]
    NotFound {
        /// The missing directory.
        path: Vec<String>,
    },

    /// `create` named a path that already exists.
    #[error("directory {} already exists", show(.path))]
    #[diagnostic(code(fql::directory::exists))]
    AlreadyExists {
        /// The existing directory.
        path: Vec<String>,
    },

    /// An existing directory was opened with a layer other than its own.
    #[error(
        "directory {} has layer {:?}, not {:?}",
        show(.path),
        String::from_utf8_lossy(.found),
        String::from_utf8_lossy(.wanted)
    )]
    #[diagnostic(
        code(fql::directory::incompatible_layer),
        help("open it without a layer to skip the check")
    )]
    IncompatibleLayer {
        /// The directory.
        path: Vec<String>,
        /// The layer it was created with.
        found: Vec<u8>,
        /// The layer the caller asked for.
        wanted: Vec<u8>,
    },

    /// The root of a directory layer (or of a partition) was named where
    /// only a directory below it can be: opening, creating, removing or
    /// moving the root.
    #[error("the root directory {} cannot be {action}", show(.path))]
    #[diagnostic(code(fql::directory::root))]
    Root {
        /// The root: `/`, or a partition's path.
        path: Vec<String>,
        /// What was attempted: "opened", "removed", "moved".
        action: &'static str,
    },

    /// A move whose destination lies inside its source.
    #[error("cannot move {} into itself, to {}", show(.from), show(.to))]
    #[diagnostic(code(fql::directory::move_into_itself))]
    MoveIntoItself {
        /// The source.
        from: Vec<String>,
        /// The destination, at or below the source.
        to: Vec<String>,
    },

    /// A move whose destination's parent is missing; moves do not create
    /// parents.
    #[error("cannot move {} to {}: directory {} does not exist", show(.from), show(.to), show(.parent))]
    #[diagnostic(
        code(fql::directory::parent_not_found),
        help("create the parent first; a move creates no directories")
    )]
    ParentNotFound {
        /// The source.
        from: Vec<String>,
        /// The destination.
        to: Vec<String>,
        /// The destination's missing parent.
        parent: Vec<String>,
    },

    /// A move into, out of, or between partitions: a partition's
    /// directories have prefixes inside the partition's, so they cannot
    /// leave it.
    #[error("cannot move {} to {}: directories cannot move between partitions", show(.from), show(.to))]
    #[diagnostic(code(fql::directory::cross_partition))]
    CrossPartition {
        /// The source.
        from: Vec<String>,
        /// The destination.
        to: Vec<String>,
    },

    /// The raw prefix of a partition was asked for; its keys belong to the
    /// directories inside it.
    #[error("directory {} is a partition and cannot hold keys itself", show(.path))]
    #[diagnostic(
        code(fql::directory::partition),
        help("store keys in a directory inside the partition")
    )]
    Partition {
        /// The partition.
        path: Vec<String>,
    },

    /// The stored directory layer version is newer than this one reads
    /// (major), or writes (minor).
    #[error(
        "directory layer version {}.{}.{} at {} cannot be {} by this version of fql (1.0.0)",
        .stored[0], .stored[1], .stored[2], show(.root),
        if *.write { "written" } else { "read" }
    )]
    #[diagnostic(code(fql::directory::version))]
    Version {
        /// The root of the layer whose version is stored.
        root: Vec<String>,
        /// The stored version: major, minor, patch.
        stored: [u32; 3],
        /// Whether a write was refused (a read would have been allowed).
        write: bool,
    },

    /// A manual prefix was given but the layer does not allow them.
    #[error("cannot create {} with a prefix of its own: manual prefixes are not enabled", show(.path))]
    #[diagnostic(code(fql::directory::manual_prefix))]
    ManualPrefixDisabled {
        /// The directory being created.
        path: Vec<String>,
    },

    /// A manual prefix overlaps a prefix in use: it contains one, or is
    /// contained in one.
    #[error("prefix {} is already in use", const_hex::encode(.prefix))]
    #[diagnostic(code(fql::directory::prefix_in_use))]
    PrefixInUse {
        /// The prefix asked for.
        prefix: Vec<u8>,
    },

    /// The allocator chose a prefix that holds keys or overlaps another
    /// directory: something wrote there without going through the
    /// directory layer.
    #[error(
        "the prefix allocator chose {}, but {}",
        const_hex::encode(.prefix),
        if *.has_keys { "keys are already stored under it" } else { "it overlaps a manually chosen prefix" }
    )]
    #[diagnostic(
        code(fql::directory::allocator_conflict),
        help("keys were written under the directory layer's prefixes by something else")
    )]
    AllocatorConflict {
        /// The allocated prefix.
        prefix: Vec<u8>,
        /// Keys exist under it (otherwise: it overlaps another prefix).
        has_keys: bool,
    },

    /// Metadata that the directory layer cannot decode.
    #[error("corrupt directory metadata at key {}: {reason}", const_hex::encode(.key))]
    #[diagnostic(code(fql::directory::corrupt))]
    Corrupt {
        /// The key holding it.
        key: Vec<u8>,
        /// What is wrong.
        reason: String,
    },

    /// The transaction failed; conflicts among these are retried by
    /// [`kv::run`].
    #[error(transparent)]
    #[diagnostic(code(fql::directory::transaction))]
    Kv(#[from] kv::Error),
}

impl kv::AsKvError for Error {
    fn as_kv(&self) -> Option<&kv::Error> {
        match self {
            Error::Kv(e) => Some(e),
            _ => None,
        }
    }
}

impl Error {
    /// A `Corrupt` error for `key`.
    pub(super) fn corrupt(key: &[u8], reason: impl std::fmt::Display) -> Error {
        Error::Corrupt {
            key: key.to_vec(),
            reason: reason.to_string(),
        }
    }
}
