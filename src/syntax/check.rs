//! Static checks: what can be known wrong about a parsed script without a
//! database. Options in the right place with the right arguments, aggregates
//! where rows are folded, incomplete versionstamps only in writes, meta
//! statements where transactions begin.

use num_bigint::BigInt;

use super::ast::*;
use super::error::CheckError;

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
                let kind = stmt.query.kind();
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
    let agg_place = match kind {
        Kind::Read | Kind::ReadRange => None,
        _ => Some(format!("in a {}", kind.noun())),
    };
    for elem in &kv.key.tuple.elems {
        element(elem, agg_place.as_deref(), errors);
    }
    if let Value::Data(elem, opts) = &kv.value {
        element(elem, agg_place.as_deref(), errors);
        value_options(elem, opts, errors);
    }
    vstamps(kv, kind, errors);
}

/// Query options: the ones a statement of this kind supports, each once,
/// with the right argument.
fn query_options(opts: &Options, kind: Kind, errors: &mut Vec<CheckError>) {
    let supported: &[OptName] = match kind {
        Kind::ReadRange => &[
            OptName::Reverse,
            OptName::Limit,
            OptName::Mode,
            OptName::Snapshot,
            OptName::Strict,
        ],
        Kind::Read => &[OptName::Snapshot, OptName::Strict],
        Kind::Clear | Kind::ClearRange => &[OptName::Strict],
        Kind::List | Kind::Remove | Kind::Set => &[],
    };
    for (n, opt) in opts.items.iter().enumerate() {
        if let Some(earlier) = opts.items[..n].iter().find(|e| e.name == opt.name) {
            errors.push(conflict(opt, earlier));
            continue;
        }
        if !supported.contains(&opt.name) {
            let help = if opt.name.is_query() {
                let kinds = match opt.name {
                    OptName::Strict => "reads and clears",
                    OptName::Snapshot => "reads",
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
            errors.push(CheckError::OptionMisplaced {
                option: opt.name,
                place,
                at: opt.span,
                help: Some(help),
            });
            continue;
        }
        match opt.name {
            OptName::Limit => match &opt.arg {
                Some(OptArg { kind: OptArgKind::Int(Int::Small(n)), .. }) if *n >= 0 => {}
                _ => errors.push(argument(opt, "takes a non-negative int, as in `limit:10`")),
            },
            OptName::Mode => match &opt.arg {
                Some(OptArg { kind: OptArgKind::Name(m), .. }) if STREAMING_MODES.contains(&m.as_str()) => {}
                _ => errors.push(argument(
                    opt,
                    "takes a streaming mode: want_all, iterator, exact, small, medium, large or serial",
                )),
            },
            _ => bare(opt, errors),
        }
    }
}

/// FDB's streaming modes, as `mode` takes them.
pub const STREAMING_MODES: [&str; 7] = [
    "want_all", "iterator", "exact", "small", "medium", "large", "serial",
];

fn argument(opt: &Opt, expected: &str) -> CheckError {
    CheckError::OptionArgument {
        option: opt.name,
        expected: expected.into(),
        at: opt.span,
    }
}

fn conflict(opt: &Opt, earlier: &Opt) -> CheckError {
    CheckError::OptionConflict {
        option: opt.name,
        earlier: earlier.name,
        at: opt.span,
        first: earlier.span,
    }
}

/// Reports an argument on an option that takes none.
fn bare(opt: &Opt, errors: &mut Vec<CheckError>) {
    if opt.name.arg() == ArgKind::None && opt.arg.is_some() {
        errors.push(argument(opt, "takes no argument"));
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
                    errors.push(CheckError::OptionMisplaced {
                        option: opt.name,
                        place: "a directory element".into(),
                        at: opt.span,
                        help: None,
                    });
                }
            }
            _ => errors.push(CheckError::DirectoryType { at: spec.span }),
        }
    }
}

/// Checks an element of a key tuple or a value: its variables, and its
/// nested elements. `agg_place` says why aggregates are not allowed here,
/// if they are not.
fn element(elem: &Elem, agg_place: Option<&str>, errors: &mut Vec<CheckError>) {
    match &elem.kind {
        ElemKind::Var(var) => variable(var, agg_place, errors),
        ElemKind::Ref(r) => reference(r, errors),
        ElemKind::Tuple(t) => {
            for inner in &t.elems {
                element(
                    inner,
                    Some(agg_place.unwrap_or("inside a nested tuple")),
                    errors,
                );
            }
        }
        _ => {}
    }
}

