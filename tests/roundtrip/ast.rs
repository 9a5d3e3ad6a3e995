//! Trees print as text that parses back as the same tree.

use fql::check::load;
use fql::syntax::ast::*;
use fql::syntax::{format, parse};
use proptest::prelude::*;

use super::{arb, config};

/// Whether `text` holds no control character but line breaks: what the
/// printer writes never carries one to a terminal.
fn printable(text: &str) -> bool {
    !text.chars().any(|c| c.is_control() && c != '\n')
}

/// The parse of `text`, which must succeed, as a string for messages.
fn parse_ok(text: &str) -> Result<Script<'_>, TestCaseError> {
    parse(text).map_err(|e| TestCaseError::fail(format!("{text:?} does not parse: {e:?}")))
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn scripts_print_and_parse_back(script in arb::script()) {
        let text = script.to_string();
        prop_assert!(printable(&text), "text: {:?}", text);
        prop_assert_eq!(parse_ok(&text)?, script.clone(), "text: {:?}", text);
        // Loading may find check errors in random trees, but must not panic.
        let _ = load(&text);
    }

    /// Without comments or blank lines, formatting is canonical printing
    /// plus a final line break.
    #[test]
    fn format_without_trivia_is_printing(script in arb::script()) {
        let text = script.to_string();
        let formatted = format(&script);
        let expected = if text.is_empty() { text } else { text + "\n" };
        prop_assert_eq!(&formatted, &expected);
        prop_assert_eq!(&format(&parse_ok(&formatted)?), &formatted);
    }

    /// Any string prints as a literal with no control character in its
    /// text, which reads back as the same bytes.
    #[test]
    fn strings_with_control_characters_print_as_escapes(text in arb::text(), raw in any::<String>()) {
        for s in [text.as_ref(), raw.as_str()] {
            let literal = fql::syntax::quote(s);
            prop_assert!(!literal.chars().any(char::is_control), "{:?}", literal);
            let src = format!("/t({literal})");
            let script = parse_ok(&src)?;
            let [Item::Statement(st)] = script.items.as_slice() else {
                return Err(TestCaseError::fail("not one statement"));
            };
            let Query::KeyValue(kv) = &st.query else {
                return Err(TestCaseError::fail("not a key-value"));
            };
            let ElemKind::Str(back) = &kv.key.tuple.elems[0].kind else {
                return Err(TestCaseError::fail("not a string"));
            };
            prop_assert_eq!(back.as_bytes(), s.as_bytes());
        }
    }

    /// Any bytes print in the escaped form as printable ASCII alone, which
    /// reads back as the same bytes wherever bytes stand: an element, a
    /// value, a raw key, the ends of a raw range, a parameter.
    #[test]
    fn escaped_bytes_parse_back_as_the_same_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..64),
        end in proptest::collection::vec(any::<u8>(), 0..8),
    ) {
        let literal = fql::syntax::escaped_bytes_literal(&bytes);
        prop_assert!(literal.bytes().all(|b| (b' '..=b'~').contains(&b)), "{:?}", literal);
        let hex = fql::syntax::bytes_literal(&bytes);
        let end_literal = fql::syntax::escaped_bytes_literal(&end);
        let src = format!(
            "/t({literal})={literal}\n{literal}={literal}\n{literal}...\n{literal}..{end_literal}"
        );
        let canonical = format!(
            "/t({hex})={hex}\n{hex}={hex}\n{hex}...\n{hex}..{}",
            fql::syntax::bytes_literal(&end)
        );
        let script = parse_ok(&src)?;
        prop_assert_eq!(script.to_string(), canonical, "text: {:?}", src);
        let elem = fql::syntax::parse_element(&literal)
            .map_err(|e| TestCaseError::fail(format!("{literal:?}: {e:?}")))?;
        prop_assert_eq!(elem.kind, ElemKind::Bytes(bytes.clone()));
    }

    #[test]
    fn elements_in_tuples_parse_back(elem in arb::elem()) {
        let text = format!("/t({elem})");
        let script = parse_ok(&text)?;
        let [Item::Statement(s)] = script.items.as_slice() else {
            return Err(TestCaseError::fail(format!("{text:?} is not one statement")));
        };
        let Query::KeyValue(kv) = &s.query else {
            return Err(TestCaseError::fail(format!("{text:?} is not a key-value")));
        };
        prop_assert_eq!(kv.key.tuple.elems.as_slice(), std::slice::from_ref(&elem), "text: {:?}", text);
    }

    #[test]
    fn values_parse_back(value in arb::value()) {
        let text = format!("/t(){value}");
        let script = parse_ok(&text)?;
        let [Item::Statement(s)] = script.items.as_slice() else {
            return Err(TestCaseError::fail(format!("{text:?} is not one statement")));
        };
        let Query::KeyValue(kv) = &s.query else {
            return Err(TestCaseError::fail(format!("{text:?} is not a key-value")));
        };
        prop_assert_eq!(&kv.value, &value, "text: {:?}", text);
    }

    #[test]
    fn directories_parse_back(dir in arb::directory()) {
        let text = dir.to_string();
        let script = parse_ok(&text)?;
        let [Item::Statement(s)] = script.items.as_slice() else {
            return Err(TestCaseError::fail(format!("{text:?} is not one statement")));
        };
        prop_assert_eq!(&s.query, &Query::Directory(dir), "text: {:?}", text);
    }

    /// Diagnostics and `fmt` slice the source by spans, so every span of a
    /// parsed node must cover exactly the text that node prints as.
    #[test]
    fn spans_cover_their_text(script in arb::script()) {
        let text = script.to_string();
        let parsed = parse_ok(&text)?;
        let mut spans = Spans { src: &text, bad: Vec::new() };
        spans.script(&parsed);
        prop_assert!(spans.bad.is_empty(), "text: {:?}\nwrong spans: {:#?}", text, spans.bad);
    }
}

