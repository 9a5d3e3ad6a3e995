//! Data elements and the tuple layer's elements, both ways.
//!
//! The AST's [`ElemKind`] is the one representation of data in fql; the
//! tuple crate's [`Element`] is only the doorway to its packer. Two facts of
//! the tuple layer shape the mapping:
//!
//! - An int that fits an `i64` always becomes `Element::Int`, a larger one
//!   `Element::BigInt`, so every integer has one encoding (and decoded
//!   integers come back in [`Int`]'s normal form).
//! - A stored 32-bit float (type code `0x20`) reads as an `f32` element,
//!   not as a num, so that written back it keeps its type code and its
//!   key bytes.
//! - The crate lacks the 80-bit versionstamp (`0x32`) and the user types
//!   (`0x40` to `0x4f`); `part` packs them beside the crate's elements.

use std::borrow::Cow;

use foundationdb_tuple::{Element, Versionstamp};

use crate::syntax::ast::{Elem, ElemKind, F32, Int, Num, Span, Tuple, Type, Vstamp};

use super::Error;

pub(super) fn not_data(hole: String, at: Span) -> Error {
    Error::NotData { hole, at }
}

/// The crate's versionstamp for ours. The crate marks an incomplete stamp
/// by ten `ff` bytes, which is also what FoundationDB's other bindings do.
pub(super) fn versionstamp(v: Vstamp) -> Versionstamp {
    match v.tx {
        Some(tx) => Versionstamp::complete(tx, v.user),
        None => Versionstamp::incomplete(v.user),
    }
}

