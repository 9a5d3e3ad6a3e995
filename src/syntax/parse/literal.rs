//! Literal data: numbers, strings, bytes, uuids and versionstamps.
//!
//! Malformed literals are reported without stopping the parse (a placeholder
//! value stands in), so a script with several bad literals shows them all.

use std::borrow::Cow;

use nom::character::complete::digit1;
use num_bigint::BigInt;

use super::MAX_INT_BYTES;
use super::lex::{
    control_name, excerpt, fail, hspace, line_break, peek, starts_statement, take_bytes, word,
};
use crate::syntax::names::is_name_byte;
use crate::syntax::words::{self, control_len};

/// The most decimal digits an int that the tuple layer encodes can have:
/// [`MAX_INT_BYTES`] bytes of magnitude hold up to 2^2040 - 1, which has
/// 615 digits (some 615-digit ints are larger; no 616-digit one fits).
pub(crate) const MAX_INT_DIGITS: usize = 615;
use super::{Fail, PResult, Parser};
use crate::syntax::ast::{ElemKind, Int, Num, Span, Uuid, Vstamp};
use crate::syntax::error::{IntTooLarge, ParseError};

fn is_hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

/// The string literal that starts at `literal`, its opening quote,
/// through its closing quote on the same line or the next, with each
/// control character and line break written as an escape; `None` if it
/// does not close there, or is too long to show in a help line.
fn escaped_literal(literal: &str) -> Option<String> {
    const SHOWN: usize = 60;
    let mut fixed = String::from('"');
    let mut escaped = false;
    let mut breaks = 0;
    for c in literal.chars().skip(1) {
        if fixed.chars().count() > SHOWN {
            return None;
        }
        match c {
            '\n' if breaks == 0 => {
                breaks += 1;
                fixed.push_str("\\n");
            }
            '\n' => return None,
            _ if c.is_control() => {
                fixed.push_str(&words::hex_escapes(c.to_string().as_bytes()));
            }
            '"' if !escaped => {
                fixed.push('"');
                return Some(fixed);
            }
            _ => fixed.push(c),
        }
        escaped = c == '\\' && !escaped;
    }
    None
}

/// The run of number-like text at `i`: a sign, then name bytes and `+`,
/// what a mistyped number is taken to be.
fn number_run(i: &str) -> &str {
    let sign = usize::from(peek(i) == Some(b'-'));
    let (rest, _) = take_bytes(&i[sign..], |b| is_name_byte(b) || b == b'+');
    &i[..i.len() - rest.len()]
}

/// Whether `text` is a number as FQL writes one: `-`, digits, an
/// optional fraction and an optional exponent with an optional `-`.
fn is_plain_number(text: &str) -> bool {
    fn digits(s: &str) -> Option<&str> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        (n > 0).then(|| &s[n..])
    }
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let Some(mut rest) = digits(unsigned) else {
        return false;
    };
    if let Some(frac) = rest.strip_prefix('.') {
        let Some(after) = digits(frac) else {
            return false;
        };
        rest = after;
    }
    if let Some(exp) = rest.strip_prefix('e') {
        let Some(after) = digits(exp.strip_prefix('-').unwrap_or(exp)) else {
            return false;
        };
        rest = after;
    }
    rest.is_empty()
}

/// The help for a number written with `E` or `e+`, `why`, and the number
/// written the way FQL reads it, when that fixes it: `2e+7` is `2e7`.
fn respelt(i: &str, why: &str) -> Option<String> {
    let text = number_run(i);
    let fixed = text.replace('E', "e").replacen("e+", "e", 1);
    Some(if is_plain_number(&fixed) {
        format!("{why}: write `{}`", excerpt(&fixed))
    } else {
        why.to_string()
    })
}

/// The help for number-like text that starts with `.`: a fraction
/// without its leading `0` (`.5` is `0.5`), or dots meant as the `...`
/// that stands for the rest of a tuple.
fn dotted_help(text: &str) -> Option<String> {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    if !unsigned.starts_with('.') {
        return None;
    }
    if unsigned.bytes().all(|b| b == b'.') {
        return Some(
            "the rest of a tuple is three dots, `...`, and stands last in a tuple or a directory path"
                .into(),
        );
    }
    let fixed = text.replacen('.', "0.", 1);
    is_plain_number(&fixed).then(|| format!("write `{}`", excerpt(&fixed)))
}

