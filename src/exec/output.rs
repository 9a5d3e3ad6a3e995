//! Results, owned and typed, printed in canonical FQL.
//!
//! A result outlives the script that asked for it (it crosses threads in
//! [`Engine::query`](super::Engine::query)), so it owns its data: what came
//! from the database as data elements, and what came from the query itself
//! (the holes and `...` an aggregate keeps, a value's options) as the text
//! the query wrote.

use std::fmt::{self, Display, Formatter};
use std::sync::Arc;

use crate::directory::show;
use crate::syntax::ast::ElemKind;

/// One result.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// A directory, by its path.
    Directory(Vec<String>),
    /// A key-value, in the form that writes it back.
    KeyValue(Row),
    /// A long read went on in a new transaction: the results after this
    /// are not from the same snapshot as those before it.
    NewSnapshot,
}

/// A directory's path, shared by every row read from it, with its FQL
/// text made once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirPath {
    names: Vec<String>,
    text: String,
}

impl DirPath {
    /// The path of these names.
    pub fn new(names: Vec<String>) -> DirPath {
        let text = show(&names);
        DirPath { names, text }
    }

    /// The names from the root.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

impl Display for DirPath {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A key-value found by a read, or folded by an aggregate.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The directory.
    pub path: Arc<DirPath>,
    /// The key tuple's elements.
    pub key: Vec<Part>,
    /// Whether the key ends in `...` (kept by an aggregate).
    pub rest: bool,
    /// The value and the options it is printed with; `None` for a value
    /// the query left out and no row supplied.
    pub value: Option<(Part, Option<Arc<str>>)>,
}

/// An element of a result.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Data, read or computed.
    Data(ElemKind<'static>),
    /// Part of the query, kept as written: a hole an aggregate leaves, a
    /// constant the query matched.
    Written(Arc<str>),
}

impl Part {
    /// The data, if this part is data.
    pub fn data(&self) -> Option<&ElemKind<'static>> {
        match self {
            Part::Data(d) => Some(d),
            Part::Written(_) => None,
        }
    }
}

impl Display for Part {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Part::Data(d) => d.fmt(f),
            Part::Written(text) => f.write_str(text),
        }
    }
}

impl Display for Row {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path.text)?;
        f.write_str("(")?;
        for (n, part) in self.key.iter().enumerate() {
            if n > 0 {
                f.write_str(",")?;
            }
            part.fmt(f)?;
        }
        if self.rest {
            f.write_str(if self.key.is_empty() { "..." } else { ",..." })?;
        }
        f.write_str(")")?;
        if let Some((value, options)) = &self.value {
            write!(f, "={value}")?;
            if let Some(o) = options {
                f.write_str(o)?;
            }
        }
        Ok(())
    }
}

impl Display for Output {
    /// The canonical FQL of the result, so every line can be pasted back.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Output::Directory(path) => f.write_str(&show(path)),
            Output::KeyValue(row) => row.fmt(f),
            Output::NewSnapshot => f.write_str(
                "% the read went on in a new transaction: what follows is a later snapshot",
            ),
        }
    }
}
