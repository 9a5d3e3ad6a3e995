//! Option lists: the query options before a statement, judged here, and
//! the encoding options after a value, judged by the codec.

use crate::codec::{self, OptionError, Subject};
use crate::syntax::ast::*;

use super::CheckError;
use super::elements::codec_errors;

/// FDB's streaming modes, as `mode` takes them.
pub const STREAMING_MODES: [&str; 7] = [
    "want_all", "iterator", "exact", "small", "medium", "large", "serial",
];

/// Query options: the ones a statement of this kind supports, each once,
/// with the right argument.
pub(super) fn query_options(opts: &Options, kind: Kind, raw: bool, errors: &mut Vec<CheckError>) {
    let supported = supported(kind);
    for (n, opt) in opts.items.iter().enumerate() {
        let guard = |o: OptName| matches!(o, OptName::Absent | OptName::Exists);
        if let Some(earlier) = opts.items[..n]
            .iter()
            .find(|e| e.name == opt.name || guard(e.name) && guard(opt.name))
        {
            errors.push(OptionError::conflict(opt, earlier).into());
        } else if !takes(supported, raw, opt.name) {
            errors.push(misplaced(opt, kind).into());
        } else {
            argument(opt, errors);
        }
    }
}

/// Whether a statement takes an option: one its kind supports, or, on
/// raw keys, `system`, which they alone take.
fn takes(supported: &[OptName], raw: bool, name: OptName) -> bool {
    match name {
        OptName::System => raw,
        _ => supported.contains(&name),
    }
}

/// The query options a statement of this kind takes.
fn supported(kind: Kind) -> &'static [OptName] {
    match kind {
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
        Kind::List => &[OptName::Absent, OptName::Exists, OptName::Prefix],
        Kind::Clear | Kind::ClearRange => &[OptName::Strict],
        Kind::Remove | Kind::Set | Kind::Mutate => &[],
    }
}

/// An option before a statement that does not take it: a query option
/// meant for another kind of statement, or an encoding option, with where
/// it belongs.
fn misplaced(opt: &Opt, kind: Kind) -> OptionError {
    let (place, help) = if opt.name.is_query() {
        let kinds = match opt.name {
            OptName::Strict => "reads and clears",
            OptName::System => "raw keys, as in `[system] 0xff...`",
            OptName::Prefix => "directory listings, as in `[prefix] /app/<>`",
            OptName::Snapshot => "reads",
            OptName::Absent | OptName::Exists => "reads and directory listings",
            OptName::Min | OptName::Max => "reads",
            _ => "reads with holes in the key",
        };
        let noun = if kind == Kind::Read {
            "single-key read"
        } else {
            kind.noun()
        };
        (
            format!("a {noun}"),
            format!("`{}` applies to {kinds}", opt.name),
        )
    } else {
        let example = match opt.name {
            OptName::Raw => "=\"text\"[raw]".to_string(),
            OptName::Sep => "=<append[sep:\",\"]>".to_string(),
            OptName::F32 | OptName::F64 | OptName::F80 => format!("=1.5[{}]", opt.name),
            _ => format!("=7[{}]", opt.name),
        };
        let help = format!(
            "`{}` is an encoding option; it goes after a value or a type, as in `{example}`",
            opt.name
        );
        ("a query".into(), help)
    };
    OptionError::Misplaced {
        option: opt.name,
        place,
        at: opt.span,
        help: Some(help),
    }
}

/// The argument of a query option the statement takes.
fn argument(opt: &Opt, errors: &mut Vec<CheckError>) {
    let expected = match opt.name {
        OptName::Limit | OptName::Min | OptName::Max => match &opt.arg {
            Some(OptArg {
                kind: OptArgKind::Int(Int::Small(n)),
                ..
            }) if *n >= 0 => return,
            Some(OptArg {
                kind: OptArgKind::Int(Int::Big(n)),
                ..
            }) if n.sign() == num_bigint::Sign::Plus => {
                format!("is too large: the most is {} (2^63 - 1)", i64::MAX)
            }
            _ => format!("takes a non-negative int, as in `{}:10`", opt.name),
        },
        OptName::Mode => match &opt.arg {
            Some(OptArg {
                kind: OptArgKind::Name(m),
                ..
            }) if STREAMING_MODES.contains(m) => return,
            _ => {
                "takes a streaming mode: want_all, iterator, exact, small, medium, large or serial"
                    .into()
            }
        },
        _ if opt.name.arg() == ArgKind::None && opt.arg.is_some() => "takes no argument".into(),
        _ => return,
    };
    errors.push(OptionError::argument(opt, &expected).into());
}

/// `mode:exact` only where the limit can go to the range read: FDB's
/// exact mode reads the limit in one batch, and needs one.
pub(super) fn exact_mode(opts: &Options, kv: &KeyValue, errors: &mut Vec<CheckError>) {
    let exact = opts.items.iter().find(|o| {
        o.name == OptName::Mode
            && matches!(
                &o.arg,
                Some(OptArg {
                    kind: OptArgKind::Name("exact"),
                    ..
                })
            )
    });
    let Some(exact) = exact else { return };
    if !opts.items.iter().any(|o| o.name == OptName::Limit) {
        errors.push(CheckError::ExactWithoutLimit { at: exact.span });
    } else if let Some(filter) = client_filter(kv) {
        errors.push(CheckError::ExactFiltered {
            at: exact.span,
            filter,
        });
    }
}

/// What of a read's pattern the client filters the key-values of its
/// range by, if anything: the first hole of the key (the range is of the
/// constants before it), the end of a key without `...` (keys under it
/// that are longer are skipped), or a value that not every value matches.
/// `None` when every key-value of the range is a result, so that a limit
/// can go to the database with the read.
pub fn client_filter(kv: &KeyValue) -> Option<Span> {
    let tuple = &kv.key.tuple;
    if let Some(hole) = tuple.elems.iter().find(|e| e.has_holes()) {
        return Some(hole.span);
    }
    if tuple.rest.is_none() {
        return Some(tuple.span);
    }
    let untyped = |v: &Variable| {
        v.types
            .iter()
            .all(|t| t.ty == Type::Any && t.options.is_empty())
    };
    match &kv.value {
        Value::Omitted | Value::Clear(_) => None,
        // Not a read: nothing comes back to filter, but nothing to limit.
        Value::Mutate(m) => Some(m.span),
        Value::Data(e, _) => match &e.kind {
            ElemKind::Var(v) if untyped(v) => None,
            _ => Some(e.span),
        },
    }
}

/// The options after a value, and a literal value's fit to them: the codec
/// encodes the literal as a run would.
pub(super) fn value_options(elem: &Elem, opts: &Options, errors: &mut Vec<CheckError>) {
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
