//! What can be wrong with a script that parses, found without a
//! database; and the union of that with the syntax errors, which is what
//! [`load`](super::load) returns.
//!
//! Every variant's doc comment gives an input that triggers it; the same
//! inputs are in `docs/errors.md`, whose examples the test suite runs.

use miette::Diagnostic;
use thiserror::Error;

use crate::codec::{self, OptionError};
use crate::syntax::{self, ParseError, ast::Span};

/// A script that parses but cannot run, found without a database.
#[derive(Clone, Debug, PartialEq, Error, Diagnostic)]
#[non_exhaustive]
pub enum CheckError {
    /// An option in the wrong place, with a wrong argument, or in conflict
    /// with another.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Option(#[from] OptionError),

    /// A value that cannot be encoded as its options say, found by the
    /// codec: `3548[u8]`, `1.5[f80]`, `/a(<int[i64]>)`.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Codec(#[from] codec::Error),

    /// An aggregate beside other types: `<int|sum>`.
    #[error("an aggregate cannot be combined with other types")]
    #[diagnostic(
        code(fql::aggregate_mixed),
        help(
            "an aggregate folds every row into one result, so it stands alone in its variable, as in `<sum>`"
        )
    )]
    AggregateMixed {
        /// The variable.
        #[label("mixes an aggregate with other types")]
        at: Span,
    },

    /// An aggregate where no rows are folded: `/a(<sum>)=clear`.
    #[error("an aggregate is not allowed {place}")]
    #[diagnostic(
        code(fql::aggregate_misplaced),
        help(
            "aggregates stand in a read, as an element of the key tuple or as the whole value: `/deltas(\"a\",<sum>)`"
        )
    )]
    AggregateMisplaced {
        /// Where it was, such as "in a clear".
        place: String,
        /// The aggregate.
        #[label("aggregate")]
        at: Span,
    },

    /// An incomplete versionstamp in a statement that does not write:
    /// `/a(#:0001,<int>)`.
    #[error("an incomplete vstamp can only be written")]
    #[diagnostic(
        code(fql::vstamp_not_written),
        help(
            "the database fills in `#:...` when a write commits; reads and clears need complete stamps or a `<vstamp>` variable"
        )
    )]
    VstampNotWritten {
        /// The stamp.
        #[label("incomplete vstamp in a {kind}")]
        at: Span,
        /// "read", "clear" or "mutation".
        kind: &'static str,
    },

    /// A hole in an atomic operation, which changes one key without
    /// reading it: `/a(<int>)=add(1[i64])`.
    #[error("an atomic operation cannot hold a hole")]
    #[diagnostic(
        code(fql::mutation_holes),
        help(
            "an atomic operation changes one key and reads nothing: write its key and operand in full; to change the keys a read finds, bind them and reference them, as in `/a(<k:int>)` then `/b(:k)=add(1[i64])`"
        )
    )]
    MutationHoles {
        /// "a hole", or "a range of raw keys" for `0x15...`.
        what: &'static str,
        /// The first hole.
        #[label("{what}")]
        at: Span,
    },

    /// Raw keys in the system keyspace without `[system]`: `0xff02...`.
    #[error("{keys} the system keyspace")]
    #[diagnostic(
        code(fql::system_keys),
        help(
            "FoundationDB keeps its own keys from 0xff on; to read or write them, put `[system]` before the statement, as in `[system] 0xff02...`"
        )
    )]
    SystemKeys {
        /// "the key is in", "the range is in" or "the range reaches into".
        keys: &'static str,
        /// The raw key.
        #[label("at or after 0xff")]
        at: Span,
    },

    /// A directory variable with a type other than `str` or `any`: `/<int>/a`.
    #[error("directory elements are strings")]
    #[diagnostic(
        code(fql::directory_type),
        help("match a directory element with `<>`, `<str>` or a named `<name:str>`")
    )]
    DirectoryType {
        /// The type.
        #[label("not a string type")]
        at: Span,
    },

    /// A cast to a type no value can have: `:total!sum`.
    #[error("cannot cast a reference to `{ty}`")]
    #[diagnostic(
        code(fql::bad_cast),
        help(
            "a cast names an element type: nil, bool, int, num, str, bytes, uuid, vstamp or tuple"
        )
    )]
    BadCast {
        /// The type.
        ty: String,
        /// Where.
        #[label("not an element type")]
        at: Span,
    },

    /// FDB's `exact` streaming mode on a read with no limit:
    /// `[mode:exact] /a(...)`. The mode reads exactly the limit in one
    /// batch, and the database refuses it without one.
    #[error("`mode:exact` needs a `limit`")]
    #[diagnostic(
        code(fql::exact_without_limit),
        help(
            "exact mode asks the database for exactly `limit` key-values in one batch, and FoundationDB refuses it without a limit; add one (`[mode:exact,limit:100]`), or use another mode such as `want_all` to read everything"
        )
    )]
    ExactWithoutLimit {
        /// The option.
        #[label("exact mode without a limit")]
        at: Span,
    },

    /// FDB's `exact` streaming mode on a read that skips some key-values
    /// it reads: `[mode:exact,limit:5] /a(<int>)`. The limit counts
    /// matches, which the database cannot count, so it cannot be handed
    /// to the read.
    #[error("`mode:exact` needs a read that keeps every key-value it reads")]
    #[diagnostic(
        code(fql::exact_filtered),
        help(
            "the limit counts the key-values that match, but the database cannot tell which match: only a key of constants ending in `...`, with `<>` or no value (`/a(1,...)`), keeps them all; read this one with another mode"
        )
    )]
    ExactFiltered {
        /// The option.
        #[label("exact mode")]
        at: Span,
        /// What filters.
        #[label("filtered on the client")]
        filter: Span,
    },

    /// `@read` or `@write` after a statement of the same transaction:
    /// `/a(1)` then `@read`.
    #[error("`{meta}` must open a transaction")]
    #[diagnostic(
        code(fql::meta_misplaced),
        help("put it at the top of the script or right after `@commit`")
    )]
    MetaMisplaced {
        /// The meta statement.
        meta: String,
        /// Where.
        #[label("the transaction already has statements")]
        at: Span,
        /// The earlier statement.
        #[label("the transaction began here")]
        first: Span,
    },

    /// A write in a transaction opened with `@read`: `@read` then `/a(1)=2`.
    #[error("a write in a read-only transaction")]
    #[diagnostic(
        code(fql::write_in_read),
        help("open the transaction with `@write`, or `@commit` before writing")
    )]
    WriteInRead {
        /// The write.
        #[label("this writes")]
        at: Span,
        /// The `@read`.
        #[label("the transaction is read-only from here")]
        read: Span,
    },
}

/// Any error a script can have before it runs.
#[derive(Clone, Debug, PartialEq, Error, Diagnostic)]
#[non_exhaustive]
pub enum Error {
    /// It does not parse.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Parse(#[from] ParseError),
    /// It parses but cannot run.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Check(#[from] CheckError),
}

impl Error {
    /// The stable code, such as `fql::unclosed`, that the docs explain.
    pub fn code(&self) -> String {
        Diagnostic::code(self)
            .map(|c| c.to_string())
            .unwrap_or_default()
    }

    /// The offset of the first labelled byte, for ordering errors as they
    /// appear in the script.
    pub fn offset(&self) -> usize {
        syntax::offset(self)
    }
}
