//! What can stop a value or a key from being encoded.
//!
//! Each variant points at the element or option at fault. The static
//! checker runs the same codec functions on literals, so an error that needs
//! no database (`300[u8]`) is reported by `fql fmt` with the same code and
//! text as it would be at run time; an error that needs a bound value
//! (`:n[u8]` with `n` = 300) points at the reference.

use miette::Diagnostic;
use thiserror::Error;

use crate::syntax::IntTooLarge;
use crate::syntax::ast::{AtomicOp, Opt, OptName, Span};

/// A value or key that cannot be encoded as written.
#[derive(Clone, Debug, PartialEq, Error, Diagnostic)]
#[non_exhaustive]
pub enum Error {
    /// An encoding option where it has no meaning, with a wrong argument or
    /// in conflict with another: `/a(1)=true[raw]`, `=7[i64,u8]`.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Option(#[from] OptionError),

    /// A value that does not fit the width its options give: `3548[u8]`.
    #[error("`{value}` does not fit {encoding}")]
    #[diagnostic(code(fql::out_of_range))]
    OutOfRange {
        /// The value as written.
        value: String,
        /// The encoding, such as "an unsigned 8-bit int".
        encoding: String,
        /// The value, or the reference that supplied it.
        #[label("out of range")]
        at: Span,
        /// The range that fits.
        #[help]
        help: String,
    },

    /// An encoding option on an element that is tuple-encoded:
    /// `/a(<int[i64]>)`.
    #[error("encoding options do not apply inside a tuple")]
    #[diagnostic(
        code(fql::encoding_in_tuple),
        help(
            "keys and tuples are always tuple-encoded; encoding options apply only to a whole value, as in `/a(1)=<int[i64]>`"
        )
    )]
    EncodingInTuple {
        /// The options.
        #[label("in a tuple")]
        at: Span,
    },

    /// More than one incomplete versionstamp in one write:
    /// `/a(#:0001,#:0002)=1`.
    #[error("a write can hold only one incomplete vstamp")]
    #[diagnostic(
        code(fql::too_many_vstamps),
        help(
            "FoundationDB fills in one stamp per write, in the key or in the value; write the others in separate statements"
        )
    )]
    TooManyVstamps {
        /// The second stamp.
        #[label("second incomplete vstamp")]
        at: Span,
        /// The first one.
        #[label("first one here")]
        first: Span,
    },

    /// A user type (`user(0x40,...)`) that is not the last element of a
    /// key or a tuple value, or that stands inside a nested tuple: its
    /// bytes run to the end of the tuple, so it could not be read back.
    #[error("{}", if *nested { "a user type inside a nested tuple" } else { "a user type before the end of the tuple" })]
    #[diagnostic(
        code(fql::user_type_not_last),
        help(
            "the tuple layer does not say how long a user type is, so its bytes run to the end of the key or value: write it last, and not in a nested tuple"
        )
    )]
    UserTypeNotLast {
        /// Whether it stands inside a nested tuple.
        nested: bool,
        /// The user type.
        #[label("its bytes would run to the end")]
        at: Span,
    },

    /// An operand that an atomic operation cannot use as FoundationDB
    /// reads it: `add(1)`, whose tuple encoding is no little-endian int.
    #[error("`{op}` cannot take {found}")]
    #[diagnostic(code(fql::bad_operand))]
    BadOperand {
        /// The operation.
        op: AtomicOp,
        /// What the operand is, such as "a tuple-encoded int".
        found: String,
        /// The operand, or the reference that supplied it.
        #[label("not an operand of `{op}`")]
        at: Span,
        /// What the operation takes.
        #[help]
        help: String,
    },

    /// A hole where data must stand: the executor asked for `<int>` or a
    /// reference that was never bound to be encoded.
    #[error("`{hole}` is not data and cannot be encoded")]
    #[diagnostic(
        code(fql::not_data),
        help("only data elements are written; every reference must be bound before a write")
    )]
    NotData {
        /// The hole as written, such as `<int>` or `:id`.
        hole: String,
        /// Where.
        #[label("a hole")]
        at: Span,
    },

    /// An int past what the tuple layer encodes, 255 bytes of magnitude,
    /// computed while the script runs (a literal this large is a syntax
    /// error): a `<sum>` of large ints written back.
    #[error(transparent)]
    #[diagnostic(transparent)]
    IntTooLarge(#[from] IntTooLarge),

    /// A key or value far past any size the database stores.
    #[error("the encoded data could take {size} bytes, more than 64 MiB")]
    #[diagnostic(
        code(fql::too_large_to_encode),
        help(
            "FoundationDB stores keys of up to 10,000 bytes and values of up to 100,000; split the data over several keys"
        )
    )]
    TooLarge {
        /// A bound on the encoded size.
        size: u64,
        /// The element.
        #[label("too large")]
        at: Span,
    },
}

/// A known option that is wrong where it stands. Encoding options are
/// judged here, by [`options::resolve`](super::options::resolve), and query
/// options by the [checker](crate::check); both report through this type,
/// so an option mistake reads the same wherever it is found.
#[derive(Clone, Debug, PartialEq, Error, Diagnostic)]
#[non_exhaustive]
pub enum OptionError {
    /// An option where it has no meaning: `/a(1)=true[raw]` or `[raw] /a(<>)`.
    #[error("`{option}` does not apply to {place}")]
    #[diagnostic(code(fql::option_misplaced))]
    Misplaced {
        /// The option.
        option: OptName,
        /// What it was applied to, such as "a `bool` value".
        place: String,
        /// The option.
        #[label("not valid here")]
        at: Span,
        /// Where the option belongs.
        #[help]
        help: Option<String>,
    },

    /// An option with a missing, extra or wrong argument: `[limit:x]`.
    #[error("`{option}` {expected}")]
    #[diagnostic(code(fql::option_argument))]
    Argument {
        /// The option.
        option: OptName,
        /// What the argument must be, such as "takes a non-negative int".
        expected: String,
        /// The option.
        #[label("{expected}")]
        at: Span,
    },

    /// Two options that cannot both hold: `[i64,u8]` or `[limit:1,limit:2]`.
    #[error("{}", if option == earlier { format!("`{option}` is given twice") } else { format!("`{option}` conflicts with `{earlier}`") })]
    #[diagnostic(code(fql::option_conflict))]
    Conflict {
        /// The later option.
        option: OptName,
        /// The earlier one.
        earlier: OptName,
        /// The later option.
        #[label("this conflicts")]
        at: Span,
        /// The earlier option.
        #[label("with this")]
        first: Span,
    },
}

impl OptionError {
    /// `opt` has a wrong argument; `expected` says what it takes.
    pub fn argument(opt: &Opt, expected: &str) -> Self {
        OptionError::Argument {
            option: opt.name,
            expected: expected.into(),
            at: opt.span,
        }
    }

    /// `opt` cannot stand with `earlier`.
    pub fn conflict(opt: &Opt, earlier: &Opt) -> Self {
        OptionError::Conflict {
            option: opt.name,
            earlier: earlier.name,
            at: opt.span,
            first: earlier.span,
        }
    }
}
