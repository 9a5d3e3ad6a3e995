//! Results on standard output: canonical FQL text, a JSON array, or JSON
//! lines, with bytes in full (hex or escaped) or as their length.
//!
//! Both forms are documented in `docs/cli.md`, section "Output"; the
//! library writes the JSON form ([`fql::exec::json`]).

use std::io::{self, Write};
use std::sync::Arc;

use fql::exec::{DirPath, Found, Output, Part, RawRow, Row, json};
use fql::syntax::ast::ElemKind;
use fql::syntax::{bytes_literal, escaped_bytes_literal};
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
                let text = shown(output, self.bytes);
                writeln!(self.out, "{}", crate::paint::paint(&text))
            }
            Format::Text => {
                match self.bytes {
                    BytesShown::Full => write!(self.out, "{output}")?,
                    bytes => self.out.write_all(shown(output, bytes).as_bytes())?,
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
                let object = json::Json::new(event.output(), json_bytes(self.bytes));
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
                let text = format!("{}=clear", shown(key, self.bytes));
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

/// The text of a result with bytes as `bytes` shows them: in key-values,
/// each bytes element and value; in a raw row, its value, and its key when
/// escaped (as its length the key would name nothing); a directory's
/// prefix when escaped, for the same reason. Other results print as they
/// are.
fn shown(output: &Output, bytes: BytesShown) -> String {
    match (bytes, output) {
        (BytesShown::Full, _) => output.to_string(),
        (_, Output::KeyValue(row)) => shown_row(row, bytes).to_string(),
        (_, Output::Raw(row)) => {
            let row = shown_raw(row, bytes);
            let mut text = match bytes {
                BytesShown::Escaped => escaped_bytes_literal(&row.key),
                BytesShown::Full | BytesShown::Len => bytes_literal(&row.key),
            };
            row.write_value(&mut text).expect("writing to a String");
            text
        }
        (BytesShown::Escaped, Output::DirPrefix { path, prefix }) => {
            let path = DirPath::new(path.clone());
            format!("{path} % {}...", escaped_bytes_literal(prefix))
        }
        _ => output.to_string(),
    }
}

/// A row with each bytes element shown as `bytes` says.
fn shown_row(row: &Row, bytes: BytesShown) -> Row {
    let mut shown = row.clone();
    if bytes == BytesShown::Escaped && row.path.prefix().is_some() {
        shown.path = Arc::new(row.path.escaped());
    }
    for part in shown
        .key
        .iter_mut()
        .chain(shown.value.as_mut().map(|(p, _)| p))
    {
        show_part(part, bytes);
    }
    shown
}

/// A raw row with the bytes of its value shown as `bytes` says.
fn shown_raw(row: &RawRow, bytes: BytesShown) -> RawRow {
    let mut shown = row.clone();
    show_part(&mut shown.value.0, bytes);
    shown
}

/// `part` as FQL text with its bytes shown as `bytes` says, if it holds
/// any.
fn show_part(part: &mut Part, bytes: BytesShown) {
    if let Part::Data(data) = part
        && contains_bytes(data)
    {
        let mut text = String::new();
        shown_text(&mut text, data, bytes);
        *part = Part::Written(text.into());
    }
}

fn contains_bytes(data: &ElemKind<'_>) -> bool {
    match data {
        ElemKind::Bytes(_) => true,
        ElemKind::Tuple(t) => t.elems.iter().any(|e| contains_bytes(&e.kind)),
        _ => false,
    }
}

/// FQL text with bytes as `<N bytes>`, `b"..."` or `0x..`.
fn shown_text(out: &mut String, data: &ElemKind<'_>, bytes: BytesShown) {
    match data {
        ElemKind::Bytes(b) => match bytes {
            BytesShown::Len => {
                let plural = if b.len() == 1 { "" } else { "s" };
                out.push_str(&format!("<{} byte{plural}>", b.len()));
            }
            BytesShown::Escaped => out.push_str(&escaped_bytes_literal(b)),
            BytesShown::Full => out.push_str(&bytes_literal(b)),
        },
        ElemKind::Tuple(t) => {
            out.push('(');
            for (n, e) in t.elems.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                shown_text(out, &e.kind, bytes);
            }
            out.push(')');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// How JSON shows bytes for `--bytes`.
fn json_bytes(bytes: BytesShown) -> json::Bytes {
    match bytes {
        BytesShown::Full => json::Bytes::Hex,
        BytesShown::Len => json::Bytes::Len,
        BytesShown::Escaped => json::Bytes::Escaped,
    }
}

/// A result in JSON form (see [`fql::exec::json`]).
fn json_output(out: &mut impl Write, output: &Output, bytes: BytesShown) -> io::Result<()> {
    json::write(out, &json::Json::new(output, json_bytes(bytes)))
}
