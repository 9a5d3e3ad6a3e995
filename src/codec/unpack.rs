//! Unpacking tuples into data elements that borrow their text from the
//! packed bytes, with the guard the crate leaves to its callers: nesting is
//! bounded, and nested tuples are read here, one level at a time.
//!
//! The elements rows are mostly made of, strings and small ints, are read
//! here directly; so are nested tuples and the tuple layer's types the
//! crate lacks (80-bit versionstamps, user types). Every other element,
//! and a string with an escaped zero byte, goes through the crate. A range
//! read decodes every row, and the crate's general path (an element type
//! covering every case, moved through results) cost several times the
//! decoding itself.

use std::borrow::Cow;

use foundationdb_tuple::{Element, PackResult, TupleDepth, TupleUnpack, unpack};

use crate::syntax::MAX_DEPTH;
use crate::syntax::ast::{Elem, ElemKind, Elems, Int, Span, Tuple, UserType};

use super::element::from_element;

/// Unpacks the elements of packed tuple bytes one by one onto `out`,
/// borrowing their text from `bytes`: a row's key decodes into a vector
/// the caller reuses. `false` when the bytes are not a tuple, or nest
/// deeper than fql's tuples may; `out` then holds whatever came before
/// the fault.
pub(super) fn unpack_into<'b>(bytes: &'b [u8], out: &mut Vec<Elem<'b>>) -> bool {
    let mut rest = bytes;
    while !rest.is_empty() {
        match element(rest, 0) {
            Some((kind, left)) => {
                out.push(Elem {
                    kind,
                    span: Span::default(),
                });
                rest = left;
            }
            None => return false,
        }
    }
    true
}

/// The one element packed tuple bytes hold, or `None` when they hold
/// another number of elements or are not a tuple: most values are one
/// element, read with no vector at all.
pub(super) fn unpack_single(bytes: &[u8]) -> Option<ElemKind<'_>> {
    match element(bytes, 0)? {
        (kind, []) => Some(kind),
        _ => None,
    }
}

/// The element `bytes` start with, in a tuple nested `depth` deep (0 for
/// a key's or a value's own elements), and the bytes after it; `None`
/// when they do not start with a valid element.
fn element(bytes: &[u8], depth: usize) -> Option<(ElemKind<'_>, &[u8])> {
    if let Some((scalar, rest)) = Scalar::read(bytes) {
        return Some((scalar.kind(), rest));
    }
    let (&code, body) = bytes.split_first()?;
    match code {
        0x05 => nested(body, depth + 1),
        0x32 => {
            let (tx, rest) = body.split_first_chunk::<10>()?;
            Some((ElemKind::Vstamp80(*tx), rest))
        }
        // A user type's bytes run to the end: only a key's or a value's
        // last element can be one; inside a nested tuple its end is
        // unknown.
        code if UserType::CODES.contains(&code) => (depth == 0).then(|| {
            let user = UserType {
                code,
                data: body.to_vec(),
            };
            (ElemKind::User(Box::new(user)), &[][..])
        }),
        _ => {
            let (rest, e) = Element::unpack(bytes, element_depth()).ok()?;
            Some((from_element(e), rest))
        }
    }
}

/// The elements of a nested tuple after its `05`, up to and past its
/// closing `00`; a nil inside is `00 ff`. `None` past [`MAX_DEPTH`].
fn nested(mut bytes: &[u8], depth: usize) -> Option<(ElemKind<'_>, &[u8])> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut elems = Elems::new();
    loop {
        let kind = match bytes {
            [0x00, 0xff, rest @ ..] => {
                bytes = rest;
                ElemKind::Nil
            }
            [0x00, rest @ ..] => {
                let tuple = Tuple {
                    elems,
                    rest: None,
                    span: Span::default(),
                };
                return Some((ElemKind::Tuple(Box::new(tuple)), rest));
            }
            _ => {
                let (kind, rest) = element(bytes, depth)?;
                bytes = rest;
                kind
            }
        };
        elems.push(Elem {
            kind,
            span: Span::default(),
        });
    }
}

