//! The smallest pieces: positions, whitespace, comments, names, and the
//! descriptions of unexpected text that error messages quote.

use super::{Fail, PResult, Parser};
use crate::syntax::ast::{Comment, Span};
use crate::syntax::error::ParseError;
use crate::syntax::names::{is_name_byte, is_name_start};
use crate::syntax::words::{self, HIGHS, ONES};

/// The byte-order mark U+FEFF, which some editors put at the start of a
/// UTF-8 file: allowed there, as nothing.
pub(super) const BOM: char = '\u{feff}';

/// The next byte, if any.
#[inline]
pub(super) fn peek(i: &str) -> Option<u8> {
    i.as_bytes().first().copied()
}

/// Splits off the longest prefix whose bytes satisfy `f`: returns the rest
/// and the prefix.
#[inline]
pub(super) fn take_bytes(i: &str, f: impl Fn(u8) -> bool) -> (&str, &str) {
    let n = i.bytes().position(|b| !f(b)).unwrap_or(i.len());
    (&i[n..], &i[..n])
}

/// The text after a line break (LF or CRLF) at `i`, if there is one.
pub(super) fn line_break(i: &str) -> Option<&str> {
    i.strip_prefix('\n').or_else(|| i.strip_prefix("\r\n"))
}

/// Spaces and tabs.
#[inline]
pub(super) fn hspace(i: &str) -> &str {
    let n = i
        .bytes()
        .position(|b| b != b' ' && b != b'\t')
        .unwrap_or(i.len());
    &i[n..]
}

/// A run of name characters, which may not be a valid name (it may start
/// with a digit); callers check. Always inlined: left out of line, the
/// call cost as much as the scan of a short name.
#[inline(always)]
pub(super) fn word(i: &str) -> (&str, &str) {
    let n = name_len(i.as_bytes());
    (&i[n..], &i[..n])
}

/// The length of the run of name bytes at the start of `b`.
///
/// Eight bytes are classified at once with word arithmetic and the run's
/// end found from the mask: a byte-at-a-time loop mispredicts its exit on
/// every name, a table lookup per byte costs a load and four instructions
/// a byte, and names are the most frequent token.
#[inline]
fn name_len(b: &[u8]) -> usize {
    let mut n = 0;
    while let Some(chunk) = b.get(n..n + 8) {
        let w = words::word(chunk);
        let run = (name_bytes(w) ^ HIGHS).trailing_zeros() as usize / 8;
        n += run;
        if run < 8 {
            return n;
        }
    }
    n + b[n..].iter().take_while(|&&c| is_name_byte(c)).count()
}

/// The high bit of each byte of `w` that lies in `lo..=hi`, for bytes
/// below 0x80: no byte's sum carries into the next.
#[inline(always)]
fn in_range(w: u64, lo: u8, hi: u8) -> u64 {
    let at_least_lo = w + ONES * u64::from(0x80 - lo);
    let above_hi = w + ONES * u64::from(0x7f - hi);
    at_least_lo & !above_hi & HIGHS
}

/// The high bit of each byte of `w` that may appear in a name,
/// `[A-Za-z0-9_.-]`, as [`CLASS`] says.
#[inline(always)]
fn name_bytes(w: u64) -> u64 {
    let ascii = !w & HIGHS;
    let low = w & !HIGHS;
    // `-`, `.`, `/` and the digits are one range; `/` is taken out again.
    let digits = in_range(low, b'-', b'9') & !in_range(low, b'/', b'/');
    let letters = in_range(low | (ONES * 0x20), b'a', b'z');
    let underscore = in_range(low, b'_', b'_');
    (digits | letters | underscore) & ascii
}

/// Whether a line starting here starts a statement, so the statement being
/// parsed must have ended before it.
pub(super) fn starts_statement(i: &str) -> bool {
    matches!(peek(i), Some(b'/' | b'[' | b'@'))
}

/// Characters that end a run of unexpected text quoted in a message.
fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || c.is_control() || "/()<>[],=%\":|!".contains(c)
}

/// How many characters of source text a message quotes at most.
const EXCERPT: usize = 40;

/// `text` for a message: whole if short, else its start and `…`, so that
/// a message stays short whatever the input.
pub(crate) fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT) {
        Some((n, _)) => format!("{}…", &text[..n]),
        None => text.to_string(),
    }
}

/// The abbreviations of the C0 controls, U+0000 to U+001F.
const C0: [&str; 32] = [
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "TAB", "LF", "VT", "FF", "CR",
    "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
    "FS", "GS", "RS", "US",
];

/// The abbreviations of the C1 controls, U+0080 to U+009F.
const C1: [&str; 32] = [
    "PAD", "HOP", "BPH", "NBH", "IND", "NEL", "SSA", "ESA", "HTS", "HTJ", "VTS", "PLD", "PLU",
    "RI", "SS2", "SS3", "DCS", "PU1", "PU2", "STS", "CCH", "MW", "SPA", "EPA", "SOS", "SGCI",
    "SCI", "CSI", "ST", "OSC", "PM", "APC",
];

