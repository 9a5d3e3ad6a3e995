//! Matching stored key-values against a query's key tuple and value,
//! compiled once per statement so a range read decides each row without
//! allocating, and naming what the named variables bind.

use crate::codec::{self, ElementFilter, ValueDecoder};
use crate::syntax::ast::*;

/// A hole's name and, for an aggregate, its kind and options.
#[derive(Clone, Debug, Default)]
pub struct HoleInfo {
    pub name: Option<String>,
    pub agg: Option<(Agg, Options)>,
}

impl HoleInfo {
    fn new(v: &Variable) -> HoleInfo {
        HoleInfo {
            name: v.name.as_ref().map(|n| n.name.to_string()),
            agg: v.types.iter().find_map(|t| match t.ty {
                Type::Agg(a) => Some((a, t.options.clone())),
                _ => None,
            }),
        }
    }
}

/// What one element of a key tuple matches.
#[derive(Clone, Debug)]
enum ElemMatch {
    Hole(ElementFilter, HoleInfo),
    Const(ElemKind),
    Tuple(TupleMatch),
}

/// What a key tuple (or a tuple value) matches.
#[derive(Clone, Debug)]
pub struct TupleMatch {
    elems: Vec<ElemMatch>,
    rest: bool,
}

impl TupleMatch {
    pub fn new(t: &Tuple) -> TupleMatch {
        TupleMatch {
            elems: t.elems.iter().map(elem_match).collect(),
            rest: t.rest.is_some(),
        }
    }

    pub fn matches(&self, elems: &[Elem]) -> bool {
        let len_ok = if self.rest {
            elems.len() >= self.elems.len()
        } else {
            elems.len() == self.elems.len()
        };
        len_ok
            && self
                .elems
                .iter()
                .zip(elems)
                .all(|(m, e)| m.matches(&e.kind))
    }

    /// The values of the named holes in a matching tuple.
    pub fn captures(&self, elems: &[Elem], out: &mut Vec<(String, ElemKind)>) {
        for (m, e) in self.elems.iter().zip(elems) {
            match (m, &e.kind) {
                (ElemMatch::Hole(_, HoleInfo { name: Some(n), .. }), k) => {
                    out.push((n.clone(), k.clone()))
                }
                (ElemMatch::Tuple(t), ElemKind::Tuple(inner)) => t.captures(&inner.elems, out),
                _ => {}
            }
        }
    }

    /// The aggregates among the top-level elements, by position.
    pub fn aggregates(&self) -> Vec<(usize, Agg, Options)> {
        self.elems
            .iter()
            .enumerate()
            .filter_map(|(n, m)| match m {
                ElemMatch::Hole(
                    _,
                    HoleInfo {
                        agg: Some((a, o)), ..
                    },
                ) => Some((n, *a, o.clone())),
                _ => None,
            })
            .collect()
    }
}

fn elem_match(e: &Elem) -> ElemMatch {
    match &e.kind {
        // The checker has vetted the variable's options.
        ElemKind::Var(v) => {
            ElemMatch::Hole(ElementFilter::new(v).unwrap_or_default(), HoleInfo::new(v))
        }
        ElemKind::Tuple(t) => ElemMatch::Tuple(TupleMatch::new(t)),
        k => ElemMatch::Const(k.clone()),
    }
}

impl ElemMatch {
    fn matches(&self, kind: &ElemKind) -> bool {
        match (self, kind) {
            (ElemMatch::Hole(f, _), k) => f.accepts(k),
            (ElemMatch::Tuple(m), ElemKind::Tuple(t)) => m.matches(&t.elems),
            (ElemMatch::Tuple(_), _) => false,
            (ElemMatch::Const(c), k) => c == k,
        }
    }
}

/// How a statement's value reads and filters stored values.
#[derive(Clone, Debug)]
pub enum ValueMatch {
    /// `<>`, a left-out value, or a variable: decode by its types and
    /// print with the options of the type that decoded it.
    Decode(ValueDecoder, Vec<Options>, HoleInfo),
    /// A tuple with holes: any tuple value that matches.
    Tuple(TupleMatch),
    /// A constant: the stored bytes must be its encoding.
    Equals(Vec<u8>, ElemKind, Options),
}

impl ValueMatch {
    pub fn new(value: &Value) -> Result<ValueMatch, codec::Error> {
        Ok(match value {
            Value::Data(e, opts) => match &e.kind {
                ElemKind::Var(v) => ValueMatch::Decode(
                    ValueDecoder::new(v).unwrap_or_default(),
                    v.types.iter().map(|t| t.options.clone()).collect(),
                    HoleInfo::new(v),
                ),
                ElemKind::Tuple(t) if t.has_holes() => ValueMatch::Tuple(TupleMatch::new(t)),
                k => {
                    let bytes = codec::encode_value(e, opts)?.bytes;
                    ValueMatch::Equals(bytes, k.clone(), opts.clone())
                }
            },
            Value::Omitted | Value::Clear(_) => {
                ValueMatch::Decode(ValueDecoder::untyped(), Vec::new(), HoleInfo::default())
            }
        })
    }

    /// The value to print for `bytes`, with its options, or `None` when
    /// the value does not match.
    pub fn read(&self, bytes: &[u8]) -> Option<(ElemKind, Options)> {
        match self {
            ValueMatch::Decode(d, opts, _) => {
                let found = d.decode(bytes)?;
                let opts = found
                    .alternative
                    .and_then(|n| opts.get(n).cloned())
                    .unwrap_or_default();
                Some((found.elem, opts))
            }
            ValueMatch::Tuple(m) => {
                let elems = codec::decode_tuple(bytes)?;
                m.matches(&elems).then(|| {
                    let tuple = Tuple {
                        elems: elems.into_iter().collect(),
                        rest: None,
                        span: Span::default(),
                    };
                    (ElemKind::Tuple(tuple), Options::default())
                })
            }
            ValueMatch::Equals(want, k, opts) => {
                (want.as_slice() == bytes).then(|| (k.clone(), opts.clone()))
            }
        }
    }

    /// The names a read value binds.
    pub fn captures(&self, value: &ElemKind, out: &mut Vec<(String, ElemKind)>) {
        match (self, value) {
            (ValueMatch::Decode(_, _, HoleInfo { name: Some(n), .. }), v) => {
                out.push((n.clone(), v.clone()))
            }
            (ValueMatch::Tuple(m), ElemKind::Tuple(t)) => m.captures(&t.elems, out),
            _ => {}
        }
    }

    /// The value's aggregate, if it is one.
    pub fn aggregate(&self) -> Option<(Agg, Options)> {
        match self {
            ValueMatch::Decode(_, _, HoleInfo { agg, .. }) => agg.clone(),
            _ => None,
        }
    }
}
