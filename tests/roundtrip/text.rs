//! Any text at all: parsing, loading and formatting never panic, and what
//! parses survives printing and formatting.

use fql::check::{Error, load};
use fql::syntax::ast::Script;
use fql::syntax::{Diagnostics, format, parse};
use miette::Diagnostic;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};

use super::{arb, comment_texts, config};

/// Pieces of FQL, so that random text gets past the first token.
const FRAGMENTS: &[&str] = &[
    "/",
    "/a",
    "/\"q\"",
    "/\"\"",
    "/<>",
    "/:r",
    "/...",
    "(",
    ")",
    "()",
    ",",
    "...",
    "=",
    "=clear",
    "=remove",
    "clear",
    "remove",
    "<",
    ">",
    "<>",
    "<int>",
    "<x:int|str[be]>",
    "<x:>",
    "<int[i64,be]>",
    ":",
    ":x",
    ":x!int",
    "!",
    "!tup",
    "|",
    "[",
    "]",
    "[reverse]",
    "[limit:5]",
    "[limit:-99999999999999999999]",
    "[mode:want_all]",
    "[sep:\"\\n\"]",
    "[i64,be]",
    "[foo]",
    "\"",
    "\"a\"",
    "\"\\\"\"",
    "\\",
    "\\n",
    "\\x",
    "%",
    "% c",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "\t",
    "@",
    "@commit",
    "@read",
    "@write",
    "@foo",
    "0x",
    "b\"",
    "b\"\\x02app\\x00\"",
    "b\"\\\"\"",
    "b\"\\q\"",
    "..b\"\\x03\"",
    "0xff",
    "0xf",
    "0xzz",
    "#",
    "#:0000",
    "#:00",
    "#0102030405060708090a:0001",
    "#0102030405060708090a",
    "#zz",
    "f32(",
    "f32(1.5)",
    "f32(-nan)",
    "f32(1)",
    "user(",
    "user(0x40,0x)",
    "user(0x4f,0xaa00)",
    "user(0x50,0x)",
    "-",
    "1",
    "-1",
    "0",
    "1.5",
    "1.",
    ".5",
    "1e",
    "1e5",
    "1E5",
    "1e+5",
    "e-5",
    ".",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "nil",
    "true",
    "false",
    "a",
    "_",
    "a-b",
    "1abc",
    "é",
    "😀",
    "\u{0}",
    "\u{feff}",
    "5a5ebefd-2193-47e2-8def-f464fc698e31",
    "5a5ebefd-2193",
    "99999999999999999999999",
    "-9223372036854775808",
    "9223372036854775808",
    "1e400",
    "1e-400",
    "tup",
    "int",
    "count",
    "sum",
    "any",
];

fn fragments() -> impl Strategy<Value = String> {
    vec(select(FRAGMENTS), 0..40).prop_map(|parts| parts.concat())
}

/// The example scripts, read when the strategy is built so that new
/// examples are picked up without listing them here.
fn examples() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spec");
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "fql"))
                .filter_map(|p| std::fs::read_to_string(p).ok())
                .collect()
        })
        .unwrap_or_default();
    texts.sort();
    if texts.is_empty() {
        texts.push("/a(1)=2\n".into());
    }
    texts
}

