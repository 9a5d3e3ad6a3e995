//! Decoding stored bytes: fql's decoder, which reads the common elements
//! itself, must agree with the `foundationdb_tuple` crate, which every
//! other Rust client uses, on any bytes: both read the same elements, or
//! both refuse. What fql reads must write back to bytes that read the
//! same.

use foundationdb_tuple::{Element, unpack};
use fql::codec::{self, decode_key, decode_tuple, decode_untyped, from_element};
use fql::syntax::MAX_DEPTH;
use fql::syntax::ast::{Elem, ElemKind, UserType};

/// Nesting beyond which the crate is not asked: it unpacks nested tuples
/// by recursion, with no bound, and fql refuses them anyway.
const CRATE_DEPTH: usize = 4 * MAX_DEPTH;

/// Checks `bytes` read as a key, as a tuple value and as an untyped value.
pub fn check(bytes: &[u8]) {
    let ours = decode_key(&[], bytes);
    let tuple = decode_tuple(bytes);
    assert_eq!(
        kinds(ours.as_deref()),
        kinds(tuple.as_deref()),
        "{bytes:02x?}"
    );
    let untyped = decode_untyped(bytes);
    if bytes.iter().filter(|&&b| b == 0x05).count() > CRATE_DEPTH {
        // Strings may hold 05 bytes too: only what fql read is checked.
        if let Some(elems) = ours {
            writes_back(&elems);
        }
        return;
    }
    let theirs = unpack::<Vec<Element>>(bytes).ok();
    if ours.is_none() && theirs.as_ref().is_some_and(|t| depth(t) > MAX_DEPTH) {
        return;
    }
    // The crate lacks the 80-bit stamps and the user types, which fql
    // reads: only that what it read writes back.
    if theirs.is_none()
        && bytes
            .iter()
            .any(|&b| b == 0x32 || UserType::CODES.contains(&b))
    {
        if let Some(elems) = ours {
            writes_back(&elems);
        }
        return;
    }
    let expected: Option<Vec<ElemKind>> = theirs
        .clone()
        .map(|t| t.into_iter().map(from_element).collect());
    let ours_kinds = ours
        .as_ref()
        .map(|e| e.iter().map(|e| e.kind.clone()).collect::<Vec<_>>());
    assert_eq!(show(&ours_kinds), show(&expected), "key {bytes:02x?}");
    assert_eq!(
        show(&untyped),
        show(&untyped_from(bytes, theirs)),
        "value {bytes:02x?}"
    );
    if let Some(elems) = ours {
        writes_back(&elems);
    }
}

/// Elements re-encoded as a key decode to the same elements.
fn writes_back(elems: &[Elem]) {
    let encoded =
        codec::encode_key(&[], elems).unwrap_or_else(|e| panic!("{elems:?} does not encode: {e}"));
    assert_eq!(encoded.op, codec::Op::Set, "{elems:?}");
    let again = decode_key(&[], &encoded.bytes);
    assert_eq!(
        kinds(again.as_deref()),
        kinds(Some(elems)),
        "{:02x?}",
        encoded.bytes
    );
}

/// What an untyped read must give, from the crate's reading.
fn untyped_from<'b>(bytes: &'b [u8], theirs: Option<Vec<Element<'b>>>) -> ElemKind<'b> {
    match theirs {
        _ if bytes.is_empty() => ElemKind::Nil,
        None => ElemKind::Bytes(bytes.to_vec()),
        Some(mut one) if one.len() == 1 => from_element(one.remove(0)),
        Some(many) => ElemKind::Tuple(Box::new(codec::from_elements(many))),
    }
}

fn depth(elems: &[Element]) -> usize {
    let nested = |e: &Element| match e {
        Element::Tuple(t) => 1 + depth(t),
        _ => 0,
    };
    elems.iter().map(nested).max().unwrap_or(0)
}

fn kinds(elems: Option<&[Elem]>) -> String {
    show(&elems.map(|e| e.iter().map(|e| &e.kind).collect::<Vec<_>>()))
}

/// Elements compared by their debug form, in which a NaN equals itself.
fn show(x: &impl std::fmt::Debug) -> String {
    format!("{x:?}")
}