/// Whether the text starts with 8 hex digits and a `-`, the way only a uuid
/// does.
#[inline]
fn looks_like_uuid(i: &str) -> bool {
    let b = i.as_bytes();
    b.get(8) == Some(&b'-') && b[..8].iter().all(|&c| is_hex(c))
}

/// The value of each hex digit; 0xff for other bytes.
static HEX: [u8; 256] = {
    let mut table = [0xff; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => 0xff,
        };
        b += 1;
    }
    table
};

/// Decodes the hex digits of a bytes literal, checked already, two a
/// byte. The literals are a few bytes long: with const-hex, which picks
/// its SIMD routine at run time on every call, the parse of the bench
/// corpus (8,000 bytes literals) took 1.5% more instructions and about a
/// tenth more time (benches/RESULTS.md).
fn decode_hex(digits: &[u8]) -> Vec<u8> {
    digits
        .chunks_exact(2)
        .map(|pair| HEX[usize::from(pair[0])] << 4 | HEX[usize::from(pair[1])])
        .collect()
}

/// The byte that two hex digits spell, as in a `\xNN` escape.
#[inline]
fn hex_byte(digits: &[u8]) -> Option<u8> {
    let [byte] = const_hex::decode_to_array(digits).ok()?;
    Some(byte)
}

/// The bytes of a uuid in its one valid layout, 8-4-4-4-12 hex digits, or
/// `None` for [`Parser::uuid`] to say what is wrong. The uuid crate also
/// reads other layouts (no hyphens, braces, a `urn:` prefix), which FQL
/// does not take: the layout is checked first.
fn canonical_uuid(text: &[u8]) -> Option<Uuid> {
    if text.len() != 36 || [8, 13, 18, 23].iter().any(|&n| text[n] != b'-') {
        return None;
    }
    Uuid::try_parse_ascii(text).ok()
}

/// A versionstamp after its `#` in one of its two valid layouts, 20 and 4
/// hex digits around a `:` or the incomplete `:` and 4, or `None` for
/// [`Parser::vstamp`] to say what is wrong.
fn canonical_vstamp(text: &[u8]) -> Option<Vstamp> {
    let (tx, user) = match text.len() {
        25 if text[20] == b':' => (
            Some(const_hex::decode_to_array(&text[..20]).ok()?),
            &text[21..],
        ),
        5 if text[0] == b':' => (None, &text[1..]),
        _ => return None,
    };
    let user = u16::from_be_bytes(const_hex::decode_to_array(user).ok()?);
    Some(Vstamp { tx, user })
}

/// Whether `i` starts a bytes literal: `0x` and hex digits, or `b"` and
/// escaped text. No other construct starts so: a name is never directly
/// followed by a quote, nor a number by `x`. Public so that the shell,
/// which puts `./` before a statement that starts with a name, knows a
/// raw key by the parser's own rule.
#[inline]
pub fn starts_bytes(i: &str) -> bool {
    i.starts_with("0x") || i.starts_with("b\"")
}

/// The text of an escape that is not one, `len` bytes of `at`, its
/// backslash, as a message shows it: `\x` with the two characters it
/// takes, short of a quote or a control character.
fn escape_text(at: &str, len: usize) -> &str {
    let escape = &at[..len];
    if escape != "\\x" {
        return escape;
    }
    let digits: usize = at[2..]
        .chars()
        .take(2)
        .take_while(|&c| c != '"' && !c.is_control())
        .map(char::len_utf8)
        .sum();
    &at[..2 + digits]
}

/// The length of the plain text at the start of a string's body: up to a
/// quote, a backslash or a line break.
#[inline]
fn string_run(i: &str) -> usize {
    crate::syntax::words::first_escape(i.as_bytes())
}

/// A string without escapes, the most common kind, or `None` for the
/// general parser to take. The caller has seen the `"`.
///
/// Kept apart from [`Parser::string`] so that it inlines into the element
/// parser: as a call, returning the text through memory cost about as much
/// as scanning it.
#[inline(always)]
pub(super) fn plain_string(i: &str) -> Option<(&str, Cow<'_, str>)> {
    let body = &i[1..];
    let n = string_run(body);
    (body.as_bytes().get(n) == Some(&b'"')).then(|| (&body[n + 1..], Cow::Borrowed(&body[..n])))
}

