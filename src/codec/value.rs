//! Values: what is stored under a key, and how a read gets an element back.
//!
//! Written, a data element is packed as a one-element tuple so that it can
//! be read back without a schema; a tuple is packed as itself (so `42` and
//! `(42)` are the same bytes); bytes are stored as they are; and `nil`,
//! `0x` and `()` are all the empty value. Options choose a fixed-width or
//! raw form instead (see [`options`](super::options)).
//!
//! Read, a value is decoded by the types of the variable that stands for
//! it, tried in order; the first that decodes wins, and a value that none
//! decodes does not match.

use crate::syntax::ast::{Agg, Elem, ElemKind, Num, Options, Tuple, Type, Variable};

use super::element::type_of;
use super::options::{self, Encoding, Subject};
use super::tuple::{Packed, pack};
use super::unpack::{unpack_into, unpack_single};
use super::{ElementFilter, Encoded, Error, Op};

/// Encodes a data element as a value, as its options say.
///
/// A reference's value is encoded by passing an element of the bound value
/// with the reference's span, so that an error points at the reference.
pub fn encode_value(elem: &Elem, opts: &Options) -> Result<Encoded, Error> {
    let ty = type_of(&elem.kind).ok_or_else(|| not_data(elem))?;
    let encoding =
        options::resolve(opts, Subject::Value(ty)).map_err(|mut errors| errors.swap_remove(0))?;
    encode_as(elem, encoding)
}

fn not_data(elem: &Elem) -> Error {
    Error::NotData {
        hole: elem.kind.to_string(),
        at: elem.span,
    }
}

/// Encodes `elem` in an encoding [`options::resolve`] chose for its type.
fn encode_as(elem: &Elem, encoding: Encoding) -> Result<Encoded, Error> {
    match (&elem.kind, encoding) {
        (ElemKind::Int(n), Encoding::Int(layout)) => {
            super::fixed::encode_int(n, layout, elem.span).map(Encoded::set)
        }
        (ElemKind::Num(Num(x)), Encoding::Num(layout)) => {
            super::fixed::encode_num(*x, layout, elem.span).map(Encoded::set)
        }
        (kind, Encoding::Raw) => match super::fixed::encode_raw(kind) {
            // The stamp's transaction version is the first ten bytes.
            Some((bytes, stamped)) => Ok(Packed {
                bytes,
                stamp: stamped.then_some(0),
            }
            .encoded(Op::VersionstampedValue)),
            None => encode_tuple(elem),
        },
        // `resolve` gives a layout only to the type it fits, so what is
        // left is the tuple encoding.
        _ => encode_tuple(elem),
    }
}

/// The default encoding.
fn encode_tuple(elem: &Elem) -> Result<Encoded, Error> {
    let packed = match &elem.kind {
        ElemKind::Nil => return Ok(Encoded::set(Vec::new())),
        ElemKind::Bytes(b) => return Ok(Encoded::set(b.clone())),
        ElemKind::Tuple(t) => {
            if let Some(rest) = t.rest {
                return Err(Error::NotData {
                    hole: "...".into(),
                    at: rest,
                });
            }
            pack(&[], &t.elems, elem.span)?
        }
        _ => pack(&[], std::slice::from_ref(elem), elem.span)?,
    };
    Ok(packed.encoded(Op::VersionstampedValue))
}

/// Decodes a value with no type to go by, as `<>` and a left-out value
/// read it: empty bytes are `nil`, a tuple of one element is that element,
/// a longer tuple is a tuple, and bytes that are not a tuple are bytes.
/// Text is borrowed from `bytes`.
pub fn decode_untyped(bytes: &[u8]) -> ElemKind<'_> {
    if bytes.is_empty() {
        return ElemKind::Nil;
    }
    if let Some(one) = unpack_single(bytes) {
        return one;
    }
    match decode_tuple(bytes) {
        Some(elems) => ElemKind::Tuple(Box::new(Tuple {
            elems: elems.into_iter().collect(),
            rest: None,
            span: Default::default(),
        })),
        None => ElemKind::Bytes(bytes.to_vec()),
    }
}

/// Decodes a value as a tuple, for a value written as a tuple pattern such
/// as `=(<int>,...)`: any valid tuple, the empty value included.
pub fn decode_tuple(bytes: &[u8]) -> Option<Vec<Elem<'_>>> {
    let mut elems = Vec::new();
    unpack_into(bytes, &mut elems).then_some(elems)
}

/// How a read decodes values: by the types of a variable, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValueDecoder {
    /// Each type with its encoding; empty for an untyped read.
    alternatives: Vec<(Type, Encoding)>,
}

/// A decoded value, its text borrowed from the stored bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded<'a> {
    /// The element.
    pub elem: ElemKind<'a>,
    /// Which of the variable's types decoded it; `None` for an untyped read.
    pub alternative: Option<usize>,
}

