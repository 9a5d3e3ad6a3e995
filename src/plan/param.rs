//! Parameters: the values a caller supplies for the references nothing in
//! a script binds, and how a parameter's text (`fql -p NAME=VALUE`) is
//! read.
//!
//! A value is a directory path (`/locks/nightly`, `./jobs`) or FQL data
//! (`42`, `"ann"`, `(1,"x")`), decided by how its text starts (see
//! [`Param::parse`]). Text that starts as data does must be data, or is
//! refused. Only text that starts with a letter depends on whether it
//! parses, and only on whether one data word is all of it (`true`, a
//! uuid): if not, it is the text as a string (`ann`, `true story`), so
//! `-p name=ann` needs no quotes. A path is kept
//! apart from data because it means something only where a directory is
//! expected: `/:dir("owner")` is under `/locks/nightly`, while `/x(:dir)`
//! has no directory to put there, and the planner says so rather than
//! store some spelling of the path.

use std::collections::HashMap;

use super::{Error, Root, RootError};
use crate::syntax::ParseError;
use crate::syntax::ast::{Elem, ElemKind, Span};

/// Parameters by name, as the planner takes them.
pub type Params = HashMap<String, Param>;

/// A parameter's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    /// FQL data, substituted for the reference wherever it stands.
    Data(Elem<'static>),
    /// A directory, written as a path: the names of an absolute path, top
    /// first, never `/` itself. It may only start a directory path
    /// (`/:dir(...)`, `/:dir/sub`).
    Path(Root),
}

impl From<Elem<'static>> for Param {
    fn from(elem: Elem<'static>) -> Param {
        Param::Data(elem)
    }
}

impl From<ElemKind<'static>> for Param {
    fn from(kind: ElemKind<'static>) -> Param {
        Param::Data(Elem {
            kind,
            span: Span::default(),
        })
    }
}

/// Why a parameter's text is not a value. Spans point into the text.
#[derive(Clone, Debug, PartialEq, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum ParamError {
    /// Nothing at all: most often a shell variable that was not set.
    #[error("the value is empty")]
    #[diagnostic(help("for the empty string, write `NAME:str=` or `NAME='\"\"'`"))]
    Empty,
    /// Text that starts as FQL data does and is not FQL data: `0xABC`,
    /// `(1,`, `2026-11-22`.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Syntax(#[from] ParseError),
    /// Text that starts as a path does and is not one directory's path.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Path(#[from] RootError),
    /// A hole where data must stand: `<int>`, `:id`, `(1,...)`, `#:0000`.
    #[error("`{hole}` is not data: a parameter's value is data")]
    #[diagnostic(
        code(fql::not_data),
        help(
            "a parameter is a value such as `42`, `\"ann\"` or `(1,\"x\")`; variables, references, `...` and incomplete versionstamps stand in scripts only"
        )
    )]
    NotData {
        /// The hole as written.
        hole: String,
        /// Where.
        #[label("not data")]
        at: Span,
    },
    /// An int or a num written with a leading zero, `02134`: FQL has no
    /// octal, so this is a zip code or an id that must stay text, or a
    /// typo; either way not to be read as 2134 in silence.
    #[error("`{text}` has a leading zero; FQL numbers have none (there is no octal)")]
    #[diagnostic(
        code(fql::leading_zero),
        help("for the number write `{plain}`; text that must keep its zeros is a string")
    )]
    LeadingZero {
        /// The number as written.
        text: String,
        /// It without the zeros.
        plain: String,
        /// Where.
        #[label("leading zero")]
        at: Span,
    },
}

/// The value as it is typed back: FQL data as FQL prints it, a path as
/// a path (`/locks/s`), so that `\set` lists what reads the same again.
impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Param::Data(elem) => elem.fmt(f),
            Param::Path(root) => root.fmt(f),
        }
    }
}

impl Param {
    /// Reads a parameter's value as `fql -p NAME=VALUE` writes it, by how
    /// it starts:
    ///
    /// - `/`, `./`, `../`, `.` or `..`: a directory path, read by the
    ///   rule `--root` follows, relative paths from `root`;
    /// - a letter or `_`: FQL data if the whole text is a data word (`nil`,
    ///   `true`, `inf`, a uuid, `f32(1.5)`), else the text as a string, so
    ///   that `-p name=ann` needs no quotes; a data word that goes wrong
    ///   inside (a uuid cut short) is an error;
    /// - anything else (a digit, `-`, `"`, `(`, `#`): FQL data, or an
    ///   error; never a string by default, so `02134`, `0xABC` and `(1,`
    ///   are refused, not stored as something the user did not write.
    pub fn parse(text: &str, root: &Root) -> Result<Param, ParamError> {
        let first = text.chars().next().ok_or(ParamError::Empty)?;
        if is_path(text) {
            return path(text, root);
        }
        if first.is_alphabetic() || first == '_' {
            return word(text);
        }
        data(text)
    }

