//! What a data element packs as: the tuple crate's element, or one of the
//! tuple layer's types the crate lacks (the 80-bit versionstamp, `32`,
//! and the user types, `40` to `4f`), packed here beside the crate's.

use std::borrow::Cow;
use std::io;

use foundationdb_tuple::{Bytes, Element, TupleDepth, TuplePack, VersionstampOffset};

use crate::syntax::ast::{Elem, ElemKind, F32, Int, Num, Tuple};
use crate::syntax::{IntTooLarge, MAX_INT_BYTES};

use super::Error;
use super::element::{not_data, versionstamp};

/// One element to pack: the crate's, or one of the tuple layer's types
/// the crate lacks, which are packed here beside it. Nested tuples are
/// packed by the crate's own list packing, so a nested part gets the
/// crate's nesting (`05`, `00 ff` for nil, `00`) and its stamp offsets.
#[derive(Clone, Debug)]
pub(super) enum Part<'e> {
    /// An element the crate packs.
    Element(Element<'e>),
    /// An 80-bit versionstamp: `32` and its ten bytes.
    Vstamp80([u8; 10]),
    /// A user type: its code, then its bytes as they are.
    User(u8, &'e [u8]),
    /// A nested tuple.
    Tuple(Vec<Part<'e>>),
}

impl TuplePack for Part<'_> {
    fn pack<W: io::Write>(&self, w: &mut W, depth: TupleDepth) -> io::Result<VersionstampOffset> {
        match self {
            Part::Element(e) => e.pack(w, depth),
            Part::Vstamp80(tx) => {
                w.write_all(&[0x32])?;
                w.write_all(tx)?;
                Ok(VersionstampOffset::None { size: 11 })
            }
            Part::User(code, data) => {
                w.write_all(&[*code])?;
                w.write_all(data)?;
                let size = u32::try_from(1 + data.len())
                    .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
                Ok(VersionstampOffset::None { size })
            }
            Part::Tuple(items) => items.pack(w, depth),
        }
    }
}

/// What a data element packs as, borrowing its text and bytes. Holes
/// have no encoding and are refused.
pub(super) fn to_part<'e>(elem: &'e Elem<'_>) -> Result<Part<'e>, Error> {
    let element = match &elem.kind {
        ElemKind::Nil => Element::Nil,
        ElemKind::Bool(b) => Element::Bool(*b),
        ElemKind::Int(Int::Small(n)) => Element::Int(*n),
        ElemKind::Int(Int::Big(n)) => match i64::try_from(&**n) {
            Ok(small) => Element::Int(small),
            Err(_) if n.bits() > 8 * MAX_INT_BYTES => {
                return Err(IntTooLarge {
                    digits: n.magnitude().to_string().len(),
                    at: elem.span,
                }
                .into());
            }
            Err(_) => Element::BigInt((**n).clone()),
        },
        ElemKind::Num(Num(x)) => Element::Double(*x),
        ElemKind::F32(F32(x)) => Element::Float(*x),
        ElemKind::Str(s) => Element::String(Cow::Borrowed(s)),
        ElemKind::Bytes(b) => Element::Bytes(Bytes::from(b.as_slice())),
        ElemKind::Uuid(u) => Element::Uuid(*u),
        ElemKind::Vstamp(v) => Element::Versionstamp(versionstamp(*v)),
        ElemKind::Vstamp80(tx) => return Ok(Part::Vstamp80(*tx)),
        ElemKind::User(u) => return Ok(Part::User(u.code, &u.data)),
        ElemKind::Tuple(t) => return Ok(Part::Tuple(to_parts(t)?)),
        ElemKind::Var(v) => return Err(not_data(v.to_string(), elem.span)),
        ElemKind::Ref(r) => return Err(not_data(r.to_string(), elem.span)),
    };
    Ok(Part::Element(element))
}

/// The parts of a tuple; a trailing `...` is a hole.
fn to_parts<'e>(t: &'e Tuple<'_>) -> Result<Vec<Part<'e>>, Error> {
    if let Some(rest) = t.rest {
        return Err(not_data("...".into(), rest));
    }
    t.elems.iter().map(to_part).collect()
}
