//! Read-your-writes against a model: random writes on random data, then
//! every kind of read inside the transaction and after commit, compared
//! with a `BTreeMap` that applied the same writes.

use std::collections::BTreeMap;

use fql::kv::{self, Database, MutationType, RangeOption, StreamingMode};
use proptest::prelude::*;

use super::support::Backend;

#[derive(Clone, Debug)]
enum Op {
    Set(Vec<u8>, Vec<u8>),
    Clear(Vec<u8>),
    ClearRange(Vec<u8>, Vec<u8>),
    Add(Vec<u8>, u8),
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(vec![b'a', b'b', b'c', 0u8, 0xfe]),
        1..4,
    )
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (key(), key()).prop_map(|(k, v)| Op::Set(k, v)),
        1 => key().prop_map(Op::Clear),
        1 => (key(), key()).prop_map(|(a, b)| Op::ClearRange(a.clone().min(b.clone()), a.max(b))),
        1 => (key(), any::<u8>()).prop_map(|(k, n)| Op::Add(k, n)),
    ]
}

fn apply(model: &mut BTreeMap<Vec<u8>, Vec<u8>>, op: &Op) {
    match op {
        Op::Set(k, v) => {
            model.insert(k.clone(), v.clone());
        }
        Op::Clear(k) => {
            model.remove(k);
        }
        Op::ClearRange(b, e) => model.retain(|k, _| !(k >= b && k < e)),
        Op::Add(k, n) => {
            let cur = model.get(k).and_then(|v| v.first().copied()).unwrap_or(0);
            model.insert(k.clone(), vec![cur.wrapping_add(*n)]);
        }
    }
}

fn run_op(tx: &mut dyn kv::Transaction, op: &Op) {
    match op {
        Op::Set(k, v) => tx.set(k, v),
        Op::Clear(k) => tx.clear(k),
        Op::ClearRange(b, e) => tx.clear_range(b, e),
        Op::Add(k, n) => tx.atomic_op(k, &[*n], MutationType::Add),
    }
    .unwrap();
}

fn check_reads(
    tx: &mut dyn kv::Transaction,
    model: &BTreeMap<Vec<u8>, Vec<u8>>,
    probe: &[Vec<u8>],
) {
    for k in probe {
        assert_eq!(
            tx.get(k, false).unwrap().as_ref(),
            model.get(k),
            "get {k:?}"
        );
    }
    let all: Vec<(Vec<u8>, Vec<u8>)> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    for (i, b) in probe.iter().enumerate() {
        let e = &probe[(i + 1) % probe.len()];
        let (b, e) = (b.clone().min(e.clone()), b.clone().max(e.clone()));
        for reverse in [false, true] {
            for limit in [None, Some(1), Some(3)] {
                let mut range = RangeOption::new(b.clone(), e.clone()).mode(StreamingMode::Small);
                range.reverse = reverse;
                range.limit = limit;
                let got: Vec<(Vec<u8>, Vec<u8>)> = kv::collect_range(tx, &range, false)
                    .unwrap()
                    .into_iter()
                    .map(|r| (r.key, r.value))
                    .collect();
                let mut want: Vec<_> = all
                    .iter()
                    .filter(|(k, _)| *k >= b && *k < e)
                    .cloned()
                    .collect();
                if reverse {
                    want.reverse();
                }
                want.truncate(limit.unwrap_or(usize::MAX));
                assert_eq!(
                    got, want,
                    "range {b:?}..{e:?} reverse={reverse} limit={limit:?}"
                );
            }
        }
    }
}

fn model_test(
    backend: &Backend,
    initial: Vec<(Vec<u8>, Vec<u8>)>,
    ops: Vec<Op>,
    probe: Vec<Vec<u8>>,
) {
    let mut model = BTreeMap::new();
    let mut tx = backend.create_trx().unwrap();
    for (k, v) in &initial {
        tx.set(k, v).unwrap();
        model.insert(k.clone(), v.clone());
    }
    // Many stored rows between the probes, so reads cross batches.
    for i in 0..40u8 {
        let k = vec![b'b', i];
        tx.set(&k, &[i]).unwrap();
        model.insert(k, vec![i]);
    }
    tx.commit().unwrap();

    let mut tx = backend.create_trx().unwrap();
    for op in &ops {
        run_op(&mut *tx, op);
        apply(&mut model, op);
    }
    check_reads(&mut *tx, &model, &probe);
    tx.commit().unwrap();
    let mut fresh = backend.create_trx().unwrap();
    check_reads(&mut *fresh, &model, &probe);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn memory_matches_model(
        initial in prop::collection::vec((key(), key()), 0..20),
        ops in prop::collection::vec(op(), 0..30),
        probe in prop::collection::vec(key(), 2..6),
    ) {
        model_test(&Backend::memory(), initial, ops, probe);
    }

    #[test]
    fn file_matches_model(
        initial in prop::collection::vec((key(), key()), 0..20),
        ops in prop::collection::vec(op(), 0..30),
        probe in prop::collection::vec(key(), 2..6),
    ) {
        model_test(&Backend::file(), initial, ops, probe);
    }
}