fn variable(var: &Variable, agg_place: Option<&str>, errors: &mut Vec<CheckError>) {
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
    for spec in &var.types {
        type_options(spec, errors);
    }
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

/// The encoding an int or num option list describes.
#[derive(Default)]
struct Encoding<'a> {
    width: Option<(u32, &'a Opt)>,
    unsigned: Option<&'a Opt>,
    big_endian: Option<&'a Opt>,
}

/// What an option list is attached to.
#[derive(Clone, Copy, PartialEq)]
enum Target {
    Int,
    Num,
    /// `str`, `uuid` or `vstamp`: `raw` only.
    Raw,
    /// `append`: `sep` only.
    Append,
    /// A reference: any value option; the value's type decides at run time.
    Any,
}

fn type_options(spec: &TypeSpec, errors: &mut Vec<CheckError>) {
    let target = match spec.ty {
        Type::Int => Target::Int,
        Type::Num => Target::Num,
        Type::Str | Type::Uuid | Type::Vstamp => Target::Raw,
        Type::Agg(Agg::Append) => Target::Append,
        _ => {
            if let Some(opt) = spec.options.items.first() {
                errors.push(CheckError::OptionMisplaced {
                    option: opt.name,
                    place: format!("the type `{}`", spec.ty),
                    at: opt.span,
                    help: None,
                });
            }
            return;
        }
    };
    encoding(
        &spec.options,
        target,
        &format!("the type `{}`", spec.ty),
        errors,
    );
}

fn value_options(elem: &Elem, opts: &Options, errors: &mut Vec<CheckError>) {
    if opts.is_empty() {
        return;
    }
    let (target, ty) = match &elem.kind {
        ElemKind::Int(_) => (Target::Int, "int"),
        ElemKind::Num(_) => (Target::Num, "num"),
        ElemKind::Str(_) => (Target::Raw, "str"),
        ElemKind::Uuid(_) => (Target::Raw, "uuid"),
        ElemKind::Vstamp(_) => (Target::Raw, "vstamp"),
        ElemKind::Ref(_) => (Target::Any, "reference"),
        // Reported by the parser: options belong inside the variable.
        ElemKind::Var(_) => return,
        ElemKind::Nil => (Target::Append, "nil"),
        ElemKind::Bool(_) => (Target::Append, "bool"),
        ElemKind::Bytes(_) => (Target::Append, "bytes"),
        ElemKind::Tuple(_) => (Target::Append, "tuple"),
    };
    let article = if matches!(ty, "int" | "uuid") {
        "an"
    } else {
        "a"
    };
    let place = format!("{article} `{ty}` value");
    if target == Target::Append {
        let opt = &opts.items[0];
        let help = match opt.name {
            OptName::Raw if ty == "bytes" => Some("bytes are always written raw".into()),
            OptName::Raw => Some("`raw` applies to str, uuid and vstamp values".into()),
            OptName::Sep => {
                Some("`sep` applies to the aggregate `append`, as in `<append[sep:\",\"]>`".into())
            }
            _ => Some(
                "encoding options apply to int and num values, `raw` to str, uuid and vstamp"
                    .into(),
            ),
        };
        errors.push(CheckError::OptionMisplaced {
            option: opt.name,
            place,
            at: opt.span,
            help,
        });
        return;
    }
    let enc = encoding(opts, target, &place, errors);
    if let (Some((width, _)), ElemKind::Int(n)) = (enc.width, &elem.kind) {
        int_range(n, width, enc.unsigned.is_some(), elem.span, errors);
    }
    if let (Some((32, _)), ElemKind::Num(Num(x))) = (enc.width, &elem.kind)
        && x.is_finite()
        && (*x as f32).is_infinite()
    {
        errors.push(CheckError::OutOfRange {
            value: Num(*x).to_string(),
            encoding: "a 32-bit num".into(),
            at: elem.span,
            help: format!("a 32-bit num holds magnitudes up to {:e}", f32::MAX),
        });
    }
}

/// Checks an option list against what it is attached to, and returns the
/// encoding it describes.
fn encoding<'a>(
    opts: &'a Options,
    target: Target,
    place: &str,
    errors: &mut Vec<CheckError>,
) -> Encoding<'a> {
    let mut enc = Encoding::default();
    let mut raw: Option<&Opt> = None;
    let mut sep: Option<&Opt> = None;
    let int_ok = matches!(target, Target::Int | Target::Any);
    let num_ok = matches!(target, Target::Num | Target::Any);
    for opt in &opts.items {
        let misplaced = |help: Option<String>| CheckError::OptionMisplaced {
            option: opt.name,
            place: place.into(),
            at: opt.span,
            help,
        };
        let width = opt.name.alias_width();
        let is_num_alias = opt.name.is_num_alias();
        let is_int_alias = width.is_some() && !is_num_alias;
        let unsigned = opt.name.is_unsigned();
        match opt.name {
            _ if is_int_alias && !int_ok => {
                let help = (target == Target::Num)
                    .then(|| "num widths are `f32`, `f64` and `f80`".to_string());
                errors.push(misplaced(help));
                continue;
            }
            _ if is_num_alias && !num_ok => {
                let help = (target == Target::Int)
                    .then(|| "int widths are `i8` ... `i64` and `u8` ... `u64`".to_string());
                errors.push(misplaced(help));
                continue;
            }
            OptName::Width | OptName::Bigendian | OptName::Be | OptName::Unsigned
                if !(int_ok || num_ok) =>
            {
                errors.push(misplaced(None));
                continue;
            }
            OptName::Unsigned if target == Target::Num => {
                errors.push(misplaced(Some("nums are always signed".into())));
                continue;
            }
            OptName::Raw if !matches!(target, Target::Raw | Target::Any) => {
                errors.push(misplaced(Some(
                    "`raw` applies to str, uuid and vstamp".into(),
                )));
                continue;
            }
            OptName::Sep if target != Target::Append => {
                errors.push(misplaced(Some(
                    "`sep` applies to the aggregate `append`".into(),
                )));
                continue;
            }
            _ if opt.name.is_query() => {
                errors.push(misplaced(Some(format!(
                    "`{}` is a query option; it goes before the query, as in `[{}] /dir(...)`",
                    opt.name, opt.name
                ))));
                continue;
            }
            _ => {}
        }
        let width = match (opt.name, &opt.arg) {
            (
                OptName::Width,
                Some(OptArg {
                    kind: OptArgKind::Int(Int::Small(w)),
                    ..
                }),
            ) if valid_width(*w, target) => Some(*w as u32),
            (OptName::Width, _) => {
                let expected = match target {
                    Target::Int => "takes 8, 16, 32 or 64 for an int",
                    Target::Num => "takes 32, 64 or 80 for a num",
                    _ => "takes 8, 16, 32, 64 (int) or 32, 64, 80 (num)",
                };
                errors.push(argument(opt, expected));
                continue;
            }
            _ => width,
        };
        match opt.name {
            OptName::Sep
                if !matches!(
                    opt.arg,
                    Some(OptArg {
                        kind: OptArgKind::Str(_),
                        ..
                    })
                ) =>
            {
                errors.push(argument(opt, "takes a string, as in `sep:\", \"`"));
            }
            _ => bare(opt, errors),
        }
        let slot: Option<&mut Option<&'a Opt>> = match opt.name {
            OptName::Bigendian | OptName::Be => Some(&mut enc.big_endian),
            OptName::Raw => Some(&mut raw),
            OptName::Sep => Some(&mut sep),
            _ => None,
        };
        if let Some(slot) = slot {
            match slot {
                Some(earlier) => errors.push(conflict(opt, earlier)),
                None => *slot = Some(opt),
            }
        }
        if unsigned {
            match enc.unsigned {
                Some(earlier) => errors.push(conflict(opt, earlier)),
                None => enc.unsigned = Some(opt),
            }
        }
        if let Some(w) = width {
            match enc.width {
                Some((_, earlier)) => errors.push(conflict(opt, earlier)),
                None => enc.width = Some((w, opt)),
            }
        }
    }
    if enc.width.is_none() {
        for opt in [enc.unsigned, enc.big_endian].into_iter().flatten() {
            errors.push(CheckError::OptionMisplaced {
                option: opt.name,
                place: format!("{place} without a width"),
                at: opt.span,
                help: Some("without a width the value is tuple-encoded; add one, as in `[u32]` or `[i64,be]`".into()),
            });
        }
    }
    if let (Some(raw), Some((_, w))) = (raw, enc.width) {
        errors.push(conflict(w, raw));
    }
    enc
}

