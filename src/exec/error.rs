//! What can go wrong while a plan runs.

use miette::Diagnostic;
use thiserror::Error;

use crate::syntax::ast::Span;
use crate::syntax::counted;
use crate::{codec, directory, kv};

/// An error while running a plan.
#[derive(Clone, Debug, PartialEq, Error, Diagnostic)]
#[non_exhaustive]
pub enum Error {
    /// The database failed: a conflict that retries did not resolve, a
    /// timeout, an over-size write: `/a(1)=0x...` with a value of 100 kB.
    #[error(transparent)]
    #[diagnostic(code(fql::database))]
    Kv(#[from] kv::Error),

    /// The database refused a statement's write for its size: a key, a
    /// value or the whole transaction over FoundationDB's limits
    /// (`key_too_large`, `value_too_large`, `transaction_too_large`). The
    /// same error as [`Error::Kv`], with the statement that caused it.
    #[error("{error}")]
    #[diagnostic(code(fql::database), help("{}", size_help(error)))]
    TooLarge {
        /// What the database said.
        error: kv::Error,
        /// The statement.
        #[label("this statement")]
        at: Span,
    },

    /// A read reached what its own transaction wrote with an incomplete
    /// versionstamp (`accessed_unreadable`): `/log(<vstamp>)=<>` after
    /// `/log(#:0001)="x"` with no `@commit` between. The same error as
    /// [`Error::Kv`], with the read that caused it.
    #[error("{error}")]
    #[diagnostic(
        code(fql::database),
        help(
            "the database fills in `#:...` when the write commits, and until then it cannot say where such a key lands or what such a value holds; read after `@commit`"
        )
    )]
    Unreadable {
        /// What the database said.
        error: kv::Error,
        /// The read.
        #[label("this read")]
        at: Span,
    },

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

    /// A reference's cast did not hold for the value a row bound:
    /// `/a(<id:int|str>)` then `/b(:id!int)` meets `/a("x")`. The script
    /// stops there, as a failed assertion does.
    #[error("`:{name}` holds {value}, not `{cast}`")]
    #[diagnostic(
        code(fql::cast_failed),
        help(
            "a cast requires the bound value to have its type; narrow the variable that binds `{name}` to `{cast}` to skip the rows of other types"
        )
    )]
    CastFailed {
        /// The name.
        name: String,
        /// What it holds: its type, and the value when short.
        value: String,
        /// The type the cast requires.
        cast: crate::syntax::ast::Type,
        /// The cast.
        #[label("requires `{cast}`")]
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

    /// A key written at the root of the keyspace whose bytes lie under a
    /// directory's prefix: `/(21, 1)=2` where a directory has the prefix
    /// `0x1515`. The key would land among the directory's own keys.
    #[error("the key {key} lies under the prefix {prefix} of a directory")]
    #[diagnostic(
        code(fql::in_directory),
        help(
            "a key at the root lives outside every directory; write it in its directory by path (`fql tree` shows each directory's prefix), or, to write these bytes anyway, as a raw key"
        )
    )]
    InDirectory {
        /// The key's bytes, in hex.
        key: String,
        /// The directory's prefix, in hex.
        prefix: String,
        /// The query.
        #[label("inside a directory")]
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
    #[error("{}, {}", counted(*found as u64, "key-value matches", "key-values match"), bounds(*min, *max))]
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
    /// their temporary file: the disk is full, the temporary directory
    /// cannot be written, or the process has no file descriptor left.
    #[error("cannot keep the rows of a join on disk: {reason}")]
    #[diagnostic(
        code(fql::spill),
        help(
            "a statement's rows for later statements go to a temporary file in $TMPDIR, else /tmp, once they pass 256 KiB (or, when finished, once all statements' rows held in memory pass 4 MiB); make room there, or point TMPDIR at a directory with room"
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
        format!("the read failed after printing {}: {source}", counted(*printed as u64, "result", "results"))
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

    /// A commit failed with `commit_unknown_result` (or another error
    /// after which it may have been applied), and the database could not
    /// tell whether it was: it keeps no record of commits (FoundationDB,
    /// which fql runs without idempotency ids), or no longer one that old.
    /// The transaction is not run again, since that could apply its writes
    /// twice (a second row under a new versionstamp, an increment counted
    /// twice).
    #[error(
        "the transaction may or may not have committed (commit_unknown_result), and the database cannot tell which; it was not run again, since that could apply its writes twice"
    )]
    #[diagnostic(
        code(fql::commit_unknown),
        help("check whether its writes are in the database before running it again")
    )]
    UnknownResult,

    /// A transaction that writes did its work for longer than the five
    /// seconds a transaction may live (`transaction_too_old`), so every
    /// attempt would fail the same way: a script of many long reads before
    /// a write. Or a transaction the caller holds open (the shell's
    /// `\begin`) outlived them between its statements.
    #[error("the transaction ran past its 5 seconds and was not committed: {error}")]
    #[diagnostic(code(fql::transaction_too_old), help("{}", too_old_help(*held)))]
    TooOld {
        /// `transaction_too_old`.
        error: kv::Error,
        /// Whether the caller held the transaction open across its
        /// statements, rather than the retry loop running it whole.
        held: bool,
    },
}