impl ValueDecoder {
    /// The decoder of `<>`, `<any>` and a left-out value.
    pub fn untyped() -> ValueDecoder {
        ValueDecoder::default()
    }

    /// The decoder for a variable that stands for a whole value; every
    /// problem with the options of its types, if any.
    pub fn new(var: &Variable) -> Result<ValueDecoder, Vec<Error>> {
        let mut alternatives = Vec::new();
        let mut errors = Vec::new();
        for spec in &var.types {
            match options::resolve(&spec.options, Subject::Type(spec.ty)) {
                Ok(encoding) => alternatives.push((spec.ty, encoding)),
                Err(e) => errors.extend(e),
            }
        }
        if errors.is_empty() {
            Ok(ValueDecoder { alternatives })
        } else {
            Err(errors)
        }
    }

    /// The filter by which a value that is one packed [`Scalar`](super::Scalar) decodes
    /// as that scalar, by the first of the decoder's types or none: so it
    /// can be read straight from its bytes. `None` when the decoder reads
    /// values some other way.
    pub fn scalar_filter(&self) -> Option<ElementFilter> {
        match self.alternatives[..] {
            [] => Some(ElementFilter::default()),
            [(ty @ (Type::Any | Type::Int | Type::Str), Encoding::Tuple)] => {
                Some(ElementFilter::of(&[ty]))
            }
            _ => None,
        }
    }

    /// The value `bytes` holds, by the first type that decodes it; `None`
    /// when none does.
    pub fn decode<'b>(&self, bytes: &'b [u8]) -> Option<Decoded<'b>> {
        if self.alternatives.is_empty() {
            return Some(Decoded {
                elem: decode_untyped(bytes),
                alternative: None,
            });
        }
        // One scalar type, tuple-encoded, as most reads name: the untyped
        // reading, if it has the type.
        if let [(ty, Encoding::Tuple)] = self.alternatives[..]
            && !matches!(ty, Type::Any | Type::Bytes | Type::Tuple | Type::Agg(_))
        {
            let elem = decode_untyped(bytes);
            return type_of(&elem)
                .is_some_and(|t| ty.includes(t))
                .then_some(Decoded {
                    elem,
                    alternative: Some(0),
                });
        }
        // Decoded at most once, by the first type that needs it.
        let mut untyped: Option<ElemKind<'b>> = None;
        for (n, &(ty, encoding)) in self.alternatives.iter().enumerate() {
            let found = match encoding {
                Encoding::Int(layout) => super::fixed::decode_int(bytes, layout).map(ElemKind::Int),
                Encoding::Num(layout) => {
                    super::fixed::decode_num(bytes, layout).map(|x| ElemKind::Num(Num(x)))
                }
                Encoding::Raw => super::fixed::decode_raw(bytes, ty),
                Encoding::Tuple => {
                    let reading = untyped.get_or_insert_with(|| decode_untyped(bytes));
                    match decode_typed(bytes, ty, reading) {
                        // Taken, not copied: this is the answer.
                        Some(Typed::AsRead) => untyped.take(),
                        Some(Typed::Other(elem)) => Some(elem),
                        None => None,
                    }
                }
            };
            if let Some(elem) = found {
                return Some(Decoded {
                    elem,
                    alternative: Some(n),
                });
            }
        }
        None
    }
}

/// What a type makes of a tuple-encoded value.
enum Typed<'b> {
    /// The untyped reading itself.
    AsRead,
    /// Another reading of the bytes.
    Other(ElemKind<'b>),
}

/// A tuple-encoded value read as `ty`, given its untyped reading.
fn decode_typed<'b>(bytes: &'b [u8], ty: Type, untyped: &ElemKind<'_>) -> Option<Typed<'b>> {
    let is = |t: Type| type_of(untyped).is_some_and(|found| t.includes(found));
    match ty {
        Type::Any | Type::Agg(Agg::Count) => Some(Typed::AsRead),
        // Bytes are written raw, so they are read raw: whatever is stored.
        Type::Bytes => Some(Typed::Other(ElemKind::Bytes(bytes.to_vec()))),
        // Any valid tuple, unwrapped or not: `42` and `(42)` are one value.
        Type::Tuple => decode_tuple(bytes).map(|elems| {
            Typed::Other(ElemKind::Tuple(Box::new(Tuple {
                elems: elems.into_iter().collect(),
                rest: None,
                span: Default::default(),
            })))
        }),
        Type::Agg(Agg::Sum | Agg::Min | Agg::Max | Agg::Avg) => {
            (is(Type::Int) || is(Type::Num)).then_some(Typed::AsRead)
        }
        Type::Agg(Agg::Append) if is(Type::Str) => Some(Typed::AsRead),
        Type::Agg(Agg::Append) => Some(Typed::Other(ElemKind::Bytes(bytes.to_vec()))),
        t => is(t).then_some(Typed::AsRead),
    }
}

impl Encoded {
    fn set(bytes: Vec<u8>) -> Encoded {
        Encoded { bytes, op: Op::Set }
    }
}
