//! Matching stored key-values against a query's key tuple and value,
//! compiled once per statement so a range read decides each row without
//! allocating, and naming what the named variables bind.

use std::sync::Arc;

use crate::codec::{self, ElementFilter, Scalar, ValueDecoder};
use crate::syntax::ast::*;

use super::Part;
use super::output::{Piece, put_data};

/// A hole's name and, for an aggregate, its kind and options.
#[derive(Clone, Debug, Default)]
pub struct HoleInfo<'a> {
    pub name: Option<&'a str>,
    pub agg: Option<(Agg, Options<'a>)>,
}

impl<'a> HoleInfo<'a> {
    /// The hole's aggregate, with its name, if it is one.
    fn aggregate(&self) -> Option<AggHole<'a>> {
        let (agg, options) = self.agg.clone()?;
        Some((agg, options, self.name))
    }

    fn new(v: &Variable<'a>) -> HoleInfo<'a> {
        HoleInfo {
            name: v.name,
            agg: v.types.iter().find_map(|t| match t.ty {
                Type::Agg(a) => Some((a, t.options.clone())),
                _ => None,
            }),
        }
    }
}

/// What one element of a key tuple matches.
#[derive(Clone, Debug)]
enum ElemMatch<'a> {
    Hole(ElementFilter, HoleInfo<'a>),
    Const(ElemKind<'a>),
    Tuple(TupleMatch<'a>),
}

/// What a key tuple (or a tuple value) matches.
#[derive(Clone, Debug)]
pub struct TupleMatch<'a> {
    elems: Vec<ElemMatch<'a>>,
    rest: bool,
}

/// The names a row binds, and their values.
pub type Captures = Vec<(String, ElemKind<'static>)>;

/// An aggregate: its kind, its options and its name, if it has one.
pub type AggHole<'a> = (Agg, Options<'a>, Option<&'a str>);

/// Whether a name is bound in two places of a key-value pattern: its
/// directory, key and value (`/p(<x:int>,<x:int>)`).
pub fn repeats<'a>(kv: &KeyValue<'a>) -> bool {
    let mut names: Vec<&'a str> = Vec::new();
    let mut twice = false;
    let mut note = |v: &Variable<'a>| {
        if let Some(name) = v.name {
            twice |= names.contains(&name);
            names.push(name);
        }
    };
    for e in &kv.key.dir.elems {
        if let DirElem::Var(v) = e {
            note(v);
        }
    }
    let value = match &kv.value {
        Value::Data(e, _) => Some(e),
        _ => None,
    };
    for e in kv.key.tuple.elems.iter().chain(value) {
        e.walk(&mut |e| {
            if let ElemKind::Var(v) = &e.kind {
                note(v)
            }
        });
    }
    twice
}

/// Whether every name a row binds more than once took the same value
/// each time: the same element, as the tuple layer would encode it.
pub fn agree(bound: &Captures) -> bool {
    bound.iter().enumerate().all(|(n, (name, value))| {
        bound[..n]
            .iter()
            .all(|(other, earlier)| other != name || earlier == value)
    })
}

