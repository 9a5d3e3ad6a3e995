//! Any text: parsing, loading and formatting never panic, printing reads
//! back as the same tree, and formatting is stable and keeps every comment;
//! neither printed text nor reports hold a control character but line
//! feeds.

#![no_main]

use fql::syntax::ast::Script;
use fql::check::load;
use fql::syntax::{Diagnostics, format, parse};
use libfuzzer_sys::fuzz_target;
use miette::Diagnostic;

/// The comments as `fmt` must keep them: in order, without the trailing
/// whitespace it trims. (A comment after code may move to a line of its own
/// when another comment already ends that line.)
fn comments<'a>(script: &Script<'a>) -> Vec<&'a str> {
    script
        .trivia
        .comments
        .iter()
        .map(|c| c.text.trim_end())
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };

    if let Err(errors) = load(text) {
        for error in &errors {
            for label in error.labels().into_iter().flatten() {
                let end = label.offset() + label.len();
                assert!(
                    end <= text.len()
                        && text.is_char_boundary(label.offset())
                        && text.is_char_boundary(end),
                    "{error:?} labels bytes outside the text or inside a character"
                );
            }
        }
        // Each report scans the whole text, so rendering every error of a
        // long, broken input would take most of the run; a few show whether
        // rendering copes with the spans.
        let mut errors = errors;
        errors.truncate(4);
        let report = Diagnostics::new("<fuzz>", text, errors).render(false, 80);
        assert!(
            !report.chars().any(|c| c.is_control() && c != '\n'),
            "a control character in the report: {report:?}"
        );
    }

    let Ok(script) = parse(text) else { return };

    let printed = script.to_string();
    assert!(
        !printed.chars().any(|c| c.is_control() && c != '\n'),
        "a control character in the printed text: {printed:?}"
    );
    let reparsed = parse(&printed).expect("printed text parses");
    assert_eq!(reparsed.items, script.items, "printed: {printed:?}");

    let formatted = format(&script);
    let again = parse(&formatted).expect("formatted text parses");
    assert_eq!(again.items, script.items, "formatted: {formatted:?}");
    assert_eq!(
        comments(&again),
        comments(&script),
        "formatted: {formatted:?}"
    );
    assert_eq!(format(&again), formatted, "formatting is not stable");
});
