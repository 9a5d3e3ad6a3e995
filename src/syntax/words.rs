//! Byte scans eight bytes at a time, with word arithmetic, and how a
//! control character is written where text is shown.
//!
//! Strings and names are short, and most of the text the parser and the
//! printer look at: a byte-at-a-time loop mispredicts its
//! exit on every one of them, and a vector search costs more to set up than
//! it saves on a few bytes. These scans branch once per word. Against
//! memchr, measured end to end in benches/RESULTS.md, the word scan of
//! strings takes fewer instructions on short lines and memchr fewer on
//! strings of hundreds of bytes; short lines are what FQL's are.
//!
//! A control character (C0, DEL, C1) never reaches a terminal: string
//! literals, the source lines of a report, messages and the parser's help
//! all write it as the `\xNN` escapes of its UTF-8 bytes, with
//! [`write_hex_escapes`].

use std::borrow::Cow;
use std::fmt::{self, Write};

/// `0x01` in every byte.
pub(super) const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
/// `0x80` in every byte.
pub(super) const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// The high bit of every byte of `w` that is zero. Bytes above the first
/// zero may be marked wrongly, so only the lowest mark may be used.
#[inline(always)]
pub(super) fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGHS
}

/// The little-endian word of eight bytes.
#[inline(always)]
pub(super) fn word(chunk: &[u8]) -> u64 {
    u64::from_le_bytes(chunk.try_into().expect("eight bytes"))
}

/// The high bit of every byte of `w` below `n` (at most 0x80). As with
/// [`zero_bytes`], only the lowest mark may be used.
#[inline(always)]
fn bytes_below(w: u64, n: u8) -> u64 {
    w.wrapping_sub(ONES * u64::from(n)) & !w & HIGHS
}

/// Whether `b` stops a scan of [`first_escape`]: a byte a string literal
/// must escape (`"`, `\`, a C0 control or DEL) or the lead byte `c2` of
/// the C1 controls U+0080 to U+009F, which the caller looks at again with
/// the byte after it (most characters from `c2` are printable: `£`, `©`).
#[inline]
pub(crate) fn stops_scan(b: u8) -> bool {
    matches!(b, b'"' | b'\\' | 0x00..=0x1f | 0x7f | 0xc2)
}

/// Where the first byte that stops a string scan is (see [`stops_scan`]),
/// or the length of `b` when there is none.
#[inline]
pub(crate) fn first_escape(b: &[u8]) -> usize {
    let mut n = 0;
    while let Some(chunk) = b.get(n..n + 8) {
        let w = word(chunk);
        let hits = bytes_below(w, 0x20)
            | zero_bytes(w ^ (ONES * u64::from(b'"')))
            | zero_bytes(w ^ (ONES * u64::from(b'\\')))
            | zero_bytes(w ^ (ONES * 0x7f))
            | zero_bytes(w ^ (ONES * 0xc2));
        if hits != 0 {
            return n + (hits.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + b[n..]
        .iter()
        .position(|&c| stops_scan(c))
        .unwrap_or(b.len() - n)
}

/// Whether the character at the start of `b` is a control character: C0,
/// DEL, or C1 (U+0080 to U+009F, `c2 80` to `c2 9f` in UTF-8). Its length
/// in bytes, if it is one.
#[inline]
pub(crate) fn control_len(b: &[u8]) -> Option<usize> {
    match b {
        [0x00..=0x1f | 0x7f, ..] => Some(1),
        [0xc2, 0x80..=0x9f, ..] => Some(2),
        _ => None,
    }
}

/// Writes `\x` and two lowercase hex digits for each of `bytes`: how a
/// control character is shown everywhere, as the escapes of its UTF-8
/// bytes, which read back as it in a string literal.
pub(crate) fn write_hex_escapes(w: &mut impl Write, bytes: &[u8]) -> fmt::Result {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        let escape = [
            b'\\',
            b'x',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xf)],
        ];
        w.write_str(std::str::from_utf8(&escape).expect("ASCII"))?;
    }
    Ok(())
}

