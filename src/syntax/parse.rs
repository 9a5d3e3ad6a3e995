//! The parser: FQL text to [`Script`], with every error in the script.
//!
//! A hand-structured recursive descent on nom's result and error types.
//! Input is a plain `&str`; spans are the input's offset into the script,
//! recovered from the slice's address. `nom_locate` would
//! give the same offsets, but it counts line breaks on every slice, which
//! cost a tenth of the parse time on short queries; line and column are
//! only needed when a diagnostic is rendered, and miette computes them then.
//!
//! Errors that do not stop parsing (an unknown type name, a bad escape) are
//! collected in the [`Parser`], so one run reports every independent
//! mistake. An error that leaves the parser lost stops the statement; the
//! script parser then skips to where the next statement starts.

mod element;
mod hints;
mod lex;
mod literal;
pub use literal::starts_bytes;
mod statement;
mod typed;

use super::ast::{Item, Script, Trivia};
use super::error::ParseError;
use super::items::Items;

/// How deep tuples may nest. Parsing, checking, printing and dropping an
/// AST all recurse into nested tuples; the bound keeps that within any
/// thread's stack.
pub const MAX_DEPTH: usize = 100;

/// The most bytes of magnitude the tuple layer encodes an int in: its
/// length is one byte (type codes `0x0b` and `0x1d`), so ints stay below
/// 2^2040. The parser refuses longer literals and the codec ints a script
/// computes, both with [`IntTooLarge`](super::IntTooLarge).
pub const MAX_INT_BYTES: u64 = 255;

/// nom's result over the rest of the text.
type PResult<'a, T> = nom::IResult<&'a str, T, Fail>;

/// Why a parser did not produce a value.
///
/// `Err::Error` with no error means "not this construct", so the caller can
/// try something else or say what it expected; `Err::Failure` carries the
/// error that stops the statement. The error is boxed to keep results small.
#[derive(Debug)]
struct Fail {
    error: Option<Box<ParseError>>,
}

impl nom::error::ParseError<&str> for Fail {
    fn from_error_kind(_: &str, _: nom::error::ErrorKind) -> Fail {
        Fail { error: None }
    }

    fn append(_: &str, _: nom::error::ErrorKind, other: Fail) -> Fail {
        other
    }
}

/// The state of one parse: the whole text, for offsets, the comments and
/// blank lines met so far, and the errors.
///
/// The items are gathered in a list of their own, which the item parsers
/// can borrow beside the parser, and put in the script with the trivia at
/// the end, a few words (see [`Items`](super::items::Items)). Each statement
/// is parsed in place in its item rather than copied there.
struct Parser<'a> {
    src: &'a str,
    /// How many tuples enclose the current position: parsing recurses into
    /// nested tuples, so the depth is bounded to bound the stack.
    depth: usize,
    errors: Vec<ParseError>,
    trivia: Trivia<'a>,
}

/// Parses a script: statements, meta statements, comments and blank lines.
///
/// On failure, returns every error found, in source order.
pub fn parse(src: &str) -> Result<Script<'_>, Vec<ParseError>> {
    let (p, items) = run(src);
    if p.errors.is_empty() {
        Ok(Script {
            items,
            trivia: p.trivia,
        })
    } else {
        Err(sorted(p.errors))
    }
}

/// Parses `src` as one element and nothing else, as a parameter's value
/// is written: `42`, `"ann"`, `(1,"x")`. Spans are offsets into `src`.
/// Whatever is not one element, or is more than one, is an error here
/// with the same words a script's would get.
pub fn parse_element(src: &str) -> Result<super::ast::Elem<'_>, Vec<ParseError>> {
    let mut p = Parser {
        src,
        depth: 0,
        errors: Vec::new(),
        trivia: Trivia::default(),
    };
    let parsed = match p.element(src) {
        Ok(("", elem)) => Some(elem),
        Ok((rest, _)) => {
            let error = p.expected(rest, "the end of the value", None);
            p.report(error);
            None
        }
        Err(nom::Err::Failure(Fail { error: Some(e) })) => {
            p.report(*e);
            None
        }
        Err(_) => {
            let error = p.expected(src, "a value", None);
            p.report(error);
            None
        }
    };
    match parsed {
        Some(elem) if p.errors.is_empty() => Ok(elem),
        _ => Err(sorted(p.errors)),
    }
}

