//! Packing whole tuples through the tuple crate, with the guards the crate
//! leaves to its callers: incomplete versionstamps are counted here rather
//! than trusted to its panicking helpers, and sizes are bounded before
//! anything is written.

use foundationdb_tuple::{Element, TuplePack, Versionstamp, VersionstampOffset};

use crate::syntax::ast::{Elem, ElemKind, Int, Span, Vstamp};

use super::element::{incomplete_vstamps, size_bound, user_types_last};
use super::part::{Part, to_part};
use super::{Encoded, Error, Op};

/// The most bytes a key or value may be packed into: above anything one
/// FoundationDB transaction can hold (10 MB), so no write that could
/// succeed is refused, and far below the 4 GiB at which the crate's
/// offsets overflow and it panics.
pub(super) const MAX_PACKED: u64 = 64 << 20;

/// Packed bytes, and where the one incomplete versionstamp's transaction
/// version starts, if there is one.
pub(super) struct Packed {
    pub bytes: Vec<u8>,
    pub stamp: Option<u32>,
}

impl Packed {
    /// The bytes to write: as they are for a plain set, or with the stamp's
    /// 4-byte little-endian offset appended for `stamped`, the versionstamp
    /// mutation the caller writes with.
    pub fn encoded(self, stamped: Op) -> Encoded {
        match self.stamp {
            None => Encoded {
                bytes: self.bytes,
                op: Op::Set,
            },
            Some(offset) => {
                let mut bytes = self.bytes;
                bytes.extend_from_slice(&offset.to_le_bytes());
                Encoded { bytes, op: stamped }
            }
        }
    }
}

/// Packs `elems` after `prefix`, as the tuple layer packs a tuple (no
/// enclosing nesting). At most one incomplete vstamp is allowed; its offset
/// counts the prefix. `at` stands for the whole, for a size error.
pub(super) fn pack(prefix: &[u8], elems: &[Elem], at: Span) -> Result<Packed, Error> {
    // What writes are mostly made of, strings and ints, is packed here at
    // once: no stamps to look for, no vector of the crate's elements.
    let mut bytes = Vec::new();
    if pack_plain_into(&mut bytes, prefix, elems) {
        return Ok(Packed { bytes, stamp: None });
    }
    user_types_last(elems)?;
    let stamps = incomplete_vstamps(elems);
    if let [first, second, ..] = stamps[..] {
        return Err(Error::TooManyVstamps { at: second, first });
    }
    let size = elems.iter().fold(prefix.len() as u64, |sum, e| {
        sum.saturating_add(size_bound(&e.kind))
    });
    if size > MAX_PACKED {
        return Err(Error::TooLarge { size, at });
    }
    let mut tuple = Vec::with_capacity(elems.len());
    for e in elems {
        tuple.push(to_part(e)?);
    }
    // `size` bounds the packed length, so packing never reallocates.
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    bytes.extend_from_slice(prefix);
    let offset = tuple
        .pack_root(&mut bytes)
        .map_err(|_| Error::TooLarge { size, at })?;
    let stamp = match (stamps.is_empty(), offset) {
        (true, _) => None,
        (false, VersionstampOffset::OneIncomplete { offset }) => Some(offset),
        // A complete stamp whose transaction version is all `ff` looks
        // incomplete to the crate, which then cannot say which one is ours.
        (false, _) => Some(locate_stamp(elems, &tuple, &bytes[prefix.len()..])),
    };
    let stamp = stamp.map(|offset| offset + prefix.len() as u32);
    Ok(Packed { bytes, stamp })
}

/// Packs `elems` after `prefix` into `out`, replacing what it held, when
/// every element is plain, a string or an int of at most seven bytes (at
/// eight, the edges of an i64 need the crate's care), and the whole is
/// within [`MAX_PACKED`]; `false`, and `out` untouched, otherwise.
pub(super) fn pack_plain_into(out: &mut Vec<u8>, prefix: &[u8], elems: &[Elem]) -> bool {
    let mut size = prefix.len();
    for e in elems {
        size = size.saturating_add(match &e.kind {
            ElemKind::Str(s) => 2 + 2 * s.len(),
            ElemKind::Int(Int::Small(n)) if n.unsigned_abs() < 1 << 56 => 9,
            _ => return false,
        });
    }
    if size as u64 > MAX_PACKED {
        return false;
    }
    out.clear();
    out.reserve(size);
    out.extend_from_slice(prefix);
    for e in elems {
        pack_plain(out, &e.kind);
    }
    true
}

