//! The canonical printer: any AST back to FQL text.
//!
//! These rules are also how query results print, so that every result line
//! can be pasted back as a write. `docs/canonical.md` states them for users:
//!
//! - a directory element is bare when it is a valid name, else quoted;
//! - tuple elements are joined by `,` with no spaces;
//! - ints in base 10; nums as the shortest text that reads back as the same
//!   f64, always with a `.` or an exponent, and `inf`, `-inf`, `nan`,
//!   `-nan` (a NaN by its sign alone);
//! - strings escape `"`, `\` and the line feed (`\n`), and every other
//!   control character as the `\xNN` escapes of its UTF-8 bytes, so that
//!   no control character ever reaches a terminal;
//! - bytes as `0x` and lowercase hex, never in their escaped form
//!   `b"..."` (which `--bytes escaped` prints results in); uuids and
//!   vstamps in lowercase;
//! - options as written, aliases kept.

use std::fmt::{self, Display, Formatter, Write};

use super::ast::*;
use super::names::is_name;

impl Display for Script<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (n, item) in self.items.iter().enumerate() {
            if n > 0 {
                f.write_char('\n')?;
            }
            match item {
                Item::Statement(s) => s.fmt(f)?,
                Item::Meta(m) => m.fmt(f)?,
            }
        }
        Ok(())
    }
}

impl Display for Meta {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl Display for Statement<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if !self.options.is_empty() {
            writeln!(f, "{}", self.options)?;
        }
        self.query.fmt(f)
    }
}

impl Display for Query<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Query::Directory(dir) => dir.fmt(f),
            Query::Remove { dir, .. } => write!(f, "{dir}=remove"),
            Query::KeyValue(kv) => kv.fmt(f),
            Query::Raw(raw) => write!(f, "{}{}", raw.key, raw.value),
        }
    }
}

impl Display for RawKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

/// `0x15ff`, `0x15ff...` or `0x15..0x16`.
impl Display for RawKeyKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            RawKeyKind::Key(key) => write_bytes(f, key),
            RawKeyKind::Prefix(prefix) => {
                write_bytes(f, prefix)?;
                f.write_str("...")
            }
            RawKeyKind::Range(begin, end) => {
                write_bytes(f, begin)?;
                f.write_str("..")?;
                write_bytes(f, end)
            }
        }
    }
}

impl Display for KeyValue<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.key, self.value)
    }
}

impl Display for Key<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.place(), self.tuple)
    }
}

/// What comes before a key's tuple: `/app`, `/` or `0x02`.
impl Display for Place<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Place::Prefix(bytes) => write_bytes(f, bytes),
            Place::Root => f.write_char('/'),
            Place::Directory(dir) => dir.fmt(f),
        }
    }
}

/// Prints the `=` too, or nothing for an omitted value.
impl Display for Value<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Value::Omitted => Ok(()),
            Value::Clear(_) => f.write_str("=clear"),
            Value::Data(elem, opts) => write!(f, "={elem}{opts}"),
            Value::Mutate(m) => write!(f, "={m}"),
        }
    }
}

impl Display for Mutation<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}({}{})", self.op, self.operand, self.options)
    }
}

impl Display for Directory<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.relative.map(|r| r.up) {
            None => {}
            Some(0) => f.write_char('.')?,
            Some(up) => {
                f.write_str("..")?;
                for _ in 1..up {
                    f.write_str("/..")?;
                }
            }
        }
        for elem in &self.elems {
            f.write_char('/')?;
            elem.fmt(f)?;
        }
        if self.rest.is_some() {
            f.write_str("/...")?;
        }
        Ok(())
    }
}

impl Display for DirElem<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            DirElem::Name { name, .. } if is_name(name) => f.write_str(name),
            DirElem::Name { name, .. } => write_str(f, name),
            DirElem::Var(v) => v.fmt(f),
            DirElem::Ref(r) => r.fmt(f),
        }
    }
}

impl Display for Tuple<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_tuple(f, self)
    }
}

impl Display for Elem<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_elem(f, &self.kind)
    }
}

impl Display for ElemKind<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_elem(f, self)
    }
}

impl Display for Int {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_int(f, self)
    }
}

impl Display for Num {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_num(f, self.0)
    }
}

impl Display for Vstamp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_vstamp(f, self)
    }
}

