//! `fmt` keeps every comment, in order, on its own line or after code as it
//! was, wherever the grammar allows one.

use fql::syntax::ast::*;
use fql::syntax::{format, parse};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;

use super::{arb, comment_texts, config};

/// A comment to put in one of the places that take one.
#[derive(Clone, Debug)]
struct Note {
    text: String,
    /// On a line of its own rather than after code, where both are allowed.
    own_line: bool,
    /// Indented if on its own line, else apart from the code before it.
    spaced: bool,
}

fn comment_text() -> impl Strategy<Value = String> {
    prop_oneof![
        // No control character but a tab: a comment holds no other.
        3 => "([^\\p{Cc}]|\t){0,12}",
        1 => select(vec![
            "", " ", "%", "%%", " trailing  ", "\t", "a\tb", "(", ")", ",", "/a(1)", "[reverse]",
            "@commit", "\"", "...", " 😀 ", "\\x1b",
        ])
        .prop_map(str::to_owned),
    ]
}

/// For each place that may take a comment, in the order the writer meets
/// them, the comment to put there, if any.
fn notes() -> impl Strategy<Value = Vec<Option<Note>>> {
    vec(
        option::weighted(
            0.3,
            (comment_text(), any::<bool>(), any::<bool>()).prop_map(|(text, own_line, spaced)| {
                Note {
                    text,
                    own_line,
                    spaced,
                }
            }),
        ),
        0..64,
    )
}

/// Prints a script as the canonical printer does, with comments put in.
struct Writer {
    out: String,
    notes: std::vec::IntoIter<Option<Note>>,
    /// Whether to put a blank line before each item.
    blanks: std::vec::IntoIter<bool>,
    /// Every comment put in, with whether it has a line to itself.
    written: Vec<(String, bool)>,
    /// Whether only commas were written since the last comment in a tuple.
    after_comment: bool,
    /// Whether a comment after code follows another comment with only a
    /// comma between them: the shape of the known bug below.
    comment_after_comment: bool,
}

impl Writer {
    fn next(&mut self) -> Option<Note> {
        self.notes.next().flatten()
    }

    fn comment(&mut self, note: &Note, own_line: bool) {
        let text = &note.text;
        let space = match (note.spaced, own_line) {
            (false, _) => "",
            (true, true) => "  ",
            (true, false) => " ",
        };
        self.out.push_str(space);
        self.out.push('%');
        self.out.push_str(text);
        self.written.push((text.trim_end().to_string(), own_line));
    }

    fn script(&mut self, script: &Script) {
        for item in &script.items {
            if self.blanks.next().unwrap_or(false) {
                self.out.push_str(" \n");
            }
            while let Some(note) = self.next() {
                self.comment(&note, true);
                self.out.push('\n');
            }
            match item {
                Item::Meta(m) => self.out.push_str(&m.to_string()),
                Item::Statement(s) => self.statement(s),
            }
            if let Some(note) = self.next() {
                self.comment(&note, false);
            }
            self.out.push('\n');
        }
        if let Some(note) = self.next() {
            self.comment(&note, true);
        }
    }

    fn statement(&mut self, s: &Statement) {
        if !s.options.is_empty() {
            self.out.push_str(&s.options.to_string());
            if let Some(note) = self.next() {
                self.comment(&note, false);
            }
            self.out.push('\n');
            // Comment lines may stand between the options and the query.
            while let Some(note) = self.next() {
                self.comment(&note, true);
                self.out.push('\n');
            }
        }
        match &s.query {
            Query::KeyValue(kv) => {
                self.out.push_str(&kv.key.place().to_string());
                self.tuple(&kv.key.tuple);
                match &kv.value {
                    Value::Data(elem, opts) => {
                        self.out.push('=');
                        self.elem(elem);
                        self.out.push_str(&opts.to_string());
                    }
                    value => self.out.push_str(&value.to_string()),
                }
            }
            query => self.out.push_str(&query.to_string()),
        }
    }

