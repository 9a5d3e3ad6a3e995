//! What can go wrong while a plan runs.

use miette::Diagnostic;
use thiserror::Error;

use crate::syntax::ast::Span;
use crate::{codec, directory, kv};

/// An error while running a plan.
#[derive(Clone, Debug, PartialEq, Error, Diagnostic)]
pub enum Error {
    /// The database failed: a conflict that retries did not resolve, a
    /// timeout, an over-size write: `/a(1)=0x...` with a value of 100 kB.
    #[error(transparent)]
    #[diagnostic(code(fql::database))]
    Kv(#[from] kv::Error),

    /// A directory operation failed: `/a/b=remove` inside a partition
    /// moved away, a layer mismatch.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Directory(#[from] directory::Error),

    /// A value could not be encoded, e.g. a parameter out of range for
    /// the options it meets.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Codec(#[from] codec::Error),

    /// With `strict`, a key-value that does not match the query.
    #[error("{key} does not match the query")]
    #[diagnostic(
        code(fql::strict_mismatch),
        help("without `strict`, key-values that do not match are skipped")
    )]
    Mismatch {
        /// The key-value found, as FQL (bytes when it is not a tuple).
        key: String,
        /// The query.
        #[label("strict query")]
        at: Span,
    },

    /// Keys were asked of a partition, which holds only directories:
    /// `/p(1)=2` where `/p` was created as a partition.
    #[error("directory {path} is a partition: it holds directories, not keys")]
    #[diagnostic(code(fql::partition_keys))]
    Partition {
        /// The partition.
        path: String,
        /// The query.
        #[label("a key in a partition")]
        at: Span,
    },

    /// A guard found the database not as the script requires:
    /// `[absent] /locks("owner",<str>)` found an owner, or
    /// `[exists] /locks("owner","ann")` found none. The transaction stops
    /// and writes nothing; so does the rest of the script.
    #[error("{}", match found {
        Some(kv) => format!("the guard found {kv}"),
        None => "the guard found nothing".to_string(),
    })]
    #[diagnostic(
        code(fql::guard_failed),
        help("the transaction stopped here and wrote nothing")
    )]
    Guard {
        /// What an `[absent]` guard found; `None` for an `[exists]` guard.
        found: Option<String>,
        /// The guard.
        #[label("{}", if found.is_some() { "requires that nothing matches" } else { "requires a match" })]
        at: Span,
    },

    /// A read with `[min:N]` or `[max:N]` matched a number of key-values
    /// outside its bounds: `[max:1] /locks("owner",<str>)` that finds two
    /// owners.
    #[error("{found} key-values match, {}", bounds(*min, *max))]
    #[diagnostic(code(fql::cardinality))]
    Cardinality {
        /// How many matched.
        found: usize,
        /// `[min:N]`.
        min: Option<usize>,
        /// `[max:N]`.
        max: Option<usize>,
        /// The read.
        #[label("this read")]
        at: Span,
    },

    /// The rows a statement binds for later ones could not be kept in
    /// their temporary file: the disk is full, or the temporary directory
    /// cannot be written.
    #[error("cannot keep the rows of a join on disk: {reason}")]
    #[diagnostic(
        code(fql::spill),
        help(
            "rows bound past a few megabytes go to a temporary file in $TMPDIR, else /tmp; make room there, or point TMPDIR at a directory with room"
        )
    )]
    Spill {
        /// What the file system said.
        reason: String,
    },

    /// A read-only transaction failed after it had printed results, so
    /// running it again would print them twice; or it outlived its
    /// transaction (five seconds on FoundationDB), so running it again
    /// would only outlive the next one.
    #[error("{}", if *printed == 0 {
        format!("the read outlived its transaction: {source}")
    } else {
        format!("the read failed after printing {printed} results: {source}")
    })]
    #[diagnostic(
        code(fql::read_interrupted),
        help(
            "the results printed so far are one consistent snapshot; narrow the read with `limit` or a longer key prefix, or let it go on in further transactions at the cost of one snapshot (`fql run --split-reads`, `Engine::split_reads`)"
        )
    )]
    Interrupted {
        /// Results already printed.
        printed: usize,
        /// What stopped the read.
        source: kv::Error,
    },
}

/// `[min:N]`, `[max:M]` in words.
fn bounds(min: Option<usize>, max: Option<usize>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("but between {a} and {b} must"),
        (Some(a), None) => format!("but at least {a} must"),
        (None, Some(b)) => format!("but at most {b} may"),
        (None, None) => "as any number may".into(),
    }
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
