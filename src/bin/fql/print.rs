//! Results on standard output: canonical FQL text, a JSON array, or JSON
//! lines, with bytes in full or as their length.
//!
//! The JSON form of every element is documented in `docs/cli.md`: JSON's
//! own types where they say the same thing (nil, bool, str, int and num as
//! numbers, tuples as arrays), a one-key object naming the type otherwise,
//! so that a reader can always tell an int from a num, and bytes, uuids and
//! vstamps from strings. Ints are printed with every digit, whatever their
//! size.

use std::io::{self, Write};

use fql::exec::{Found, Output, Part, Row};
use fql::syntax::ast::{ElemKind, Num};

use crate::args::{BytesShown, Format};

/// Writes results in one format.
pub struct Printer<W: Write> {
    out: W,
    format: Format,
    bytes: BytesShown,
    /// Results printed so far.
    count: u64,
    /// Whether the JSON array's `[` is out.
    opened: bool,
    /// Whether text results are coloured.
    color: bool,
    /// Plain-text lines not yet written out: collected here and written
    /// in large pieces, or line by line when `by_line`.
    pending: Vec<u8>,
    /// Whether each line goes out as soon as it is printed, as a terminal
    /// shows them.
    by_line: bool,
}

/// How much plain text [`Printer`] collects before writing it out.
const PENDING: usize = 1 << 16;

impl<W: Write> Printer<W> {
    pub fn new(
        out: W,
        format: Format,
        bytes: BytesShown,
        color: bool,
        by_line: bool,
    ) -> Printer<W> {
        Printer {
            out,
            format,
            bytes,
            count: 0,
            opened: false,
            color,
            pending: Vec::new(),
            by_line,
        }
    }

    /// Results printed so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Prints one result as the engine found it: plain text straight from
    /// the bytes read, anything else through an owned [`Output`].
    pub fn print_found(&mut self, found: Found<'_>) -> io::Result<()> {
        if self.format == Format::Text && !self.color && self.bytes == BytesShown::Full {
            self.count += 1;
            found.write_to(&mut self.pending);
            self.pending.push(b'\n');
            if self.by_line || self.pending.len() >= PENDING {
                self.write_pending()?;
            }
            return Ok(());
        }
        self.print(&found.into_output())
    }

    /// Writes out the plain text collected so far.
    fn write_pending(&mut self) -> io::Result<()> {
        let written = self.out.write_all(&self.pending);
        self.pending.clear();
        written
    }

    /// Prints one result.
    pub fn print(&mut self, output: &Output) -> io::Result<()> {
        self.write_pending()?;
        self.count += 1;
        match self.format {
            Format::Text if self.color => {
                let text = match (self.bytes, output) {
                    (BytesShown::Len, Output::KeyValue(row)) => short_row(row).to_string(),
                    _ => output.to_string(),
                };
                writeln!(self.out, "{}", crate::paint::paint(&text))
            }
            Format::Text => {
                match (self.bytes, output) {
                    (BytesShown::Len, Output::KeyValue(row)) => {
                        write!(self.out, "{}", short_row(row))?
                    }
                    _ => write!(self.out, "{output}")?,
                }
                self.out.write_all(b"\n")
            }
            Format::Jsonl => {
                json_output(&mut self.out, output, self.bytes)?;
                self.out.write_all(b"\n")
            }
            Format::Json => {
                self.out
                    .write_all(if self.opened { b",\n" } else { b"[\n" })?;
                self.opened = true;
                json_output(&mut self.out, output, self.bytes)
            }
        }
    }

    /// Ends the output: closes the JSON array (an empty one if nothing
    /// was printed) and flushes.
    pub fn finish(&mut self) -> io::Result<()> {
        self.write_pending()?;
        if self.format == Format::Json {
            self.out
                .write_all(if self.opened { b"\n]\n" } else { b"[]\n" })?;
            self.opened = false;
        }
        self.out.flush()
    }

    /// Writes out what is buffered.
    pub fn flush(&mut self) -> io::Result<()> {
        self.write_pending()?;
        self.out.flush()
    }
}

/// A row with each bytes element shown as its length.
fn short_row(row: &Row) -> Row {
    let mut short = row.clone();
    for part in short
        .key
        .iter_mut()
        .chain(short.value.as_mut().map(|(p, _)| p))
    {
        if let Part::Data(data) = part
            && contains_bytes(data)
        {
            let mut text = String::new();
            short_text(&mut text, data);
            *part = Part::Written(text.into());
        }
    }
    short
}

