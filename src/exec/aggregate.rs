//! Folding the rows of a read into one value: `count`, `sum`, `min`,
//! `max`, `avg` and `append`.
//!
//! `sum`, `min` and `max` give an int when every input is an int and a
//! num otherwise; `avg` always gives a num; `append` gives a str when
//! every input is a str and bytes otherwise, with its `sep` between the
//! pieces. Ints are added exactly, whatever their size.
//!
//! `min` and `max` order values as FDB's tuple layer orders nums: a
//! negative NaN below `-inf`, `-0.0` below `0.0`, a positive NaN above
//! `inf` (the order of their encoded bytes, which is IEEE 754's total
//! order); an int counts as the num nearest it, and two ints compare
//! exactly. That order is total, so the result does not depend on the order
//! the rows are read in: a reversed read gives the same answer.

use num_bigint::BigInt;
use num_traits::ToPrimitive;

use crate::syntax::ast::{Agg, ElemKind, Int, Num, OptArgKind, OptName, Options};

/// One aggregate being folded.
#[derive(Clone, Debug)]
pub struct Fold {
    agg: Agg,
    sep: Vec<u8>,
    rows: u64,
    int_sum: BigInt,
    num_sum: f64,
    all_int: bool,
    best: Option<ElemKind<'static>>,
    pieces: Vec<u8>,
    all_str: bool,
}

impl Fold {
    /// A fold for `agg`, with the options of its type (`sep` for append).
    pub fn new(agg: Agg, options: &Options<'_>) -> Fold {
        let sep = options
            .items
            .iter()
            .find(|o| o.name == OptName::Sep)
            .and_then(|o| match o.arg.as_ref().map(|a| &a.kind) {
                Some(OptArgKind::Str(s)) => Some(s.as_bytes().to_vec()),
                _ => None,
            })
            .unwrap_or_default();
        Fold {
            agg,
            sep,
            rows: 0,
            int_sum: BigInt::default(),
            num_sum: 0.0,
            all_int: true,
            best: None,
            pieces: Vec::new(),
            all_str: true,
        }
    }

    /// Adds one row's element; the read's filter has already checked that
    /// its type suits the aggregate.
    pub fn push(&mut self, value: &ElemKind<'_>) {
        // A 32-bit float folds as the num it widens to, exactly.
        if let ElemKind::F32(x) = value {
            return self.push(&ElemKind::Num(Num(f64::from(x.0))));
        }
        self.rows += 1;
        match self.agg {
            Agg::Count => {}
            Agg::Sum | Agg::Avg => match value {
                ElemKind::Int(n) => self.int_sum += n.to_big(),
                ElemKind::Num(x) => {
                    self.all_int = false;
                    self.num_sum += x.0;
                }
                _ => {}
            },
            Agg::Min | Agg::Max => {
                if matches!(value, ElemKind::Num(_)) {
                    self.all_int = false;
                }
                let better = match &self.best {
                    None => true,
                    Some(best) => {
                        let order = compare(value, best);
                        if self.agg == Agg::Min {
                            order.is_lt()
                        } else {
                            order.is_gt()
                        }
                    }
                };
                if better {
                    self.best = Some(match value {
                        ElemKind::Int(n) => ElemKind::Int(n.clone()),
                        ElemKind::Num(x) => ElemKind::Num(*x),
                        _ => return,
                    });
                }
            }
            Agg::Append => {
                if self.rows > 1 {
                    self.pieces.extend_from_slice(&self.sep);
                }
                match value {
                    ElemKind::Str(s) => self.pieces.extend_from_slice(s.as_bytes()),
                    ElemKind::Bytes(b) => {
                        self.all_str = false;
                        self.pieces.extend_from_slice(b);
                    }
                    _ => {}
                }
            }
        }
    }

