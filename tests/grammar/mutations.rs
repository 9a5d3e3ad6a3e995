//! Random small edits of valid FQL, judged by the grammar and the parser.
//!
//! Valid text a few edits away from valid is where the two are most likely
//! to part: an unclosed bracket here, a stray `.` or line break there. The
//! edits draw on the characters and words that mean something in FQL.

use std::sync::LazyLock;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::FileFailurePersistence;

use super::{GRAMMAR, Verdict, parser_errors, snippets};

/// Characters an edit inserts or puts in place of another.
const CHARS: &str = "/()<>[],=:|!#%\".-_+@\\' \t\n\r0179aefnxAFEz\u{e9}\u{1b}\u{7f}\u{85}\u{feff}";

/// Words, likewise: keywords, and pieces of literals.
const WORDS: &[&str] = &[
    "\r\n", "...", "0x", "nil", "true", "inf", "nan", "clear", "remove", "int", "tup", "any",
    "str", "sum", "raw", "i64", "reverse", "limit:", "sep:", "@commit", "e-", "\\n", "ffff-",
    ":0000", "1e999", "\\x", "\\x1b", "\\xc3", "\\xa9", "\\xff",
];

#[derive(Clone, Debug)]
pub enum Edit {
    Insert(Index, String),
    Delete(Index, usize),
    Replace(Index, String),
}

pub fn edit() -> impl Strategy<Value = Edit> {
    let tokens: Vec<String> = CHARS
        .chars()
        .map(String::from)
        .chain(WORDS.iter().map(|w| w.to_string()))
        .collect();
    let token = prop::sample::select(tokens);
    prop_oneof![
        (any::<Index>(), token.clone()).prop_map(|(at, t)| Edit::Insert(at, t)),
        (any::<Index>(), 1..=3usize).prop_map(|(at, n)| Edit::Delete(at, n)),
        (any::<Index>(), token).prop_map(|(at, t)| Edit::Replace(at, t)),
    ]
}

pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for edit in edits {
        match edit {
            Edit::Insert(at, t) => {
                let at = at.index(chars.len() + 1);
                chars.splice(at..at, t.chars());
            }
            Edit::Delete(at, n) if !chars.is_empty() => {
                let at = at.index(chars.len());
                chars.drain(at..(at + n).min(chars.len()));
            }
            Edit::Replace(at, t) if !chars.is_empty() => {
                let at = at.index(chars.len());
                chars.splice(at..=at, t.chars());
            }
            Edit::Delete(..) | Edit::Replace(..) => {}
        }
    }
    chars.into_iter().collect()
}

/// The valid snippets, and their paragraphs on their own: in a short text
/// an edit is less likely to land in a comment.
static SOURCES: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut out = Vec::new();
    for s in snippets::all() {
        if fql::syntax::parse(&s.text).is_err() {
            continue;
        }
        for part in s.text.split("\n\n") {
            if part.trim().len() > 1 && part != s.text && fql::syntax::parse(part).is_ok() {
                out.push(part.to_string());
            }
        }
        out.push(s.text);
    }
    out.sort();
    out.dedup();
    out
});

/// `cases` runs, unless `PROPTEST_CASES=N` asks for more. A failure is
/// saved beside the test's source and replayed first next time.
pub fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        max_global_rejects: cases.max(1024),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(4000))]

    #[test]
    fn mutated_snippets_are_judged_alike(
        source in any::<Index>(),
        edits in prop::collection::vec(edit(), 1..=3),
    ) {
        let text = apply(&SOURCES[source.index(SOURCES.len())], &edits);
        let grammar = Verdict::of_grammar(&GRAMMAR, &text);
        let parser = Verdict::of_parser(&text);
        prop_assert_eq!(grammar, parser, "{:?}: {}", text, parser_errors(&text));
    }
}

#[test]
fn sources_are_many_and_valid() {
    assert!(SOURCES.len() >= 30, "only {} sources", SOURCES.len());
}
