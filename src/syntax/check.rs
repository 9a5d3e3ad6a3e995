//! Static checks: what can be known wrong about a parsed script without a
//! database. Options in the right place with the right arguments, aggregates
//! where rows are folded, incomplete versionstamps only in writes, meta
//! statements where transactions begin.
//!
//! What the options of a value or a type mean, and whether a literal value
//! can be encoded, is the [`codec`]'s to decide: the checks
//! here call it, so a script is judged by the same code that runs it.

use crate::codec::{self, ElementFilter, Subject, ValueDecoder};

use super::ast::*;
use super::error::{CheckError, OptionError};

/// Checks a script, returning every error in source order.
pub fn check(script: &Script) -> Result<(), Vec<CheckError>> {
    let mut errors = Vec::new();
    // The first statement or meta statement of the current transaction, and
    // the `@read` that made it read-only.
    let mut began: Option<Span> = None;
    let mut read_only: Option<Span> = None;
    for item in &script.items {
        match item {
            Item::Meta(meta) => match meta.kind {
                MetaKind::Commit => {
                    began = None;
                    read_only = None;
                }
                MetaKind::Read | MetaKind::Write => {
                    if let Some(first) = began {
                        errors.push(CheckError::MetaMisplaced {
                            meta: meta.kind.to_string(),
                            at: meta.span,
                            first,
                        });
                    }
                    began.get_or_insert(meta.span);
                    read_only = (meta.kind == MetaKind::Read).then_some(meta.span);
                }
            },
            Item::Statement(stmt) => {
                began.get_or_insert(stmt.span);
                let kind = stmt.kind();
                if let (Some(read), true) = (read_only, kind.writes()) {
                    errors.push(CheckError::WriteInRead {
                        at: stmt.span,
                        read,
                    });
                }
                statement(stmt, kind, &mut errors);
            }
        }
    }
    errors.sort_by_key(|e| super::error::offset(e));
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn statement(stmt: &Statement, kind: Kind, errors: &mut Vec<CheckError>) {
    query_options(&stmt.options, kind, errors);
    let (dir, kv) = match &stmt.query {
        Query::Directory(dir) | Query::Remove { dir, .. } => (dir, None),
        Query::KeyValue(kv) => (&kv.key.dir, Some(kv)),
    };
    for elem in &dir.elems {
        if let DirElem::Var(var) = elem {
            directory_variable(var, errors);
        }
    }
    let Some(kv) = kv else { return };
    // Said once per kind, not formatted per statement: a script may hold
    // a million writes.
    let agg_place = match kind {
        Kind::Read | Kind::ReadRange => None,
        Kind::Set => Some("in a write"),
        Kind::Clear | Kind::ClearRange => Some("in a clear"),
        Kind::List => Some("in a directory listing"),
        Kind::Remove => Some("in a directory removal"),
    };
    debug_assert!(agg_place.is_none_or(|p| p == format!("in a {}", kind.noun())));
    for elem in &kv.key.tuple.elems {
        element(elem, agg_place, true, errors);
    }
    if let Value::Data(elem, opts) = &kv.value {
        element(elem, agg_place, false, errors);
        value_options(elem, opts, errors);
    }
    vstamps(kv, kind, errors);
}

/// Query options: the ones a statement of this kind supports, each once,
/// with the right argument.
fn query_options(opts: &Options, kind: Kind, errors: &mut Vec<CheckError>) {
    let supported: &[OptName] = match kind {
        Kind::ReadRange => &[
            OptName::Absent,
            OptName::Exists,
            OptName::Min,
            OptName::Max,
            OptName::Reverse,
            OptName::Limit,
            OptName::Mode,
            OptName::Snapshot,
            OptName::Strict,
        ],
        Kind::Read => &[
            OptName::Absent,
            OptName::Exists,
            OptName::Min,
            OptName::Max,
            OptName::Snapshot,
            OptName::Strict,
        ],
        Kind::List => &[OptName::Absent, OptName::Exists],
        Kind::Clear | Kind::ClearRange => &[OptName::Strict],
        Kind::Remove | Kind::Set => &[],
    };
    for (n, opt) in opts.items.iter().enumerate() {
        let guard = |o: OptName| matches!(o, OptName::Absent | OptName::Exists);
        if let Some(earlier) = opts.items[..n]
            .iter()
            .find(|e| e.name == opt.name || guard(e.name) && guard(opt.name))
        {
            errors.push(OptionError::conflict(opt, earlier).into());
            continue;
        }
        if !supported.contains(&opt.name) {
            let help = if opt.name.is_query() {
                let kinds = match opt.name {
                    OptName::Strict => "reads and clears",
                    OptName::Snapshot => "reads",
                    OptName::Absent | OptName::Exists => "reads and directory listings",
                    OptName::Min | OptName::Max => "reads",
                    _ => "reads with holes in the key",
                };
                format!("`{}` applies to {kinds}", opt.name)
            } else {
                let example = match opt.name {
                    OptName::Raw => "=\"text\"[raw]".to_string(),
                    OptName::Sep => "=<append[sep:\",\"]>".to_string(),
                    OptName::F32 | OptName::F64 | OptName::F80 => format!("=1.5[{}]", opt.name),
                    _ => format!("=7[{}]", opt.name),
                };
                format!(
                    "`{}` is an encoding option; it goes after a value or a type, as in `{example}`",
                    opt.name
                )
            };
            let place = if opt.name.is_query() {
                format!(
                    "a {}",
                    if kind == Kind::Read {
                        "single-key read"
                    } else {
                        kind.noun()
                    }
                )
            } else {
                "a query".into()
            };
            errors.push(
                OptionError::Misplaced {
                    option: opt.name,
                    place,
                    at: opt.span,
                    help: Some(help),
                }
                .into(),
            );
            continue;
        }
        match opt.name {
            OptName::Limit | OptName::Min | OptName::Max => match &opt.arg {
                Some(OptArg { kind: OptArgKind::Int(Int::Small(n)), .. }) if *n >= 0 => {}
                _ => errors.push(OptionError::argument(opt, &format!("takes a non-negative int, as in `{}:10`", opt.name)).into()),
            },
            OptName::Mode => match &opt.arg {
                Some(OptArg { kind: OptArgKind::Name(m), .. }) if STREAMING_MODES.contains(m) => {}
                _ => errors.push(OptionError::argument(
                    opt,
                    "takes a streaming mode: want_all, iterator, exact, small, medium, large or serial",
                ).into()),
            },
            _ => bare(opt, errors),
        }
    }
}

/// FDB's streaming modes, as `mode` takes them.
pub const STREAMING_MODES: [&str; 7] = [
    "want_all", "iterator", "exact", "small", "medium", "large", "serial",
];

/// Reports an argument on an option that takes none.
fn bare(opt: &Opt, errors: &mut Vec<CheckError>) {
    if opt.name.arg() == ArgKind::None && opt.arg.is_some() {
        errors.push(OptionError::argument(opt, "takes no argument").into());
    }
}

fn directory_variable(var: &Variable, errors: &mut Vec<CheckError>) {
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
fn element(elem: &Elem, agg_place: Option<&str>, in_tuple: bool, errors: &mut Vec<CheckError>) {
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

fn codec_errors(found: Vec<codec::Error>, errors: &mut Vec<CheckError>) {
    errors.extend(found.into_iter().map(CheckError::from));
}

/// The options after a value, and a literal value's fit to them: the codec
/// encodes the literal as a run would.
fn value_options(elem: &Elem, opts: &Options, errors: &mut Vec<CheckError>) {
    if opts.is_empty() {
        return;
    }
    let subject = match &elem.kind {
        // Reported by the parser: options belong inside the variable.
        ElemKind::Var(_) => return,
        ElemKind::Ref(_) => Subject::Reference,
        kind => match codec::type_of(kind) {
            Some(ty) => Subject::Value(ty),
            None => return,
        },
    };
    if let Err(found) = codec::options::resolve(opts, subject) {
        return codec_errors(found, errors);
    }
    if subject != Subject::Reference
        && !elem.has_holes()
        && let Err(e) = codec::encode_value(elem, opts)
    {
        errors.push(e.into());
    }
}

/// Incomplete versionstamps: only in writes, and one per write.
fn vstamps(kv: &KeyValue, kind: Kind, errors: &mut Vec<CheckError>) {
    let value = match &kv.value {
        Value::Data(e, _) => Some(e),
        _ => None,
    };
    let elems = kv.key.tuple.elems.iter().chain(value);
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
        let kind = if kind.writes() { "clear" } else { "read" };
        errors.push(CheckError::VstampNotWritten { at, kind });
    }
}