/// Packs a plain element as the crate packs it inside a tuple that is
/// not nested: a string as `02`, its bytes with each zero byte escaped as
/// `00 ff`, and `00`; an int as `14` plus or minus its length in bytes,
/// then the bytes of the int, big-endian, or of the int less one when it
/// is negative.
fn pack_plain(out: &mut Vec<u8>, kind: &ElemKind) {
    match kind {
        ElemKind::Str(s) => {
            out.push(0x02);
            let mut rest = s.as_bytes();
            // Most strings are short with no zero byte: one look, one copy.
            if rest.len() < 16 && !rest.contains(&0) {
                out.extend_from_slice(rest);
                out.push(0x00);
                return;
            }
            while let Some(zero) = memchr::memchr(0x00, rest) {
                out.extend_from_slice(&rest[..=zero]);
                out.push(0xff);
                rest = &rest[zero + 1..];
            }
            out.extend_from_slice(rest);
            out.push(0x00);
        }
        ElemKind::Int(Int::Small(n)) => {
            let len = 8 - n.unsigned_abs().leading_zeros() as usize / 8;
            let (code, be) = if *n >= 0 {
                (0x14 + len as u8, n.to_be_bytes())
            } else {
                (0x14 - len as u8, (n - 1).to_be_bytes())
            };
            out.push(code);
            out.extend_from_slice(&be[8 - len..]);
        }
        _ => unreachable!("only plain elements"),
    }
}

/// Finds the transaction version of the one incomplete stamp in `packed`
/// by packing again with that stamp's placeholder changed: stamps are
/// written unescaped and the length does not change, so the first byte that
/// differs is where the stamp begins.
fn locate_stamp(elems: &[Elem], tuple: &[Part<'_>], packed: &[u8]) -> u32 {
    let mut marked = tuple.to_vec();
    for (e, t) in elems.iter().zip(marked.iter_mut()) {
        mark(e, t);
    }
    let mut again = Vec::with_capacity(packed.len());
    // Packing the same shape again cannot fail where the first pack did not.
    let _ = marked.pack_root(&mut again);
    let at = packed
        .iter()
        .zip(&again)
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    at as u32
}

/// Replaces the placeholder of the incomplete stamps in `elem` by zeros.
fn mark(elem: &Elem, t: &mut Part<'_>) {
    match (&elem.kind, t) {
        (ElemKind::Vstamp(Vstamp { tx: None, user }), t) => {
            *t = Part::Element(Element::Versionstamp(Versionstamp::complete(
                [0; 10], *user,
            )));
        }
        (ElemKind::Tuple(inner), Part::Tuple(items)) => {
            for (e, t) in inner.elems.iter().zip(items.iter_mut()) {
                mark(e, t);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn both(kind: ElemKind<'_>) {
        let elems = [Elem {
            kind,
            span: Span::default(),
        }];
        let ours = pack(b"p", &elems, Span::default()).unwrap();
        let theirs: Vec<Part> = vec![to_part(&elems[0]).unwrap()];
        let mut expected = b"p".to_vec();
        theirs.pack_root(&mut expected).unwrap();
        assert_eq!(ours.bytes, expected, "{:?}", elems[0].kind);
    }

    #[test]
    fn ints_pack_as_the_crate_packs_them() {
        for v in crate::codec::ints_at_every_length().chain([0]) {
            both(ElemKind::Int(Int::Small(v)));
        }
    }

    /// Ints pack up to 255 bytes of magnitude, the tuple layer's limit,
    /// and past it are refused as what they are, not as a size.
    #[test]
    fn ints_of_255_bytes_pack_and_larger_are_refused() {
        use num_bigint::BigInt;

        use crate::syntax::IntTooLarge;
        let max: BigInt = (BigInt::from(1) << 2040u32) - 1;
        for n in [max.clone(), -max.clone()] {
            both(ElemKind::Int(Int::from_big(n)));
        }
        let over: BigInt = &max + &max;
        let elems = [Elem {
            kind: ElemKind::Int(Int::from_big(over.clone())),
            span: Span::new(3, 9),
        }];
        match pack(b"p", &elems, Span::default()) {
            Err(Error::IntTooLarge(IntTooLarge { digits, at })) => {
                assert_eq!(digits, over.to_string().len());
                assert_eq!(at.range(), 3..9);
            }
            _ => panic!("an int of 2041 bits packed"),
        }
    }

    proptest! {
        #[test]
        fn strings_and_ints_pack_as_the_crate_packs_them(s in "[a\\x00\\xff\u{e9}]{0,40}", n in any::<i64>()) {
            both(ElemKind::Str(s.as_str().into()));
            both(ElemKind::Int(Int::Small(n)));
            both(ElemKind::Int(Int::Small(n >> 8)));
        }
    }
}