impl<'a> TupleMatch<'a> {
    pub fn new(t: &Tuple<'a>) -> TupleMatch<'a> {
        TupleMatch {
            elems: t.elems.iter().map(elem_match).collect(),
            rest: t.rest.is_some(),
        }
    }

    pub fn matches(&self, elems: &[Elem<'_>]) -> bool {
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

    /// [`matches`](Self::matches) for a key read straight from its packed
    /// bytes onto `out`, as far as it is made of [`Scalar`]s: whether it
    /// matches, or `None` when it holds another element before that is
    /// known and only the full decoding can tell. Most range reads are of
    /// such keys, and this spares them building a data element for each
    /// of their elements.
    pub fn matches_scalars<'b>(
        &self,
        mut bytes: &'b [u8],
        out: &mut Vec<Scalar<'b>>,
    ) -> Option<bool> {
        let mut patterns = self.elems.iter();
        let mut matched = true;
        // A key that fails to match is still read to its end: only then
        // is it known to be a tuple, and a key that is not one is shown
        // rather than passed over.
        while !bytes.is_empty() {
            let (s, rest) = Scalar::read(bytes)?;
            match patterns.next() {
                Some(m) if !m.matches_scalar(s) => matched = false,
                // Past the patterns, only `...` takes more elements.
                None if !self.rest => matched = false,
                _ => {}
            }
            out.push(s);
            bytes = rest;
        }
        Some(matched && patterns.next().is_none())
    }

    /// The values of the named holes in a matching tuple.
    pub fn captures(&self, elems: &[Elem<'_>], out: &mut Captures) {
        for (m, e) in self.elems.iter().zip(elems) {
            match (m, &e.kind) {
                (ElemMatch::Hole(_, HoleInfo { name: Some(n), .. }), k) => {
                    out.push((n.to_string(), codec::to_owned(k)))
                }
                (ElemMatch::Tuple(t), ElemKind::Tuple(inner)) => t.captures(&inner.elems, out),
                _ => {}
            }
        }
    }

    /// The aggregates among the top-level elements, by position.
    pub fn aggregates(&self) -> Vec<(usize, AggHole<'a>)> {
        self.elems
            .iter()
            .enumerate()
            .filter_map(|(n, m)| match m {
                ElemMatch::Hole(_, hole) => Some((n, hole.aggregate()?)),
                _ => None,
            })
            .collect()
    }
}

fn elem_match<'a>(e: &Elem<'a>) -> ElemMatch<'a> {
    match &e.kind {
        // The checker has vetted the variable's options.
        ElemKind::Var(v) => {
            ElemMatch::Hole(ElementFilter::new(v).unwrap_or_default(), HoleInfo::new(v))
        }
        ElemKind::Tuple(t) => ElemMatch::Tuple(TupleMatch::new(t)),
        k => ElemMatch::Const(k.clone()),
    }
}

impl ElemMatch<'_> {
    /// [`matches`](Self::matches) for a scalar read straight from its
    /// bytes.
    #[inline]
    fn matches_scalar(&self, scalar: Scalar<'_>) -> bool {
        match (self, scalar) {
            (ElemMatch::Hole(f, _), s) => f.accepts_scalar(s),
            (ElemMatch::Tuple(_), _) => false,
            (ElemMatch::Const(ElemKind::Str(c)), Scalar::Str(s)) => c == s,
            (ElemMatch::Const(ElemKind::Int(Int::Small(c))), Scalar::Int(n)) => *c == n,
            (ElemMatch::Const(_), _) => false,
        }
    }

