//! Results, owned and typed, printed in canonical FQL.
//!
//! A result outlives the script that asked for it (it crosses threads in
//! [`Engine::query`](super::Engine::query)), so it owns its data: what came
//! from the database as data elements, and what came from the query itself
//! (the holes and `...` an aggregate keeps, a value's options) as the text
//! the query wrote.

use std::fmt::{self, Display, Formatter};
use std::sync::Arc;

use crate::codec::Scalar;
use crate::directory::show;
use crate::syntax::ast::{Elem, ElemKind, Int, Key, Place};
use crate::syntax::{write_bytes, write_elem, write_str};

/// One result.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// A directory, by its path.
    Directory(Vec<String>),
    /// A directory and the prefix of its keys, as `[prefix]` lists it.
    /// The keys of a partition have no prefix of their own: a partition
    /// is listed as a [`Output::Directory`].
    DirPrefix {
        /// The names from the root.
        path: Vec<String>,
        /// The bytes every key of the directory starts with.
        prefix: Vec<u8>,
    },
    /// A key-value, in the form that writes it back.
    KeyValue(Row),
    /// A key-value by the key's bytes: one a raw key read, or one under a
    /// directory whose key is not a tuple, which no tuple pattern can
    /// name and which is shown rather than passed over.
    Raw(RawRow),
    /// A long read went on in a new transaction: the results after this
    /// are not from the same snapshot as those before it.
    NewSnapshot,
}

/// A directory's path, shared by every row read from it, with its FQL
/// text made once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirPath {
    names: Vec<String>,
    /// For a key after raw bytes rather than in a directory, the bytes.
    prefix: Option<Vec<u8>>,
    text: String,
}

impl DirPath {
    /// The path of these names; none is the root of the keyspace, `/`.
    pub fn new(names: Vec<String>) -> DirPath {
        let text = show(&names);
        DirPath {
            names,
            prefix: None,
            text,
        }
    }

    /// The root of the keyspace, outside every directory: `/`.
    pub fn root() -> DirPath {
        DirPath::new(Vec::new())
    }

    /// Raw bytes in place of a directory, as in `0x0261707000(1)`.
    pub fn prefixed(prefix: Vec<u8>) -> DirPath {
        let mut text = String::with_capacity(2 + 2 * prefix.len());
        text.push_str("0x");
        text.push_str(&const_hex::encode(&prefix));
        DirPath {
            names: Vec::new(),
            prefix: Some(prefix),
            text,
        }
    }

    /// The same place, its raw bytes written escaped, `b"\x02app\x00"`,
    /// as `--bytes escaped` shows every other bytes.
    pub fn escaped(&self) -> DirPath {
        match &self.prefix {
            Some(bytes) => DirPath {
                text: crate::syntax::escaped_bytes_literal(bytes),
                ..self.clone()
            },
            None => self.clone(),
        }
    }

    /// Where a key without holes in its path lives, as its rows show it.
    pub fn of(key: &Key<'_>) -> DirPath {
        match key.place() {
            Place::Prefix(bytes) => DirPath::prefixed(bytes.to_vec()),
            Place::Root => DirPath::root(),
            Place::Directory(dir) => DirPath::new(super::dirs::path(dir)),
        }
    }

    /// The names from the root: none at the root or after raw bytes.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The raw bytes the keys start with, in place of a directory.
    pub fn prefix(&self) -> Option<&[u8]> {
        self.prefix.as_deref()
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

/// A key-value found by its key's bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct RawRow {
    /// The whole key.
    pub key: Vec<u8>,
    /// The value and the options it is printed with.
    pub value: (Part, Option<Arc<str>>),
}

impl RawRow {
    /// `0x15ff=value`: the raw statement that writes it back.
    fn print(&self, w: &mut impl fmt::Write) -> fmt::Result {
        write_bytes(w, &self.key)?;
        self.write_value(w)
    }

    /// `=value`, what follows the key in [`RawRow`]'s statement: for
    /// output that writes the key in another form of bytes, such as
    /// `b"\x15\xff"` (`fql --bytes escaped`).
    pub fn write_value(&self, w: &mut impl fmt::Write) -> fmt::Result {
        w.write_char('=')?;
        let (value, options) = &self.value;
        value.put(w)?;
        match options {
            Some(o) => w.write_str(o),
            None => Ok(()),
        }
    }
}

impl Display for RawRow {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.print(f)
    }
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

impl Piece for Part {
    fn put(&self, w: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Part::Data(d) => write_elem(w, d),
            Part::Written(text) => w.write_str(text),
        }
    }
}

