//! A forgiving scan of FQL text into classed tokens, for what must work on
//! text that is still being typed: highlighting, deciding whether a line
//! continues, completion. It never fails; the parser is what judges.

use std::ops::Range;

/// What a token is, for colouring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `/`, `(`, `)`, `,`, `=`.
    Punct,
    /// A directory name or another bare word.
    Name,
    /// `clear`, `remove`, `nil`, `true`, `false`, `inf`, `nan`.
    Keyword,
    /// A string, closed or not.
    Str,
    /// An int, num, bytes, uuid or vstamp.
    Number,
    /// A variable `<...>` or `...`.
    Hole,
    /// A reference `:name`.
    Reference,
    /// Options `[...]`.
    Options,
    /// A `%` comment.
    Comment,
    /// A meta statement `@commit`.
    Meta,
}

/// One token: its class and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub class: Class,
    /// Where it is, in bytes.
    pub range: Range<usize>,
}

const KEYWORDS: [&str; 7] = ["clear", "remove", "nil", "true", "false", "inf", "nan"];

/// The tokens of `src`, in order; whitespace is not a token.
pub fn tokens(src: &str) -> Vec<Token> {
    scan(src).0
}

/// Whether `src` ends inside a tuple, a variable, options or a string, so
/// that a line break continues the statement rather than ending it.
pub fn is_open(src: &str) -> bool {
    scan(src).1
}

fn scan(src: &str) -> (Vec<Token>, bool) {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut open = false;
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let class = match b[i] {
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'%' => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                Class::Comment
            }
            b'"' => {
                i += 1;
                let mut closed = false;
                while i < b.len() {
                    match b[i] {
                        b'\\' => i += 2,
                        b'"' => {
                            i += 1;
                            closed = true;
                            break;
                        }
                        _ => i += 1,
                    }
                }
                i = i.min(b.len());
                open |= !closed;
                Class::Str
            }
            b'<' => {
                let (end, closed) = matching(b, i, b'<', b'>');
                i = end;
                open |= !closed;
                Class::Hole
            }
            b'[' => {
                let (end, closed) = matching(b, i, b'[', b']');
                i = end;
                open |= !closed;
                Class::Options
            }
            b'.' if b[i..].starts_with(b"...") => {
                i += 3;
                Class::Hole
            }
            b':' => {
                i += 1 + word_len(&b[i + 1..]);
                if b.get(i) == Some(&b'!') {
                    i += 1 + word_len(&b[i + 1..]);
                }
                Class::Reference
            }
            b'@' => {
                i += 1 + word_len(&b[i + 1..]);
                Class::Meta
            }
            b'#' => {
                i += 1;
                while i < b.len() && (b[i].is_ascii_hexdigit() || b[i] == b':') {
                    i += 1;
                }
                Class::Number
            }
            b'(' => {
                depth += 1;
                i += 1;
                Class::Punct
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
                Class::Punct
            }
            b'/' | b',' | b'=' | b'|' | b'!' => {
                i += 1;
                Class::Punct
            }
            _ => {
                let n = word_len(&b[i..]).max(1);
                i += n;
                // A multi-byte character is one token, not a split one.
                while !src.is_char_boundary(i) {
                    i += 1;
                }
                let word = &src[start..i];
                if KEYWORDS.contains(&word) {
                    Class::Keyword
                } else if word.starts_with(|c: char| c.is_ascii_digit() || c == '-')
                    || is_uuid(word)
                {
                    Class::Number
                } else {
                    Class::Name
                }
            }
        };
        out.push(Token {
            class,
            range: start..i,
        });
    }
    (out, open || depth > 0)
}

/// The end of the group opened at `b[start]`, nesting included, and
/// whether it closes; a string inside may hold the closing byte.
fn matching(b: &[u8], start: usize, opening: u8, closing: u8) -> (usize, bool) {
    let mut depth = 0;
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            c if c == opening => depth += 1,
            c if c == closing => {
                depth -= 1;
                if depth == 0 {
                    return (i + 1, true);
                }
            }
            _ => {}
        }
        i += 1;
    }
    (b.len(), false)
}

/// The length of the word at the start of `b`: names, numbers, uuids.
fn word_len(b: &[u8]) -> usize {
    b.iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'+'))
        .count()
}

fn is_uuid(word: &str) -> bool {
    word.len() == 36 && uuid::Uuid::try_parse(word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(src: &str) -> Vec<(Class, &str)> {
        tokens(src)
            .into_iter()
            .map(|t| (t.class, &src[t.range]))
            .collect()
    }

    #[test]
    fn classes_every_kind_of_token() {
        use Class::*;
        assert_eq!(
            classes(r#"[limit:5] /app/users(42,"a\"b",<n:int>,:id,...)=clear % c"#),
            [
                (Options, "[limit:5]"),
                (Punct, "/"),
                (Name, "app"),
                (Punct, "/"),
                (Name, "users"),
                (Punct, "("),
                (Number, "42"),
                (Punct, ","),
                (Str, r#""a\"b""#),
                (Punct, ","),
                (Hole, "<n:int>"),
                (Punct, ","),
                (Reference, ":id"),
                (Punct, ","),
                (Hole, "..."),
                (Punct, ")"),
                (Punct, "="),
                (Keyword, "clear"),
                (Comment, "% c"),
            ]
        );
    }

    #[test]
    fn knows_what_is_still_open() {
        for open in [
            "/a(1,", "/a(\"x", "/a(<int", "[limit:", "/a((1)", "/a(\"(\"",
        ] {
            assert!(is_open(open), "{open}");
        }
        for closed in ["/a(1)", "/a(\")\")", "/a", "/a(<int[i64,be]>)", "/a(1))"] {
            assert!(!is_open(closed), "{closed}");
        }
        assert!(is_open("é("));
    }
}
