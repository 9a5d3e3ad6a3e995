//! Encoding options: from the option list written after a value or a type
//! to the [`Encoding`] the codec uses.
//!
//! This is the only place that decides what `[i64,be]`, `[f32]` or `[raw]`
//! mean and where they may stand. The static checker calls [`resolve`] on
//! every option list so that `fql fmt` reports exactly what a run would.
//! Every problem in a list is returned, not just the first, because the
//! checker reports them all.

use crate::syntax::ast::{Agg, ArgKind, Int, Opt, OptArg, OptArgKind, OptName, Options, Type};

use super::{Error, OptionError};

/// How a whole value is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    /// Packed by the tuple layer, the default.
    #[default]
    Tuple,
    /// A fixed-width binary integer.
    Int(IntLayout),
    /// A fixed-width IEEE 754 float.
    Num(NumLayout),
    /// The bytes of a `str`, `uuid` or `vstamp` as they are.
    Raw,
}

/// A fixed-width integer: `[i64,be]`, `[u8]`, `[width:16,unsigned]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLayout {
    /// How many bits.
    pub width: IntWidth,
    /// Unsigned rather than two's complement.
    pub unsigned: bool,
    /// Big-endian rather than the default little-endian.
    pub big_endian: bool,
}

/// A fixed-width float: `[f32]`, `[f64,be]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumLayout {
    /// Single or double precision.
    pub width: NumWidth,
    /// Big-endian rather than the default little-endian.
    pub big_endian: bool,
}

/// The widths an int may be stored in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntWidth {
    /// `i8`, `u8`
    W8,
    /// `i16`, `u16`
    W16,
    /// `i32`, `u32`
    W32,
    /// `i64`, `u64`
    W64,
}

impl IntWidth {
    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            IntWidth::W8 => 8,
            IntWidth::W16 => 16,
            IntWidth::W32 => 32,
            IntWidth::W64 => 64,
        }
    }

    fn from_bits(bits: u32) -> Option<IntWidth> {
        Some(match bits {
            8 => IntWidth::W8,
            16 => IntWidth::W16,
            32 => IntWidth::W32,
            64 => IntWidth::W64,
            _ => return None,
        })
    }
}

/// The widths a num may be stored in: IEEE 754 binary32 and binary64, and
/// the x87 80-bit extended format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumWidth {
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `f80`: written exactly, read rounded to the nearest binary64.
    F80,
}

/// What an option list is attached to; it decides which options may stand
/// there and how errors name the place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A data element written as a value, of this type: `=7[i64]`.
    Value(Type),
    /// A reference written as a value, `=:n[u8]`, before its value is
    /// known: options are judged as far as any type allows.
    Reference,
    /// A type in a variable: `<int[i64]>`.
    Type(Type),
}

/// What the options of a subject may be, as far as its type tells.
#[derive(Clone, Copy, PartialEq)]
enum Target {
    Int,
    Num,
    /// `str`, `uuid` or `vstamp`: `raw` only.
    Raw,
    /// `append`: `sep` only.
    Append,
    /// A reference: any encoding option; the value decides at run time.
    Any,
    /// A type that takes no options at all.
    None,
}

impl Subject {
    fn target(self) -> Target {
        let ty = match self {
            Subject::Reference => return Target::Any,
            Subject::Value(ty) | Subject::Type(ty) => ty,
        };
        match ty {
            Type::Int => Target::Int,
            Type::Num => Target::Num,
            Type::Str | Type::Uuid | Type::Vstamp | Type::Vstamp80 => Target::Raw,
            Type::Agg(Agg::Append) if matches!(self, Subject::Type(_)) => Target::Append,
            _ => Target::None,
        }
    }

    /// How messages name the subject: "an `int` value", "the type `int`".
    fn place(self) -> String {
        match self {
            Subject::Value(ty) => {
                let article = if matches!(ty, Type::Int | Type::Uuid) {
                    "an"
                } else {
                    "a"
                };
                format!("{article} `{ty}` value")
            }
            Subject::Reference => "a `reference` value".into(),
            Subject::Type(ty) => format!("the type `{ty}`"),
        }
    }
}