/// Parses what can be parsed: the script holds the statements without
/// errors, so that checks can still run on them.
pub(crate) fn parse_partial(src: &str) -> (Script<'_>, Vec<ParseError>) {
    let (p, items) = run(src);
    let script = Script {
        items,
        trivia: p.trivia,
    };
    (script, sorted(p.errors))
}

/// Parses the whole of `src`: the parser, with the trivia and errors, and
/// the items. Inlined into its two callers, so the script is built where
/// they return it.
#[inline(always)]
fn run(src: &str) -> (Parser<'_>, Items<Item<'_>>) {
    let mut p = Parser {
        src,
        depth: 0,
        errors: Vec::new(),
        trivia: Trivia::default(),
    };
    let items = if u32::try_from(src.len()).is_err() {
        p.report(ParseError::TooLarge { len: src.len() });
        Items::default()
    } else {
        // A byte-order mark at the start is no part of the script; spans
        // still count its bytes, as offsets into `src`.
        p.script(src.strip_prefix(lex::BOM).unwrap_or(src))
    };
    (p, items)
}

/// The errors in source order.
fn sorted(mut errors: Vec<ParseError>) -> Vec<ParseError> {
    errors.sort_by_key(|e| super::error::offset(e));
    errors
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::syntax::ast::{ElemKind, Int, Item, Num, Query, Value};
    use crate::syntax::error::offset;

    /// The value of `/d(0)=<text>`.
    fn value(text: &str) -> ElemKind<'static> {
        let src = format!("/d(0)={text}").leak();
        let script = parse(src).expect("parses");
        match &script.items[0] {
            Item::Statement(s) => match &s.query {
                Query::KeyValue(kv) => match &kv.value {
                    Value::Data(e, _) => e.kind.clone(),
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    /// Ints are accumulated without overflow checks up to 18 digits; longer
    /// ones take the exact path, whatever their value.
    #[test]
    fn ints_around_the_fast_path_limit() {
        let big = |s: &str| Int::from_big(s.parse().unwrap());
        for text in [
            "0",
            "-0",
            "999999999999999999",
            "-999999999999999999",
            "1000000000000000000",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "-9223372036854775809",
            "0000000000000000000000042",
            "-0000000000000000000000042",
        ] {
            assert_eq!(value(text), ElemKind::Int(big(text)), "{text}");
        }
        // Digits that something number-like follows are not ints.
        assert_eq!(value("12e3"), ElemKind::Num(Num(12e3)));
        assert_eq!(value("-1.5"), ElemKind::Num(Num(-1.5)));
        assert_eq!(value("0x0a"), ElemKind::Bytes(vec![10]));
        let uuid = "12345678-1234-1234-1234-123456789abc";
        assert_eq!(value(uuid), ElemKind::Uuid(uuid.parse().unwrap()));
    }

    /// Escaped bytes are the bytes the hex form writes: printable text as
    /// its UTF-8 bytes, `\xNN` in either case, `\\` and `\"`; in a value,
    /// a key, a raw key and a parameter alike.
    #[test]
    fn escaped_bytes_are_the_bytes_of_the_hex_form() {
        for (text, hex) in [
            (r#"b"""#, "0x"),
            (r#"b"\x02app\x00""#, "0x0261707000"),
            (r#"b"\xAB\xcd\xEf""#, "0xabcdef"),
            (r#"b"\\\"""#, "0x5c22"),
            (r#"b"é😁 ~""#, "0xc3a9f09f9881207e"),
            (r#"b"%(,)=[]<>""#, "0x25282c293d5b5d3c3e"),
        ] {
            assert_eq!(value(text), value(hex), "{text}");
            let element = super::parse_element(text).expect("one element");
            assert_eq!(element.kind, value(hex), "{text}");
            let raw = |src: &str| match parse(src).expect("parses").items.into_iter().next() {
                Some(Item::Statement(s)) => match s.query {
                    Query::Raw(raw) => raw.key.kind,
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            };
            assert_eq!(raw(text), raw(hex));
            assert_eq!(raw(&format!("{text}...")), raw(&format!("{hex}...")));
            assert_eq!(
                raw(&format!("{text}..{hex}")),
                raw(&format!("{hex}..{text}"))
            );
        }
    }

    /// Each mistake in escaped bytes is its own error, at the offending
    /// escape or character.
    #[test]
    fn escaped_bytes_report_each_mistake_where_it_is() {
        let errors = parse("/d(0)=b\"\\n\\x4\t\\\u{85}\"").expect_err("does not parse");
        let found: Vec<(String, usize)> = errors
            .iter()
            .map(|e| (miette::Diagnostic::code(e).unwrap().to_string(), offset(e)))
            .collect();
        assert_eq!(
            found,
            [
                ("fql::bad_bytes_escape".to_string(), 8),
                ("fql::bad_bytes_escape".to_string(), 10),
                ("fql::control_character".to_string(), 13),
                ("fql::control_character".to_string(), 15),
            ]
        );
        assert_eq!(codes("b\"ab"), ["fql::unclosed"]);
        assert_eq!(codes("b\"ab\n/cd"), ["fql::unclosed"]);
        assert_eq!(codes("\\x02app"), ["fql::expected_statement"]);
    }

    /// Strings are scanned a word at a time; the end may fall anywhere in
    /// a word, after an escape, or past the last whole word.
    #[test]
    fn strings_of_every_length_and_escape_position() {
        for len in 0..20 {
            let plain = "abcdéfghijklmnopqrstuvwxyz"
                .chars()
                .take(len)
                .collect::<String>();
            assert_eq!(
                value(&format!("\"{plain}\"")),
                ElemKind::Str(plain.as_str().into())
            );
            for at in 0..=plain.chars().count() {
                let split = plain.char_indices().nth(at).map_or(plain.len(), |(n, _)| n);
                let (a, b) = plain.split_at(split);
                let text = format!("\"{a}\\\"\\\\\\n{b}\"");
                let expected = format!("{a}\"\\\n{b}");
                assert_eq!(value(&text), ElemKind::Str(expected.as_str().into()));
            }
        }
        for len in 0..20 {
            let src = format!("/d(0)=\"{}", "x".repeat(len));
            assert!(parse(&src).is_err(), "{src}");
            assert!(parse(&format!("{src}\n")).is_err(), "{src}");
        }
    }

    /// The codes of the errors `src` gets.
    fn codes(src: &str) -> Vec<String> {
        match parse(src) {
            Ok(_) => Vec::new(),
            Err(errors) => errors
                .iter()
                .map(|e| miette::Diagnostic::code(e).unwrap().to_string())
                .collect(),
        }
    }

    /// `\xNN` is one byte of the string's UTF-8 text, in either case; the
    /// bytes must make UTF-8.
    #[test]
    fn hex_escapes_are_bytes_of_utf8_text() {
        for (text, expected) in [
            (r#""\x41\x62""#, "Ab"),
            (r#""\xc3\xa9t\xC3\xA9""#, "été"),
            (r#""\x1b[31m\x00\x7f""#, "\u{1b}[31m\0\u{7f}"),
            (r#""a\xc2\x9bb""#, "a\u{9b}b"),
            (r#""\xf0\x9f\x98\x80!""#, "😀!"),
            (r#""\xe6\x97\xa5本""#, "日本"),
            (r#""£\x0a\x22\x5c""#, "£\n\"\\"),
        ] {
            assert_eq!(value(text), ElemKind::Str(expected.into()), "{text}");
        }
        for bad in [
            r#""\xff""#,
            r#""\xc3""#,
            r#""\xc3a""#,
            r#""\xa9""#,
            r#""é\xa9""#,
            r#""\xe6\x97本""#,
        ] {
            assert_eq!(
                codes(&format!("/d(0)={bad}")),
                ["fql::invalid_utf8"],
                "{bad}"
            );
        }
        for bad in [r#""\x""#, r#""\x4""#, r#""\xg1""#, r#""\X41""#, r#""\x4é""#] {
            assert_eq!(codes(&format!("/d(0)={bad}")), ["fql::bad_escape"], "{bad}");
        }
    }

    /// A raw control character is refused in a string, a quoted name, an
    /// option's string and a comment, each with the escape to write; a
    /// tab stays allowed where whitespace is, and CR LF ends a line.
    #[test]
    fn raw_control_characters_are_refused() {
        for c in ('\0'..='\u{1f}').chain('\u{7f}'..='\u{9f}') {
            for src in [
                format!("/d(\"a{c}b\")"),
                format!("/\"a{c}\"/b"),
                format!("[limit:1] /d(<>)=<append[sep:\"{c}\"]>"),
                format!("/d(1) % a{c}b"),
                format!("% {c}\n/d(1)"),
            ] {
                let codes = codes(&src);
                match c {
                    // A line feed ends the comment.
                    '\n' if src.contains('%') => {}
                    '\t' if src.contains('%') => assert_eq!(codes, [""; 0], "{src:?}"),
                    // CR LF is a line break.
                    '\r' if src.starts_with('%') => assert_eq!(codes, [""; 0], "{src:?}"),
                    '\n' => assert_eq!(codes[0], "fql::unclosed", "{src:?}"),
                    _ => assert_eq!(codes, ["fql::control_character"], "{src:?}"),
                }
            }
        }
        assert_eq!(codes("/d(\"a\r\n\")"), ["fql::unclosed"]);
        assert_eq!(codes("/d(1) % c\r\n/e(2)\r\n"), Vec::<String>::new());
        let errors = parse("/d(\"\u{1b}\u{9b}\")").unwrap_err();
        let texts: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            texts,
            [
                "control character U+001B (ESC) in a string",
                "control character U+009B (CSI) in a string"
            ]
        );
        let help = |e: &crate::syntax::ParseError| {
            miette::Diagnostic::help(e)
                .map(|h| h.to_string())
                .unwrap_or_default()
        };
        let fixed = "\"\\x1b\\xc2\\x9b\"";
        assert_eq!(
            help(&errors[0]),
            format!("write it as the escape `\\x1b`: {fixed}")
        );
        assert_eq!(
            help(&errors[1]),
            format!("write it as the escape `\\xc2\\x9b`: {fixed}")
        );
        // Outside strings and comments, the message names it too.
        let errors = parse("/d(1,\u{7}2)").unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            "expected an element or `)`, found the control character U+0007 (BEL)"
        );
    }

    /// Ints are limited to what the tuple layer encodes, 255 bytes of
    /// magnitude, and told so before any conversion, however long.
    #[test]
    fn ints_past_255_bytes_are_refused() {
        use num_bigint::BigInt;
        let max: BigInt = (BigInt::from(1) << 2040u32) - 1;
        assert_eq!(max.to_string().len(), super::literal::MAX_INT_DIGITS);
        for fits in [max.clone(), -max.clone()] {
            let text = fits.to_string();
            assert_eq!(value(&text), ElemKind::Int(Int::from_big(fits)));
        }
        let zeros = format!("-{}{}", "0".repeat(5000), max);
        assert_eq!(value(&zeros), ElemKind::Int(Int::from_big(-max.clone())));
        let over_max: BigInt = &max + 1;
        for over in [over_max.clone(), -over_max, BigInt::from(10).pow(615)] {
            let src = format!("/d(0)={over}");
            assert_eq!(codes(&src), ["fql::int_too_large"], "{over}");
        }
        let errors = parse(&format!("/d({})", "7".repeat(2_000_000))).unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            "an int of 2000000 digits is too large to store"
        );
        assert_eq!(offset(&errors[0]), 3);
    }

    /// A byte-order mark may start a script, as nothing: spans count its
    /// bytes, and nowhere else is it allowed.
    #[test]
    fn a_byte_order_mark_at_the_start_is_nothing() {
        let src = "\u{feff}% c\n/d(\"x\")";
        let script = parse(src).expect("parses");
        assert_eq!(crate::syntax::format(&script), "% c\n/d(\"x\")\n");
        assert!(script.trivia.comments[0].own_line);
        let Item::Statement(s) = &script.items[0] else {
            panic!("a statement")
        };
        assert_eq!(&src[s.span.range()], "/d(\"x\")");
        let errors = parse("\u{feff}/d(1,,2)").unwrap_err();
        assert_eq!(offset(&errors[0]), 3 + "/d(1,".len());
        assert!(parse("/d(1)\n\u{feff}/e(2)").is_err());
        assert!(parse("\u{feff}\u{feff}/d").is_err());
        assert!(parse("\u{feff}").is_ok());
    }

    /// Names are scanned eight bytes at a time.
    #[test]
    fn names_of_every_length() {
        for len in 1..20 {
            let name = "abcdefghijklmnopqrstuvwxyz"[..len].to_string();
            for src in [
                format!("/{name}"),
                format!("/{name}(1)"),
                format!("/a/{name}=remove"),
                format!("/d(:{name},<{name}:int>)=nil"),
            ] {
                let script = parse(&src).expect("parses");
                assert_eq!(script.to_string().trim_end(), src);
            }
        }
    }
}
