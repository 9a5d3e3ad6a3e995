//! Keys: a directory's prefix followed by the packed key tuple.
//!
//! Keys are always tuple-encoded, which is what lets a range read decode
//! any key without a schema and what makes their byte order the order of
//! their elements. An empty tuple is the bare prefix.

use std::cmp::Ordering;

use crate::syntax::ast::{Agg, Elem, ElemKind, Span, Type, Variable};

use super::element::{elem, type_of};
use super::options::{self, Encoding, Subject};
use super::tuple::{pack, unpack_tuple};
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
    let rest = key.strip_prefix(prefix)?;
    Some(unpack_tuple(rest)?.into_iter().map(elem).collect())
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ElementFilter {
    /// The accepted types; empty accepts every element.
    types: Vec<Type>,
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
            let types = var.types.iter().map(|spec| spec.ty).collect();
            Ok(ElementFilter { types })
        } else {
            Err(errors)
        }
    }

    /// Whether a decoded element matches.
    pub fn accepts(&self, kind: &ElemKind) -> bool {
        let Some(found) = type_of(kind) else {
            return false;
        };
        self.types.is_empty()
            || self.types.iter().any(|&ty| match ty {
                Type::Any | Type::Agg(Agg::Count) => true,
                Type::Agg(Agg::Sum | Agg::Min | Agg::Max | Agg::Avg) => {
                    matches!(found, Type::Int | Type::Num)
                }
                Type::Agg(Agg::Append) => matches!(found, Type::Str | Type::Bytes),
                ty => ty == found,
            })
    }
}