impl Display for Part {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.put(f)
    }
}

impl Row {
    /// Appends the row's canonical FQL to `out`, as `Display` prints it
    /// but straight into bytes.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let _ = self.print(&mut Bytes(out));
    }

    fn print(&self, w: &mut impl fmt::Write) -> fmt::Result {
        let value = self.value.as_ref().map(|(v, o)| (v, o.as_deref()));
        print_row(w, &self.path, &self.key, self.rest, value)
    }
}

impl Display for Row {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.print(f)
    }
}

/// The canonical FQL of a key-value, whatever holds its parts: the owned
/// [`Part`]s of a [`Row`] or the borrowed elements of a row being read.
pub(super) fn print_row(
    w: &mut impl fmt::Write,
    path: &DirPath,
    key: &[impl Piece],
    rest: bool,
    value: Option<(&impl Piece, Option<&str>)>,
) -> fmt::Result {
    w.write_str(&path.text)?;
    w.write_char('(')?;
    for (n, k) in key.iter().enumerate() {
        if n > 0 {
            w.write_char(',')?;
        }
        k.put(w)?;
    }
    if rest {
        w.write_str(if key.is_empty() { "..." } else { ",..." })?;
    }
    w.write_char(')')?;
    if let Some((value, options)) = value {
        w.write_char('=')?;
        value.put(w)?;
        if let Some(o) = options {
            w.write_str(o)?;
        }
    }
    Ok(())
}

/// An element of a row, owned or borrowed, in canonical FQL.
pub(super) trait Piece {
    fn put(&self, w: &mut impl fmt::Write) -> fmt::Result;
}

impl Piece for Elem<'_> {
    fn put(&self, w: &mut impl fmt::Write) -> fmt::Result {
        put_data(w, &self.kind)
    }
}

/// [`write_elem`], with what rows mostly hold, strings and ints, written
/// as the scalars they are, without the general match.
#[inline]
pub(super) fn put_data(w: &mut impl fmt::Write, kind: &ElemKind<'_>) -> fmt::Result {
    match kind {
        ElemKind::Str(s) => Scalar::Str(s).put(w),
        ElemKind::Int(Int::Small(n)) => Scalar::Int(*n).put(w),
        other => write_elem(w, other),
    }
}

impl Piece for Scalar<'_> {
    #[inline(always)]
    fn put(&self, w: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Scalar::Str(s) => write_str(w, s),
            Scalar::Int(n) => w.write_str(itoa::Buffer::new().format(*n)),
        }
    }
}

impl Output {
    /// Appends the result's canonical FQL to `out`, as `Display` prints
    /// it but straight into bytes: the way to print results in bulk.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let _ = self.print(&mut Bytes(out));
    }

    pub(super) fn print(&self, w: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Output::Directory(path) => w.write_str(&show(path)),
            // The directory, and in a comment the raw range of its keys,
            // so that either reads back.
            Output::DirPrefix { path, prefix } => {
                w.write_str(&show(path))?;
                w.write_str(" % ")?;
                write_bytes(w, prefix)?;
                w.write_str("...")
            }
            Output::KeyValue(row) => row.print(w),
            Output::Raw(row) => row.print(w),
            Output::NewSnapshot => w.write_str(NEW_SNAPSHOT),
        }
    }
}

/// How a break between snapshots prints: a comment, so the output still
/// reads back as FQL.
const NEW_SNAPSHOT: &str =
    "% the read went on in a new transaction: what follows is a later snapshot";

impl Display for Output {
    /// The canonical FQL of the result, so every line can be pasted back.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.print(f)
    }
}

/// A byte buffer as a text sink: appending never fails, and a row goes
/// in piece by piece with no formatting machinery in between.
pub(super) struct Bytes<'a>(pub &'a mut Vec<u8>);

impl fmt::Write for Bytes<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }

    /// Punctuation, one byte: pushed, not encoded and copied.
    #[inline]
    fn write_char(&mut self, c: char) -> fmt::Result {
        match u8::try_from(c) {
            Ok(b) if b.is_ascii() => self.0.push(b),
            _ => self
                .0
                .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
        Ok(())
    }
}