/// A control character by its code point and abbreviation, `U+001B
/// (ESC)`, for messages, which must not hold it as it is.
pub(crate) fn control_name(c: char) -> String {
    let n = u32::from(c);
    let abbr = match n {
        0x00..=0x1f => C0[n as usize],
        0x7f => "DEL",
        0x80..=0x9f => C1[n as usize - 0x80],
        _ => return format!("U+{n:04X}"),
    };
    format!("U+{n:04X} ({abbr})")
}

/// The run of text at `i` up to the next delimiter, at least one character.
pub(super) fn junk(i: &str) -> &str {
    let end = i.find(is_delimiter).unwrap_or(i.len());
    let end = if end == 0 {
        i.chars().next().map_or(0, char::len_utf8)
    } else {
        end
    };
    &i[..end]
}

/// How an error message names what is at `i`.
fn describe(i: &str) -> String {
    match i.chars().next() {
        None => "the end of the input".into(),
        Some('\n') => "the end of the line".into(),
        Some('\r') if i.starts_with("\r\n") => "the end of the line".into(),
        Some('\r') => "a carriage return without a line feed".into(),
        Some(' ' | '\t') => "a space".into(),
        Some(c) if c.is_control() => format!("the control character {}", control_name(c)),
        Some(_) => format!("`{}`", excerpt(junk(i))),
    }
}

/// The failure that stops the statement.
pub(super) fn failure(error: ParseError) -> nom::Err<Fail> {
    nom::Err::Failure(Fail {
        error: Some(Box::new(error)),
    })
}

/// A failure that stops the statement, as a result.
pub(super) fn fail<'a, T>(error: ParseError) -> PResult<'a, T> {
    Err(failure(error))
}

/// "Not this construct": the caller decides what to report.
pub(super) fn backtrack<'a, T>() -> PResult<'a, T> {
    Err(nom::Err::Error(Fail { error: None }))
}

/// After an error in the statement that starts at `i`, the text where the
/// next statement starts: the first line after one that closes every
/// bracket the statement opened, or that starts a statement itself (a
/// statement never continues on a line starting with `/`, `[` or `@`).
pub(super) fn recover(i: &str) -> &str {
    let bytes = i.as_bytes();
    let mut depth = 0i32;
    let mut n = 0;
    while n < bytes.len() {
        match bytes[n] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'"' => {
                n += 1;
                while n < bytes.len() && !matches!(bytes[n], b'"' | b'\n') {
                    let escaped = bytes[n] == b'\\' && bytes.get(n + 1) != Some(&b'\n');
                    n += if escaped { 2 } else { 1 };
                }
                if bytes.get(n) == Some(&b'"') {
                    n += 1;
                }
                continue;
            }
            b'%' => {
                while n + 1 < bytes.len() && bytes[n + 1] != b'\n' {
                    n += 1;
                }
            }
            b'\n' => {
                let next = &i[n + 1..];
                if depth <= 0 || starts_statement(hspace(next)) {
                    return next;
                }
            }
            _ => {}
        }
        n += 1;
    }
    &i[i.len()..]
}

/// The help for a control character in a comment.
const COMMENT_CONTROL: &str = "remove it; a script holds no control characters but tabs and line breaks, and strings write them as escapes";

impl<'a> Parser<'a> {
    /// The offset of `i` in the script.
    #[inline]
    pub(super) fn pos(&self, i: &str) -> usize {
        i.as_ptr() as usize - self.src.as_ptr() as usize
    }

    /// The span from `start` to where `i` begins.
    #[inline]
    pub(super) fn span_from(&self, start: usize, i: &str) -> Span {
        Span::new(start, self.pos(i))
    }

    /// The span of `text`, a slice of the script.
    #[inline]
    pub(super) fn span_of(&self, text: &str) -> Span {
        let start = self.pos(text);
        Span::new(start, start + text.len())
    }

    /// Records an error that does not stop parsing.
    pub(super) fn report(&mut self, error: ParseError) {
        self.errors.push(error);
    }

    /// The error for something unexpected at `i`.
    pub(super) fn expected(&self, i: &str, what: &str, help: Option<String>) -> ParseError {
        let text = junk(i);
        let at = if matches!(peek(i), None | Some(b'\n' | b'\r')) {
            Span::at(self.pos(i))
        } else {
            self.span_of(text)
        };
        let help = help.or_else(|| match text.chars().next() {
            Some(c) if c.is_ascii_alphabetic() => Some(format!(
                "strings are written in double quotes: \"{}\"",
                excerpt(text)
            )),
            Some('\'') => Some("strings are written in double quotes".into()),
            _ => None,
        });
        ParseError::Expected {
            expected: what.into(),
            found: describe(i),
            at,
            help,
        }
    }

    /// A name, or a backtrack if there is none. An invalid start (`1x`) is
    /// reported and parsing goes on with it as the name.
    #[inline(always)]
    pub(super) fn name(&mut self, i: &'a str, what: &str) -> PResult<'a, &'a str> {
        let (rest, text) = word(i);
        if text.is_empty() {
            return backtrack();
        }
        if !is_name_start(text.as_bytes()[0]) {
            self.invalid_name_start(text, what);
        }
        Ok((rest, text))
    }

