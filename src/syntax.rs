//! FQL text: parsing, static checks, printing and diagnostics.
//!
//! [`parse`] turns text into a [`Script`](ast::Script) or every syntax
//! error in it; [`check`](fn@check) finds what can be known wrong without a database;
//! [`load`] does both. Printing is [`Display`](std::fmt::Display) on every
//! node (compact, canonical) and [`format`](fn@format) for whole scripts with their
//! comments.

pub mod ast;
pub mod check;
mod error;
mod format;
mod highlight;
mod items;
mod keywords;
mod parse;
mod print;
mod report;
mod small_list;
mod sources;
mod span;
pub mod split;
mod view;
pub(crate) mod words;

pub use check::check;
pub use error::{CheckError, Error, IntTooLarge, OptionError, ParseError};
pub use format::format;
pub use highlight::{Class, Token, highlight, is_open};
pub use parse::{MAX_DEPTH, parse};
pub use print::{plain_or_quoted, quote, write_bytes, write_elem, write_str};
pub use report::{Diagnostics, Report, SHOWN, render};
pub use sources::Sources;
pub use words::printable;

/// Parses and checks a script, returning every error of both stages in
/// source order. Statements that parse are checked even when others do not.
pub fn load(src: &str) -> Result<ast::Script<'_>, Vec<Error>> {
    let (script, parse_errors) = parse::parse_partial(src);
    let check_errors = check(&script).err().unwrap_or_default();
    if parse_errors.is_empty() && check_errors.is_empty() {
        return Ok(script);
    }
    let mut errors: Vec<Error> = parse_errors.into_iter().map(Error::Parse).collect();
    errors.extend(check_errors.into_iter().map(Error::Check));
    errors.sort_by_key(Error::offset);
    Err(errors)
}
