//! Property tests of the parser, the printer and the formatter.
//!
//! Printing is only useful if the text reads back as the same tree, and
//! `fql fmt` is only safe if it never changes what a script means or drops a
//! comment; examples catch the cases someone thought of, these catch the
//! rest. `PROPTEST_CASES=N` runs every property N times instead of the few
//! hundred that keep the suite quick.

mod arb;
mod ast;
mod comments;
mod text;

use fql::syntax::ast::Script;
use proptest::test_runner::{Config, FileFailurePersistence};

/// A config for `cases` runs, unless `PROPTEST_CASES` asks for more. Any
/// failure is saved beside the test's source and replayed first next time.
fn config(cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..Config::default()
    }
}

/// The comments of a script as the formatter must keep them: in order, and
/// without the trailing whitespace it trims.
fn comment_texts(script: &Script) -> Vec<(String, bool)> {
    script
        .trivia
        .comments
        .iter()
        .map(|c| (c.text.trim_end().to_string(), c.own_line))
        .collect()
}