/// Writes an element in canonical form into any text sink: a formatter
/// for `Display`, or a byte buffer for results, which then print without
/// going through `fmt`'s machinery. Holes print as written.
pub fn write_elem(w: &mut impl Write, kind: &ElemKind<'_>) -> fmt::Result {
    match kind {
        ElemKind::Nil => w.write_str("nil"),
        ElemKind::Bool(b) => w.write_str(if *b { "true" } else { "false" }),
        ElemKind::Int(n) => write_int(w, n),
        ElemKind::Num(n) => write_num(w, n.0),
        ElemKind::Str(s) => write_str(w, s),
        ElemKind::Bytes(b) => write_bytes(w, b),
        ElemKind::Uuid(u) => w.write_str(u.hyphenated().encode_lower(&mut Uuid::encode_buffer())),
        ElemKind::Vstamp(v) => write_vstamp(w, v),
        ElemKind::Tuple(t) => write_tuple(w, t),
        ElemKind::Var(v) => write!(w, "{v}"),
        ElemKind::Ref(r) => write!(w, "{r}"),
        ElemKind::F32(x) => write_f32(w, x.0),
        ElemKind::Vstamp80(tx) => {
            w.write_char('#')?;
            write_hex(w, tx)
        }
        ElemKind::User(u) => {
            w.write_str("user(0x")?;
            write_hex(w, &[u.code])?;
            w.write_char(',')?;
            write_bytes(w, &u.data)?;
            w.write_char(')')
        }
    }
}

/// `f32(` the shortest text that reads back as the same binary32 `)`,
/// with the special values as a num writes them.
fn write_f32(w: &mut impl Write, x: f32) -> fmt::Result {
    w.write_str("f32(")?;
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_nan() {
        write!(w, "{sign}nan")?;
    } else if x.is_infinite() {
        write!(w, "{sign}inf")?;
    } else {
        w.write_str(ryu::Buffer::new().format_finite(x))?;
    }
    w.write_char(')')
}

fn write_tuple(w: &mut impl Write, t: &Tuple<'_>) -> fmt::Result {
    w.write_char('(')?;
    for (n, elem) in t.elems.iter().enumerate() {
        if n > 0 {
            w.write_char(',')?;
        }
        write_elem(w, &elem.kind)?;
    }
    if t.rest.is_some() {
        if !t.elems.is_empty() {
            w.write_char(',')?;
        }
        w.write_str("...")?;
    }
    w.write_char(')')
}

fn write_int(w: &mut impl Write, n: &Int) -> fmt::Result {
    match n {
        Int::Small(n) => w.write_str(itoa::Buffer::new().format(*n)),
        Int::Big(n) => write!(w, "{n}"),
    }
}

fn write_num(w: &mut impl Write, x: f64) -> fmt::Result {
    if x.is_nan() {
        // Only the sign of a NaN is printed: its payload has no literal.
        w.write_str(if x.is_sign_negative() { "-nan" } else { "nan" })
    } else if x.is_infinite() {
        w.write_str(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        w.write_str(ryu::Buffer::new().format_finite(x))
    }
}

fn write_vstamp(w: &mut impl Write, v: &Vstamp) -> fmt::Result {
    w.write_char('#')?;
    if let Some(tx) = &v.tx {
        write_hex(w, tx)?;
    }
    w.write_char(':')?;
    write_hex(w, &v.user.to_be_bytes())
}

impl Display for Variable<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('<')?;
        if let Some(name) = &self.name {
            write!(f, "{}:", name)?;
        }
        for (n, spec) in self.types.iter().enumerate() {
            if n > 0 {
                f.write_char('|')?;
            }
            write!(f, "{}{}", spec.ty, spec.options)?;
        }
        f.write_char('>')
    }
}

impl Display for Reference<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, ":{}", self.name.name)?;
        if let Some(cast) = &self.cast {
            write!(f, "!{}", cast.ty)?;
        }
        Ok(())
    }
}

/// Prints nothing for an empty list.
impl Display for Options<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.items.is_empty() {
            return Ok(());
        }
        f.write_char('[')?;
        for (n, opt) in self.items.iter().enumerate() {
            if n > 0 {
                f.write_char(',')?;
            }
            opt.fmt(f)?;
        }
        f.write_char(']')
    }
}