    /// The error for a name such as `1x`: out of line, off the common path
    /// of [`Parser::name`], which is then small enough to inline.
    #[cold]
    #[inline(never)]
    fn invalid_name_start(&mut self, text: &str, what: &str) {
        self.report(ParseError::InvalidName {
            text: excerpt(text),
            at: self.span_of(text),
            help: Some(format!("{what} start with a letter or `_`")),
        });
    }

    /// A `%` comment up to (not including) the line break, recorded for the
    /// formatter.
    pub(super) fn comment(&mut self, i: &'a str) -> &'a str {
        let start = self.pos(i);
        let end = i.find('\n').unwrap_or(i.len());
        let line = &i[1..end];
        // A CR before the LF is part of the line break.
        let text = if end < i.len() {
            line.strip_suffix('\r').unwrap_or(line)
        } else {
            line
        };
        let line_start = self.src[..start].rfind('\n').map_or(0, |n| n + 1);
        let before = &self.src[line_start..start];
        let own_line = before.trim_start_matches(BOM).trim().is_empty();
        if self
            .trivia
            .comments
            .last()
            .is_none_or(|c| (c.span.start as usize) < start)
        {
            self.controls_in_comment(text);
            self.trivia.comments.push(Comment {
                text,
                own_line,
                span: Span::new(start, start + 1 + text.len()),
            });
        }
        &i[end..]
    }

    /// Reports each control character but a tab in a comment's text.
    fn controls_in_comment(&mut self, text: &str) {
        let b = text.as_bytes();
        // Most comments hold none: one quick look.
        if !b.iter().any(|&c| c < 0x20 || c == 0x7f || c == 0xc2) {
            return;
        }
        let mut k = 0;
        while k < b.len() {
            match words::control_len(&b[k..]) {
                Some(len) if b[k] != b'\t' => {
                    self.control_character(&text[k..k + len], "a comment", COMMENT_CONTROL.into());
                    k += len;
                }
                _ => k += 1,
            }
        }
    }

    /// Whitespace, line breaks and comments, as allowed between tuple
    /// elements. Also says whether a line break was crossed.
    #[inline]
    pub(super) fn gap(&mut self, i: &'a str) -> (&'a str, bool) {
        match peek(i) {
            Some(b' ' | b'\t' | b'\r' | b'\n' | b'%') => self.gap_slow(i),
            _ => (i, false),
        }
    }

    fn gap_slow(&mut self, mut i: &'a str) -> (&'a str, bool) {
        let mut crossed = false;
        loop {
            match peek(i) {
                Some(b' ' | b'\t') => i = &i[1..],
                Some(b'\r') if i[1..].starts_with('\n') => i = &i[1..],
                Some(b'\n') => {
                    crossed = true;
                    i = &i[1..];
                }
                Some(b'%') => i = self.comment(i),
                _ => return (i, crossed),
            }
        }
    }

    /// Consumes the end of a statement: spaces, an optional comment, and a
    /// line break or the end of the input.
    #[inline(always)]
    pub(super) fn end_of_line(&mut self, i: &'a str, what: &str) -> PResult<'a, ()> {
        // A statement mostly ends right at a line break or the end.
        match peek(i) {
            None => Ok((i, ())),
            Some(b'\n') => Ok((&i[1..], ())),
            _ => self.end_of_line_slow(i, what),
        }
    }

    #[cold]
    #[inline(never)]
    fn end_of_line_slow(&mut self, i: &'a str, what: &str) -> PResult<'a, ()> {
        let mut i = hspace(i);
        if peek(i) == Some(b'%') {
            i = self.comment(i);
        }
        if let Some(rest) = line_break(i) {
            return Ok((rest, ()));
        }
        if i.is_empty() {
            return Ok((i, ()));
        }
        let help = self.end_of_line_help(i);
        fail(self.expected(i, what, help))
    }

    /// Skips whitespace-only lines and comment lines before a statement,
    /// recording blank lines for the formatter.
    #[inline(always)]
    pub(super) fn skip_lines(&mut self, i: &'a str) -> &'a str {
        // Most statements follow the previous one directly.
        if i.is_empty() || starts_statement(i) {
            i
        } else {
            self.skip_lines_slow(i)
        }
    }

    #[inline(never)]
    fn skip_lines_slow(&mut self, mut i: &'a str) -> &'a str {
        loop {
            let line = i;
            i = hspace(i);
            let blank = peek(i) != Some(b'%');
            if !blank {
                i = self.comment(i);
            }
            match line_break(i) {
                Some(rest) => {
                    if blank {
                        self.trivia.blank_lines.push(self.pos(line) as u32);
                    }
                    i = rest;
                }
                None => return i,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_name_byte, name_len};

    /// The word-at-a-time scan agrees with the byte table on every byte in
    /// every position.
    #[test]
    fn name_len_agrees_with_the_table() {
        for b in 0..=255u8 {
            for at in 0..10 {
                let mut text = vec![b'a'; 12];
                text[at] = b;
                let expected = if is_name_byte(b) { 12 } else { at };
                assert_eq!(name_len(&text), expected, "byte {b:#x} at {at}");
            }
        }
    }
}