/// The elements rows are mostly made of, read straight from their packed
/// bytes: a string with no escaped zero byte, an int of up to seven bytes.
/// Everything else, and a string that is not UTF-8, is left to the crate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar<'b> {
    /// A string, borrowed from the bytes.
    Str(&'b str),
    /// An int that fits an `i64`.
    Int(i64),
}

impl<'b> Scalar<'b> {
    /// The scalar `bytes` start with and the bytes after it; `None` when
    /// they start with anything else (which may still be a valid element).
    /// Inlined: a range read calls it for every element of every row.
    #[inline(always)]
    pub fn read(bytes: &'b [u8]) -> Option<(Scalar<'b>, &'b [u8])> {
        let (&code, body) = bytes.split_first()?;
        match code {
            0x02 => {
                let end = memchr::memchr(0x00, body)?;
                // An escaped zero byte needs unescaping: the crate's.
                if body.get(end + 1) == Some(&0xff) {
                    return None;
                }
                let text = std::str::from_utf8(&body[..end]).ok()?;
                Some((Scalar::Str(text), &body[end + 1..]))
            }
            // Ints of up to seven bytes: eight may not fit an i64.
            0x0d..=0x1b => {
                let n = usize::from(code.abs_diff(0x14));
                let digits = body.get(..n)?;
                let magnitude = digits.iter().fold(0u64, |v, &b| v << 8 | u64::from(b));
                // A negative int is stored as its value less one, in the
                // ones' complement of its bytes.
                let value = if code < 0x14 {
                    -((!magnitude & (u64::MAX >> (64 - 8 * n))) as i64)
                } else {
                    magnitude as i64
                };
                Some((Scalar::Int(value), &body[n..]))
            }
            _ => None,
        }
    }

    /// The scalar as a data element.
    #[inline]
    pub fn kind(self) -> ElemKind<'b> {
        match self {
            Scalar::Str(s) => ElemKind::Str(Cow::Borrowed(s)),
            Scalar::Int(n) => ElemKind::Int(Int::Small(n)),
        }
    }
}

/// The depth at which the crate unpacks the elements of a tuple that is
/// not nested. The crate keeps its constructor private but hands the root
/// depth to whatever it unpacks, so a unit unpacked from no bytes gets it.
fn element_depth() -> TupleDepth {
    struct Root(TupleDepth);
    impl TupleUnpack<'_> for Root {
        fn unpack(input: &[u8], depth: TupleDepth) -> PackResult<(&[u8], Root)> {
            Ok((input, Root(depth)))
        }
    }
    match unpack::<Root>(&[]) {
        Ok(Root(depth)) => depth.increment(),
        Err(_) => unreachable!("a unit unpacks from no bytes"),
    }
}

/// Whether packed bytes nest tuples at most [`MAX_DEPTH`] deep. Bytes that
/// are not a valid tuple answer `true` when the crate would reject them
/// before nesting deeper, and `false` otherwise, so either way no deep
/// input reaches the crate: the tests' reading by the crate alone.
#[cfg(test)]
fn shallow(bytes: &[u8]) -> bool {
    // Each level of nesting takes a 05 byte; few of them need no walk.
    if bytecount(bytes, 0x05) <= MAX_DEPTH {
        return true;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&code) = bytes.get(i) {
        i += 1;
        let skip = match code {
            0x00 if depth > 0 && bytes.get(i) == Some(&0xff) => 1,
            0x00 if depth > 0 => {
                depth -= 1;
                0
            }
            0x00 | 0x26 | 0x27 => 0,
            0x01 | 0x02 => match end_of_string(&bytes[i..]) {
                Some(len) => len,
                None => return true,
            },
            0x05 => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return false;
                }
                0
            }
            0x0b => match bytes.get(i) {
                Some(&n) => 1 + usize::from(n ^ 0xff),
                None => return true,
            },
            0x1d => match bytes.get(i) {
                Some(&n) => 1 + usize::from(n),
                None => return true,
            },
            0x0c..=0x1c => usize::from(code.abs_diff(0x14)),
            0x20 => 4,
            0x21 => 8,
            0x30 => 16,
            0x33 => 12,
            // The crate rejects any other code where it stands.
            _ => return true,
        };
        i += skip;
    }
    true
}

