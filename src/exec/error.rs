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

    /// A transaction that writes did its work for longer than the five
    /// seconds a transaction may live (`transaction_too_old`), so every
    /// attempt would fail the same way: a script of many long reads before
    /// a write, tens of thousands of directories created at once.
    #[error("the transaction ran past its 5 seconds and was not committed: {error}")]
    #[diagnostic(
        code(fql::transaction_too_old),
        help(
            "a transaction must finish within 5 seconds of its first read, and running it again would only take as long: split the work into smaller transactions with `@commit` between statements (or separate -q/-f inputs); a long read that writes nothing can go on in further transactions with `--split-reads`"
        )
    )]
    TooOld {
        /// `transaction_too_old`.
        error: kv::Error,
    },
}

impl Error {
    /// `self`, or [`Error::TooOld`] when it is `transaction_too_old`, as
    /// the retry loop gives it up.
    pub(crate) fn too_old(self) -> Error {
        match kv::AsKvError::as_kv(&self) {
            Some(kv::Error::TransactionTooOld) => Error::TooOld {
                error: kv::Error::TransactionTooOld,
            },
            _ => self,
        }
    }
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
            Error::Kv(e) | Error::TooOld { error: e } => Some(e),
            Error::Directory(d) => d.as_kv(),
            _ => None,
        }
    }
}
