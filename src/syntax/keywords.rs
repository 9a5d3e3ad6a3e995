//! The closed sets of words FQL gives meaning to: types, options and meta
//! statements, with the spelling suggestions offered when a word is unknown.

use std::fmt;

use strum::{EnumString, IntoStaticStr, VariantArray};

/// What a variable may match, or an aggregate it computes.
///
/// The names are the variants' in lowercase; an aggregate's is its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumString, IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Type {
    /// `any`: every element.
    Any,
    /// `nil`
    Nil,
    /// `bool`
    Bool,
    /// `int`: integers of any size.
    Int,
    /// `num`: IEEE 754 floating point.
    Num,
    /// `str`: Unicode strings.
    Str,
    /// `bytes`: byte strings.
    Bytes,
    /// `uuid`
    Uuid,
    /// `vstamp`: versionstamps.
    Vstamp,
    /// `tuple`, also spelled `tup`.
    #[strum(to_string = "tuple", serialize = "tup")]
    Tuple,
    /// `f32`: the tuple layer's 32-bit floats, `f32(1.5)`; `num` matches
    /// them too.
    F32,
    /// `vstamp80`: the tuple layer's 80-bit versionstamps; `vstamp`
    /// matches them too.
    Vstamp80,
    /// `user`: elements of the tuple layer's user types `0x40` to `0x4f`.
    User,
    /// A pseudo type that folds every matching row into one result.
    #[strum(disabled)]
    Agg(Agg),
}

/// Aggregates: pseudo types that combine the rows of a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "lowercase")]
pub enum Agg {
    /// `count`: the number of rows.
    Count,
    /// `sum` of ints and nums.
    Sum,
    /// `min` of ints and nums.
    Min,
    /// `max` of ints and nums.
    Max,
    /// `avg` of ints and nums, always a num.
    Avg,
    /// `append`: strs or bytes concatenated, with an optional `sep`.
    Append,
}

impl Type {
    /// Every type, in the order the docs list them.
    pub const ALL: [Type; 19] = [
        Type::Any,
        Type::Nil,
        Type::Bool,
        Type::Int,
        Type::Num,
        Type::Str,
        Type::Bytes,
        Type::Uuid,
        Type::Vstamp,
        Type::Tuple,
        Type::F32,
        Type::Vstamp80,
        Type::User,
        Type::Agg(Agg::Count),
        Type::Agg(Agg::Sum),
        Type::Agg(Agg::Min),
        Type::Agg(Agg::Max),
        Type::Agg(Agg::Avg),
        Type::Agg(Agg::Append),
    ];

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Type::Agg(agg) => agg.into(),
            ty => ty.into(),
        }
    }

    /// The type a word names, accepting the alias `tup`.
    pub fn from_name(word: &str) -> Option<Type> {
        word.parse().or_else(|_| word.parse().map(Type::Agg)).ok()
    }

    /// Whether an element of type `found` (an element type, never `any`
    /// or an aggregate) is of this type: each type holds its own
    /// elements, `any` every element, `num` the 32-bit floats too and
    /// `vstamp` the 80-bit stamps too. Aggregates hold none here; what
    /// they fold is for their callers to say.
    pub fn includes(self, found: Type) -> bool {
        match self {
            Type::Any => true,
            Type::Num => matches!(found, Type::Num | Type::F32),
            Type::Vstamp => matches!(found, Type::Vstamp | Type::Vstamp80),
            Type::Agg(_) => false,
            ty => ty == found,
        }
    }

    /// Whether this is an aggregate rather than an element type.
    pub fn is_agg(self) -> bool {
        matches!(self, Type::Agg(_))
    }

    /// A hint for a word that names no type: names from other FQL dialects
    /// map to ours, anything else gets the nearest spelling.
    pub fn suggest(word: &str) -> Option<String> {
        if word == "uint" {
            return Some(
                "use `int`; an unsigned encoding is a value option, as in `<int[u64]>`".into(),
            );
        }
        let alias = |w: &str| {
            TYPE_ALIASES
                .iter()
                .find(|(alias, _)| *alias == w)
                .map(|(_, name)| *name)
        };
        let name = alias(word)
            .or_else(|| nearest(word, Type::ALL.iter().map(|t| t.name())))
            .or_else(|| alias(nearest(word, TYPE_ALIASES.iter().map(|(a, _)| *a))?))?;
        Some(format!("did you mean `{name}`?"))
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Type names of other dialects and languages, and the FQL type each means.
const TYPE_ALIASES: [(&str, &str); 15] = [
    ("string", "str"),
    ("text", "str"),
    ("float", "num"),
    ("double", "num"),
    ("float64", "num"),
    ("real", "num"),
    ("number", "num"),
    ("integer", "int"),
    ("long", "int"),
    ("int64", "int"),
    ("boolean", "bool"),
    ("blob", "bytes"),
    ("binary", "bytes"),
    ("versionstamp", "vstamp"),
    ("version", "vstamp"),
];

/// The argument an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A bare option such as `reverse`.
    None,
    /// An int, as in `limit:5`.
    Int,
    /// A name, as in `mode:want_all`.
    Name,
    /// A string, as in `sep:"\n"`.
    Str,
}