fn contains_bytes(data: &ElemKind<'_>) -> bool {
    match data {
        ElemKind::Bytes(_) => true,
        ElemKind::Tuple(t) => t.elems.iter().any(|e| contains_bytes(&e.kind)),
        _ => false,
    }
}

/// FQL text with bytes as `<N bytes>`.
fn short_text(out: &mut String, data: &ElemKind<'_>) {
    match data {
        ElemKind::Bytes(b) => {
            let plural = if b.len() == 1 { "" } else { "s" };
            out.push_str(&format!("<{} byte{plural}>", b.len()));
        }
        ElemKind::Tuple(t) => {
            out.push('(');
            for (n, e) in t.elems.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                short_text(out, &e.kind);
            }
            out.push(')');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn json_output(out: &mut impl Write, output: &Output, bytes: BytesShown) -> io::Result<()> {
    match output {
        Output::Directory(path) => {
            out.write_all(br#"{"type":"dir","path":"#)?;
            json_path(out, path)?;
            out.write_all(b"}")
        }
        Output::NewSnapshot => out.write_all(br#"{"type":"new_snapshot"}"#),
        Output::KeyValue(row) => {
            out.write_all(br#"{"type":"kv","path":"#)?;
            json_path(out, row.path.names())?;
            out.write_all(br#","key":["#)?;
            for (n, part) in row.key.iter().enumerate() {
                if n > 0 {
                    out.write_all(b",")?;
                }
                json_part(out, part, bytes)?;
            }
            out.write_all(b"]")?;
            if row.rest {
                out.write_all(br#","rest":true"#)?;
            }
            if let Some((value, options)) = &row.value {
                out.write_all(br#","value":"#)?;
                json_part(out, value, bytes)?;
                if let Some(options) = options {
                    out.write_all(br#","options":"#)?;
                    json_str(out, options)?;
                }
            }
            out.write_all(b"}")
        }
    }
}

fn json_path(out: &mut impl Write, names: &[String]) -> io::Result<()> {
    out.write_all(b"[")?;
    for (n, name) in names.iter().enumerate() {
        if n > 0 {
            out.write_all(b",")?;
        }
        json_str(out, name)?;
    }
    out.write_all(b"]")
}

fn json_part(out: &mut impl Write, part: &Part, bytes: BytesShown) -> io::Result<()> {
    match part {
        Part::Data(data) => json_elem(out, data, bytes),
        Part::Written(text) => tagged(out, "fql", text),
    }
}

fn json_elem(out: &mut impl Write, data: &ElemKind<'_>, bytes: BytesShown) -> io::Result<()> {
    match data {
        ElemKind::Nil => out.write_all(b"null"),
        ElemKind::Bool(b) => write!(out, "{b}"),
        ElemKind::Int(n) => write!(out, "{n}"),
        ElemKind::Num(Num(n)) if n.is_finite() => write!(out, "{}", Num(*n)),
        ElemKind::Num(n) => tagged(out, "num", &n.to_string()),
        ElemKind::Str(s) => json_str(out, s),
        ElemKind::Bytes(b) => match bytes {
            BytesShown::Full => tagged(out, "bytes", &const_hex::encode(b)),
            BytesShown::Len => write!(out, r#"{{"bytes_len":{}}}"#, b.len()),
        },
        ElemKind::Uuid(u) => tagged(out, "uuid", &u.hyphenated().to_string()),
        ElemKind::Vstamp(v) => tagged(out, "vstamp", &v.to_string()),
        ElemKind::Tuple(t) => {
            out.write_all(b"[")?;
            for (n, e) in t.elems.iter().enumerate() {
                if n > 0 {
                    out.write_all(b",")?;
                }
                json_elem(out, &e.kind, bytes)?;
            }
            out.write_all(b"]")
        }
        // Results hold data only; a hole an aggregate keeps is a
        // `Part::Written`.
        ElemKind::Var(_) | ElemKind::Ref(_) => tagged(out, "fql", &data.to_string()),
        // A kind of element the library adds later is shown as the FQL
        // that writes it, which a reader can still parse.
        _ => tagged(out, "fql", &data.to_string()),
    }
}

/// `{"tag":"text"}`.
fn tagged(out: &mut impl Write, tag: &str, text: &str) -> io::Result<()> {
    write!(out, r#"{{"{tag}":"#)?;
    json_str(out, text)?;
    out.write_all(b"}")
}

fn json_str(out: &mut impl Write, s: &str) -> io::Result<()> {
    crate::json::write_str(out, s)
}
