//! The elements of a statement: variables and their types, references'
//! casts, and incomplete versionstamps.

use crate::codec::{self, ElementFilter, OptionError, ValueDecoder};
use crate::syntax::ast::*;

use super::CheckError;

/// A variable in a directory path: it matches strings, with no options.
pub(super) fn directory_variable(var: &Variable, errors: &mut Vec<CheckError>) {
    for spec in &var.types {
        match spec.ty {
            Type::Agg(_) => errors.push(CheckError::AggregateMisplaced {
                place: "in a directory path".into(),
                at: spec.span,
            }),
            Type::Str | Type::Any => {
                if let Some(opt) = spec.options.items.first() {
                    errors.push(
                        OptionError::Misplaced {
                            option: opt.name,
                            place: "a directory element".into(),
                            at: opt.span,
                            help: None,
                        }
                        .into(),
                    );
                }
            }
            _ => errors.push(CheckError::DirectoryType { at: spec.span }),
        }
    }
}

/// Checks an element of a key tuple or a value: its variables, and its
/// nested elements. `agg_place` says why aggregates are not allowed here,
/// if they are not; `in_tuple` whether the element is tuple-encoded (in a
/// key or a nested tuple) rather than a whole value.
pub(super) fn element(
    elem: &Elem,
    agg_place: Option<&str>,
    in_tuple: bool,
    errors: &mut Vec<CheckError>,
) {
    match &elem.kind {
        ElemKind::Var(var) => variable(var, agg_place, in_tuple, errors),
        ElemKind::Ref(r) => reference(r, errors),
        ElemKind::Tuple(t) => {
            for inner in &t.elems {
                element(
                    inner,
                    Some(agg_place.unwrap_or("inside a nested tuple")),
                    true,
                    errors,
                );
            }
        }
        _ => {}
    }
}

/// A variable's aggregate, alone and where rows are folded, and its types'
/// options, judged by the codec that will decode what it matches.
fn variable(var: &Variable, agg_place: Option<&str>, in_tuple: bool, errors: &mut Vec<CheckError>) {
    let agg = var.types.iter().find(|t| t.ty.is_agg());
    if let Some(agg) = agg {
        if var.types.len() > 1 {
            errors.push(CheckError::AggregateMixed { at: var.span });
        } else if let Some(place) = agg_place {
            errors.push(CheckError::AggregateMisplaced {
                place: place.into(),
                at: agg.span,
            });
        }
    }
    let found = if in_tuple {
        ElementFilter::new(var).err()
    } else {
        ValueDecoder::new(var).err()
    };
    codec_errors(found.unwrap_or_default(), errors);
}

fn reference(r: &Reference, errors: &mut Vec<CheckError>) {
    if let Some(cast) = &r.cast
        && (cast.ty.is_agg() || cast.ty == Type::Any)
    {
        errors.push(CheckError::BadCast {
            ty: cast.ty.to_string(),
            at: cast.span,
        });
    }
}

pub(super) fn codec_errors(found: Vec<codec::Error>, errors: &mut Vec<CheckError>) {
    errors.extend(found.into_iter().map(CheckError::from));
}

/// User types: last in a key's tuple or in a tuple value, never inside a
/// nested tuple, where their bytes could not be told from what follows.
pub(super) fn user_types(kv: &KeyValue, errors: &mut Vec<CheckError>) {
    if let Err(e) = codec::user_types_last(&kv.key.tuple.elems) {
        errors.push(e.into());
    }
    if let Value::Data(elem, _) = &kv.value
        && let ElemKind::Tuple(t) = &elem.kind
        && let Err(e) = codec::user_types_last(&t.elems)
    {
        errors.push(e.into());
    }
}

/// Incomplete versionstamps: only in writes, and one per write.
pub(super) fn vstamps(key: &[Elem], value: &Value, kind: Kind, errors: &mut Vec<CheckError>) {
    let value = match value {
        Value::Data(e, _) => Some(e),
        Value::Mutate(m) => Some(&m.operand),
        _ => None,
    };
    let elems = key.iter().chain(value);
    if kind == Kind::Set {
        if let Err(e) = codec::single_vstamp(elems) {
            errors.push(e.into());
        }
        return;
    }
    let mut found = Vec::new();
    for e in elems {
        e.walk(&mut |e| {
            if let ElemKind::Vstamp(Vstamp { tx: None, .. }) = e.kind {
                found.push(e.span);
            }
        });
    }
    for at in found {
        let kind = match kind {
            Kind::Mutate => "mutation",
            k if k.writes() => "clear",
            _ => "read",
        };
        errors.push(CheckError::VstampNotWritten { at, kind });
    }
}
