//! Through the engine: any key-value written by a script reads back equal,
//! through `<>` and through a variable of its own type.

use std::sync::Arc;

use fql::exec::Engine;
use fql::kv::embedded::Embedded;
use fql::syntax::ast::*;
use proptest::collection::vec;
use proptest::prelude::*;

use super::props::{data, elem};

/// Runs `script` and returns what it prints, one line per result.
fn run(engine: &Engine, script: &str) -> Vec<String> {
    let script = fql::check::load(script).unwrap_or_else(|e| panic!("{script}: {e:?}"));
    let plan = fql::plan::plan(&script, &Default::default()).expect("a plan");
    let mut out = Vec::new();
    engine
        .run(&plan, &mut |row: fql::exec::Output| {
            out.push(row.to_string());
            Ok(())
        })
        .expect("runs");
    out
}

/// What `<>` reads for a stored value: a tuple of one element is that
/// element, and the empty tuple is nil (they are the same bytes).
fn untyped(value: &ElemKind<'static>) -> Option<ElemKind<'static>> {
    match value {
        // Bytes are stored raw: `<>` reads a tuple when they happen to be one.
        ElemKind::Bytes(_) => None,
        ElemKind::Tuple(t) if t.elems.is_empty() => Some(ElemKind::Nil),
        ElemKind::Tuple(t) if t.elems.len() == 1 => Some(t.elems[0].kind.clone()),
        other => Some(other.clone()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn written_key_values_read_back(key in vec(data(), 0..4), value in data()) {
        let engine = Engine::new(Arc::new(Embedded::memory()));
        let tuple = Tuple {
            elems: key.into_iter().map(elem).collect(),
            rest: None,
            span: Span::default(),
        };
        let written = format!("/prop{tuple}={}", elem(value.clone()));
        prop_assert!(run(&engine, &written).is_empty());
        let ty = fql::codec::type_of(&value).expect("data");
        let typed = run(&engine, &format!("/prop{tuple}=<{ty}>"));
        prop_assert_eq!(typed, vec![written.clone()]);
        if let Some(plain) = untyped(&value) {
            let read = run(&engine, &format!("/prop{tuple}"));
            prop_assert_eq!(read, vec![format!("/prop{tuple}={}", elem(plain))]);
        }
        // A range read over the directory finds it too.
        prop_assert_eq!(run(&engine, &format!("/prop(...)=<{ty}>")), vec![written]);
    }
}

/// Runs `script` and returns what it prints as the command line prints
/// it: each result written straight from the rows read.
fn run_text(engine: &Engine, script: &str) -> Vec<String> {
    let script = fql::check::load(script).unwrap_or_else(|e| panic!("{script}: {e:?}"));
    let plan = fql::plan::plan(&script, &Default::default()).expect("a plan");
    let mut out = Vec::new();
    engine
        .run(
            &plan,
            &mut fql::exec::Each(|found: fql::exec::Found<'_>| {
                let mut line = Vec::new();
                found.write_to(&mut line);
                out.push(String::from_utf8(line).expect("FQL is text"));
                Ok(())
            }),
        )
        .expect("runs");
    out
}

/// A range read pattern: the types each key element may have (`None`
/// for `<>`), whether more elements may follow, and the value's type.
struct Pattern {
    text: &'static str,
    key: &'static [Option<&'static [&'static str]>],
    rest: bool,
    value: Option<&'static str>,
}

const PATTERNS: &[Pattern] = &[
    Pattern {
        text: "/rows(...)",
        key: &[],
        rest: true,
        value: None,
    },
    Pattern {
        text: "/rows(<int|str>,<>)=<str>",
        key: &[Some(&["int", "str"]), None],
        rest: false,
        value: Some("str"),
    },
    Pattern {
        text: "/rows(<str>,...)=<int>",
        key: &[Some(&["str"])],
        rest: true,
        value: Some("int"),
    },
    Pattern {
        text: "/rows(<>)=<any>",
        key: &[None],
        rest: false,
        value: None,
    },
];

impl Pattern {
    /// What the pattern prints for a stored row, if it matches.
    fn expect(&self, key: &[ElemKind<'static>], value: &ElemKind<'static>) -> Option<String> {
        let type_name = |k: &ElemKind| fql::codec::type_of(k).expect("data").to_string();
        let len_ok = if self.rest {
            key.len() >= self.key.len()
        } else {
            key.len() == self.key.len()
        };
        let key_ok =
            len_ok
                && self.key.iter().zip(key).all(|(types, k)| {
                    types.is_none_or(|types| types.contains(&type_name(k).as_str()))
                });
        // A tuple of one element is stored as that element: a typed read
        // sees what `<>` sees.
        let shown = untyped(value)?;
        if self.value.is_some_and(|ty| type_name(&shown) != ty) {
            return None;
        }
        let tuple = Tuple {
            elems: key.iter().cloned().map(elem).collect(),
            rest: None,
            span: Span::default(),
        };
        key_ok.then(|| format!("/rows{tuple}={}", elem(shown)))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Rows of every kind read through patterns print the same whether
    /// printed straight from the bytes read or through owned results,
    /// and match what the pattern says they match.
    #[test]
    fn range_reads_print_what_their_pattern_matches(
        rows in vec(
            (
                vec(data(), 1..4),
                data().prop_filter("raw bytes read back only as bytes", |v| {
                    !matches!(v, ElemKind::Bytes(_))
                }),
            ),
            1..12,
        )
    ) {
        let engine = Engine::new(Arc::new(Embedded::memory()));
        // Key order is the order of the packed keys; a later write wins.
        let mut stored = std::collections::BTreeMap::new();
        let mut script = String::new();
        for (key, value) in rows {
            let elems: Vec<Elem<'static>> = key.iter().cloned().map(elem).collect();
            let packed = fql::codec::encode_key(&[], &elems).expect("data").bytes;
            let tuple = Tuple { elems: elems.into_iter().collect(), rest: None, span: Span::default() };
            script.push_str(&format!("/rows{tuple}={}\n", elem(value.clone())));
            stored.insert(packed, (key, value));
        }
        prop_assert!(run(&engine, &script).is_empty());
        for pattern in PATTERNS {
            let expected: Vec<String> = stored
                .values()
                .filter_map(|(k, v)| pattern.expect(k, v))
                .collect();
            prop_assert_eq!(run_text(&engine, pattern.text), expected.clone(), "{}", pattern.text);
            prop_assert_eq!(run(&engine, pattern.text), expected, "{}", pattern.text);
        }
    }
}

/// A num of one of the kinds whose order `min` and `max` must settle:
/// NaN, both infinities, both zeros, and ordinary values; or an int.
fn ordered() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec!["nan", "inf", "-inf", "0.0", "-0.0", "1.5", "-2.5e300"])
            .prop_map(str::to_string),
        any::<f64>().prop_map(|x| {
            Elem {
                kind: ElemKind::Num(Num(x)),
                span: Span::default(),
            }
            .to_string()
        }),
        (-5i64..5).prop_map(|n| n.to_string()),
        // Ints that are the same num once converted.
        (0i64..3).prop_map(|n| ((1i64 << 53) + n).to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `min` and `max` over any values give the same result read forward
    /// and reversed, in the key and in the value.
    #[test]
    fn min_and_max_read_forward_and_reversed_agree(values in vec(ordered(), 1..10)) {
        let engine = Engine::new(Arc::new(Embedded::memory()));
        let mut script = String::new();
        for (n, value) in values.iter().enumerate() {
            script.push_str(&format!("/agg({n})={value}\n/keys({value},{n})=nil\n"));
        }
        prop_assert!(run(&engine, &script).is_empty());
        for agg in ["min", "max"] {
            for read in [format!("/agg(<>)=<{agg}>"), format!("/keys(<{agg}>,<>)")] {
                let forward = run_text(&engine, &read);
                let reversed = run_text(&engine, &format!("[reverse] {read}"));
                prop_assert_eq!(forward.len(), 1, "{}", read);
                prop_assert_eq!(forward, reversed, "{}", read);
            }
        }
    }
}
