//! Atomic operations: one key, written in full, and an operand the
//! operation can use, judged by the codec that encodes it.

use crate::codec::{self, Subject};
use crate::syntax::ast::*;

use super::CheckError;
use super::elements::codec_errors;

/// A key-value whose value is the atomic operation `m`: no hole in its
/// directory, key or operand; the operand's options valid, and a literal
/// operand one the operation takes.
pub(super) fn mutation(kv: &KeyValue, m: &Mutation, errors: &mut Vec<CheckError>) {
    if let Some(at) = first_hole(kv, m) {
        let what = "a hole";
        errors.push(CheckError::MutationHoles { what, at });
    }
    operand(m, errors);
}

/// A raw key whose value is the atomic operation `m`: one key, not a
/// prefix or a range, and an operand the operation takes.
pub(super) fn raw_mutation(raw: &RawKeyValue, m: &Mutation, errors: &mut Vec<CheckError>) {
    let hole = match raw.key.kind {
        RawKeyKind::Key(_) => hole_in_operand(m).map(|at| ("a hole", at)),
        RawKeyKind::Prefix(_) | RawKeyKind::Range(..) => {
            Some(("a range of raw keys", raw.key.span))
        }
    };
    if let Some((what, at)) = hole {
        errors.push(CheckError::MutationHoles { what, at });
    }
    operand(m, errors);
}

/// The operand's options valid, and a literal operand one the operation
/// takes.
fn operand(m: &Mutation, errors: &mut Vec<CheckError>) {
    let subject = match &m.operand.kind {
        ElemKind::Ref(_) => Subject::Reference,
        kind => match codec::type_of(kind) {
            Some(ty) => Subject::Value(ty),
            None => return,
        },
    };
    if let Err(found) = codec::options::resolve(&m.options, subject) {
        return codec_errors(found, errors);
    }
    // A vstamp left for the database is reported with the other
    // incomplete stamps.
    if subject == Subject::Reference || m.operand.has_holes() || has_incomplete_vstamp(&m.operand) {
        return;
    }
    if let Err(e) = codec::encode_operand(m.op, &m.operand, &m.options) {
        errors.push(e.into());
    }
}

/// The first variable or `...` of the directory, the key or the operand.
fn first_hole(kv: &KeyValue, m: &Mutation) -> Option<Span> {
    let dir = &kv.key.dir;
    let in_dir = dir.elems.iter().find_map(|e| match e {
        DirElem::Var(v) => Some(v.span),
        _ => None,
    });
    in_dir
        .or(dir.rest)
        .or_else(|| hole_in_tuple(&kv.key.tuple))
        .or_else(|| hole_in_operand(m))
}

fn hole_in_operand(m: &Mutation) -> Option<Span> {
    match &m.operand.kind {
        ElemKind::Tuple(t) => hole_in_tuple(t),
        _ => None,
    }
}

fn hole_in_tuple(t: &Tuple) -> Option<Span> {
    t.elems
        .iter()
        .find_map(|e| match &e.kind {
            ElemKind::Var(v) => Some(v.span),
            ElemKind::Tuple(inner) => hole_in_tuple(inner),
            _ => None,
        })
        .or(t.rest)
}

fn has_incomplete_vstamp(e: &Elem) -> bool {
    let mut found = false;
    e.walk(&mut |e| found |= matches!(e.kind, ElemKind::Vstamp(Vstamp { tx: None, .. })));
    found
}