/// An int of at most 18 digits that nothing number-like follows, or `None`
/// for [`Parser::numeric`] to take. It cannot be anything else: bytes
/// (`0x`), a uuid (a `-` after 8 digits), a num (`.` or `e`) and an invalid
/// number all continue with a name byte or `+`.
#[inline(always)]
pub(super) fn small_int(i: &str) -> Option<(&str, i64)> {
    let b = i.as_bytes();
    let first = usize::from(b[0] == b'-');
    let mut n = first;
    let mut acc: i64 = 0;
    while let Some(&d) = b.get(n).filter(|d| d.is_ascii_digit()) {
        // 18 digits stay below 10^18 < 2^63.
        if n - first == 18 {
            return None;
        }
        acc = acc * 10 + i64::from(d - b'0');
        n += 1;
    }
    if n == first || b.get(n).is_some_and(|&c| is_name_byte(c) || c == b'+') {
        return None;
    }
    Some((&i[n..], if first == 1 { -acc } else { acc }))
}

impl<'a> Parser<'a> {
    /// A double-quoted string with the escapes `\"`, `\\`, `\n` and
    /// `\xNN`. The caller has seen the `"`.
    pub(super) fn string(&mut self, i: &'a str) -> PResult<'a, Cow<'a, str>> {
        let body = &i[1..];
        let n = string_run(body);
        // Most strings have no escape: their text is a slice of the source.
        if body.as_bytes().get(n) == Some(&b'"') {
            return Ok((&body[n + 1..], Cow::Borrowed(&body[..n])));
        }
        self.string_slow(i, n)
    }

    /// [`Parser::string`] past the first byte that stops the scan, at `n`
    /// in the body: an escape, a control character, the `c2` of a
    /// character such as `£`, or the end. The text stays a slice of the
    /// source until an escape changes it. `\xNN` escapes give bytes, so
    /// the text is gathered as bytes and must be UTF-8 at the end.
    #[inline(never)]
    fn string_slow(&mut self, i: &'a str, mut n: usize) -> PResult<'a, Cow<'a, str>> {
        let open = self.pos(i);
        let body = &i[1..];
        let bytes = body.as_bytes();
        // The text so far, once an escape has made it differ from the
        // source; `copied` is where the source not yet in it starts.
        let mut text: Option<Vec<u8>> = None;
        let mut copied = 0;
        // Where each `\xNN` above 0x7f put its byte, to say which escapes
        // are not UTF-8.
        let mut high = Vec::new();
        loop {
            match bytes.get(n) {
                Some(b'"') => {
                    let rest = &body[n + 1..];
                    let Some(mut text) = text else {
                        return Ok((rest, Cow::Borrowed(&body[..n])));
                    };
                    text.extend_from_slice(&bytes[copied..n]);
                    return Ok((rest, self.utf8(text, &high)));
                }
                Some(b'\\') => {
                    let out = text.get_or_insert_with(Vec::new);
                    out.extend_from_slice(&bytes[copied..n]);
                    let at = &body[n..];
                    let (len, byte) = match bytes.get(n + 1) {
                        Some(b'"') => (2, Some(b'"')),
                        Some(b'\\') => (2, Some(b'\\')),
                        Some(b'n') => (2, Some(b'\n')),
                        Some(b'x') => match bytes.get(n + 2..n + 4).and_then(hex_byte) {
                            Some(b) => (4, Some(b)),
                            None => (2, None),
                        },
                        // The string is unclosed; let the line break say so.
                        // A control character is reported on its own.
                        Some(b'\n') | None => (1, None),
                        Some(_) if control_len(&bytes[n + 1..]).is_some() => (1, None),
                        Some(_) => (1 + at[1..].chars().next().map_or(0, char::len_utf8), None),
                    };
                    match byte {
                        Some(b) => {
                            if b > 0x7f {
                                high.push((out.len(), self.span_of(&at[..len])));
                            }
                            out.push(b);
                        }
                        None if len > 1 => self.bad_escape(at, len),
                        None => {}
                    }
                    n += len;
                    copied = n;
                }
                Some(b'\n') | None => return fail(self.unclosed_string(open, &body[n..])),
                Some(b'\r') if bytes.get(n + 1) == Some(&b'\n') => {
                    return fail(self.unclosed_string(open, &body[n..]));
                }
                Some(_) => match control_len(&bytes[n..]) {
                    Some(len) => {
                        self.control_in_string(&body[n..n + len], i);
                        n += len;
                    }
                    // A printable character from `c2`: two bytes.
                    None => n += 2,
                },
            }
            n += string_run(&body[n..]);
        }
    }