fn valid_width(w: i64, target: Target) -> bool {
    match target {
        Target::Int => matches!(w, 8 | 16 | 32 | 64),
        Target::Num => matches!(w, 32 | 64 | 80),
        _ => matches!(w, 8 | 16 | 32 | 64 | 80),
    }
}

fn int_range(n: &Int, width: u32, unsigned: bool, at: Span, errors: &mut Vec<CheckError>) {
    let (lo, hi) = if unsigned {
        (BigInt::from(0), (BigInt::from(1) << width) - 1)
    } else {
        let half = BigInt::from(1) << (width - 1);
        (-half.clone(), half - 1)
    };
    let value = n.to_big();
    if value < lo || value > hi {
        let sign = if unsigned { "an unsigned" } else { "a signed" };
        errors.push(CheckError::OutOfRange {
            value: n.to_string(),
            encoding: format!("{sign} {width}-bit int"),
            at,
            help: format!("it holds {lo} to {hi}"),
        });
    }
}

/// Incomplete versionstamps: only in writes, and one per write.
fn vstamps(kv: &KeyValue, kind: Kind, errors: &mut Vec<CheckError>) {
    let mut found = Vec::new();
    let mut collect = |e: &Elem| {
        if let ElemKind::Vstamp(Vstamp { tx: None, .. }) = e.kind {
            found.push(e.span);
        }
    };
    for e in &kv.key.tuple.elems {
        e.walk(&mut collect);
    }
    if let Value::Data(e, _) = &kv.value {
        e.walk(&mut collect);
    }
    if kind != Kind::Set {
        for at in found {
            let kind = if kind.writes() { "clear" } else { "read" };
            errors.push(CheckError::VstampNotWritten { at, kind });
        }
    } else if let [first, second, ..] = found[..] {
        errors.push(CheckError::TooManyVstamps { at: second, first });
    }
}
