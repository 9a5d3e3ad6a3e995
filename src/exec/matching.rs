//! Matching stored key-values against a query's key tuple and value,
//! compiled once per statement so a range read decides each row without
//! allocating.

use crate::codec::{self, ElementFilter, ValueDecoder};
use crate::syntax::ast::*;

/// What one element of a key tuple matches.
#[derive(Clone, Debug)]
enum ElemMatch {
    Hole(ElementFilter),
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
}

fn elem_match(e: &Elem) -> ElemMatch {
    match &e.kind {
        // The checker has vetted the variable's options.
        ElemKind::Var(v) => ElemMatch::Hole(ElementFilter::new(v).unwrap_or_default()),
        ElemKind::Tuple(t) => ElemMatch::Tuple(TupleMatch::new(t)),
        k => ElemMatch::Const(k.clone()),
    }
}

impl ElemMatch {
    fn matches(&self, kind: &ElemKind) -> bool {
        match (self, kind) {
            (ElemMatch::Hole(f), k) => f.accepts(k),
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
    Decode(ValueDecoder, Vec<Options>),
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
                ),
                ElemKind::Tuple(t) if t.has_holes() => ValueMatch::Tuple(TupleMatch::new(t)),
                k => {
                    let bytes = codec::encode_value(e, opts)?.bytes;
                    ValueMatch::Equals(bytes, k.clone(), opts.clone())
                }
            },
            Value::Omitted | Value::Clear(_) => {
                ValueMatch::Decode(ValueDecoder::untyped(), Vec::new())
            }
        })
    }

    /// The value to print for `bytes`, with its options, or `None` when
    /// the value does not match.
    pub fn read(&self, bytes: &[u8]) -> Option<(ElemKind, Options)> {
        match self {
            ValueMatch::Decode(d, opts) => {
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
}