/// Option names. Which of them may stand where is for the static checks
/// to judge; the parser only knows their names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "lowercase")]
#[allow(missing_docs)]
pub enum OptName {
    Absent,
    Exists,
    Min,
    Max,
    Reverse,
    Limit,
    Mode,
    Snapshot,
    Strict,
    System,
    Prefix,
    Width,
    Bigendian,
    Unsigned,
    Be,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    F80,
    Raw,
    Sep,
}

impl OptName {
    /// Every option.
    pub const ALL: &'static [OptName] = OptName::VARIANTS;

    /// The name as written.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The option a word names: a match on the word, which the compiler
    /// switches on by length first; the parser asks this of every option
    /// it reads.
    pub fn from_name(word: &str) -> Option<OptName> {
        word.parse().ok()
    }

    /// The argument the option requires.
    pub fn arg(self) -> ArgKind {
        match self {
            OptName::Limit | OptName::Width | OptName::Min | OptName::Max => ArgKind::Int,
            OptName::Mode => ArgKind::Name,
            OptName::Sep => ArgKind::Str,
            _ => ArgKind::None,
        }
    }

    /// Whether the option shapes a query (`[reverse] /a(...)`) rather than
    /// an encoding (`=7[i64]`).
    pub fn is_query(self) -> bool {
        matches!(
            self,
            OptName::Absent
                | OptName::Exists
                | OptName::Min
                | OptName::Max
                | OptName::Reverse
                | OptName::Limit
                | OptName::Mode
                | OptName::Snapshot
                | OptName::Strict
                | OptName::System
                | OptName::Prefix
        )
    }

    /// The width an alias such as `i64` or `f32` stands for.
    pub fn alias_width(self) -> Option<u32> {
        match self {
            OptName::I8 | OptName::U8 => Some(8),
            OptName::I16 | OptName::U16 => Some(16),
            OptName::I32 | OptName::U32 | OptName::F32 => Some(32),
            OptName::I64 | OptName::U64 | OptName::F64 => Some(64),
            OptName::F80 => Some(80),
            _ => None,
        }
    }

    /// Whether the option is a num width alias: `f32`, `f64`, `f80`.
    pub fn is_num_alias(self) -> bool {
        matches!(self, OptName::F32 | OptName::F64 | OptName::F80)
    }

    /// Whether the option makes an int unsigned: `unsigned` and `u8` ...
    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            OptName::Unsigned | OptName::U8 | OptName::U16 | OptName::U32 | OptName::U64
        )
    }

    /// A hint for a word that names no option.
    pub fn suggest(word: &str) -> Option<String> {
        let known = match word {
            "rev" | "desc" | "backward" => Some("reverse"),
            "le" | "little" | "littleendian" => {
                return Some(
                    "little-endian is the default once a width is given, as in `[i64]`".into(),
                );
            }
            "big" | "bigEndian" | "big_endian" => Some("bigendian"),
            "separator" => Some("sep"),
            _ => None,
        };
        let name = known.or_else(|| nearest(word, OptName::ALL.iter().map(|o| o.name())))?;
        Some(format!("did you mean `{name}`?"))
    }
}