/// Judges an option list and returns the encoding it describes, or every
/// problem with it. An empty list is the tuple encoding.
pub fn resolve(opts: &Options, subject: Subject) -> Result<Encoding, Vec<Error>> {
    // The common case, taken for every value a script writes or reads.
    if opts.items.is_empty() {
        return Ok(Encoding::Tuple);
    }
    let target = subject.target();
    let place = subject.place();
    if target == Target::None {
        return match opts.items.first() {
            Some(opt) => Err(vec![misplaced(opt, &place, none_help(opt.name, subject))]),
            None => Ok(Encoding::Tuple),
        };
    }
    let mut errors = Vec::new();
    let found = scan(opts, target, &place, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(found.encoding(target))
}

/// The options a list holds once each, as far as they are valid.
#[derive(Default)]
struct Found<'a> {
    width: Option<(u32, &'a Opt<'a>)>,
    unsigned: Option<&'a Opt<'a>>,
    big_endian: Option<&'a Opt<'a>>,
    raw: Option<&'a Opt<'a>>,
    /// Kept only to find a second `sep`: it does not change the encoding.
    sep: Option<&'a Opt<'a>>,
}

impl Found<'_> {
    fn encoding(&self, target: Target) -> Encoding {
        let big_endian = self.big_endian.is_some();
        match self.width {
            Some((bits, opt)) if target == Target::Num || opt.name.is_num_alias() => {
                let width = match bits {
                    32 => NumWidth::F32,
                    80 => NumWidth::F80,
                    _ => NumWidth::F64,
                };
                Encoding::Num(NumLayout { width, big_endian })
            }
            Some((bits, _)) => match IntWidth::from_bits(bits) {
                Some(width) => Encoding::Int(IntLayout {
                    width,
                    unsigned: self.unsigned.is_some(),
                    big_endian,
                }),
                None => Encoding::Tuple,
            },
            None if self.raw.is_some() => Encoding::Raw,
            None => Encoding::Tuple,
        }
    }
}

fn misplaced(opt: &Opt, place: &str, help: Option<String>) -> Error {
    OptionError::Misplaced {
        option: opt.name,
        place: place.into(),
        at: opt.span,
        help,
    }
    .into()
}

/// Where an option belongs, for one put on a subject that takes none.
fn none_help(name: OptName, subject: Subject) -> Option<String> {
    let Subject::Value(ty) = subject else {
        return None;
    };
    Some(match name {
        OptName::Raw if ty == Type::Bytes => "bytes are always written raw".into(),
        OptName::Raw => "`raw` applies to str, uuid and vstamp values".into(),
        OptName::Sep => {
            "`sep` applies to the aggregate `append`, as in `<append[sep:\",\"]>`".into()
        }
        _ => "encoding options apply to int and num values, `raw` to str, uuid and vstamp".into(),
    })
}

/// Checks each option against the target, collecting the valid ones.
fn scan<'a>(
    opts: &'a Options<'a>,
    target: Target,
    place: &str,
    errors: &mut Vec<Error>,
) -> Found<'a> {
    let mut found = Found::default();
    let int_ok = matches!(target, Target::Int | Target::Any);
    let num_ok = matches!(target, Target::Num | Target::Any);
    for opt in &opts.items {
        if let Some(error) = placement(opt, target, int_ok, num_ok, place) {
            errors.push(error);
            continue;
        }
        let width = match width(opt, target) {
            Ok(width) => width,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        if let Some(error) = argument(opt) {
            errors.push(error);
        }
        found.record(opt, width, errors);
    }
    found.conflicts(target, place, errors);
    found
}

/// The width in bits an option gives, if any: `i64`, `f32`,
/// `width:16`; an error for a bad `width`.
fn width(opt: &Opt, target: Target) -> Result<Option<u32>, Error> {
    let OptName::Width = opt.name else {
        return Ok(opt.name.alias_width());
    };
    match &opt.arg {
        Some(OptArg {
            kind: OptArgKind::Int(Int::Small(w)),
            ..
        }) if valid_width(*w, target) => Ok(Some(*w as u32)),
        _ => {
            let expected = match target {
                Target::Int => "takes 8, 16, 32 or 64 for an int",
                Target::Num => "takes 32, 64 or 80 for a num",
                _ => "takes 8, 16, 32, 64 (int) or 32, 64, 80 (num)",
            };
            Err(OptionError::argument(opt, expected).into())
        }
    }
}