impl Display for Opt<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.name.fmt(f)?;
        if let Some(arg) = &self.arg {
            f.write_char(':')?;
            match &arg.kind {
                OptArgKind::Name(n) => f.write_str(n)?,
                OptArgKind::Int(n) => n.fmt(f)?,
                OptArgKind::Str(s) => write_str(f, s)?,
            }
        }
        Ok(())
    }
}

/// Writes a string literal: quoted, with `"`, `\` and line feeds
/// escaped, and every other control character (C0, DEL and C1) as the
/// `\xNN` escapes of its UTF-8 bytes, so that the text never carries a
/// control character to a terminal and reads back as the same string.
///
/// Most strings are short and need no escape: one scan and one write,
/// inlined where rows are printed.
#[inline(always)]
pub fn write_str(f: &mut impl Write, s: &str) -> fmt::Result {
    let bytes = s.as_bytes();
    let n = super::words::first_escape(bytes);
    if n == bytes.len() {
        f.write_char('"')?;
        f.write_str(s)?;
        return f.write_char('"');
    }
    write_escaped(f, s, n)
}

/// [`write_str`] for strings with something to escape, the first of it
/// (or a `c2` byte, which may start a C1 control) at `n`: the text between
/// escapes goes out in one piece.
#[inline(never)]
fn write_escaped(f: &mut impl Write, s: &str, mut n: usize) -> fmt::Result {
    use super::words::{control_len, first_escape};
    f.write_char('"')?;
    let bytes = s.as_bytes();
    let mut start = 0;
    while n < bytes.len() {
        let escape = match bytes[n] {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            _ => None,
        };
        if let Some(escape) = escape {
            f.write_str(&s[start..n])?;
            f.write_str(escape)?;
            n += 1;
            start = n;
        } else if let Some(len) = control_len(&bytes[n..]) {
            f.write_str(&s[start..n])?;
            super::words::write_hex_escapes(f, &bytes[n..n + len])?;
            n += len;
            start = n;
        } else {
            // A printable character from `c2`, two bytes: part of the text.
            n += 2;
        }
        n += first_escape(&bytes[n..]);
    }
    f.write_str(&s[start..])?;
    f.write_char('"')
}

/// The text as it is when it needs no escape, else as a string literal:
/// for names in messages (a mutex client, a layer) that read best bare
/// but must not carry a control character to a terminal.
pub fn plain_or_quoted(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() || c == '"' || c == '\\') {
        s.into()
    } else {
        quote(s).into()
    }
}

/// A string literal for `s`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_str(&mut out, s).expect("writing to a String");
    out
}

/// A bytes literal for `b`: `0x` and lowercase hex.
pub fn bytes_literal(b: &[u8]) -> String {
    let mut out = String::with_capacity(2 + 2 * b.len());
    write_bytes(&mut out, b).expect("writing to a String");
    out
}

/// Writes bytes as `0x` and lowercase hex.
pub fn write_bytes(f: &mut impl Write, b: &[u8]) -> fmt::Result {
    f.write_str("0x")?;
    write_hex(f, b)
}

/// Writes bytes in their escaped form, `b"\x02app\x00"`: printable ASCII
/// as it is, but `\\` and `\"`, and every other byte as `\x` and two
/// lowercase hex digits. It reads back as the same bytes, holds no control
/// character, and shows keys as fdbcli prints them; the canonical form
/// stays `0x` and hex (see [`write_bytes`]), whose length does not depend
/// on what the bytes are.
pub fn write_escaped_bytes(f: &mut impl Write, b: &[u8]) -> fmt::Result {
    f.write_str("b\"")?;
    write_byte_escapes(f, b)?;
    f.write_char('"')
}

/// An escaped bytes literal for `b`, as [`write_escaped_bytes`] writes it.
pub fn escaped_bytes_literal(b: &[u8]) -> String {
    let mut out = String::with_capacity(3 + b.len());
    write_escaped_bytes(&mut out, b).expect("writing to a String");
    out
}

/// The text between the quotes of [`write_escaped_bytes`]: each run of
/// printable ASCII in one piece, every other byte escaped.
pub(crate) fn write_byte_escapes(f: &mut impl Write, b: &[u8]) -> fmt::Result {
    let plain = |c: &u8| matches!(c, b' '..=b'~') && !matches!(c, b'"' | b'\\');
    let mut rest = b;
    while !rest.is_empty() {
        let n = rest.iter().take_while(|c| plain(c)).count();
        f.write_str(std::str::from_utf8(&rest[..n]).expect("printable ASCII"))?;
        let Some(&c) = rest.get(n) else { break };
        match c {
            b'"' => f.write_str("\\\"")?,
            b'\\' => f.write_str("\\\\")?,
            _ => super::words::write_hex_escapes(f, &[c])?,
        }
        rest = &rest[n + 1..];
    }
    Ok(())
}