impl fmt::Display for OptName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// FoundationDB's atomic operations, as a value writes them:
/// `/hits("home")=add(1[i64])`. The names are FDB's own, in snake case, so
/// that its documentation reads straight across.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum AtomicOp {
    /// `add`: little-endian integer addition, wrapping at the operand's width.
    Add,
    /// `bit_and`: bitwise and.
    BitAnd,
    /// `bit_or`: bitwise or.
    BitOr,
    /// `bit_xor`: bitwise xor.
    BitXor,
    /// `min`: the smaller, as little-endian unsigned ints.
    Min,
    /// `max`: the larger, as little-endian unsigned ints.
    Max,
    /// `byte_min`: the smaller, bytes compared from the first.
    ByteMin,
    /// `byte_max`: the larger, bytes compared from the first.
    ByteMax,
    /// `append_if_fits`: the operand appended, unless the value would
    /// pass the size limit.
    AppendIfFits,
    /// `compare_and_clear`: clears the key if its value is the operand.
    CompareAndClear,
}

impl AtomicOp {
    /// Every atomic operation, in the order the docs list them.
    pub const ALL: &'static [AtomicOp] = AtomicOp::VARIANTS;

    /// The name as written.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The operation a word names.
    pub fn from_name(word: &str) -> Option<AtomicOp> {
        word.parse().ok()
    }

    /// A typical use, for help lines.
    pub fn example(self) -> &'static str {
        match self {
            AtomicOp::Add => "add(1[i64])",
            AtomicOp::BitAnd => "bit_and(0x0f)",
            AtomicOp::BitOr => "bit_or(0x80)",
            AtomicOp::BitXor => "bit_xor(255[u8])",
            AtomicOp::Min => "min(10[u64])",
            AtomicOp::Max => "max(10[u64])",
            AtomicOp::ByteMin => "byte_min(\"abc\")",
            AtomicOp::ByteMax => "byte_max(\"abc\")",
            AtomicOp::AppendIfFits => "append_if_fits(\"x\")",
            AtomicOp::CompareAndClear => "compare_and_clear(\"done\")",
        }
    }

    /// A hint for a word before `(` that names no operation.
    pub fn suggest(word: &str) -> Option<String> {
        let known = match word {
            "incr" | "increment" | "inc" | "sum" => Some("add"),
            "and" => Some("bit_and"),
            "or" => Some("bit_or"),
            "xor" => Some("bit_xor"),
            "append" => Some("append_if_fits"),
            "cas" | "compare_and_swap" => Some("compare_and_clear"),
            _ => None,
        };
        let name = known.or_else(|| nearest(word, AtomicOp::ALL.iter().map(|o| o.name())))?;
        Some(format!("did you mean `{name}`?"))
    }
}

impl fmt::Display for AtomicOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Meta statements: `@` words that shape transactions rather than touch
/// data, named as the variants in lowercase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumString, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "lowercase")]
pub enum MetaKind {
    /// `@commit`: commit the transaction; later statements run in a new one.
    Commit,
    /// `@read`: the transaction this opens only reads.
    Read,
    /// `@write`: the transaction this opens may write.
    Write,
}

impl MetaKind {
    /// Every meta statement.
    pub const ALL: &'static [MetaKind] = MetaKind::VARIANTS;

    /// The word after `@`.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The meta statement a word names.
    pub fn from_name(word: &str) -> Option<MetaKind> {
        word.parse().ok()
    }

    /// A hint for a word that names no meta statement.
    pub fn suggest(word: &str) -> Option<String> {
        let known = match word {
            "tx" | "end" | "go" => Some("commit"),
            _ => None,
        };
        let name = known.or_else(|| nearest(word, MetaKind::ALL.iter().map(|m| m.name())))?;
        Some(format!("did you mean `@{name}`?"))
    }
}