/// One change to a text: the edits that turn a valid script into an almost
/// valid one, which is where error recovery is exercised.
#[derive(Clone, Debug)]
enum Edit {
    Delete(Index, usize),
    Insert(Index, &'static str),
    Replace(Index, usize, &'static str),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), 1usize..6).prop_map(|(at, n)| Edit::Delete(at, n)),
        (any::<Index>(), select(FRAGMENTS)).prop_map(|(at, f)| Edit::Insert(at, f)),
        (any::<Index>(), 1usize..4, select(FRAGMENTS))
            .prop_map(|(at, n, f)| Edit::Replace(at, n, f)),
    ]
}

/// The char boundary at or before `at`.
fn boundary(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(mut text: String, edits: &[Edit]) -> String {
    for edit in edits {
        let (at, n, insert) = match edit {
            Edit::Delete(at, n) => (at, *n, ""),
            Edit::Insert(at, f) => (at, 0, *f),
            Edit::Replace(at, n, f) => (at, *n, *f),
        };
        let start = boundary(&text, at.index(text.len() + 1));
        let end = boundary(&text, (start + n).min(text.len()));
        text.replace_range(start..end, insert);
    }
    text
}

fn edited_scripts() -> impl Strategy<Value = String> {
    (arb::script(), vec(edit(), 0..4)).prop_map(|(s, edits)| apply(s.to_string(), &edits))
}

fn edited_examples() -> impl Strategy<Value = String> {
    (select(examples()), vec(edit(), 0..6)).prop_map(|(s, edits)| apply(s, &edits))
}

/// Parses `text`, which must succeed, as a test failure otherwise.
fn reparse<'a>(what: &str, text: &'a str) -> Result<Script<'a>, TestCaseError> {
    parse(text).map_err(|e| TestCaseError::fail(format!("{what} {text:?} does not parse: {e:?}")))
}

/// Everything that must hold for any text.
fn survives(text: &str) -> Result<(), TestCaseError> {
    let parsed = parse(text);
    let loaded = load(text);
    match (&parsed, &loaded) {
        (Ok(script), Ok(loaded)) => prop_assert_eq!(script, loaded),
        (Ok(_), Err(errors)) => {
            prop_assert!(errors.iter().all(|e| matches!(e, Error::Check(_))));
        }
        (Err(parse_errors), Err(errors)) => {
            let from_load: Vec<_> = errors
                .iter()
                .filter_map(|e| match e {
                    Error::Parse(p) => Some(p),
                    // A static check's error, or a later stage's.
                    _ => None,
                })
                .collect();
            prop_assert_eq!(from_load, parse_errors.iter().collect::<Vec<_>>());
        }
        (Err(_), Ok(_)) => prop_assert!(false, "load accepts what parse rejects"),
    }
    if let Err(errors) = loaded {
        for error in &errors {
            for label in error.labels().into_iter().flatten() {
                let (start, end) = (label.offset(), label.offset() + label.len());
                prop_assert!(
                    end <= text.len() && text.is_char_boundary(start) && text.is_char_boundary(end),
                    "{:?} labels {}..{}, not a char range of the text",
                    error,
                    start,
                    end
                );
            }
        }
        Diagnostics::new("<text>", text, errors).render(false, 80);
    }
    let Ok(script) = parsed else { return Ok(()) };

    let printed = script.to_string();
    prop_assert_eq!(
        &reparse("printed", &printed)?.items,
        &script.items,
        "printed: {:?}",
        printed
    );

    let formatted = format(&script);
    let again = reparse("formatted", &formatted)?;
    prop_assert_eq!(&again.items, &script.items, "formatted: {:?}", formatted);
    prop_assert_eq!(
        comment_texts(&again),
        comment_texts(&script),
        "formatted: {:?}",
        formatted
    );
    prop_assert_eq!(format(&again), &formatted[..]);
    Ok(())
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn any_line(text in ".*") {
        survives(&text)?;
    }

    #[test]
    fn any_text(text in "(?s).{0,200}") {
        survives(&text)?;
    }

    #[test]
    fn fragments_of_fql(text in fragments()) {
        survives(&text)?;
    }

    #[test]
    fn edited_valid_scripts(text in edited_scripts()) {
        survives(&text)?;
    }

    #[test]
    fn edited_examples_survive(text in edited_examples()) {
        survives(&text)?;
    }
}

/// The examples themselves, unedited.
#[test]
fn examples_survive() {
    for text in examples() {
        survives(&text).unwrap_or_else(|e| panic!("{e}"));
        parse(&text).expect("the examples are valid FQL");
    }
}

/// Found by `edited_examples_survive`: the user version was checked for
/// length after splitting at the first `:` only, and `u16::from_str_radix`
/// then panicked on the second.
#[test]
fn vstamp_with_a_second_colon_is_an_error() {
    assert!(parse("/a(#::000)").is_err());
    assert!(parse("/a(#:0:00)").is_err());
    assert!(parse("/a(#0102030405060708090a:00:0)").is_err());
}
