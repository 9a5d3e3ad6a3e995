//! A forgiving scan of FQL text into classed tokens, for what must work on
//! text that is still being typed: highlighting, deciding whether a line
//! continues, completion. It never fails; the parser is what judges.

use std::ops::Range;

/// What a token is, for colouring. More classes may come, as the language
/// grows: a match on it needs an arm for the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Class {
    /// `/`, `(`, `)`, `,`, `=`.
    Punct,
    /// A directory name or another bare word.
    Name,
    /// `clear`, `remove`, `nil`, `true`, `false`, `inf`, `nan`, and an
    /// atomic operation's name before its `(`.
    Keyword,
    /// A string, closed or not.
    Str,
    /// An int, num, bytes (`0x..` or `b"..."`), uuid or vstamp.
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

/// The tokens of `src`, in order, for colouring it; whitespace is not a
/// token. Text that does not parse is classed too, as well as it can be.
pub fn highlight(src: &str) -> Vec<Token> {
    scan(src).0
}

/// Whether `src` ends inside a tuple, a variable, options or a string, so
/// that a line break continues the statement rather than ending it.
pub fn is_open(src: &str) -> bool {
    scan(src).1
}

/// Whether `src` ends inside a tuple and inside nothing else, so that a
/// line break goes on with the statement: a tuple may span lines, but a
/// string, a variable or options may not, and text that ends inside one
/// is as finished as it can be (an error, which is better shown at once).
pub fn continues(src: &str) -> bool {
    let (_, open) = scan_open(src);
    open.depth > 0 && !open.unclosed
}

/// The tokens of `src`, and whether it ends inside something open.
fn scan(src: &str) -> (Vec<Token>, bool) {
    let (out, open) = scan_open(src);
    (out, open.unclosed || open.depth > 0)
}

/// The tokens of `src`, and what is open at its end.
fn scan_open(src: &str) -> (Vec<Token>, Open) {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut open = Open::default();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let (class, end) = token(src, i, &mut open);
        out.push(Token {
            class,
            range: i..end,
        });
        i = end;
    }
    (out, open)
}

/// What is open at the end of the text scanned so far.
#[derive(Default)]
struct Open {
    /// How many tuples are open.
    depth: usize,
    /// Whether a string, a variable or options did not close.
    unclosed: bool,
}

/// The class and the end of the token that starts at `src[i]`, which is
/// not whitespace.
fn token(src: &str, i: usize, open: &mut Open) -> (Class, usize) {
    let b = src.as_bytes();
    let group = |open: &mut Open, opening, closing, class| {
        let (end, closed) = matching(b, i, opening, closing);
        open.unclosed |= !closed;
        (class, end)
    };
    match b[i] {
        b'%' => (
            Class::Comment,
            memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n),
        ),
        b'"' => {
            let (end, closed) = string_end(b, i + 1);
            open.unclosed |= !closed;
            (Class::Str, end)
        }
        b'<' => group(open, b'<', b'>', Class::Hole),
        b'[' => group(open, b'[', b']', Class::Options),
        b'.' if b[i..].starts_with(b"...") => (Class::Hole, i + 3),
        // The `..` between the two keys of a raw range.
        b'.' if b[i..].starts_with(b"..0x") || b[i..].starts_with(b"..b\"") => {
            (Class::Punct, i + 2)
        }
        // Escaped bytes, `b"\x02app"`, shown as bytes are.
        b'b' if b.get(i + 1) == Some(&b'"') => {
            let (end, closed) = string_end(b, i + 2);
            open.unclosed |= !closed;
            (Class::Number, end)
        }
        b':' => {
            let mut end = i + 1 + word_len(&b[i + 1..]);
            if b.get(end) == Some(&b'!') {
                end += 1 + word_len(&b[end + 1..]);
            }
            (Class::Reference, end)
        }
        b'@' => (Class::Meta, i + 1 + word_len(&b[i + 1..])),
        b'#' => {
            let digits = b[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_hexdigit() || **c == b':')
                .count();
            (Class::Number, i + 1 + digits)
        }
        b'(' => {
            open.depth += 1;
            (Class::Punct, i + 1)
        }
        b')' => {
            open.depth = open.depth.saturating_sub(1);
            (Class::Punct, i + 1)
        }
        b'/' | b',' | b'=' | b'|' | b'!' => (Class::Punct, i + 1),
        _ => word(src, i),
    }
}

/// The end of a string whose body starts at `b[i]`, and whether it
/// closes. An escape may hide a quote.
fn string_end(b: &[u8], mut i: usize) -> (usize, bool) {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return (i + 1, true),
            _ => i += 1,
        }
    }
    (b.len(), false)
}