/// What to do about `transaction_too_old`: a transaction held open has
/// to be opened again and finished sooner; one the retry loop ran would
/// take as long again, so it has to be split.
fn too_old_help(held: bool) -> &'static str {
    if held {
        "a transaction lives 5 seconds from its first read, so its statements and its commit must all come within them, and this one is past them: open a new one and finish it sooner, or run the statements without one, each in a transaction of its own"
    } else {
        "a transaction must finish within 5 seconds of its first read, and running it again would only take as long: split the work into smaller transactions with `@commit` between statements (or separate -q/-f inputs); a long read that writes nothing can go on in further transactions with `--split-reads`"
    }
}

impl Error {
    /// `self`, or [`Error::TooOld`] when it is `transaction_too_old`, as
    /// the retry loop gives it up.
    pub(crate) fn too_old(self) -> Error {
        self.too_old_in(false)
    }

    /// `self`, or [`Error::TooOld`] when it is `transaction_too_old`:
    /// `held` when the caller holds the transaction open, so that the
    /// error says what to do about that rather than how the directory
    /// layer or the key-value store met it.
    pub(crate) fn too_old_in(self, held: bool) -> Error {
        match kv::AsKvError::as_kv(&self) {
            Some(kv::Error::TransactionTooOld) => Error::TooOld {
                error: kv::Error::TransactionTooOld,
                held,
            },
            _ => self,
        }
    }

    /// The error of the statement at `at`: a size limit the database
    /// enforced, or a read of what the transaction wrote with a
    /// versionstamp, points at it.
    pub(crate) fn of_statement(self, at: Span) -> Error {
        match self {
            Error::Kv(error) if matches!(error.code(), 2101..=2103) => {
                Error::TooLarge { error, at }
            }
            Error::Kv(error @ kv::Error::AccessedUnreadable) => Error::Unreadable { error, at },
            other => other,
        }
    }
}

/// What to do about a size limit.
fn size_help(e: &kv::Error) -> &'static str {
    match e.code() {
        2102 => "a key is its directory's prefix and its tuple; keep large data in values",
        2103 => "split large data over several keys",
        _ => "split the writes over several transactions with `@commit`",
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
            Error::Kv(e)
            | Error::TooLarge { error: e, .. }
            | Error::Unreadable { error: e, .. }
            | Error::TooOld { error: e, .. } => Some(e),
            Error::Directory(d) => d.as_kv(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use super::Error;
    use crate::exec::{Engine, Output};
    use crate::kv::Limits;
    use crate::kv::embedded::Embedded;
    use crate::syntax::{Sources, render};

    /// A key, a value and a transaction over the store's limits are each
    /// reported at the statement that went over, and rendered there.
    #[test]
    fn size_limits_point_at_the_statement() {
        let limits = Limits {
            key: 20,
            value: 20,
            // The directory's creation, its reads and its stamp of the
            // metadata version (157 bytes) included, and three of the
            // writes below fit; the fourth does not.
            transaction: 1_382,
            ..Limits::default()
        };
        let many: String = (0..20)
            .map(|n| format!("/a({n})=\"0123456789\"\n"))
            .collect();
        for (src, code, statement) in [
            (
                "/a(1)=1\n/a(\"a key of more than twenty bytes\")=1\n/b(1)=1".to_string(),
                2102,
                "/a(\"a key of more than twenty bytes\")=1",
            ),
            (
                "/a(1)=1\n/a(2)=\"a value of more than twenty bytes\"".to_string(),
                2103,
                "/a(2)=\"a value of more than twenty bytes\"",
            ),
            (many, 2101, "/a(3)=\"0123456789\""),
        ] {
            let engine = Engine::new(Arc::new(Embedded::memory_with_limits(limits)));
            let script = crate::check::load(&src).expect("loads");
            let plan = crate::plan::plan(&script, &HashMap::new()).expect("plans");
            let error = engine
                .run(&plan, &mut |_: Output| Ok(()))
                .expect_err("over a limit");
            let Error::TooLarge { error: kv, at } = &error else {
                panic!("{error:?}")
            };
            assert_eq!(kv.code(), code);
            assert_eq!(&src[at.range()], statement);
            let shown = render(&error, &Sources::single("t.fql", src.as_str()), false, 100);
            assert!(shown.contains(&format!("│ {statement}")), "{shown}");
            assert!(shown.contains("this statement"), "{shown}");
        }
    }
}