/// The length of an escaped byte string up to and including its
/// terminator, or `None` if it has none.
#[cfg(test)]
fn end_of_string(bytes: &[u8]) -> Option<usize> {
    let mut from = 0;
    loop {
        let nul = from + memchr::memchr(0x00, &bytes[from..])?;
        if bytes.get(nul + 1) == Some(&0xff) {
            from = nul + 2;
        } else {
            return Some(nul + 1);
        }
    }
}

#[cfg(test)]
fn bytecount(bytes: &[u8], byte: u8) -> usize {
    memchr::memchr_iter(byte, bytes).count()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::codec::element::elem;

    /// What the crate alone makes of the bytes.
    fn by_the_crate(bytes: &[u8]) -> Option<Vec<Elem<'_>>> {
        if !shallow(bytes) {
            return None;
        }
        let items = unpack::<Vec<Element>>(bytes).ok()?;
        Some(items.into_iter().map(elem).collect())
    }

    fn ours(bytes: &[u8]) -> Option<Vec<Elem<'_>>> {
        let mut out = Vec::new();
        unpack_into(bytes, &mut out).then_some(out)
    }

    #[test]
    fn ints_at_every_length_read_as_the_crate_reads_them() {
        for v in crate::codec::ints_at_every_length() {
            let bytes = foundationdb_tuple::pack(&(v,));
            assert_eq!(ours(&bytes), by_the_crate(&bytes), "{v}");
            assert_eq!(unpack_single(&bytes), Some(ElemKind::Int(Int::Small(v))));
        }
        // Non-canonical bytes too: a leading zero, all ones.
        for bytes in [
            &[0x15, 0x00][..],
            &[0x13, 0xff],
            &[0x0d, 0xff, 0, 0, 0, 0, 0, 1],
        ] {
            assert_eq!(ours(bytes), by_the_crate(bytes));
        }
    }

    /// Strings of every length around the word scan's limits, with a
    /// non-ASCII char, an escaped zero or invalid UTF-8 anywhere.
    #[test]
    fn strings_of_every_length_read_as_the_crate_reads_them() {
        for len in 0..140 {
            let ascii: String = (0..len)
                .map(|n| char::from(b'a' + (n % 26) as u8))
                .collect();
            let bytes = foundationdb_tuple::pack(&(ascii.as_str(), 7));
            assert_eq!(ours(&bytes), by_the_crate(&bytes), "{len}");
            assert!(ours(&bytes).is_some());
            for at in 0..len {
                let (a, b) = ascii.split_at(at);
                for odd in ["é", "\0", "€x"] {
                    let text = format!("{a}{odd}{b}");
                    let bytes = foundationdb_tuple::pack(&(text.as_str(),));
                    assert_eq!(ours(&bytes), by_the_crate(&bytes), "{text:?}");
                    assert!(ours(&bytes).is_some());
                }
                let mut bytes = foundationdb_tuple::pack(&(ascii.as_str(),));
                bytes[1 + at] = 0xc3;
                assert_eq!(ours(&bytes), by_the_crate(&bytes), "{len} {at}");
            }
            // No terminator.
            let bytes = foundationdb_tuple::pack(&(ascii.as_str(),));
            assert_eq!(ours(&bytes[..bytes.len() - 1]), None);
        }
    }

    proptest! {
        #[test]
        fn any_bytes_read_as_the_crate_reads_them(
            bytes in proptest::collection::vec(
                prop_oneof![Just(0x00u8), Just(0xff), Just(0x02), Just(0x05), 0x0bu8..0x1e, any::<u8>()],
                0..24,
            )
        ) {
            match by_the_crate(&bytes) {
                Some(theirs) => prop_assert_eq!(ours(&bytes), Some(theirs)),
                // The crate lacks the 80-bit stamps and the user types.
                None => prop_assert!(
                    ours(&bytes).is_none()
                        || bytes.iter().any(|&b| b == 0x32 || UserType::CODES.contains(&b))
                ),
            }
        }
    }
}
