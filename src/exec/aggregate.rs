//! Folding the rows of a read into one value: `count`, `sum`, `min`,
//! `max`, `avg` and `append`.
//!
//! `sum`, `min` and `max` give an int when every input is an int and a
//! num otherwise; `avg` always gives a num; `append` gives a str when
//! every input is a str and bytes otherwise, with its `sep` between the
//! pieces. Ints are added exactly, whatever their size.

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
                        let (a, b) = (number(value), number(best));
                        if self.agg == Agg::Min { a < b } else { a > b }
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
}
