//! The parser: FQL text to [`Script`], with every error in the script.
//!
//! A hand-structured recursive descent on nom's result and error types.
//! Input is a plain `&str`; spans are the input's offset into the script,
//! recovered from the slice's address. `nom_locate` would
//! give the same offsets, but it counts line breaks on every slice, which
//! cost a tenth of the parse time on short queries; line and column are
//! only needed when a diagnostic is rendered, and miette computes them then.
//!
//! Errors that do not stop parsing (an unknown type name, a bad escape) are
//! collected in the [`Parser`], so one run reports every independent
//! mistake. An error that leaves the parser lost stops the statement; the
//! script parser then skips to where the next statement starts.

mod element;
mod lex;
mod literal;
mod statement;

pub use lex::is_name;

use super::ast::{Comment, Script, Trivia};
use super::error::ParseError;

/// How deep tuples may nest. Parsing, checking, printing and dropping an
/// AST all recurse into nested tuples; the bound keeps that within any
/// thread's stack.
pub const MAX_DEPTH: usize = 100;

/// nom's result over the rest of the text.
type PResult<'a, T> = nom::IResult<&'a str, T, Fail>;

/// Why a parser did not produce a value.
///
/// `Err::Error` with no error means "not this construct", so the caller can
/// try something else or say what it expected; `Err::Failure` carries the
/// error that stops the statement. The error is boxed to keep results small.
#[derive(Debug)]
struct Fail {
    error: Option<Box<ParseError>>,
}

impl nom::error::ParseError<&str> for Fail {
    fn from_error_kind(_: &str, _: nom::error::ErrorKind) -> Fail {
        Fail { error: None }
    }

    fn append(_: &str, _: nom::error::ErrorKind, other: Fail) -> Fail {
        other
    }
}

/// The state of one parse: the whole text, for offsets, and what the
/// parsers collect besides the tree.
struct Parser<'a> {
    src: &'a str,
    /// How many tuples enclose the current position: parsing recurses into
    /// nested tuples, so the depth is bounded to bound the stack.
    depth: usize,
    errors: Vec<ParseError>,
    comments: Vec<Comment>,
    blank_lines: Vec<u32>,
}

/// Parses a script: statements, meta statements, comments and blank lines.
///
/// On failure, returns every error found, in source order.
pub fn parse(src: &str) -> Result<Script, Vec<ParseError>> {
    let (script, errors) = parse_partial(src);
    if errors.is_empty() {
        Ok(script)
    } else {
        Err(errors)
    }
}

/// Parses what can be parsed: the script holds the statements without
/// errors, so that checks can still run on them.
pub(super) fn parse_partial(src: &str) -> (Script, Vec<ParseError>) {
    if u32::try_from(src.len()).is_err() {
        return (
            Script::default(),
            vec![ParseError::TooLarge { len: src.len() }],
        );
    }
    let mut p = Parser {
        src,
        depth: 0,
        errors: Vec::new(),
        comments: Vec::new(),
        blank_lines: Vec::new(),
    };
    let items = p.script(src);
    let mut errors = p.errors;
    if !errors.is_empty() {
        errors.sort_by_key(|e| super::error::offset(e));
    }
    let trivia = Trivia {
        comments: p.comments,
        blank_lines: p.blank_lines,
    };
    (Script { items, trivia }, errors)
}