    /// The result; `None` for `min`, `max` and `avg` of no rows.
    pub fn finish(self) -> Option<ElemKind<'static>> {
        let big = |n: BigInt| ElemKind::Int(Int::from_big(n));
        match self.agg {
            Agg::Count => Some(big(BigInt::from(self.rows))),
            Agg::Sum if self.all_int => Some(big(self.int_sum)),
            Agg::Sum => Some(num(to_f64(&self.int_sum) + self.num_sum)),
            Agg::Avg if self.rows == 0 => None,
            Agg::Avg => Some(num(
                (to_f64(&self.int_sum) + self.num_sum) / self.rows as f64
            )),
            Agg::Min | Agg::Max => {
                let best = self.best?;
                Some(if self.all_int {
                    best
                } else {
                    num(number(&best))
                })
            }
            Agg::Append => Some(match String::from_utf8(self.pieces) {
                Ok(s) if self.all_str => ElemKind::Str(s.into()),
                Ok(s) => ElemKind::Bytes(s.into_bytes()),
                Err(e) => ElemKind::Bytes(e.into_bytes()),
            }),
        }
    }
}

fn num(x: f64) -> ElemKind<'static> {
    ElemKind::Num(Num(x))
}

fn to_f64(n: &BigInt) -> f64 {
    n.to_f64().unwrap_or(f64::NAN)
}

/// The order of `min` and `max`: by [`number`] in IEEE 754's total order
/// (FDB's tuple order of nums), then, for two ints that are the same num,
/// exactly. Two values equal in it give the same result, as the result is
/// a num unless every input is an int.
fn compare(a: &ElemKind<'_>, b: &ElemKind<'_>) -> std::cmp::Ordering {
    let by_num = number(a).total_cmp(&number(b));
    match (a, b) {
        (ElemKind::Int(x), ElemKind::Int(y)) => by_num.then_with(|| x.to_big().cmp(&y.to_big())),
        _ => by_num,
    }
}