fn write_hex(f: &mut impl Write, b: &[u8]) -> fmt::Result {
    let mut buf = [0u8; 128];
    for chunk in b.chunks(64) {
        let out = &mut buf[..chunk.len() * 2];
        const_hex::encode_to_slice(chunk, out).expect("the buffer holds two digits per byte");
        f.write_str(std::str::from_utf8(out).expect("hex digits are ASCII"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(x: f64) -> String {
        Num(x).to_string()
    }

    #[test]
    fn nums_print_shortest_with_a_point_or_an_exponent() {
        assert_eq!(num(2.0), "2.0");
        assert_eq!(num(-320000.0), "-320000.0");
        assert_eq!(num(1e16), "1e16");
        assert_eq!(num(3.47e-8), "3.47e-8");
        assert_eq!(num(0.1), "0.1");
        assert_eq!(num(-0.0), "-0.0");
        assert_eq!(num(f64::INFINITY), "inf");
        assert_eq!(num(f64::NEG_INFINITY), "-inf");
        assert_eq!(num(f64::NAN), "nan");
        assert_eq!(num(-f64::NAN), "-nan");
        assert_eq!(num(f64::from_bits(0xfff0_0000_0000_0001)), "-nan");
        assert_eq!(num(f64::MAX), "1.7976931348623157e308");
        assert_eq!(num(5e-324), "5e-324");
    }

    #[test]
    fn strings_escape_quote_backslash_line_feed_and_controls() {
        assert_eq!(quote("plain"), "\"plain\"");
        assert_eq!(quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
        assert_eq!(quote("tab\there\r😁"), "\"tab\\x09here\\x0d😁\"");
        assert_eq!(quote("\u{1b}[31mred"), "\"\\x1b[31mred\"");
        assert_eq!(quote("\0\u{7f}"), "\"\\x00\\x7f\"");
        // C1 controls as their UTF-8 bytes; other characters from `c2` as
        // they are.
        assert_eq!(quote("a\u{9b}b\u{80}"), "\"a\\xc2\\x9bb\\xc2\\x80\"");
        assert_eq!(quote("£©\u{a0}"), "\"£©\u{a0}\"");
        assert_eq!(plain_or_quoted("ann"), "ann");
        assert_eq!(plain_or_quoted("£5 é"), "£5 é");
        assert_eq!(plain_or_quoted("a\u{1b}"), "\"a\\x1b\"");
    }

    #[test]
    fn bytes_are_lowercase_hex() {
        let mut out = String::new();
        write_bytes(&mut out, &[0x00, 0xAB, 0xff]).unwrap();
        assert_eq!(out, "0x00abff");
        let mut long = String::new();
        write_bytes(&mut long, &[0x5a; 200]).unwrap();
        assert_eq!(long.len(), 2 + 400);
    }

    #[test]
    fn escaped_bytes_keep_printable_ascii_and_escape_the_rest() {
        assert_eq!(escaped_bytes_literal(b""), r#"b"""#);
        assert_eq!(
            escaped_bytes_literal(b"\x02app\x00\x15\x01"),
            r#"b"\x02app\x00\x15\x01""#
        );
        assert_eq!(
            escaped_bytes_literal(b"a \"q\" \\ ~\x7f\x1b\xc3\xa9\xff"),
            r#"b"a \"q\" \\ ~\x7f\x1b\xc3\xa9\xff""#
        );
    }

    #[test]
    fn vstamps_and_ints() {
        let v = Vstamp {
            tx: Some([0xAB; 10]),
            user: 0x01ff,
        };
        assert_eq!(v.to_string(), "#abababababababababab:01ff");
        assert_eq!(Vstamp { tx: None, user: 7 }.to_string(), "#:0007");
        assert_eq!(Int::Small(-5).to_string(), "-5");
        assert_eq!(
            Int::from_big(num_bigint::BigInt::from(u64::MAX)).to_string(),
            "18446744073709551615"
        );
    }
}
