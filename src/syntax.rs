//! FQL text: parsing, printing and diagnostics.
//!
//! [`parse`] turns text into a [`Script`](ast::Script) or every syntax
//! error in it. Printing is [`Display`](std::fmt::Display) on every node
//! (compact, canonical) and [`format`](fn@format) for whole scripts with
//! their comments. [`Diagnostics`] and [`Report`] render any error that
//! points into a script, whichever stage found it.
//!
//! This is the bottom layer: text to AST and back, with nothing below it.
//! Judging a parsed script by what its values encode to is the work of the
//! `check` stage, above this one and the codec.

pub mod ast;
mod error;
mod format;
mod highlight;
mod items;
mod keywords;
mod names;
mod parse;
mod print;
mod report;
mod small_list;
mod sources;
mod span;
pub mod split;
mod view;
pub(crate) mod words;

pub(crate) use error::offset;
pub use error::{IntTooLarge, ParseError};
pub use format::format;
pub use highlight::{Class, Token, continues, highlight, is_open};
pub use names::is_name;
pub(crate) use parse::parse_partial;
pub use parse::{MAX_DEPTH, MAX_INT_BYTES, parse, parse_element, starts_bytes};
/// For the JSON form of escaped bytes, the text between their quotes.
#[cfg(feature = "serde")]
pub(crate) use print::write_byte_escapes;
pub use print::{
    bytes_literal, escaped_bytes_literal, plain_or_quoted, quote, write_bytes, write_elem,
    write_escaped_bytes, write_str,
};
pub use report::{Diagnostics, Report, SHOWN, render};
pub use sources::Sources;
pub use words::{counted, printable};