/// A bare word at `src[start]`: a keyword, a number, a uuid or a name.
fn word(src: &str, start: usize) -> (Class, usize) {
    let mut end = start + word_len(&src.as_bytes()[start..]).max(1);
    // A multi-byte character is one token, not a split one.
    while !src.is_char_boundary(end) {
        end += 1;
    }
    let word = &src[start..end];
    let operation = src.as_bytes().get(end) == Some(&b'(')
        && super::keywords::AtomicOp::from_name(word).is_some();
    let class = if KEYWORDS.contains(&word) || operation {
        Class::Keyword
    } else if word.starts_with(|c: char| c.is_ascii_digit() || c == '-') || is_uuid(word) {
        Class::Number
    } else {
        Class::Name
    };
    (class, end)
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
    // Bytes end at the `...` or `..` of a raw key.
    let dots = !b.starts_with(b"0x");
    b.iter()
        .take_while(|&&c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+') || c == b'.' && dots
        })
        .count()
}

fn is_uuid(word: &str) -> bool {
    word.len() == 36 && uuid::Uuid::try_parse(word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(src: &str) -> Vec<(Class, &str)> {
        highlight(src)
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

    /// An atomic operation's name is a keyword before its `(`, and a
    /// name anywhere else.
    #[test]
    fn classes_atomic_operations() {
        use Class::*;
        assert_eq!(
            classes("/n(add)=add(1[i64])"),
            [
                (Punct, "/"),
                (Name, "n"),
                (Punct, "("),
                (Name, "add"),
                (Punct, ")"),
                (Punct, "="),
                (Keyword, "add"),
                (Punct, "("),
                (Number, "1"),
                (Options, "[i64]"),
                (Punct, ")"),
            ]
        );
        assert!(is_open("/n(1)=add(1"));
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

    #[test]
    fn only_a_tuple_goes_on_to_the_next_line() {
        for goes_on in [
            "/a(1,",
            "/a((1)",
            "/a(\"(\"",
            "/a(1,\n  \"x\",",
            "/a(1, % (\n",
        ] {
            assert!(continues(goes_on), "{goes_on}");
        }
        let ended = [
            "/a(\"x",
            "/a(1,\"x",
            "/a(<int",
            "/a(1,<int",
            "[limit:",
            "/a(1)",
            "/a(1))",
            "/a",
        ];
        for ended in ended {
            assert!(!continues(ended), "{ended}");
        }
    }

    #[test]
    fn raw_keys_split_at_their_dots() {
        use Class::*;
        assert_eq!(
            classes("[system] 0xff02...=<>"),
            [
                (Options, "[system]"),
                (Number, "0xff02"),
                (Hole, "..."),
                (Punct, "="),
                (Hole, "<>"),
            ]
        );
        assert_eq!(
            classes("0x01..0x02"),
            [(Number, "0x01"), (Punct, ".."), (Number, "0x02")]
        );
    }

    #[test]
    fn keys_outside_directories_start_at_the_root_or_a_prefix() {
        use Class::*;
        assert_eq!(
            classes("/(\"app\",<int>)"),
            [
                (Punct, "/"),
                (Punct, "("),
                (Str, "\"app\""),
                (Punct, ","),
                (Hole, "<int>"),
                (Punct, ")"),
            ]
        );
        assert_eq!(
            classes("0xab01(1)=clear"),
            [
                (Number, "0xab01"),
                (Punct, "("),
                (Number, "1"),
                (Punct, ")"),
                (Punct, "="),
                (Keyword, "clear"),
            ]
        );
    }

    /// Escaped bytes are one token, classed as bytes are, wherever they
    /// stand; an escaped quote does not end them, and unclosed they are
    /// open. A `b` that no quote follows is a name.
    #[test]
    fn escaped_bytes_are_bytes() {
        use Class::*;
        assert_eq!(
            classes(r#"b"\x02a\"p"..b"\x03"...=b"v""#),
            [
                (Number, r#"b"\x02a\"p""#),
                (Punct, ".."),
                (Number, r#"b"\x03""#),
                (Hole, "..."),
                (Punct, "="),
                (Number, r#"b"v""#),
            ]
        );
        assert_eq!(
            classes(r#"/b(b,b"(")"#),
            [
                (Punct, "/"),
                (Name, "b"),
                (Punct, "("),
                (Name, "b"),
                (Punct, ","),
                (Number, r#"b"(""#),
                (Punct, ")"),
            ]
        );
        assert!(is_open(r#"b"\x02"#));
        assert!(!continues(r#"/a(b"\x02"#));
    }
}