    /// A place between tokens of a tuple: a comment there ends its line.
    fn gap(&mut self) {
        if let Some(note) = self.next() {
            self.comment_after_comment |= self.after_comment && !note.own_line;
            self.after_comment = true;
            if note.own_line {
                self.out.push('\n');
            }
            self.comment(&note, note.own_line);
            self.out.push('\n');
        }
    }

    fn code(&mut self, text: &str) {
        self.out.push_str(text);
        self.after_comment = false;
    }

    fn tuple(&mut self, t: &Tuple) {
        self.code("(");
        self.gap();
        for (n, e) in t.elems.iter().enumerate() {
            if n > 0 {
                self.out.push(',');
                self.gap();
            }
            self.elem(e);
            self.gap();
        }
        if t.rest.is_some() {
            if !t.elems.is_empty() {
                self.out.push(',');
                self.gap();
            }
            self.code("...");
            self.gap();
        }
        self.code(")");
    }

    fn elem(&mut self, e: &Elem) {
        match &e.kind {
            ElemKind::Tuple(t) => self.tuple(t),
            kind => self.code(&kind.to_string()),
        }
    }
}

/// Parses `text`, which must succeed, as a test failure otherwise.
fn parse_ok<'a>(what: &str, text: &'a str) -> Result<Script<'a>, TestCaseError> {
    parse(text).map_err(|e| TestCaseError::fail(format!("{what} {text:?} does not parse: {e:?}")))
}

proptest! {
    #![proptest_config(config(768))]

    #[test]
    fn format_keeps_comments(
        script in arb::script(),
        notes in notes(),
        blanks in vec(proptest::bool::weighted(0.2), 0..6),
        crlf in proptest::bool::weighted(0.2),
    ) {
        let mut w = Writer {
            out: String::new(),
            notes: notes.into_iter(),
            blanks: blanks.into_iter(),
            written: Vec::new(),
            after_comment: false,
            comment_after_comment: false,
        };
        w.script(&script);
        // Printed text has no line feed but the line breaks, which may as
        // well be CRLF.
        let text = if crlf { w.out.replace('\n', "\r\n") } else { w.out };

        let parsed = parse_ok("commented", &text)?;
        prop_assert_eq!(&parsed.items, &script.items, "text: {:?}", text);
        prop_assert_eq!(&comment_texts(&parsed), &w.written, "text: {:?}", text);

        let formatted = format(&parsed);
        let again = parse_ok("formatted", &formatted)?;
        prop_assert_eq!(&again.items, &script.items, "formatted: {:?}", formatted);
        // A comment that only a comma separates from the comment before it
        // cannot stay after code: the formatter writes the comma right after
        // the element, before the first comment, so the second comment gets
        // a line of its own. Its text stays.
        let kept = comment_texts(&again);
        if w.comment_after_comment {
            let texts = |cs: &[(String, bool)]| cs.iter().map(|c| c.0.clone()).collect::<Vec<_>>();
            prop_assert_eq!(texts(&kept), texts(&w.written), "text: {:?}\nformatted: {:?}", text, formatted);
        } else {
            prop_assert_eq!(&kept, &w.written, "text: {:?}\nformatted: {:?}", text, formatted);
        }
        prop_assert_eq!(format(&again), &formatted[..]);
    }
}

/// Formats `text` and returns the comments of the result.
fn formatted_comments(text: &str) -> Vec<(String, bool)> {
    let script = parse(text).expect("valid FQL");
    comment_texts(&parse(&format(&script)).expect("formatted FQL parses"))
}

/// A comment after a comma that follows another comment gets a line of its
/// own rather than joining the first comment's text.
#[test]
fn comment_after_a_comma_stays_apart() {
    assert_eq!(
        formatted_comments("/a(1 %a\n, %b\n)"),
        [("a".to_string(), false), ("b".to_string(), true)],
    );
    assert_eq!(
        formatted_comments("/a(1\n%a\n, %b\n2)"),
        [("a".to_string(), true), ("b".to_string(), true)],
    );
}