    /// The text of a string whose escapes gave `bytes`, or an error at the
    /// escapes that are not UTF-8; `high` holds where each escape of a
    /// byte above 0x7f put it, and its span.
    fn utf8(&mut self, bytes: Vec<u8>, high: &[(usize, Span)]) -> Cow<'a, str> {
        match String::from_utf8(bytes) {
            Ok(text) => Cow::Owned(text),
            Err(e) => {
                let e = e.utf8_error();
                let bad = e.valid_up_to();
                let end = e.error_len().map_or(usize::MAX, |len| bad + len);
                // The bytes that are not UTF-8 all come from escapes: what
                // stands in the source as it is, is UTF-8.
                let spans: Vec<Span> = high
                    .iter()
                    .filter(|(at, _)| (bad..end).contains(at))
                    .map(|(_, span)| *span)
                    .collect();
                let at = match (spans.first(), spans.last()) {
                    (Some(first), Some(last)) => Span::new(first.start as usize, last.end as usize),
                    _ => high.first().map_or(Span::default(), |(_, span)| *span),
                };
                self.report(ParseError::InvalidUtf8 { at });
                Cow::Borrowed("")
            }
        }
    }

    /// Reports an escape that is not one: a backslash and what follows it,
    /// `len` bytes at `at`.
    #[cold]
    fn bad_escape(&mut self, at: &str, len: usize) {
        let escape = escape_text(at, len);
        self.report(ParseError::BadEscape {
            escape: escape.into(),
            at: self.span_of(escape),
        });
    }

    /// Reports a raw control character `c` (its text in the source) in
    /// `place`, with `help`, and goes on.
    #[cold]
    pub(super) fn control_character(&mut self, c: &str, place: &str, help: String) {
        let ch = c.chars().next().expect("a character");
        self.report(ParseError::ControlCharacter {
            name: control_name(ch),
            place: place.into(),
            at: self.span_of(c),
            help,
        });
    }

    /// Reports a raw control character `c` in the string literal that
    /// starts at `literal`, with the literal written with escapes.
    #[cold]
    fn control_in_string(&mut self, c: &str, literal: &str) {
        let escape = words::hex_escapes(c.as_bytes());
        let help = match escaped_literal(literal) {
            Some(fixed) => format!("write it as the escape `{escape}`: {fixed}"),
            None => format!("write it as the escape `{escape}`"),
        };
        self.control_character(c, "a string", help);
    }

    /// The error for a string that meets a line break or the end before
    /// its closing quote, at `i`. When the next line closes it, the help
    /// shows it on one line, with `\n` for the line break.
    fn unclosed_string(&self, open: usize, i: &str) -> ParseError {
        let help = line_break(i).map(|next| {
            let next = if starts_statement(hspace(next)) {
                ""
            } else {
                next
            };
            let why = "a string cannot span lines; write `\\n` for a line break";
            let first = &self.src[open..self.pos(i)];
            match escaped_literal(&format!("{first}\n{next}")) {
                Some(fixed) => format!("{why}: {fixed}"),
                None => why.to_string(),
            }
        });
        ParseError::Unclosed {
            open: '"',
            close: '"',
            at: Span::new(open, open + 1),
            end: Span::at(self.pos(i)),
            help,
        }
    }

    /// An element that starts with a digit or `-`: an int, a num, bytes
    /// (`0x..`) or a uuid.
    pub(super) fn numeric(&mut self, i: &'a str) -> (&'a str, ElemKind<'a>) {
        if i.starts_with("0x") {
            let (rest, bytes) = self.hex_bytes(i);
            (rest, ElemKind::Bytes(bytes))
        } else if looks_like_uuid(i) {
            self.uuid(i)
        } else {
            self.number(i)
        }
    }

    /// An element that starts with a letter: `nil`, `true`, `false`, `inf`,
    /// `nan`, `f32(...)`, `user(...)`, or a uuid such as `ca03676e-...`.
    /// Anything else backtracks.
    pub(super) fn word(&mut self, i: &'a str) -> Option<(&'a str, ElemKind<'a>)> {
        // A uuid's run of name bytes includes its `-`s, so it is none of
        // the words.
        let (rest, w) = word(i);
        let kind = match w {
            "nil" => ElemKind::Nil,
            "true" => ElemKind::Bool(true),
            "false" => ElemKind::Bool(false),
            "inf" => ElemKind::Num(Num(f64::INFINITY)),
            "nan" => ElemKind::Num(Num(f64::NAN)),
            "f32" if rest.starts_with('(') => return Some(self.f32_literal(i)),
            "user" if rest.starts_with('(') => return Some(self.user_literal(i)),
            _ if looks_like_uuid(i) => return Some(self.uuid(i)),
            _ => return None,
        };
        Some((rest, kind))
    }

    /// A bytes literal in either of its forms, `0x` hex or `b"..."`
    /// escaped, which `i` starts with ([`starts_bytes`]): the one reader
    /// of bytes, for elements, values and raw keys alike, so that both
    /// forms stand wherever bytes may and give the same bytes.
    pub(super) fn bytes_literal(&mut self, i: &'a str) -> PResult<'a, Vec<u8>> {
        if i.starts_with("b\"") {
            self.escaped_bytes(i)
        } else {
            Ok(self.hex_bytes(i))
        }
    }

    /// `0x` and an even number of hex digits.
    fn hex_bytes(&mut self, i: &'a str) -> (&'a str, Vec<u8>) {
        let (rest, digits) = take_bytes(&i[2..], |b| b.is_ascii_alphanumeric());
        if let Some(n) = digits.bytes().position(|b| !is_hex(b)) {
            let bad = &digits[n..n + 1];
            let found = bad.chars().next().unwrap_or('?');
            self.report(ParseError::BadHex {
                found,
                at: self.span_of(bad),
            });
            return (rest, Vec::new());
        }
        if digits.len() % 2 == 1 {
            self.report(ParseError::OddHex {
                text: format!("0x{}", excerpt(digits)),
                at: self.span_from(self.pos(i), rest),
                digits: digits.len(),
            });
            return (rest, Vec::new());
        }
        (rest, decode_hex(digits.as_bytes()))
    }

    /// `b"`, then printable characters, each its UTF-8 bytes, and the
    /// escapes `\xNN`, `\\` and `\"`, then `"`: the printable form
    /// fdbcli reads and prints keys in (`\x02app\x00`). `i` is at the `b`.
    /// A control character, an unknown escape or a short `\x` is reported
    /// and left out; a line break or the end before the closing quote
    /// stops the statement, as in a string.
    fn escaped_bytes(&mut self, i: &'a str) -> PResult<'a, Vec<u8>> {
        let body = &i[2..];
        let b = body.as_bytes();
        let mut out = Vec::new();
        let mut n = 0;
        loop {
            let run = string_run(&body[n..]);
            out.extend_from_slice(&b[n..n + run]);
            n += run;
            match b.get(n) {
                Some(b'"') => return Ok((&body[n + 1..], out)),
                Some(b'\\') => n += self.byte_escape(&body[n..], &mut out),
                Some(b'\n') | None => return fail(self.unclosed_bytes(i, &body[n..])),
                Some(b'\r') if b.get(n + 1) == Some(&b'\n') => {
                    return fail(self.unclosed_bytes(i, &body[n..]));
                }
                Some(_) => match control_len(&b[n..]) {
                    Some(len) => {
                        let c = &body[n..n + len];
                        let help = format!(
                            "write it as the escape `{}`",
                            words::hex_escapes(c.as_bytes())
                        );
                        self.control_character(c, "bytes", help);
                        n += len;
                    }
                    // A printable character from `c2`: two bytes.
                    None => {
                        out.extend_from_slice(&b[n..n + 2]);
                        n += 2;
                    }
                },
            }
        }
    }

    /// The escape of a bytes literal at `at`, its backslash: its byte
    /// pushed onto `out`, or an error reported; how much of the source it
    /// takes. A backslash before a line break or a control character takes
    /// only itself: what follows is reported on its own.
    fn byte_escape(&mut self, at: &str, out: &mut Vec<u8>) -> usize {
        let b = at.as_bytes();
        let (len, help) = match b.get(1) {
            Some(&c @ (b'"' | b'\\')) => {
                out.push(c);
                return 2;
            }
            Some(b'x') => match b.get(2..4).and_then(hex_byte) {
                Some(byte) => {
                    out.push(byte);
                    return 4;
                }
                None => (
                    2,
                    "`\\x` takes two hex digits, one byte, as in `\\x0a`".to_string(),
                ),
            },
            Some(b'\n') | None => return 1,
            Some(_) if control_len(&b[1..]).is_some() => return 1,
            Some(&c) => {
                let len = 1 + at[1..].chars().next().map_or(0, char::len_utf8);
                let help = match c {
                    b'n' => " (a line feed is `\\x0a`)",
                    b't' => " (a tab is `\\x09`)",
                    b'r' => " (a carriage return is `\\x0d`)",
                    b'0' => " (a zero byte is `\\x00`)",
                    _ => "; a backslash itself is `\\\\`",
                };
                (
                    len,
                    format!(
                        "bytes know only the escapes `\\xNN` (one byte in two hex digits), `\\\\` and `\\\"`{help}"
                    ),
                )
            }
        };
        self.report(ParseError::BadBytesEscape {
            escape: escape_text(at, len).into(),
            at: self.span_of(escape_text(at, len)),
            help,
        });
        len
    }

    /// The error for a bytes literal, at `i`, that meets a line break or
    /// the end at `end` before its closing quote.
    fn unclosed_bytes(&self, i: &str, end: &str) -> ParseError {
        let quote = self.pos(i) + 1;
        ParseError::Unclosed {
            open: '"',
            close: '"',
            at: Span::new(quote, quote + 1),
            end: Span::at(self.pos(end)),
            help: line_break(end)
                .map(|_| "bytes cannot span lines; a line feed is the escape `\\x0a`".to_string()),
        }
    }

    /// `8-4-4-4-12` hex digits.
    fn uuid(&mut self, i: &'a str) -> (&'a str, ElemKind<'a>) {
        let (rest, text) = take_bytes(i, |b| b.is_ascii_alphanumeric() || b == b'-');
        if let Some(uuid) = canonical_uuid(text.as_bytes()) {
            return (rest, ElemKind::Uuid(uuid));
        }
        let span = self.span_of(text);
        let nil = (rest, ElemKind::Uuid(Uuid::nil()));
        if let Some(n) = text.bytes().position(|b| b != b'-' && !is_hex(b)) {
            let bad = &text[n..n + 1];
            self.report(ParseError::BadHex {
                found: bad.chars().next().unwrap_or('?'),
                at: self.span_of(bad),
            });
            return nil;
        }
        let mut out = [0u8; 16];
        let mut group = text;
        let mut filled = 0;
        for (n, len) in [8, 4, 4, 4, 12].into_iter().enumerate() {
            if n > 0 {
                match group.strip_prefix('-') {
                    Some(after) => group = after,
                    None => {
                        let reason = format!("expected 5 groups, found {n}");
                        self.report(ParseError::InvalidUuid { reason, at: span });
                        return nil;
                    }
                }
            }
            let found = group.bytes().take_while(u8::is_ascii_hexdigit).count();
            if found != len {
                let reason = format!(
                    "group {} has {}, not {len}",
                    n + 1,
                    words::counted(found as u64, "hex digit", "hex digits")
                );
                self.report(ParseError::InvalidUuid { reason, at: span });
                return nil;
            }
            const_hex::decode_to_slice(&group[..len], &mut out[filled..filled + len / 2])
                .expect("checked hex digits");
            filled += len / 2;
            group = &group[len..];
        }
        if !group.is_empty() {
            let reason = "more than 5 groups".to_string();
            self.report(ParseError::InvalidUuid { reason, at: span });
            return nil;
        }
        (rest, ElemKind::Uuid(Uuid::from_bytes(out)))
    }

    /// `#` 20 hex digits `:` 4 hex digits, or the incomplete `#:` 4 hex
    /// digits; `#` and 20 hex digits alone is an 80-bit stamp.
    pub(super) fn vstamp(&mut self, i: &'a str) -> (&'a str, ElemKind<'a>) {
        let (rest, text) = take_bytes(&i[1..], |b| b.is_ascii_alphanumeric() || b == b':');
        if let Some(stamp) = canonical_vstamp(text.as_bytes()) {
            return (rest, ElemKind::Vstamp(stamp));
        }
        // No `:`: the tuple layer's 80-bit stamp, a transaction version
        // alone.
        // const_hex takes a leading `0x` too, which FQL does not.
        if text.bytes().all(is_hex)
            && let Ok(tx) = const_hex::decode_to_array(text)
        {
            return (rest, ElemKind::Vstamp80(tx));
        }
        let span = self.span_from(self.pos(i), rest);
        let placeholder = (rest, ElemKind::Vstamp(Vstamp { tx: None, user: 0 }));
        if let Some(k) = text.bytes().position(|b| b != b':' && !is_hex(b)) {
            let bad = &text[k..k + text[k..].chars().next().map_or(1, char::len_utf8)];
            self.report(ParseError::BadHex {
                found: bad.chars().next().unwrap_or('?'),
                at: self.span_of(bad),
            });
            return placeholder;
        }
        let reason = match text.split_once(':') {
            None => Some(format!(
                "{} hex digits and no `:`; an 80-bit stamp has 20",
                text.len()
            )),
            Some((_, user)) if user.contains(':') => Some("more than one `:`".to_string()),
            Some((tx, _)) if !tx.is_empty() && tx.len() != 20 => Some(format!(
                "the transaction version has {}, not 20",
                words::counted(tx.len() as u64, "hex digit", "hex digits")
            )),
            Some((_, user)) if user.len() != 4 => Some(format!(
                "the user version has {}, not 4",
                words::counted(user.len() as u64, "hex digit", "hex digits")
            )),
            Some(_) => None,
        };
        if let Some(reason) = reason {
            self.report(ParseError::InvalidVstamp { reason, at: span });
            return placeholder;
        }
        let (tx, user) = text.split_once(':').expect("checked above");
        let tx = (!tx.is_empty()).then(|| {
            let mut out = [0u8; 10];
            const_hex::decode_to_slice(tx, &mut out).expect("checked hex digits");
            out
        });
        let user = u16::from_str_radix(user, 16).expect("checked hex digits");
        (rest, ElemKind::Vstamp(Vstamp { tx, user }))
    }

    /// An int or a num: `-12`, `3.5`, `-2e10`, `1.5e-3`, `-inf`, `-nan`.
    pub(super) fn number(&mut self, i: &'a str) -> (&'a str, ElemKind<'a>) {
        let neg = peek(i) == Some(b'-');
        let unsigned = &i[usize::from(neg)..];
        if peek(unsigned).is_some_and(|b| b.is_ascii_alphabetic()) {
            let (rest, w) = word(unsigned);
            match (w, neg) {
                ("inf", true) => return (rest, ElemKind::Num(Num(f64::NEG_INFINITY))),
                // The tuple layer keeps a NaN's sign: a negative one
                // sorts before `-inf`.
                ("nan", true) => return (rest, ElemKind::Num(Num(-f64::NAN))),
                _ => {
                    let help = (crate::syntax::keywords::data_word(w) == Some("inf"))
                        .then(|| "did you mean `-inf`?".to_string());
                    return self.bad_number(i, help);
                }
            }
        }
        // Accumulate the digits as they are scanned: most ints fit an i64
        // and need no second pass. Up to 18 digits cannot overflow, so the
        // loop needs no overflow checks; longer runs are converted again.
        let b = unsigned.as_bytes();
        let mut n = 0;
        let mut acc: u64 = 0;
        while let Some(&d) = b.get(n).filter(|d| d.is_ascii_digit()) {
            acc = acc.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
            n += 1;
        }
        if n == 0 {
            return self.bad_number(i, None);
        }
        let mut rest = &unsigned[n..];
        let mut is_num = false;
        if let Some(frac) = rest.strip_prefix('.') {
            let Ok((after, _)) = digit1::<_, Fail>(frac) else {
                let help = format!("write `{}.0`", excerpt(&i[..i.len() - rest.len()]));
                return self.bad_number(i, Some(help));
            };
            rest = after;
            is_num = true;
        }
        if let Some(exp) = rest.strip_prefix('e') {
            if exp.starts_with('+') {
                let help = respelt(i, "an exponent takes no `+`");
                return self.bad_number(i, help);
            }
            let exp = exp.strip_prefix('-').unwrap_or(exp);
            let Ok((after, _)) = digit1::<_, Fail>(exp) else {
                let help = "an exponent needs digits, as in `1e6` or `1e-6`".to_string();
                return self.bad_number(i, Some(help));
            };
            rest = after;
            is_num = true;
        }
        if peek(rest).is_some_and(|b| is_name_byte(b) || b == b'+') {
            let help = match peek(rest) {
                Some(b'E') => respelt(i, "the exponent is written with a lowercase `e`"),
                _ => None,
            };
            return self.bad_number(i, help);
        }
        let text = &i[..i.len() - rest.len()];
        if !is_num {
            let int = if n <= 18 {
                // Exact: 18 digits stay below 10^18 < 2^63.
                let v = acc as i64;
                Int::Small(if neg { -v } else { v })
            } else {
                self.big_int(text, neg, &unsigned[..n])
            };
            return (rest, ElemKind::Int(int));
        }
        (rest, self.num(text))
    }

    /// The num written as `text`, already checked to be a number's
    /// syntax; one too large or too small for a 64-bit float is reported.
    fn num(&mut self, text: &'a str) -> ElemKind<'a> {
        let value: f64 = text.parse().expect("checked number syntax");
        let underflow = || {
            let mantissa = text.split('e').next().unwrap_or(text);
            mantissa.bytes().any(|b| matches!(b, b'1'..=b'9'))
        };
        if value.is_infinite() || (value == 0.0 && underflow()) {
            let what = if value.is_infinite() {
                "large"
            } else {
                "small"
            };
            self.report(ParseError::InvalidNumber {
                text: excerpt(text),
                at: self.span_of(text),
                help: Some(format!("the number is too {what} for a 64-bit num")),
            });
        }
        ElemKind::Num(Num(value))
    }

    /// An int of more than 18 digits, `text` as written: refused by its
    /// number of digits before any conversion when it cannot fit the tuple
    /// layer, so that a huge literal costs a scan, not a conversion that
    /// takes time quadratic in its length.
    fn big_int(&mut self, text: &str, neg: bool, digits: &str) -> Int {
        let significant = digits.trim_start_matches('0');
        let too_large = |p: &mut Self| {
            p.report(
                IntTooLarge {
                    digits: significant.len(),
                    at: p.span_of(text),
                }
                .into(),
            );
            Int::Small(0)
        };
        if significant.len() > MAX_INT_DIGITS {
            return too_large(self);
        }
        let magnitude: BigInt = match significant {
            "" => BigInt::ZERO,
            digits => digits.parse().expect("checked digits"),
        };
        if magnitude.bits() > 8 * MAX_INT_BYTES {
            return too_large(self);
        }
        Int::from_big(if neg { -magnitude } else { magnitude })
    }

    /// Reports the run of number-like text at `i` as an invalid number and
    /// consumes it.
    fn bad_number(&mut self, i: &'a str, help: Option<String>) -> (&'a str, ElemKind<'a>) {
        let text = number_run(i);
        let rest = &i[text.len()..];
        let help = help.or_else(|| dotted_help(text));
        self.report(ParseError::InvalidNumber {
            text: excerpt(text),
            at: self.span_of(text),
            help,
        });
        (rest, ElemKind::Int(Int::Small(0)))
    }

    /// An int, for option arguments; anything else backtracks.
    pub(super) fn int(&mut self, i: &'a str) -> Option<(&'a str, Int)> {
        match self.number(i) {
            (rest, ElemKind::Int(n)) => Some((rest, n)),
            _ => None,
        }
    }
}