/// An int or num as an f64, for comparing.
fn number(e: &ElemKind<'_>) -> f64 {
    match e {
        ElemKind::Int(n) => to_f64(&n.to_big()),
        ElemKind::Num(x) => x.0,
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn fold(agg: Agg, values: &[ElemKind<'static>]) -> Option<ElemKind<'static>> {
        let mut f = Fold::new(agg, &Options::default());
        values.iter().for_each(|v| f.push(v));
        f.finish()
    }

    fn int(n: i64) -> ElemKind<'static> {
        ElemKind::Int(Int::Small(n))
    }

    #[test]
    fn numeric_results_are_ints_only_when_every_input_is() {
        let ints = [int(20), int(-18), int(3)];
        assert_eq!(fold(Agg::Sum, &ints), Some(int(5)));
        assert_eq!(fold(Agg::Min, &ints), Some(int(-18)));
        assert_eq!(fold(Agg::Max, &ints), Some(int(20)));
        assert_eq!(fold(Agg::Avg, &ints), Some(num(5.0 / 3.0)));
        assert_eq!(fold(Agg::Count, &ints), Some(int(3)));
        let mixed = [int(1), num(0.5)];
        assert_eq!(fold(Agg::Sum, &mixed), Some(num(1.5)));
        assert_eq!(fold(Agg::Max, &mixed), Some(num(1.0)));
        assert_eq!(fold(Agg::Min, &[]), None);
        assert_eq!(fold(Agg::Sum, &[]), Some(int(0)));
        // Exact beyond 64 bits.
        let big = [int(i64::MAX), int(i64::MAX)];
        assert_eq!(
            fold(Agg::Sum, &big),
            Some(ElemKind::Int(Int::from_big(BigInt::from(i64::MAX) * 2)))
        );
    }

    #[test]
    fn append_joins_with_the_separator() {
        let s = |t: &'static str| ElemKind::Str(t.into());
        let script = crate::syntax::parse("/a(1)=<body:append[sep:\"\\n\"]>").unwrap();
        let crate::syntax::ast::Item::Statement(stmt) = &script.items[0] else {
            unreachable!()
        };
        let crate::syntax::ast::Query::KeyValue(kv) = &stmt.query else {
            unreachable!()
        };
        let crate::syntax::ast::Value::Data(e, _) = &kv.value else {
            unreachable!()
        };
        let ElemKind::Var(v) = &e.kind else {
            unreachable!()
        };
        let mut f = Fold::new(Agg::Append, &v.types[0].options);
        f.push(&s("a"));
        f.push(&s("b"));
        assert_eq!(f.finish(), Some(s("a\nb")));
        let mixed = [s("a"), ElemKind::Bytes(vec![0xff])];
        assert_eq!(
            fold(Agg::Append, &mixed),
            Some(ElemKind::Bytes(vec![b'a', 0xff]))
        );
    }

    /// A num of any bit pattern: every NaN of either sign, both zeros,
    /// both infinities, subnormals.
    fn any_num() -> impl Strategy<Value = ElemKind<'static>> {
        prop_oneof![
            any::<u64>().prop_map(|bits| num(f64::from_bits(bits))),
            prop::sample::select(vec![
                f64::NAN,
                -f64::NAN,
                f64::from_bits(0x7ff0_0000_0000_0001),
                f64::from_bits(0xfff0_0000_0000_0001),
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0,
                -0.0,
                1.0,
                9007199254740992.0,
            ])
            .prop_map(num),
        ]
    }

    fn any_int() -> impl Strategy<Value = ElemKind<'static>> {
        prop_oneof![
            (-3i64..3).prop_map(int),
            any::<i64>().prop_map(int),
            // Ints one apart that are the same num.
            (0i64..3).prop_map(|n| int((1 << 53) + n)),
            any::<i64>().prop_map(|n| ElemKind::Int(Int::from_big(BigInt::from(n) << 1100))),
        ]
    }

    proptest! {
        /// `min` and `max` give the same result, bit for bit, whatever
        /// the order of the rows: read forward, reversed or shuffled.
        #[test]
        fn min_and_max_do_not_depend_on_the_order_of_rows(
            (values, shuffled) in prop::collection::vec(
                prop_oneof![any_num(), any_int()], 1..16
            ).prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle()))
        ) {
            let reversed: Vec<_> = values.iter().rev().cloned().collect();
            for agg in [Agg::Min, Agg::Max] {
                let forward = fold(agg, &values);
                prop_assert_eq!(&forward, &fold(agg, &reversed), "{:?}", agg);
                prop_assert_eq!(&forward, &fold(agg, &shuffled), "{:?}", agg);
            }
        }
    }

    /// The order is the tuple layer's: a negative NaN is below `-inf`, a
    /// positive one above `inf`, `-0.0` below `0.0`; ints compare exactly.
    #[test]
    fn min_and_max_follow_the_tuple_order_of_nums() {
        let neg_nan = -f64::NAN;
        let values = [
            num(1.0),
            num(f64::NAN),
            num(neg_nan),
            num(f64::NEG_INFINITY),
        ];
        let bits = |e: Option<ElemKind<'static>>| match e {
            Some(ElemKind::Num(Num(x))) => x.to_bits(),
            other => panic!("not a num: {other:?}"),
        };
        assert_eq!(bits(fold(Agg::Min, &values)), neg_nan.to_bits());
        assert_eq!(bits(fold(Agg::Max, &values)), f64::NAN.to_bits());
        let finite = [
            num(f64::NEG_INFINITY),
            num(-0.0),
            num(0.0),
            num(f64::INFINITY),
        ];
        assert_eq!(bits(fold(Agg::Min, &finite[1..3])), (-0.0f64).to_bits());
        assert_eq!(bits(fold(Agg::Max, &finite[1..3])), 0.0f64.to_bits());
        assert_eq!(fold(Agg::Min, &finite), Some(num(f64::NEG_INFINITY)));
        let close = [int((1 << 53) + 1), int(1 << 53), int((1 << 53) + 2)];
        assert_eq!(fold(Agg::Max, &close), Some(int((1 << 53) + 2)));
        assert_eq!(fold(Agg::Min, &close), Some(int(1 << 53)));
    }
}
