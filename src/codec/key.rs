//! Keys: a directory's prefix followed by the packed key tuple.
//!
//! Keys are always tuple-encoded, which is what lets a range read decode
//! any key without a schema and what makes their byte order the order of
//! their elements. An empty tuple is the bare prefix.

use std::cmp::Ordering;

use crate::syntax::ast::{Agg, Elem, ElemKind, Span, Type, Variable};

use super::element::into_owned;
use super::options::{self, Encoding, Subject};
use super::tuple::pack;
use super::unpack::{Scalar, unpack_into};
use super::{Encoded, Error, Op};

/// Encodes a key: `prefix` and the packed `elems`, all of them data.
///
/// A key holding one incomplete vstamp is a versionstamped key: the bytes
/// end in the 4-byte little-endian offset of the stamp's transaction
/// version, counted from the start of the key, and the caller writes it with
/// `SET_VERSIONSTAMPED_KEY`. Two incomplete vstamps are an error.
pub fn encode_key(prefix: &[u8], elems: &[Elem]) -> Result<Encoded, Error> {
    let at = match (elems.first(), elems.last()) {
        (Some(first), Some(last)) => Span {
            start: first.span.start,
            end: last.span.end,
        },
        _ => Span::default(),
    };
    Ok(pack(prefix, elems, at)?.encoded(Op::VersionstampedKey))
}

/// The elements of a stored key under `prefix`; `None` when the key is
/// not under the prefix or the rest is not a tuple (data some other
/// client wrote there).
///
/// The whole rest is decoded as a list of elements. Decoding it as one
/// element, as the tuple crate also offers, would read `15 01` and
/// `05 15 01 00` alike.
pub fn decode_key(prefix: &[u8], key: &[u8]) -> Option<Vec<Elem<'static>>> {
    let mut elems = Vec::new();
    decode_key_into(prefix, key, &mut elems).then(|| {
        elems
            .into_iter()
            .map(|e| Elem {
                kind: into_owned(e.kind),
                span: e.span,
            })
            .collect()
    })
}

/// [`decode_key`] onto `out`, borrowing the key's text: a range read
/// decodes every row into one vector and copies nothing. `false` when the
/// key is not a tuple under `prefix`.
pub fn decode_key_into<'k>(prefix: &[u8], key: &'k [u8], out: &mut Vec<Elem<'k>>) -> bool {
    key.strip_prefix(prefix)
        .is_some_and(|rest| unpack_into(rest, out))
}

/// Compares two key tuples as the database orders them: by their packed
/// bytes. (The tuple crate's own ordering of elements differs: it ranks
/// `nil` and `(nil)` equal, for one.)
pub fn compare(a: &[Elem], b: &[Elem]) -> Result<Ordering, Error> {
    let pack = |elems: &[Elem]| pack(&[], elems, Span::default()).map(|p| p.bytes);
    Ok(pack(a)?.cmp(&pack(b)?))
}

/// What a variable inside a key or a tuple value matches. Its elements are
/// tuple-encoded and carry their types, so matching is by type alone, and
/// encoding options have no place there.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementFilter {
    /// The accepted types, one bit each by [`DATA_TYPES`] order, worked
    /// out once: a range read asks for every element of every row.
    accepted: u16,
}

/// Every type of data, in the order of [`ElementFilter`]'s bits.
const DATA_TYPES: [Type; 12] = [
    Type::Nil,
    Type::Bool,
    Type::Int,
    Type::Num,
    Type::Str,
    Type::Bytes,
    Type::Uuid,
    Type::Vstamp,
    Type::Tuple,
    Type::F32,
    Type::Vstamp80,
    Type::User,
];

/// The bits of the types a [`Scalar`] may have.
const INT: u32 = 2;
const STR: u32 = 4;

/// Accepts every element, as `<>` does.
impl Default for ElementFilter {
    fn default() -> Self {
        ElementFilter::of(&[])
    }
}

impl ElementFilter {
    /// The filter for a variable inside a tuple; every problem with the
    /// options of its types, if any.
    pub fn new(var: &Variable) -> Result<ElementFilter, Vec<Error>> {
        let mut errors = Vec::new();
        for spec in &var.types {
            match options::resolve(&spec.options, Subject::Type(spec.ty)) {
                Ok(Encoding::Tuple) => {}
                Ok(_) => errors.push(Error::EncodingInTuple {
                    at: spec.options.span,
                }),
                Err(e) => errors.extend(e),
            }
        }
        if errors.is_empty() {
            let types: Vec<Type> = var.types.iter().map(|spec| spec.ty).collect();
            Ok(ElementFilter::of(&types))
        } else {
            Err(errors)
        }
    }

    /// The filter that accepts the elements of any of `types`; no types
    /// accept every element.
    pub(super) fn of(types: &[Type]) -> ElementFilter {
        let takes = |found: Type| {
            types.is_empty()
                || types.iter().any(|&ty| match ty {
                    Type::Any | Type::Agg(Agg::Count) => true,
                    Type::Agg(Agg::Sum | Agg::Min | Agg::Max | Agg::Avg) => {
                        Type::Int.includes(found) || Type::Num.includes(found)
                    }
                    Type::Agg(Agg::Append) => matches!(found, Type::Str | Type::Bytes),
                    ty => ty.includes(found),
                })
        };
        let accepted = DATA_TYPES
            .iter()
            .enumerate()
            .filter(|&(_, &ty)| takes(ty))
            .fold(0, |bits, (n, _)| bits | (1 << n));
        ElementFilter { accepted }
    }

    /// Whether a decoded element matches.
    pub fn accepts(&self, kind: &ElemKind) -> bool {
        let bit = match kind {
            ElemKind::Nil => 0,
            ElemKind::Bool(_) => 1,
            ElemKind::Int(_) => INT,
            ElemKind::Num(_) => 3,
            ElemKind::Str(_) => STR,
            ElemKind::Bytes(_) => 5,
            ElemKind::Uuid(_) => 6,
            ElemKind::Vstamp(_) => 7,
            ElemKind::Tuple(_) => 8,
            ElemKind::F32(_) => 9,
            ElemKind::Vstamp80(_) => 10,
            ElemKind::User(_) => 11,
            ElemKind::Var(_) | ElemKind::Ref(_) => return false,
        };
        self.accepted & (1 << bit) != 0
    }

    /// [`accepts`](Self::accepts) for a scalar read straight from its
    /// bytes.
    #[inline]
    pub fn accepts_scalar(&self, scalar: Scalar) -> bool {
        let bit = match scalar {
            Scalar::Int(_) => INT,
            Scalar::Str(_) => STR,
        };
        self.accepted & (1 << bit) != 0
    }
}
