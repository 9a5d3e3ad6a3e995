//! Through the engine: any key-value written by a script reads back equal,
//! through `<>` and through a variable of its own type.

use std::sync::Arc;

use fql::exec::Engine;
use fql::kv::embedded::Embedded;
use fql::syntax::ast::*;
use proptest::collection::vec;
use proptest::prelude::*;

use crate::props::{data, elem};

/// Runs `script` and returns what it prints, one line per result.
fn run(engine: &Engine, script: &str) -> Vec<String> {
    let script = fql::syntax::load(script).unwrap_or_else(|e| panic!("{script}: {e:?}"));
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
