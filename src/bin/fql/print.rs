//! Results on standard output: canonical FQL text, a JSON array, or JSON
//! lines, with bytes in full or as their length.
//!
//! Both forms are documented in `docs/cli.md`, section "Output"; the
//! library writes the JSON form ([`fql::exec::json`]).

use std::io::{self, Write};

use fql::exec::{Found, Output, Part, RawRow, Row, json};
use fql::syntax::ast::ElemKind;
use fql::watch::Event;

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
                    (BytesShown::Len, Output::Raw(row)) => short_raw(row).to_string(),
                    _ => output.to_string(),
                };
                writeln!(self.out, "{}", crate::paint::paint(&text))
            }
            Format::Text => {
                match (self.bytes, output) {
                    (BytesShown::Len, Output::KeyValue(row)) => {
                        write!(self.out, "{}", short_row(row))?
                    }
                    (BytesShown::Len, Output::Raw(row)) => write!(self.out, "{}", short_raw(row))?,
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

    /// Prints what a watch reports, and writes it out at once: a
    /// key-value as any result prints, a cleared key as the statement
    /// that clears it (`/a(1)=clear`); in JSON, each object with a
    /// `"change"` of `found`, `set` or `clear`.
    pub fn print_event(&mut self, event: &Event) -> io::Result<()> {
        match (self.format, event) {
            (Format::Json | Format::Jsonl, _) => {
                self.write_pending()?;
                self.count += 1;
                let bytes = match self.bytes {
                    BytesShown::Full => json::Bytes::Hex,
                    BytesShown::Len => json::Bytes::Len,
                };
                let object = json::Json::new(event.output(), bytes);
                let mut value = serde_json::to_value(object).map_err(io::Error::other)?;
                if let Some(map) = value.as_object_mut() {
                    map.insert("change".into(), event.name().into());
                }
                json::write(&mut self.out, &value)?;
                self.out.write_all(b"\n")?;
            }
            (Format::Text, Event::Clear(key)) => {
                self.write_pending()?;
                self.count += 1;
                let key = match (self.bytes, key) {
                    (BytesShown::Len, Output::KeyValue(row)) => short_row(row).to_string(),
                    _ => key.to_string(),
                };
                let text = format!("{key}=clear");
                match self.color {
                    true => writeln!(self.out, "{}", crate::paint::paint(&text))?,
                    false => writeln!(self.out, "{text}")?,
                }
            }
            _ => self.print(event.output())?,
        }
        self.flush()
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

/// A raw row with the bytes of its value shown as their length; its key,
/// all that names it, stays in full.
fn short_raw(row: &RawRow) -> RawRow {
    let mut short = row.clone();
    if let Part::Data(data) = &short.value.0
        && contains_bytes(data)
    {
        let mut text = String::new();
        short_text(&mut text, data);
        short.value.0 = Part::Written(text.into());
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

/// A result in JSON form (see [`fql::exec::json`]).
fn json_output(out: &mut impl Write, output: &Output, bytes: BytesShown) -> io::Result<()> {
    let bytes = match bytes {
        BytesShown::Full => json::Bytes::Hex,
        BytesShown::Len => json::Bytes::Len,
    };
    json::write(out, &json::Json::new(output, bytes))
}