    fn matches(&self, kind: &ElemKind<'_>) -> bool {
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
pub enum ValueMatch<'a> {
    /// `<>`, a left-out value, or a variable: decode by its types and
    /// print with the options of the type that decoded it.
    Decode(ValueDecoder, Vec<Option<Arc<str>>>, HoleInfo<'a>),
    /// A tuple with holes: any tuple value that matches.
    Tuple(TupleMatch<'a>),
    /// A constant: the stored bytes must be its encoding; printed as
    /// written.
    Equals(Vec<u8>, Arc<str>),
}

/// A value as a result prints it, borrowed from the stored bytes and the
/// statement that read it.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadValue<'a> {
    /// Decoded data, with the options of the type that decoded it.
    Data(ElemKind<'a>, Option<&'a Arc<str>>),
    /// A constant the query matched, printed as written.
    Written(&'a Arc<str>),
}

impl ReadValue<'_> {
    /// The value as an owned row holds it.
    pub fn to_owned(&self) -> (Part, Option<Arc<str>>) {
        match self {
            ReadValue::Data(d, o) => (Part::Data(codec::to_owned(d)), o.cloned()),
            ReadValue::Written(text) => (Part::Written(Arc::clone(text)), None),
        }
    }

    /// Whether this is the value an owned row holds.
    pub fn is(&self, owned: &(Part, Option<Arc<str>>)) -> bool {
        match (self, owned) {
            (ReadValue::Data(d, o), (Part::Data(e), p)) => {
                d == e && o.map(|o| &**o) == p.as_deref()
            }
            (ReadValue::Written(t), (Part::Written(u), None)) => t == &u,
            _ => false,
        }
    }

    /// The options it prints with.
    pub fn options(&self) -> Option<&str> {
        match self {
            ReadValue::Data(_, o) => o.map(|o| &**o),
            ReadValue::Written(_) => None,
        }
    }
}

impl Piece for ReadValue<'_> {
    fn put(&self, w: &mut impl std::fmt::Write) -> std::fmt::Result {
        match self {
            ReadValue::Data(d, _) => put_data(w, d),
            ReadValue::Written(text) => w.write_str(text),
        }
    }
}

impl<'a> ValueMatch<'a> {
    pub fn new(value: &Value<'a>) -> Result<ValueMatch<'a>, codec::Error> {
        Ok(match value {
            Value::Data(e, opts) => match &e.kind {
                ElemKind::Var(v) => ValueMatch::Decode(
                    ValueDecoder::new(v).unwrap_or_default(),
                    v.types
                        .iter()
                        .map(|t| (!t.options.is_empty()).then(|| t.options.to_string().into()))
                        .collect(),
                    HoleInfo::new(v),
                ),
                ElemKind::Tuple(t) if t.has_holes() => ValueMatch::Tuple(TupleMatch::new(t)),
                k => {
                    let bytes = codec::encode_value(e, opts)?.bytes;
                    ValueMatch::Equals(bytes, format!("{k}{opts}").into())
                }
            },
            // A mutation reads nothing: never asked.
            Value::Omitted | Value::Clear(_) | Value::Mutate(_) => {
                ValueMatch::Decode(ValueDecoder::untyped(), Vec::new(), HoleInfo::default())
            }
        })
    }

    /// The value to print for `bytes`, with its options, or `None` when
    /// the value does not match.
    pub fn read<'r>(&'r self, bytes: &'r [u8]) -> Option<ReadValue<'r>> {
        match self {
            ValueMatch::Decode(d, opts, _) => {
                let found = d.decode(bytes)?;
                let opts = found.alternative.and_then(|n| opts.get(n)?.as_ref());
                Some(ReadValue::Data(found.elem, opts))
            }
            ValueMatch::Tuple(m) => {
                let elems = codec::decode_tuple(bytes)?;
                m.matches(&elems).then(|| {
                    let tuple = Tuple {
                        elems: elems.into_iter().collect(),
                        rest: None,
                        span: Span::default(),
                    };
                    ReadValue::Data(ElemKind::Tuple(Box::new(tuple)), None)
                })
            }
            ValueMatch::Equals(want, text) => {
                (want.as_slice() == bytes).then_some(ReadValue::Written(text))
            }
        }
    }

    /// The filter by which a value that is one [`Scalar`] reads as that
    /// scalar, printed with no options; `None` when values read otherwise.
    pub fn scalar_filter(&self) -> Option<ElementFilter> {
        match self {
            ValueMatch::Decode(d, opts, _) if opts.iter().all(Option::is_none) => d.scalar_filter(),
            _ => None,
        }
    }

    /// The names a read value binds.
    pub fn captures(&self, value: &ReadValue<'_>, out: &mut Captures) {
        match (self, value) {
            (ValueMatch::Decode(_, _, HoleInfo { name: Some(n), .. }), ReadValue::Data(v, _)) => {
                out.push((n.to_string(), codec::to_owned(v)))
            }
            (ValueMatch::Tuple(m), ReadValue::Data(ElemKind::Tuple(t), _)) => {
                m.captures(&t.elems, out)
            }
            _ => {}
        }
    }

    /// The value's aggregate, if it is one.
    pub fn aggregate(&self) -> Option<AggHole<'a>> {
        match self {
            ValueMatch::Decode(_, _, hole) => hole.aggregate(),
            _ => None,
        }
    }
}