    /// The text as a string, whatever it holds: `fql -p NAME:str=TEXT`.
    pub fn string(text: &str) -> Param {
        Param::from(ElemKind::Str(text.to_string().into()))
    }

    /// The names this value stands for where a directory is named, as the
    /// planner puts it in a path: a path's names, or a tuple of strings';
    /// `None` for anything else.
    pub fn directory(&self) -> Option<Vec<String>> {
        match self {
            Param::Path(root) => Some(root.names().to_vec()),
            Param::Data(Elem {
                kind: ElemKind::Tuple(t),
                ..
            }) if !t.elems.is_empty() && t.rest.is_none() => t
                .elems
                .iter()
                .map(|e| match &e.kind {
                    ElemKind::Str(s) => Some(s.to_string()),
                    _ => None,
                })
                .collect(),
            Param::Data(_) => None,
        }
    }

    /// The value as data, for a cast to check: a path is the tuple of
    /// its names, as `-p 'dir=("locks","s")'` would give.
    pub(super) fn as_data(&self) -> ElemKind<'static> {
        match self {
            Param::Data(e) => e.kind.clone(),
            Param::Path(root) => ElemKind::Tuple(Box::new(crate::syntax::ast::Tuple {
                elems: root
                    .names()
                    .iter()
                    .map(|n| Elem {
                        kind: ElemKind::Str(n.clone().into()),
                        span: Span::default(),
                    })
                    .collect(),
                ..Default::default()
            })),
        }
    }
}

/// Whether the text is written as a directory path.
fn is_path(text: &str) -> bool {
    matches!(text, "." | "..")
        || text.starts_with('/')
        || text.starts_with("./")
        || text.starts_with("../")
}

/// A directory path from `root`; `/` itself is not a directory.
fn path(text: &str, root: &Root) -> Result<Param, ParamError> {
    let dir = root.change(text)?;
    if dir.names().is_empty() {
        let at = Span::new(0, text.len());
        return Err(RootError::Resolve(Error::TopPath { at }).into());
    }
    Ok(Param::Path(dir))
}

/// Text that starts with a letter: a data word (`nil`, `true`, a uuid)
/// when it is one; the text as a string when no element starts it or more
/// than one element's text follows (`ann`, `web-2`, `true story`); an
/// error when it starts as a data word does and goes wrong inside
/// (`deadbeef-1`, a uuid cut short).
fn word(text: &str) -> Result<Param, ParamError> {
    match data(text) {
        Err(ParamError::Syntax(ParseError::Expected { .. })) => Ok(Param::string(text)),
        other => other,
    }
}

/// One FQL data element and nothing else, owned.
fn data(text: &str) -> Result<Param, ParamError> {
    let elem = crate::syntax::parse_element(text).map_err(|mut e| e.swap_remove(0))?;
    check_data(&elem, text)?;
    // Through the tuple encoding and back: data keeps its value exactly
    // and no longer borrows the text.
    let hole = || ParamError::NotData {
        hole: text.to_string(),
        at: Span::new(0, text.len()),
    };
    let key = crate::codec::encode_key(&[], std::slice::from_ref(&elem)).map_err(|_| hole())?;
    if key.op != crate::codec::Op::Set {
        return Err(hole());
    }
    let mut elems = crate::codec::decode_key(&[], &key.bytes).ok_or_else(hole)?;
    Ok(Param::Data(elems.pop().ok_or_else(hole)?))
}

/// Refuses holes and numbers with leading zeros, anywhere in the value.
fn check_data(elem: &Elem<'_>, text: &str) -> Result<(), ParamError> {
    let mut found = Ok(());
    elem.walk(&mut |e| {
        if found.is_err() {
            return;
        }
        let written = &text[e.span.range()];
        found = match &e.kind {
            ElemKind::Var(_) | ElemKind::Ref(_) => Err(ParamError::NotData {
                hole: written.to_string(),
                at: e.span,
            }),
            ElemKind::Tuple(t) if t.rest.is_some() => Err(ParamError::NotData {
                hole: "...".into(),
                at: t.rest.unwrap_or(e.span),
            }),
            ElemKind::Int(_) | ElemKind::Num(_) => leading_zero(written, e.span),
            _ => Ok(()),
        };
    });
    found
}

