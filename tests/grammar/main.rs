//! `grammar/fql.ebnf` and the parser must accept exactly the same scripts.
//!
//! The grammar is the contract people read; the parser is what runs. This
//! test reads the grammar with a small EBNF reader, decides it with a
//! recognizer that follows every alternative (so the grammar means what it
//! says as a context-free grammar, not what a PEG would make of it), and
//! compares its verdict with `fql::syntax::parse` on every FQL snippet in the
//! repository, on the edge cases in `cases.rs`, on scripts generated from the
//! grammar, and on random edits of both.
//!
//! `cargo test --test integration grammar::`; `PROPTEST_CASES=N` for longer random runs.

mod cases;
mod ebnf;
mod generate;
mod mutations;
mod recognize;
mod snippets;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::LazyLock;

use ebnf::Grammar;
use recognize::Recognizer;

/// The grammar as written.
pub static GRAMMAR: LazyLock<Grammar> = LazyLock::new(load);

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load() -> Grammar {
    let path = repo().join("grammar/fql.ebnf");
    let src = std::fs::read_to_string(&path).expect("grammar/fql.ebnf is readable");
    let mut grammar = Grammar::read(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    grammar.check("decimal", decimal_in_range);
    grammar.check("f32", f32_in_range);
    grammar.check("int", int_fits);
    grammar.check("string", string_is_utf8);
    grammar.check("tuple", tuple_not_too_deep);
    grammar
}

/// The limit on ints that the grammar states in a comment: at most 255
/// bytes of magnitude, the most the tuple layer encodes.
fn int_fits(text: &str) -> bool {
    let digits = text.trim_start_matches('-').trim_start_matches('0');
    digits.len() <= 615
        && digits
            .parse::<num_bigint::BigUint>()
            .map_or(true, |n| n.bits() <= 2040)
}

/// The limit on strings that the grammar states in a comment: the bytes
/// of the text and of its `\x` escapes make UTF-8.
fn string_is_utf8(text: &str) -> bool {
    let body = &text[1..text.len() - 1];
    let mut bytes = Vec::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => bytes.push(b'\n'),
                Some('x') => {
                    let digits: String = chars.by_ref().take(2).collect();
                    bytes.push(u8::from_str_radix(&digits, 16).expect("two hex digits"));
                }
                Some(c) => bytes.push(c as u8),
                None => {}
            },
            c => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    String::from_utf8(bytes).is_ok()
}

/// The limit on nesting that the grammar states in a comment: tuples nest
/// at most `fql::syntax::MAX_DEPTH` deep.
fn tuple_not_too_deep(text: &str) -> bool {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' => depth = depth.saturating_sub(1),
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '%' => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    deepest <= fql::syntax::MAX_DEPTH
}

/// The limit on nums that the grammar states in a comment: the parser
/// rejects a num that rounds to infinity, or to zero from nonzero digits,
/// rather than read a value other than the one written.
fn decimal_in_range(text: &str) -> bool {
    let value: f64 = text.parse().expect("a decimal in Rust's float syntax");
    let mantissa = text.split('e').next().unwrap_or(text);
    let underflow = value == 0.0 && mantissa.bytes().any(|b| matches!(b, b'1'..=b'9'));
    value.is_finite() && !underflow
}

/// The limit on 32-bit floats that the grammar states in a comment: as
/// for a `decimal`, but in binary32's range.
fn f32_in_range(text: &str) -> bool {
    let num = &text["f32(".len()..text.len() - 1];
    let unsigned = num.trim_start_matches('-');
    if matches!(unsigned, "inf" | "nan") {
        return true;
    }
    let value: f32 = unsigned.parse().expect("a decimal in Rust's float syntax");
    let mantissa = unsigned.split('e').next().unwrap_or(unsigned);
    let underflow = value == 0.0 && mantissa.bytes().any(|b| matches!(b, b'1'..=b'9'));
    value.is_finite() && !underflow
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    Reject,
    /// The parser panicked, which no input should make it do.
    Panic,
}

impl Verdict {
    fn from(accepted: bool) -> Verdict {
        if accepted {
            Verdict::Accept
        } else {
            Verdict::Reject
        }
    }

    pub fn of_grammar(grammar: &Grammar, text: &str) -> Verdict {
        Verdict::from(grammar.accepts(text))
    }