impl fmt::Display for MetaKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.name())
    }
}

/// The words that are data elements.
const DATA_WORDS: [&str; 5] = ["nil", "true", "false", "inf", "nan"];

/// Other languages' words for them.
const DATA_ALIASES: [(&str, &str); 4] = [
    ("null", "nil"),
    ("none", "nil"),
    ("infinity", "inf"),
    ("undefined", "nil"),
];

/// The data word (`nil`, `true`, `false`, `inf`, `nan`) that `word`, a
/// bare word where an element belongs, most likely means: the same word
/// in another case, another language's word for it, or a word one edit
/// away. A bare word is no element, so any near one is the likely intent.
pub fn data_word(word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    let alias = DATA_ALIASES
        .iter()
        .find(|(alias, _)| *alias == lower)
        .map(|(_, w)| *w);
    let same = DATA_WORDS.iter().copied().find(|w| *w == lower);
    same.or(alias).or_else(|| {
        DATA_WORDS
            .iter()
            .copied()
            .filter(|_| lower.len() >= 2 && lower.len() <= 6)
            .find(|w| strsim::damerau_levenshtein(&lower, w) == 1)
    })
}

/// The closest candidate to a misspelt word, if any is close enough to be a
/// plausible typo rather than a different word.
fn nearest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    // Lengths that differ by more than 2 are more than 2 edits apart; the
    // distance's table would be as large as the word.
    let lower = word.to_ascii_lowercase();
    candidates
        .filter(|c| word.len() <= c.len() + 2)
        .map(|c| (strsim::damerau_levenshtein(&lower, c), c))
        .filter(|&(d, c)| d <= if c.len() <= 3 { 1 } else { 2 } && d < c.len())
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in Type::ALL {
            assert_eq!(Type::from_name(t.name()), Some(t));
        }
        for &o in OptName::ALL {
            assert_eq!(OptName::from_name(o.name()), Some(o));
        }
        for &m in MetaKind::ALL {
            assert_eq!(MetaKind::from_name(m.name()), Some(m));
        }
        for &a in AtomicOp::ALL {
            assert_eq!(AtomicOp::from_name(a.name()), Some(a));
        }
        assert_eq!(AtomicOp::AppendIfFits.name(), "append_if_fits");
        assert_eq!(Type::from_name("tup"), Some(Type::Tuple));
    }

    #[test]
    fn suggestions() {
        assert_eq!(Type::suggest("string").unwrap(), "did you mean `str`?");
        assert_eq!(Type::suggest("float").unwrap(), "did you mean `num`?");
        assert!(Type::suggest("uint").unwrap().contains("u64"));
        assert_eq!(Type::suggest("itn").unwrap(), "did you mean `int`?");
        assert_eq!(Type::suggest("zzzzzz"), None);
        assert_eq!(
            OptName::suggest("revers").unwrap(),
            "did you mean `reverse`?"
        );
        assert_eq!(OptName::suggest("limt").unwrap(), "did you mean `limit`?");
        assert_eq!(
            MetaKind::suggest("comit").unwrap(),
            "did you mean `@commit`?"
        );
    }

    /// A bare word is pointed at the data word it is near: another case,
    /// another language's word, one edit; other words at none.
    #[test]
    fn data_words() {
        for (word, meant) in [
            ("tru", "true"),
            ("True", "true"),
            ("flase", "false"),
            ("FALSE", "false"),
            ("nill", "nil"),
            ("NULL", "nil"),
            ("None", "nil"),
            ("Inf", "inf"),
            ("Infinity", "inf"),
            ("NaN", "nan"),
        ] {
            assert_eq!(data_word(word), Some(meant), "{word}");
        }
        for word in ["x", "yes", "hello", "information", "truthy"] {
            assert_eq!(data_word(word), None, "{word}");
        }
    }
}