/// The data element for a decoded tuple-layer element, borrowing the
/// strings the crate borrowed from the stored bytes, so a read that only
/// prints or filters a row copies none of its text.
///
/// A stored stamp is always read as complete, even one whose transaction
/// version is all `ff` (which the crate would call incomplete): what is in
/// the database is what was committed, and reading it as `#:...` would turn
/// a read result into a versionstamped write if written back.
pub fn from_element(e: Element<'_>) -> ElemKind<'_> {
    match e {
        Element::Nil => ElemKind::Nil,
        Element::Bool(b) => ElemKind::Bool(b),
        Element::Int(n) => ElemKind::Int(Int::Small(n)),
        Element::BigInt(n) => ElemKind::Int(Int::from_big(n)),
        Element::Float(x) => ElemKind::F32(F32(x)),
        Element::Double(x) => ElemKind::Num(Num(x)),
        Element::String(s) => ElemKind::Str(s),
        Element::Bytes(b) => ElemKind::Bytes(b.into_owned()),
        Element::Uuid(u) => ElemKind::Uuid(u),
        Element::Versionstamp(v) => {
            let mut tx = [0; 10];
            tx.copy_from_slice(v.transaction_version());
            ElemKind::Vstamp(Vstamp {
                tx: Some(tx),
                user: v.user_version(),
            })
        }
        Element::Tuple(items) => ElemKind::Tuple(Box::new(from_elements(items))),
    }
}

/// A decoded tuple as an AST tuple. Decoded data has no place in any
/// source text, so its spans are empty.
pub fn from_elements(items: Vec<Element<'_>>) -> Tuple<'_> {
    Tuple {
        elems: items.into_iter().map(elem).collect(),
        rest: None,
        span: Span::default(),
    }
}

/// An element with no place in the source.
pub(super) fn elem(e: Element<'_>) -> Elem<'_> {
    Elem {
        kind: from_element(e),
        span: Span::default(),
    }
}

/// Decoded data that owns its text, to outlive the bytes it was read from
/// (a row kept for a join, an aggregate's value, an owned result).
///
/// Decoded data holds no holes; the AST's holes borrow their names from
/// the script and cannot be made to outlive it.
pub fn into_owned(kind: ElemKind<'_>) -> ElemKind<'static> {
    match kind {
        ElemKind::Nil => ElemKind::Nil,
        ElemKind::Bool(b) => ElemKind::Bool(b),
        ElemKind::Int(n) => ElemKind::Int(n),
        ElemKind::Num(x) => ElemKind::Num(x),
        ElemKind::Str(s) => ElemKind::Str(Cow::Owned(s.into_owned())),
        ElemKind::Bytes(b) => ElemKind::Bytes(b),
        ElemKind::Uuid(u) => ElemKind::Uuid(u),
        ElemKind::Vstamp(v) => ElemKind::Vstamp(v),
        ElemKind::F32(x) => ElemKind::F32(x),
        ElemKind::Vstamp80(tx) => ElemKind::Vstamp80(tx),
        ElemKind::User(u) => ElemKind::User(u),
        ElemKind::Tuple(t) => ElemKind::Tuple(Box::new(Tuple {
            elems: t
                .elems
                .into_iter()
                .map(|e| Elem {
                    kind: into_owned(e.kind),
                    span: e.span,
                })
                .collect(),
            rest: None,
            span: t.span,
        })),
        ElemKind::Var(_) | ElemKind::Ref(_) => unreachable!("decoded data holds no holes"),
    }
}

/// [`into_owned`] of a borrowed element.
pub fn to_owned(kind: &ElemKind<'_>) -> ElemKind<'static> {
    // Cloning a borrowed string copies a pointer; `into_owned` copies it once.
    into_owned(kind.clone())
}

/// The type of a data element; `None` for a hole.
pub fn type_of(kind: &ElemKind) -> Option<Type> {
    Some(match kind {
        ElemKind::Nil => Type::Nil,
        ElemKind::Bool(_) => Type::Bool,
        ElemKind::Int(_) => Type::Int,
        ElemKind::Num(_) => Type::Num,
        ElemKind::Str(_) => Type::Str,
        ElemKind::Bytes(_) => Type::Bytes,
        ElemKind::Uuid(_) => Type::Uuid,
        ElemKind::Vstamp(_) => Type::Vstamp,
        ElemKind::Tuple(_) => Type::Tuple,
        ElemKind::F32(_) => Type::F32,
        ElemKind::Vstamp80(_) => Type::Vstamp80,
        ElemKind::User(_) => Type::User,
        ElemKind::Var(_) | ElemKind::Ref(_) => return None,
    })
}

/// Refuses a user type anywhere but last among the elements of a packed
/// tuple (a key's, or a tuple value's): its bytes run to the end of the
/// tuple, so nothing after it could be read back, and inside a nested
/// tuple they would run past the nested tuple's end.
pub fn user_types_last(elems: &[Elem]) -> Result<(), Error> {
    let last = elems.len().saturating_sub(1);
    for (n, e) in elems.iter().enumerate() {
        let mut nested = None;
        if let ElemKind::Tuple(t) = &e.kind {
            for inner in &t.elems {
                inner.walk(&mut |x| {
                    if matches!(x.kind, ElemKind::User(_)) && nested.is_none() {
                        nested = Some(x.span);
                    }
                });
            }
        }
        let at = match &e.kind {
            ElemKind::User(_) if n != last => Some((e.span, false)),
            _ => nested.map(|at| (at, true)),
        };
        if let Some((at, nested)) = at {
            return Err(Error::UserTypeNotLast { nested, at });
        }
    }
    Ok(())
}

/// The incomplete vstamps among `elems` and everything nested in them, in
/// order, by where they were written.
pub(super) fn incomplete_vstamps<'a>(elems: impl IntoIterator<Item = &'a Elem<'a>>) -> Vec<Span> {
    let mut found = Vec::new();
    // Only stamps and tuples can hold a stamp: most elements are passed
    // over without a walk.
    for e in elems
        .into_iter()
        .filter(|e| matches!(e.kind, ElemKind::Vstamp(_) | ElemKind::Tuple(_)))
    {
        e.walk(&mut |e| {
            if let ElemKind::Vstamp(Vstamp { tx: None, .. }) = e.kind {
                found.push(e.span);
            }
        });
    }
    found
}

/// Refuses a write with more than one incomplete vstamp among `elems`
/// (a key's tuple and its value, together), and returns the one there is.
/// FoundationDB fills in one stamp per mutation.
pub fn single_vstamp<'a>(
    elems: impl IntoIterator<Item = &'a Elem<'a>>,
) -> Result<Option<Span>, Error> {
    match incomplete_vstamps(elems)[..] {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        [first, second, ..] => Err(Error::TooManyVstamps { at: second, first }),
    }
}

/// An upper bound on the packed size of an element inside a tuple, in
/// bytes: every byte of text may be escaped, and each element adds a type
/// code and a terminator.
pub(super) fn size_bound(kind: &ElemKind) -> u64 {
    match kind {
        ElemKind::Str(s) => 2 + 2 * s.len() as u64,
        ElemKind::Bytes(b) => 2 + 2 * b.len() as u64,
        ElemKind::User(u) => 1 + u.data.len() as u64,
        ElemKind::Int(Int::Big(n)) => 2 + n.bits().div_ceil(8),
        ElemKind::Tuple(t) => t
            .elems
            .iter()
            .fold(2u64, |sum, e| sum.saturating_add(size_bound(&e.kind))),
        _ => 17,
    }
}