    pub fn of_parser(text: &str) -> Verdict {
        match catch_unwind(AssertUnwindSafe(|| fql::syntax::parse(text).is_ok())) {
            Ok(accepted) => Verdict::from(accepted),
            Err(_) => Verdict::Panic,
        }
    }
}

/// Why the parser rejects `text`, for failure messages.
pub fn parser_errors(text: &str) -> String {
    match catch_unwind(|| fql::syntax::parse(text)) {
        Err(_) => "(panicked)".into(),
        Ok(Ok(_)) => "(accepted)".into(),
        Ok(Err(errors)) => errors
            .iter()
            .map(|e| format!("{e} {e:?}"))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The same text with CR LF line breaks.
pub fn crlf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', "\r\n")
}

#[test]
fn snippets_are_judged_alike() {
    let snippets = snippets::all();
    assert!(snippets.len() >= 10, "only {} snippets", snippets.len());
    let mut disagree = Vec::new();
    for s in &snippets {
        for (variant, text) in [("", s.text.clone()), (" (CRLF)", crlf(&s.text))] {
            let grammar = Verdict::of_grammar(&GRAMMAR, &text);
            let parser = Verdict::of_parser(&text);
            if grammar != parser {
                disagree.push(format!(
                    "{}{variant}: grammar {grammar:?}, parser {parser:?}: {}",
                    s.origin,
                    parser_errors(&text)
                ));
            }
        }
    }
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
}

/// Alternatives that no script passing the checks can use, so the examples
/// cannot show them: words the parser knows only so that the checks can
/// refuse them by name.
const REFUSED: [(&str, &str); 1] = [("option_name", "'f80'")];

/// `grammar/examples.fql` uses every rule and every alternative, so every
/// part of the grammar is compared with the parser on at least one input
/// that it accepts.
#[test]
fn examples_cover_the_grammar() {
    let path = repo().join("grammar/examples.fql");
    let text = std::fs::read_to_string(&path).expect("grammar/examples.fql is readable");
    let grammar = &*GRAMMAR;
    let mut rules = vec![false; grammar.rules.len()];
    let mut branches = vec![false; grammar.branches];
    // CR LF is the one alternative the file does not spell out itself.
    for text in [text.clone(), crlf(&text)] {
        // Like every script in grammar/, it passes the checks (tests/docs.rs).
        let loaded = fql::check::load(&text);
        assert!(loaded.is_ok(), "grammar/examples.fql: {loaded:?}");
        let cov = Recognizer::new(grammar, &text)
            .coverage()
            .expect("the grammar accepts grammar/examples.fql");
        rules.iter_mut().zip(&cov.rules).for_each(|(a, b)| *a |= b);
        branches
            .iter_mut()
            .zip(&cov.branches)
            .for_each(|(a, b)| *a |= b);
    }
    let mut missing = Vec::new();
    for (n, rule) in grammar.rules.iter().enumerate() {
        if !rules[n] && !rule.is_class {
            missing.push(format!("rule `{}` (line {})", rule.name, rule.line));
        }
        let mut unused = Vec::new();
        alternatives(&rule.expr, &branches, &mut unused);
        unused.retain(|alt| !REFUSED.contains(&(rule.name.as_str(), alt.as_str())));
        for alt in unused {
            missing.push(format!("{alt} in `{}` (line {})", rule.name, rule.line));
        }
    }
    assert!(
        missing.is_empty(),
        "grammar/examples.fql never uses:\n{}",
        missing.join("\n")
    );
}

/// The alternatives of `e` that no derivation used: a keyword by its text,
/// anything else by its place in the alternation.
fn alternatives(e: &ebnf::Expr, used: &[bool], out: &mut Vec<String>) {
    use ebnf::Expr;
    match e {
        Expr::Alt { first, branches } => {
            for (n, b) in branches.iter().enumerate() {
                if !used[first + n] {
                    out.push(match b {
                        Expr::Text(t) => format!("'{}'", t.iter().collect::<String>()),
                        _ => format!("alternative {}", n + 1),
                    });
                }
                alternatives(b, used, out);
            }
        }
        Expr::Seq(xs) => xs.iter().for_each(|x| alternatives(x, used, out)),
        Expr::Opt(x) | Expr::Rep(x) => alternatives(x, used, out),
        Expr::Text(_) | Expr::Class(_) | Expr::Rule(_) => {}
    }
}