/// A missing or extra argument on an option other than `width`.
fn argument(opt: &Opt) -> Option<Error> {
    let expected = match opt.name {
        OptName::Sep
            if !matches!(
                opt.arg,
                Some(OptArg {
                    kind: OptArgKind::Str(_),
                    ..
                })
            ) =>
        {
            "takes a string, as in `sep:\", \"`"
        }
        _ if opt.name.arg() == ArgKind::None && opt.arg.is_some() => "takes no argument",
        _ => return None,
    };
    Some(OptionError::argument(opt, expected).into())
}

impl<'a> Found<'a> {
    /// Takes in an option that may stand here, `width` the bits it gives;
    /// one that repeats or contradicts an earlier one is an error.
    fn record(&mut self, opt: &'a Opt<'a>, width: Option<u32>, errors: &mut Vec<Error>) {
        let slot = match opt.name {
            OptName::Bigendian | OptName::Be => Some(&mut self.big_endian),
            OptName::Raw => Some(&mut self.raw),
            OptName::Sep => Some(&mut self.sep),
            _ => None,
        };
        if let Some(slot) = slot {
            match slot {
                Some(earlier) => errors.push(OptionError::conflict(opt, earlier).into()),
                None => *slot = Some(opt),
            }
        }
        if opt.name.is_unsigned() {
            match self.unsigned {
                Some(earlier) => errors.push(OptionError::conflict(opt, earlier).into()),
                None => self.unsigned = Some(opt),
            }
        }
        if let Some(w) = width {
            match self.width {
                Some((_, earlier)) => errors.push(OptionError::conflict(opt, earlier).into()),
                None => self.width = Some((w, opt)),
            }
        }
    }

    /// Options each valid alone that do not make an encoding together.
    fn conflicts(&self, target: Target, place: &str, errors: &mut Vec<Error>) {
        if self.width.is_none() {
            for opt in [self.unsigned, self.big_endian].into_iter().flatten() {
                errors.push(misplaced(
                    opt,
                    &format!("{place} without a width"),
                    Some("without a width the value is tuple-encoded; add one, as in `[u32]` or `[i64,be]`".into()),
                ));
            }
        }
        if let (Some(raw), Some((_, w))) = (self.raw, self.width) {
            errors.push(OptionError::conflict(w, raw).into());
        }
        // A reference's options must fit one type: `[f32,unsigned]` fits none.
        if let (Target::Any, Some((bits, w)), Some(u)) = (target, self.width, self.unsigned)
            && (w.name.is_num_alias() || bits == 80)
        {
            errors.push(OptionError::conflict(u, w).into());
        }
    }
}

/// Whether an option may stand on this target at all; the error if not.
fn placement(opt: &Opt, target: Target, int_ok: bool, num_ok: bool, place: &str) -> Option<Error> {
    let width = opt.name.alias_width();
    let is_num_alias = opt.name.is_num_alias();
    let is_int_alias = width.is_some() && !is_num_alias;
    let help = |text: &str| Some(text.to_string());
    let error = |help: Option<String>| Some(misplaced(opt, place, help));
    match opt.name {
        _ if is_int_alias && !int_ok => error(
            (target == Target::Num).then(|| "num widths are `f32`, `f64` and `f80`".to_string()),
        ),
        _ if is_num_alias && !num_ok => error(
            (target == Target::Int)
                .then(|| "int widths are `i8` ... `i64` and `u8` ... `u64`".to_string()),
        ),
        OptName::Width | OptName::Bigendian | OptName::Be | OptName::Unsigned
            if !(int_ok || num_ok) =>
        {
            error(None)
        }
        OptName::Unsigned if target == Target::Num => error(help("nums are always signed")),
        OptName::Raw if !matches!(target, Target::Raw | Target::Any) => {
            error(help("`raw` applies to str, uuid and vstamp"))
        }
        OptName::Sep if target != Target::Append => {
            error(help("`sep` applies to the aggregate `append`"))
        }
        _ if opt.name.is_query() => error(Some(format!(
            "`{}` is a query option; it goes before the query, as in `[{}] /dir(...)`",
            opt.name, opt.name
        ))),
        _ => None,
    }
}

fn valid_width(w: i64, target: Target) -> bool {
    match target {
        Target::Int => matches!(w, 8 | 16 | 32 | 64),
        Target::Num => matches!(w, 32 | 64 | 80),
        _ => matches!(w, 8 | 16 | 32 | 64 | 80),
    }
}
