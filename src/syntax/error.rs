//! What can be wrong with the text of a script.
//!
//! Every variant's doc comment gives an input that triggers it; the same
//! inputs are in `docs/errors.md`, whose examples the test suite runs.

use miette::Diagnostic;
use thiserror::Error;

use super::span::Span;

/// A script that does not parse.
#[derive(Clone, Debug, PartialEq, Error, Diagnostic)]
#[non_exhaustive]
pub enum ParseError {
    /// A line that begins with something no statement begins with: `users(1)`.
    #[error("expected a statement")]
    #[diagnostic(
        code(fql::expected_statement),
        help(
            "a statement starts with `/` (a directory), `[` (query options) or `@` (a meta statement)"
        )
    )]
    ExpectedStatement {
        /// The unexpected text.
        #[label("a statement cannot start here")]
        at: Span,
    },

    /// A bracket or quote that is never closed: `/a(1,2`.
    #[error("unclosed `{open}`")]
    #[diagnostic(code(fql::unclosed))]
    Unclosed {
        /// The opening character.
        open: char,
        /// The character that would close it.
        close: char,
        /// The opening character.
        #[label("this `{open}` is never closed")]
        at: Span,
        /// Where the closing character was expected.
        #[label("expected `{close}` here")]
        end: Span,
        /// A hint, for strings that run into a line break.
        #[help]
        help: Option<String>,
    },

    /// One thing where another was needed: `/a(1 2)`.
    #[error("expected {expected}, found {found}")]
    #[diagnostic(code(fql::expected))]
    Expected {
        /// What would have been valid.
        expected: String,
        /// What was there.
        found: String,
        /// Where.
        #[label("expected {expected}")]
        at: Span,
        /// A hint for the common mistakes.
        #[help]
        help: Option<String>,
    },

    /// `...` followed by something: `/a(...,1)` or `/a/.../b`.
    #[error("`...` must be the last element")]
    #[diagnostic(
        code(fql::rest_not_last),
        help("`...` stands for any number of further elements, so nothing can follow it")
    )]
    RestNotLast {
        /// The `...`.
        #[label("`...` is here")]
        rest: Span,
        /// What follows it.
        #[label("but this follows it")]
        next: Span,
    },

    /// Bytes with an odd number of hex digits: `0xabc`.
    #[error("`{text}` has an odd number of hex digits")]
    #[diagnostic(
        code(fql::odd_hex),
        help("every byte takes two hex digits; add a leading 0 if one is missing")
    )]
    OddHex {
        /// The bytes as written.
        text: String,
        /// The bytes.
        #[label("{}", super::words::counted(*digits as u64, "hex digit", "hex digits"))]
        at: Span,
        /// How many digits there are.
        digits: usize,
    },

    /// A character that is not a hex digit in bytes, a uuid or a vstamp: `0x0g`.
    #[error("`{found}` is not a hex digit")]
    #[diagnostic(code(fql::bad_hex), help("hex digits are 0-9, a-f and A-F"))]
    BadHex {
        /// The offending character.
        found: char,
        /// Where.
        #[label("not a hex digit")]
        at: Span,
    },

    /// A type name that does not exist: `<string>`.
    #[error("unknown type `{name}`")]
    #[diagnostic(code(fql::unknown_type))]
    UnknownType {
        /// The word.
        name: String,
        /// Where.
        #[label("not a type")]
        at: Span,
        /// The nearest type name, or how to name the variable.
        #[help]
        help: Option<String>,
    },

    /// An option name that does not exist: `[revers]`.
    #[error("unknown option `{name}`")]
    #[diagnostic(code(fql::unknown_option))]
    UnknownOption {
        /// The word.
        name: String,
        /// Where.
        #[label("not an option")]
        at: Span,
        /// The nearest option name.
        #[help]
        help: Option<String>,
    },

    /// A meta statement that does not exist: `@comit`.
    #[error("unknown meta statement `@{name}`")]
    #[diagnostic(code(fql::unknown_meta))]
    UnknownMeta {
        /// The word after `@`.
        name: String,
        /// Where.
        #[label("not a meta statement")]
        at: Span,
        /// The nearest meta statement.
        #[help]
        help: Option<String>,
    },

    /// A backslash escape other than `\"`, `\\`, `\n` and `\xNN`:
    /// `"a\tb"`, `"\x4"`.
    #[error("`{escape}` is not an escape")]
    #[diagnostic(
        code(fql::bad_escape),
        help(
            "a string knows only the escapes `\\\"`, `\\\\`, `\\n` and `\\xNN`, a byte of its UTF-8 text in two hex digits (a tab is `\\x09`)"
        )
    )]
    BadEscape {
        /// The backslash and what follows it.
        escape: String,
        /// Where.
        #[label("unknown escape")]
        at: Span,
    },

    /// A backslash escape in escaped bytes other than `\xNN`, `\\` and
    /// `\"`: `b"a\nb"`, `b"\x4"`.
    #[error("`{escape}` is not an escape in bytes")]
    #[diagnostic(code(fql::bad_bytes_escape))]
    BadBytesEscape {
        /// The backslash and what follows it.
        escape: String,
        /// Where.
        #[label("unknown escape")]
        at: Span,
        /// The escapes there are, and the one meant.
        #[help]
        help: String,
    },

    /// A control character as it is, not as an escape: a tab, an escape
    /// character or a carriage return inside a string, or any control
    /// character but a tab in a comment. Scripts hold none, so that no
    /// text fql prints can carry one to a terminal: `"a<TAB>b"`.
    #[error("control character {name} in {place}")]
    #[diagnostic(code(fql::control_character))]
    ControlCharacter {
        /// Its code point and name, such as `U+001B (ESC)`.
        name: String,
        /// "a string" or "a comment".
        place: String,
        /// Where.
        #[label("not allowed as it is")]
        at: Span,
        /// The escape to write instead.
        #[help]
        help: String,
    },

    /// `\xNN` escapes whose bytes are not UTF-8: `"\xff"`, or `"\xc3"`
    /// without the byte that ends its character.
    #[error("the string's escapes are not UTF-8")]
    #[diagnostic(
        code(fql::invalid_utf8),
        help(
            "`\\xNN` escapes stand for the bytes of the string's UTF-8 text, as `\\xc3\\xa9` for `é`; write other bytes as a bytes element: `0xff`"
        )
    )]
    InvalidUtf8 {
        /// The escapes that do not make a character.
        #[label("not a UTF-8 character")]
        at: Span,
    },

    /// A name that breaks the rules for names: `/1st` or `<1x:int>`.
    #[error("`{text}` is not a valid name")]
    #[diagnostic(code(fql::invalid_name))]
    InvalidName {
        /// The text.
        text: String,
        /// Where.
        #[label("invalid name")]
        at: Span,
        /// How to write it instead.
        #[help]
        help: Option<String>,
    },

    /// A named variable without a type: `<id:>`.
    #[error("the variable `{name}` has no type")]
    #[diagnostic(code(fql::untyped_name))]
    UntypedName {
        /// The variable's name.
        name: String,
        /// The variable.
        #[label("a named variable needs at least one type")]
        at: Span,
        /// The fix.
        #[help]
        help: String,
    },

    /// A malformed uuid: `5a5ebefd-2193-47e2-8def-f464fc698e3`.
    #[error("invalid uuid")]
    #[diagnostic(
        code(fql::invalid_uuid),
        help("a uuid is 32 hex digits in groups of 8-4-4-4-12")
    )]
    InvalidUuid {
        /// What is wrong.
        reason: String,
        /// Where.
        #[label("{reason}")]
        at: Span,
    },

    /// A malformed versionstamp: `#0102:0000`.
    #[error("invalid vstamp")]
    #[diagnostic(
        code(fql::invalid_vstamp),
        help(
            "a vstamp is `#`, 20 hex digits (the transaction version), `:` and 4 hex digits (the user version); `#:0000` leaves the transaction version to the database; `#` and 20 hex digits alone is an 80-bit stamp"
        )
    )]
    InvalidVstamp {
        /// What is wrong.
        reason: String,
        /// Where.
        #[label("{reason}")]
        at: Span,
    },

    /// A malformed 32-bit float: `f32(1e39)`, `f32(1)`.
    #[error("invalid f32")]
    #[diagnostic(
        code(fql::invalid_f32),
        help(
            "a 32-bit float is `f32(` and a num `)`, as in `f32(1.5)` or `f32(-inf)`, within binary32's range"
        )
    )]
    InvalidF32 {
        /// What is wrong.
        reason: String,
        /// Where.
        #[label("{reason}")]
        at: Span,
    },

    /// A malformed user type: `user(0x50,0x00)`, `user(0x40)`.
    #[error("invalid user type")]
    #[diagnostic(
        code(fql::invalid_user_type),
        help(
            "a user type is `user(` its type code, 0x40 to 0x4f, `,` and its bytes `)`, as in `user(0x40,0xaabb)`"
        )
    )]
    InvalidUserType {
        /// What is wrong.
        reason: String,
        /// Where.
        #[label("{reason}")]
        at: Span,
    },

    /// A number FQL does not read: `1.`, `.5`, `1E5`, `-infinity`, `1e999`.
    #[error("invalid number `{text}`")]
    #[diagnostic(code(fql::invalid_number))]
    InvalidNumber {
        /// The text.
        text: String,
        /// Where.
        #[label("not a number FQL can read")]
        at: Span,
        /// What to write instead.
        #[help]
        help: Option<String>,
    },

    /// An int past what the tuple layer encodes, 255 bytes of magnitude:
    /// `1` and 615 zeros.
    #[error(transparent)]
    #[diagnostic(transparent)]
    IntTooLarge(#[from] IntTooLarge),

    /// A tuple element left out between commas: `(1,,2)`.
    #[error("empty tuple element")]
    #[diagnostic(
        code(fql::empty_element),
        help("remove the extra `,`; only one trailing comma is allowed, after the last element")
    )]
    EmptyElement {
        /// The comma with nothing before it.
        #[label("nothing before this `,`")]
        at: Span,
    },

    /// Query options with no query after them: `[reverse]` at the end of a
    /// script, or before `@commit`.
    #[error("query options without a query")]
    #[diagnostic(
        code(fql::dangling_options),
        help(
            "query options go before a query, on the same line or the line above it, with only comment lines between"
        )
    )]
    DanglingOptions {
        /// The options.
        #[label("these options apply to nothing")]
        at: Span,
    },

    /// Options on an element inside a tuple: `/a(1[i64])`.
    #[error("options are not allowed inside a tuple")]
    #[diagnostic(
        code(fql::options_in_tuple),
        help(
            "keys and tuple values are always tuple-encoded; encoding options apply only to a whole value, as in `/a(1)=7[i64]`"
        )
    )]
    OptionsInTuple {
        /// The options.
        #[label("options here")]
        at: Span,
    },

    /// Options after a variable instead of after its type: `<int>[i64]`.
    #[error("options must follow a type inside the variable")]
    #[diagnostic(code(fql::options_on_variable))]
    OptionsOnVariable {
        /// The options.
        #[label("these options")]
        at: Span,
        /// The variable written the right way.
        #[help]
        help: String,
    },

    /// Tuples nested more than [`MAX_DEPTH`](crate::syntax::MAX_DEPTH)
    /// levels deep: `/a(((...)))` with 101 `(`.
    #[error("tuples nested more than {limit} deep")]
    #[diagnostic(code(fql::too_deep), help("nest tuples at most {limit} levels deep"))]
    TooDeep {
        /// The `(` that goes one level too deep.
        #[label("level {}", limit + 1)]
        at: Span,
        /// The limit.
        limit: usize,
    },

    /// A script of more than 4 GiB.
    #[error("the script is {len} bytes; scripts are limited to 4 GiB")]
    #[diagnostic(code(fql::too_large))]
    TooLarge {
        /// Its length.
        len: usize,
    },
}

/// An int past what the tuple layer encodes, 255 bytes of magnitude: a
/// literal the parser refuses, or an int the codec is asked to store that
/// a script computed (a `<sum>` of large ints written back). One type for
/// both, so that they read the same.
#[derive(Clone, Debug, PartialEq, Error, Diagnostic)]
#[error("an int of {digits} digits is too large to store")]
#[diagnostic(
    code(fql::int_too_large),
    help(
        "the tuple layer encodes an int in at most 255 bytes (2040 bits) of magnitude, below 2^2040: ints of up to 614 decimal digits, and some of 615; store a larger number as a string or bytes"
    )
)]
pub struct IntTooLarge {
    /// Its digits, leading zeros left out.
    pub digits: usize,
    /// The int, or the reference that supplied it.
    #[label("more than 255 bytes of magnitude")]
    pub at: Span,
}

/// The offset of a diagnostic's first label.
pub(crate) fn offset(d: &dyn Diagnostic) -> usize {
    d.labels()
        .and_then(|mut labels| labels.next())
        .map(|l| l.offset())
        .unwrap_or(0)
}