/// `02134` or `-007.5`: digits after a `0` that starts the number.
fn leading_zero(written: &str, at: Span) -> Result<(), ParamError> {
    let unsigned = written.strip_prefix('-').unwrap_or(written);
    let digits = unsigned.strip_prefix('0');
    if !digits.is_some_and(|d| d.starts_with(|c: char| c.is_ascii_digit())) {
        return Ok(());
    }
    let sign = &written[..written.len() - unsigned.len()];
    let rest = unsigned.trim_start_matches('0');
    let rest = if rest.is_empty() || rest.starts_with('.') {
        format!("0{rest}")
    } else {
        rest.to_string()
    };
    Err(ParamError::LeadingZero {
        text: written.to_string(),
        plain: format!("{sign}{rest}"),
        at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Param, ParamError> {
        Param::parse(text, &Root::new(vec!["app".into(), "t".into()]))
    }

    fn shown(text: &str) -> String {
        match parse(text).expect("a value") {
            Param::Data(e) => e.kind.to_string(),
            Param::Path(root) => format!("path {root}"),
        }
    }

    fn code(text: &str) -> String {
        let e = parse(text).expect_err("an error");
        miette::Diagnostic::code(&e).map_or("none".into(), |c| c.to_string())
    }

    #[test]
    fn values_are_what_they_are_written_as() {
        assert_eq!(shown("42"), "42");
        assert_eq!(shown("-7"), "-7");
        assert_eq!(shown("0"), "0");
        assert_eq!(shown("0.5"), "0.5");
        assert_eq!(shown("\"ann\""), "\"ann\"");
        assert_eq!(shown("0xff"), "0xff");
        assert_eq!(shown("(1,\"x\")"), "(1,\"x\")");
        assert_eq!(shown("ann"), "\"ann\"");
        assert_eq!(shown("web-2"), "\"web-2\"");
        assert_eq!(shown("true,false"), "\"true,false\"");
        assert_eq!(shown("true story"), "\"true story\"");
        assert_eq!(shown("ann's"), "\"ann's\"");
        assert_eq!(
            shown("ca03676e-6a49-4b8b-a7b0-6b0e0e3fd9c1"),
            "ca03676e-6a49-4b8b-a7b0-6b0e0e3fd9c1"
        );
        assert_eq!(shown("nil"), "nil");
        assert_eq!(shown("true"), "true");
        assert_eq!(shown("/locks/s"), "path /locks/s");
        assert_eq!(shown("./jobs"), "path /app/t/jobs");
        assert_eq!(shown(".."), "path /app");
        assert_eq!(shown("/\"a b\"/c"), "path /\"a b\"/c");
    }

    #[test]
    fn text_that_starts_as_data_must_be_data() {
        assert_eq!(code("02134"), "fql::leading_zero");
        assert_eq!(code("-00.5"), "fql::leading_zero");
        assert_eq!(code("(1,007)"), "fql::leading_zero");
        assert_eq!(code("0xABC"), "fql::odd_hex");
        assert_eq!(code("(1,"), "fql::unclosed");
        assert_eq!(code("2026-11-22"), "fql::invalid_number");
        assert_eq!(code("42 43"), "fql::expected");
        assert_eq!(code("(1,<int>)"), "fql::not_data");
        assert_eq!(code("(1,...)"), "fql::not_data");
        assert_eq!(code("#:0000"), "fql::not_data");
        assert_eq!(code("/a(1)"), "fql::bad_root");
        assert_eq!(code("/"), "fql::top_path");
        assert_eq!(code("deadbeef-1"), "fql::invalid_uuid");
        assert_eq!(code(""), "none");
    }

    #[test]
    fn a_path_or_a_tuple_of_strings_names_a_directory() {
        let names = |text: &str| parse(text).unwrap().directory();
        assert_eq!(names("/locks/s").unwrap(), ["locks", "s"]);
        assert_eq!(names("(\"locks\",\"s\")").unwrap(), ["locks", "s"]);
        assert_eq!(names("(\"locks\",1)"), None);
        assert_eq!(names("locks"), None);
    }
}