/// [`write_hex_escapes`] into a new string.
pub(crate) fn hex_escapes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(4 * bytes.len());
    write_hex_escapes(&mut out, bytes).expect("writing to a String");
    out
}

/// `text` with each control character but the line feed written as the
/// `\xNN` escapes of its UTF-8 bytes, borrowed when it has none: text
/// that may quote stored data or a user's input (a message, a label, a
/// file name) made safe for a terminal, and still readable. Line feeds
/// are kept, as the line breaks of a message; a name that must stay on
/// one line is better quoted ([`quote`](crate::syntax::quote)).
pub fn printable(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let escaped = |n: usize| control_len(&bytes[n..]).filter(|_| bytes[n] != b'\n');
    let Some(first) = (0..bytes.len()).find(|&n| escaped(n).is_some()) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    let (mut start, mut n) = (first, first);
    while n < bytes.len() {
        match escaped(n) {
            Some(len) => {
                out.push_str(&text[start..n]);
                write_hex_escapes(&mut out, &bytes[n..n + len]).expect("writing to a String");
                n += len;
                start = n;
            }
            None => n += 1,
        }
    }
    out.push_str(&text[start..]);
    Cow::Owned(out)
}

/// `n` and the noun that counts it, singular for one: "1 hex digit",
/// "3 hex digits". Every count in a message goes through it, so that
/// none reads "1 hex digits".
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {

    #[test]
    fn counts_agree_in_number() {
        assert_eq!(super::counted(0, "hex digit", "hex digits"), "0 hex digits");
        assert_eq!(super::counted(1, "hex digit", "hex digits"), "1 hex digit");
        assert_eq!(
            super::counted(3, "directory", "directories"),
            "3 directories"
        );
    }

    use super::{control_len, first_escape, hex_escapes, printable, stops_scan};

    /// Every byte that stops the scan is found first at every position,
    /// whatever bytes stand around it; no other byte stops it.
    #[test]
    fn stops_are_found_wherever_they_stand() {
        for len in 0..40 {
            assert_eq!(first_escape(&vec![b'a'; len]), len);
            assert_eq!(first_escape(&vec![0xff; len]), len);
            for b in 0..=255u8 {
                for at in (0..len).step_by(3) {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    let expected = if stops_scan(b) { at } else { len };
                    assert_eq!(first_escape(&bytes), expected, "{len} {at} {b:#x}");
                    // Stops after the first do not hide it.
                    bytes[len - 1] = b'"';
                    let expected = if stops_scan(b) { at } else { len - 1 };
                    assert_eq!(first_escape(&bytes), expected, "{len} {at} {b:#x}");
                }
            }
        }
    }

    #[test]
    fn control_characters_are_c0_del_and_c1() {
        for c in '\0'..='\u{a0}' {
            let mut buf = [0; 4];
            let text = c.encode_utf8(&mut buf).as_bytes();
            let expected = c.is_control().then_some(text.len());
            assert_eq!(control_len(text), expected, "{c:?}");
        }
        assert_eq!(control_len("é".as_bytes()), None);
        assert_eq!(control_len(&[0xc2]), None);
    }

    /// Every control character but the line feed is escaped, as its UTF-8
    /// bytes; every other character is kept, and text with none is lent.
    #[test]
    fn printable_escapes_controls_but_line_feeds() {
        for c in '\0'..='\u{a0}' {
            let text = format!("a{c}é");
            let mut buf = [0; 4];
            let expected = if c.is_control() && c != '\n' {
                format!("a{}é", hex_escapes(c.encode_utf8(&mut buf).as_bytes()))
            } else {
                text.clone()
            };
            assert_eq!(printable(&text), expected, "{c:?}");
        }
        assert_eq!(
            printable("\u{1b}[2J\n\u{9b}x\t"),
            "\\x1b[2J\n\\xc2\\x9bx\\x09"
        );
        assert!(matches!(
            printable("£5 ©\nok"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(hex_escapes(&[0x00, 0xab, 0x7f]), "\\x00\\xab\\x7f");
    }
}