/// Collects every node whose span does not cover its printed text.
struct Spans<'a> {
    src: &'a str,
    bad: Vec<(String, String, Span)>,
}

impl Spans<'_> {
    fn expect(&mut self, span: Span, printed: impl ToString) {
        let printed = printed.to_string();
        let covered = self.src.get(span.range()).unwrap_or("<not a char range>");
        if covered != printed {
            self.bad.push((printed, covered.to_string(), span));
        }
    }

    fn script(&mut self, script: &Script) {
        for item in &script.items {
            match item {
                Item::Meta(m) => self.expect(m.span, m),
                Item::Statement(s) => self.statement(s),
            }
        }
    }

    fn statement(&mut self, s: &Statement) {
        self.expect(s.span, s);
        self.options(&s.options);
        match &s.query {
            Query::Directory(dir) => self.directory(dir),
            Query::Remove { dir, keyword } => {
                self.directory(dir);
                self.expect(*keyword, "remove");
            }
            Query::KeyValue(kv) => {
                match kv.key.place() {
                    Place::Directory(dir) => self.directory(dir),
                    place => self.expect(kv.key.dir.span, place),
                }
                self.tuple(&kv.key.tuple);
                self.value(&kv.value);
            }
            Query::Raw(raw) => {
                self.expect(raw.key.span, &raw.key);
                self.value(&raw.value);
            }
        }
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Omitted => {}
            Value::Clear(span) => self.expect(*span, "clear"),
            Value::Data(elem, opts) => {
                self.elem(elem);
                self.options(opts);
            }
            Value::Mutate(m) => {
                self.expect(m.span, m);
                self.expect(m.op_span, m.op);
                self.elem(&m.operand);
                self.options(&m.options);
            }
        }
    }

    fn options(&mut self, opts: &Options) {
        if opts.is_empty() {
            return;
        }
        self.expect(opts.span, opts);
        for opt in &opts.items {
            self.expect(opt.span, opt);
            if let Some(arg) = &opt.arg {
                let printed = opt.to_string();
                let arg_text = &printed[opt.name.name().len() + 1..];
                self.expect(arg.span, arg_text);
            }
        }
    }

    fn directory(&mut self, dir: &Directory) {
        self.expect(dir.span, dir);
        for elem in &dir.elems {
            self.expect(elem.span(), elem);
            match elem {
                DirElem::Name { .. } => {}
                DirElem::Var(v) => self.variable(v),
                DirElem::Ref(r) => self.reference(r),
            }
        }
        if let Some(rest) = dir.rest {
            self.expect(rest, "...");
        }
    }

    fn tuple(&mut self, t: &Tuple) {
        self.expect(t.span, t);
        for elem in &t.elems {
            self.elem(elem);
        }
        if let Some(rest) = t.rest {
            self.expect(rest, "...");
        }
    }

    fn elem(&mut self, e: &Elem) {
        self.expect(e.span, e);
        match &e.kind {
            ElemKind::Tuple(t) => self.tuple(t),
            ElemKind::Var(v) => self.variable(v),
            ElemKind::Ref(r) => self.reference(r),
            _ => {}
        }
    }

    fn variable(&mut self, v: &Variable) {
        self.expect(v.span, v);
        if let (Some(name), Some(span)) = (v.name, v.name_span()) {
            self.expect(span, name);
        }
        for spec in &v.types {
            self.expect(spec.span, format!("{}{}", spec.ty, spec.options));
            self.options(&spec.options);
        }
    }

    fn reference(&mut self, r: &Reference) {
        self.expect(r.span, r);
        self.expect(r.name.span, r.name.name);
        if let Some(cast) = &r.cast {
            self.expect(cast.span, cast.ty);
        }
    }
}

/// Tuples as deep as the parser takes them print, parse and format like
/// any others, comments included; one level more is an error, not a crash.
#[test]
fn deepest_tuples_round_trip() {
    let depth = fql::syntax::MAX_DEPTH;
    let text = format!("/a{}{}", "(".repeat(depth), ")".repeat(depth));
    let script = parse(&text).expect("tuples at the depth limit parse");
    assert_eq!(script.to_string(), text);

    let commented = format!("/a{} %c\n{}", "(".repeat(depth), ")".repeat(depth));
    let script = parse(&commented).expect("a comment in the deepest tuple parses");
    let formatted = format(&script);
    let again = parse(&formatted).expect("formatted deep tuples parse");
    assert_eq!(again.items, script.items);
    assert_eq!(super::comment_texts(&again), [("c".to_string(), false)]);

    let deeper = format!("/a{}{}", "(".repeat(depth + 1), ")".repeat(depth + 1));
    assert!(parse(&deeper).is_err());
}
