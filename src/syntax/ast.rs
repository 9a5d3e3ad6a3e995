//! The FQL syntax tree.
//!
//! Every node carries the [`Span`] it was parsed from, so any later stage can
//! point a diagnostic at the exact text. The tree only holds what parses;
//! whether it makes sense (options in the right place, vstamps only in writes,
//! ...) is decided by the static checks above this layer. Shapes that can
//! never be valid are not representable: `...` is a flag at the end of a
//! tuple or directory, not an element that could stand in the middle.
//!
//! Lists inside statements are [`ThinVec`]s, as in rustc's AST: an empty one
//! takes one word and no allocation, which keeps nodes small to move. The
//! two lists nearly every statement has, its directory path and its key
//! tuple, are small lists instead, whose first few items need no
//! allocation; a nested tuple is boxed, which also keeps an element small.
//!
//! Names and strings borrow from the source text (`'a`): copying each into
//! its own string cost more than a tenth of the parse of a short query. A
//! string with an escape is the exception and owns its unescaped text.

use std::borrow::Cow;

use num_bigint::BigInt;
pub use thin_vec::ThinVec;
pub use uuid::Uuid;

use super::items::Items;
pub use super::keywords::{Agg, ArgKind, AtomicOp, MetaKind, OptName, Type};
use super::small_list::{Blank, SmallList};
pub use super::span::Span;

/// A whole script: statements and meta statements in order, plus the comments
/// and blank lines that the formatter keeps.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script<'a> {
    /// Statements and meta statements in source order.
    pub items: Items<Item<'a>>,
    /// Comments and blank lines; the AST proper ignores them.
    pub trivia: Trivia<'a>,
}

/// One line-level unit of a script.
///
/// A statement is far larger than a meta statement; boxing it would cost
/// an allocation per statement, and a script of one statement already
/// holds its item in a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Item<'a> {
    /// A query.
    Statement(Statement<'a>),
    /// `@commit`, `@read` or `@write`.
    Meta(Meta),
}

impl Item<'_> {
    /// Where the item was written.
    pub fn span(&self) -> Span {
        match self {
            Item::Statement(s) => s.span,
            Item::Meta(m) => m.span,
        }
    }
}

/// A meta statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    /// Which one.
    pub kind: MetaKind,
    /// `@` through the end of the word.
    pub span: Span,
}

/// A query with its query options.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement<'a> {
    /// `[reverse,limit:5]` before the query; empty when there are none.
    pub options: Options<'a>,
    /// The query itself.
    pub query: Query<'a>,
    /// From the options (or the query) to the end of the query.
    pub span: Span,
}

impl Statement<'_> {
    /// What the statement does: the query's [`Kind`], except that a guard
    /// (`[exists] /a(1)=2`) makes a key-value without holes a read that
    /// checks the value rather than a write.
    pub fn kind(&self) -> Kind {
        let kind = self.query.kind();
        let guarded = self
            .options
            .items
            .iter()
            .any(|o| matches!(o.name, OptName::Absent | OptName::Exists));
        if kind == Kind::Set && guarded {
            Kind::Read
        } else {
            kind
        }
    }
}

/// The shapes a query can take.
///
/// A key-value, with its key tuple inline, is the largest and the most
/// frequent shape: it is not boxed, which would cost an allocation per
/// statement.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Query<'a> {
    /// `/a/b`: list directories.
    Directory(Directory<'a>),
    /// `/a/b=remove`: remove directories and everything in them.
    Remove {
        /// The directories to remove.
        dir: Directory<'a>,
        /// The `remove` keyword.
        keyword: Span,
    },
    /// `/a/b(1,2)`, `/a/b(1,2)=value` or `/a/b(1,2)=clear`.
    KeyValue(KeyValue<'a>),
    /// `0x15ff=value`, `0x15...` or `0x15..0x16`: keys given as their
    /// bytes, for what lies outside the directory and tuple layers.
    Raw(RawKeyValue<'a>),
}

/// A key, or a range of keys, given as bytes, and what to do with the
/// values there.
#[derive(Clone, Debug, PartialEq)]
pub struct RawKeyValue<'a> {
    /// The key or the range.
    pub key: RawKey,
    /// Right of the `=`, as for a tuple key.
    pub value: Value<'a>,
}

/// Keys as bytes: one key, every key under a prefix, or the keys from a
/// first to an end.
#[derive(Clone, Debug, PartialEq)]
pub struct RawKey {
    /// Which keys.
    pub kind: RawKeyKind,
    /// From the first `0x` to the end of the key or range.
    pub span: Span,
}

/// The shapes of a raw key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawKeyKind {
    /// `0x15ff`: this key.
    Key(Vec<u8>),
    /// `0x15ff...`: every key that starts with these bytes, this one
    /// included.
    Prefix(Vec<u8>),
    /// `0x15..0x16`: every key from the first, included, to the second,
    /// left out.
    Range(Vec<u8>, Vec<u8>),
}

impl RawKeyKind {
    /// Whether it stands for more than one key.
    pub fn is_range(&self) -> bool {
        !matches!(self, RawKeyKind::Key(_))
    }
}

/// What a statement does, as far as its shape tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `/a/<>`: list directories.
    List,
    /// `/a=remove`
    Remove,
    /// `/a(1)=2`: no holes; writes one key-value.
    Set,
    /// `/a(1)=add(1[i64])`: an atomic operation on one key, which reads
    /// nothing.
    Mutate,
    /// `/a(1)=clear`: clears one key.
    Clear,
    /// `/a(<>)=clear`: clears every matching key.
    ClearRange,
    /// `/a(1)=<int>` or `/a(1)`: holes only in the value.
    Read,
    /// `/a(<>,...)`: holes in the key; reads a range and filters it.
    ReadRange,
}

impl Kind {
    /// How messages name the kind, after "a" or "an".
    pub fn noun(self) -> &'static str {
        match self {
            Kind::List => "directory listing",
            Kind::Remove => "directory removal",
            Kind::Set => "write",
            Kind::Mutate => "mutation",
            Kind::Clear | Kind::ClearRange => "clear",
            Kind::Read | Kind::ReadRange => "read",
        }
    }

    /// Whether the statement changes the database.
    pub fn writes(self) -> bool {
        matches!(
            self,
            Kind::Remove | Kind::Set | Kind::Mutate | Kind::Clear | Kind::ClearRange
        )
    }
}

impl<'a> Query<'a> {
    /// The directory, or directory pattern, the query names; none for
    /// raw keys.
    pub fn dir(&self) -> Option<&Directory<'a>> {
        match self {
            Query::Directory(d) | Query::Remove { dir: d, .. } => Some(d),
            Query::KeyValue(kv) => Some(&kv.key.dir),
            Query::Raw(_) => None,
        }
    }

    /// [`Query::dir`], to change it.
    pub fn dir_mut(&mut self) -> Option<&mut Directory<'a>> {
        match self {
            Query::Directory(d) | Query::Remove { dir: d, .. } => Some(d),
            Query::KeyValue(kv) => Some(&mut kv.key.dir),
            Query::Raw(_) => None,
        }
    }

    /// The elements of the key tuple, then the value when it is data (or
    /// the operand of an atomic operation); none for a directory query.
    pub fn elems_mut(&mut self) -> impl Iterator<Item = &mut Elem<'a>> {
        let (key, value) = match self {
            Query::KeyValue(kv) => (kv.key.tuple.elems.iter_mut(), kv.value.elem_mut()),
            Query::Raw(raw) => ([].iter_mut(), raw.value.elem_mut()),
            _ => ([].iter_mut(), None),
        };
        key.chain(value)
    }

    /// [`Query::elems_mut`], to read them.
    pub fn elems(&self) -> impl Iterator<Item = &Elem<'a>> {
        let (key, value) = match self {
            Query::KeyValue(kv) => (kv.key.tuple.elems.iter(), kv.value.elem()),
            Query::Raw(raw) => ([].iter(), raw.value.elem()),
            _ => ([].iter(), None),
        };
        key.chain(value)
    }

    /// Classifies the statement by where its holes are. References are not
    /// holes: each stands for one value. An atomic operation is a mutation
    /// whatever its key holds; the checks refuse one with holes.
    pub fn kind(&self) -> Kind {
        match self {
            Query::Directory(_) => Kind::List,
            Query::Remove { .. } => Kind::Remove,
            Query::KeyValue(kv) => {
                let key_holes = kv.key.dir.has_holes() || kv.key.tuple.has_holes();
                Kind::of_key_value(key_holes, &kv.value)
            }
            Query::Raw(raw) => Kind::of_key_value(raw.key.kind.is_range(), &raw.value),
        }
    }
}

impl Kind {
    /// The kind of a key-value, tuple or raw, by whether its key stands
    /// for many keys and by its value.
    fn of_key_value(key_holes: bool, value: &Value<'_>) -> Kind {
        match value {
            Value::Mutate(_) => Kind::Mutate,
            Value::Clear(_) if key_holes => Kind::ClearRange,
            Value::Clear(_) => Kind::Clear,
            _ if key_holes => Kind::ReadRange,
            Value::Data(elem, _) if !elem.has_holes() => Kind::Set,
            _ => Kind::Read,
        }
    }
}

/// A key and what to do with its value.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyValue<'a> {
    /// Directory and tuple.
    pub key: Key<'a>,
    /// Right of the `=`.
    pub value: Value<'a>,
}

/// Where a key lives, and its tuple: a directory (`/app(1)`), the root
/// of the keyspace (`/(1)`, an absolute path of no names), or raw bytes
/// (`0x0261707000(1)`, a subspace that is no directory).
#[derive(Clone, PartialEq)]
pub struct Key<'a> {
    /// The directory; for a raw prefix, an empty path spanning the bytes.
    pub dir: Directory<'a>,
    /// The bytes before the tuple, in place of a directory's prefix.
    pub prefix: Option<ThinVec<u8>>,
    /// The key's tuple.
    pub tuple: Tuple<'a>,
}

/// Shows `prefix` only for a key after raw bytes: the dump of a key in a
/// directory, the common case, reads as it did before such keys were.
impl std::fmt::Debug for Key<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Key");
        d.field("dir", &self.dir);
        if let Some(prefix) = &self.prefix {
            d.field("prefix", prefix);
        }
        d.field("tuple", &self.tuple).finish()
    }
}

impl Key<'_> {
    /// Where the key lives, as the executor finds its prefix.
    pub fn place(&self) -> Place<'_> {
        match &self.prefix {
            Some(bytes) => Place::Prefix(bytes),
            None if self.dir.is_root() => Place::Root,
            None => Place::Directory(&self.dir),
        }
    }
}

/// [`Key::place`]: the three spaces a tuple key can be written in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Place<'k> {
    /// A directory, or a pattern of directories.
    Directory(&'k Directory<'k>),
    /// The root of the keyspace, outside every directory.
    Root,
    /// Raw bytes before the tuple.
    Prefix(&'k [u8]),
}

/// The right-hand side of a key-value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// No `=` at all: read the value, as `<>` would.
    Omitted,
    /// `=clear`: clear the matching keys.
    Clear(Span),
    /// `=` and an element, with the element options that follow it
    /// (`=37534[i64,be]`).
    Data(Elem<'a>, Options<'a>),
    /// `=add(1[i64])`: an atomic operation and its operand. Boxed: rare,
    /// and inline it would make every value larger.
    Mutate(Box<Mutation<'a>>),
}

impl<'a> Value<'a> {
    /// The element the value holds: the data, or an atomic operation's
    /// operand.
    pub fn elem(&self) -> Option<&Elem<'a>> {
        match self {
            Value::Data(e, _) => Some(e),
            Value::Mutate(m) => Some(&m.operand),
            Value::Omitted | Value::Clear(_) => None,
        }
    }

    /// [`Value::elem`], to change it.
    pub fn elem_mut(&mut self) -> Option<&mut Elem<'a>> {
        match self {
            Value::Data(e, _) => Some(e),
            Value::Mutate(m) => Some(&mut m.operand),
            Value::Omitted | Value::Clear(_) => None,
        }
    }
}

/// An atomic operation on the value of one key: FDB's mutations, which
/// change a value without reading it.
#[derive(Clone, Debug, PartialEq)]
pub struct Mutation<'a> {
    /// Which one.
    pub op: AtomicOp,
    /// The operation's name.
    pub op_span: Span,
    /// What it takes: a data element, encoded as a value is.
    pub operand: Elem<'a>,
    /// The operand's encoding options (`[i64]` in `add(1[i64])`).
    pub options: Options<'a>,
    /// From the name through the `)`.
    pub span: Span,
}

/// A directory path: `/` elements, optionally ending in `/...`.
#[derive(Clone, Default, PartialEq)]
pub struct Directory<'a> {
    /// The elements before any `...`; empty only in `/...`, or in a
    /// relative path that names its root alone (`.`, `..`).
    pub elems: DirElems<'a>,
    /// The span of a trailing `...` (this directory and every descendant).
    pub rest: Option<Span>,
    /// `./` or `../` before the elements: the path starts at the script's
    /// root, or above it, rather than at the top of the directory layer.
    /// The planner resolves it; `None` is an absolute path.
    pub relative: Option<Relative>,
    /// From the first `/`, `.` or `..` to the end of the path.
    pub span: Span,
}

/// Shows `relative` only for a relative path: the dump of an absolute
/// one, the common case, reads as it did before relative paths were.
impl std::fmt::Debug for Directory<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Directory");
        d.field("elems", &self.elems).field("rest", &self.rest);
        if let Some(relative) = &self.relative {
            d.field("relative", relative);
        }
        d.field("span", &self.span).finish()
    }
}

/// The head of a relative path: `.` (the root itself) or one `..` per
/// level above it (`../..`). Kept apart from the elements so that the
/// path prints as written and a name can never be `..`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relative {
    /// How many levels above the root: 0 for `.`, 2 for `../..`.
    pub up: u32,
    /// `.` or the `..`s and the `/`s between them.
    pub span: Span,
}

impl Relative {
    /// The `n`th `..` (from 0), to point at the one that climbs too far.
    pub fn step(&self, n: u32) -> Span {
        let start = self.span.start + 3 * n;
        Span::new(start as usize, start as usize + 2)
    }
}

/// The elements of a directory path: most paths have one or two.
pub type DirElems<'a> = SmallList<DirElem<'a>, 2>;

/// One element of a directory path.
#[derive(Clone, Debug, PartialEq)]
pub enum DirElem<'a> {
    /// A literal name, written bare (`users`) or quoted (`"d!r"`).
    Name {
        /// The name, unquoted and unescaped: borrowed from the source
        /// unless it had an escape.
        name: Cow<'a, str>,
        /// Including any quotes.
        span: Span,
    },
    /// `<>` or a named `<name:str>`: matches any one element.
    Var(Box<Variable<'a>>),
    /// `:name`: the element comes from a binding or a parameter.
    Ref(Box<Reference<'a>>),
}

/// A parenthesized tuple, optionally ending in `...`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tuple<'a> {
    /// The elements before any `...`.
    pub elems: Elems<'a>,
    /// The span of a trailing `...` (any number of further elements).
    pub rest: Option<Span>,
    /// From `(` to `)`.
    pub span: Span,
}

/// The elements of a tuple: most key tuples have at most four.
pub type Elems<'a> = SmallList<Elem<'a>, 4>;

/// A data element or a hole.
#[derive(Clone, Debug, PartialEq)]
pub struct Elem<'a> {
    /// What it is.
    pub kind: ElemKind<'a>,
    /// Where it was written.
    pub span: Span,
}

/// The data elements of the tuple layer, and the holes that stand for them.
///
/// `repr(u8)` puts the tag in front of aligned fields; left to itself, rustc
/// hides the tag in a spare byte of the string and shifts the other
/// variants' fields off alignment, and every move of an element then stalls
/// on misaligned stores.
#[derive(Clone, Debug, PartialEq)]
#[repr(u8)]
#[non_exhaustive]
pub enum ElemKind<'a> {
    /// `nil`
    Nil,
    /// `true`, `false`
    Bool(bool),
    /// Integers of any size.
    Int(Int),
    /// Floating point.
    Num(Num),
    /// `"text"`, borrowed from the source unless it had an escape.
    Str(Cow<'a, str>),
    /// `0x0fa0`
    Bytes(Vec<u8>),
    /// `5a5ebefd-2193-47e2-8def-f464fc698e31`
    Uuid(Uuid),
    /// `#0102030405060708090a:0000` or the incomplete `#:0000`.
    Vstamp(Vstamp),
    /// A nested tuple, boxed: its inline elements would make every
    /// element as large as four.
    Tuple(Box<Tuple<'a>>),
    /// `<>`, `<int|str>`, `<name:type>`. Held inline: holes are frequent,
    /// and a box each cost a tenth of the parse of a short query.
    Var(Variable<'a>),
    /// `:name` or `:name!type`.
    Ref(Box<Reference<'a>>),
    /// `f32(1.5)`: a 32-bit float, the tuple layer's type `0x20`, which
    /// other bindings write and which must read back as itself.
    F32(F32),
    /// `#0102030405060708090a`: the tuple layer's 80-bit versionstamp
    /// (type `0x32`), a transaction version with no user version.
    Vstamp80([u8; 10]),
    /// `user(0x40,0xaabb)`: one of the tuple layer's user types
    /// (`0x40` to `0x4f`), opaque bytes to the end of the tuple. Boxed:
    /// rare, and inline its bytes would widen every element.
    User(Box<UserType>),
}

/// A 32-bit float, compared by bit pattern as [`Num`] is.
#[derive(Clone, Copy, Debug)]
pub struct F32(pub f32);

impl PartialEq for F32 {
    fn eq(&self, other: &F32) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for F32 {}

/// An element of a user type: its type code and the bytes after it.
///
/// The tuple layer leaves a user type's length to its user, so its bytes
/// run to the end of the packed tuple: it can only be the last element of
/// a key or a value, never inside a nested tuple.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UserType {
    /// The type code, `0x40` to `0x4f`.
    pub code: u8,
    /// The bytes after the code.
    pub data: Vec<u8>,
}

impl UserType {
    /// The type codes the tuple layer leaves to its users.
    pub const CODES: std::ops::RangeInclusive<u8> = 0x40..=0x4f;
}

/// A hole that matches one element, optionally binding it to a name.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable<'a> {
    /// `name` in `<name:int>`; a named variable always has a type. The
    /// name starts right after the `<`, so its span is not stored (see
    /// [`Variable::name_span`]): that keeps a variable small enough to
    /// stand inline in an element.
    pub name: Option<&'a str>,
    /// The allowed types in order; empty means any element.
    pub types: ThinVec<TypeSpec<'a>>,
    /// From `<` to `>`.
    pub span: Span,
}

impl Variable<'_> {
    /// Where the name was written.
    pub fn name_span(&self) -> Option<Span> {
        let start = self.span.start as usize + 1;
        self.name.map(|n| Span::new(start, start + n.len()))
    }
}

/// One alternative of a variable's type list, such as `int[i64,be]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeSpec<'a> {
    /// The type.
    pub ty: Type,
    /// Options that follow the type name.
    pub options: Options<'a>,
    /// The type name and its options.
    pub span: Span,
}

/// A use of a named variable's value.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference<'a> {
    /// The name after `:`.
    pub name: Ident<'a>,
    /// `!type`: the type the value must have.
    pub cast: Option<Cast>,
    /// From `:` to the end.
    pub span: Span,
}

/// The `!type` of a reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Cast {
    /// The type.
    pub ty: Type,
    /// The type name.
    pub span: Span,
}

/// A name: of a variable, a reference, or an option argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident<'a> {
    /// The text, as written.
    pub name: &'a str,
    /// Where.
    pub span: Span,
}

/// A bracketed option list such as `[reverse,limit:5]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options<'a> {
    /// The options in the order written; empty when there is no list.
    pub items: ThinVec<Opt<'a>>,
    /// From `[` to `]`; empty when there is no list.
    pub span: Span,
}

impl Options<'_> {
    /// Whether there are no options.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// One option: a name and maybe an argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Opt<'a> {
    /// The option.
    pub name: OptName,
    /// After the `:`.
    pub arg: Option<OptArg<'a>>,
    /// Name and argument.
    pub span: Span,
}

/// An option's argument.
#[derive(Clone, Debug, PartialEq)]
pub struct OptArg<'a> {
    /// The value.
    pub kind: OptArgKind<'a>,
    /// Where.
    pub span: Span,
}

/// The forms an option argument may take.
#[derive(Clone, Debug, PartialEq)]
pub enum OptArgKind<'a> {
    /// `mode:want_all`
    Name(&'a str),
    /// `limit:5`
    Int(Int),
    /// `sep:"\n"`
    Str(Cow<'a, str>),
}

/// An integer of any size.
///
/// Values that fit an `i64` are always `Small`, so equal integers are equal
/// values and the common case never allocates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Int {
    /// Fits in 64 signed bits.
    Small(i64),
    /// Does not.
    Big(Box<BigInt>),
}

impl Int {
    /// The int equal to `n`, in its normal form.
    pub fn from_big(n: BigInt) -> Int {
        match i64::try_from(&n) {
            Ok(small) => Int::Small(small),
            Err(_) => Int::Big(Box::new(n)),
        }
    }

    /// The value as a `BigInt`.
    pub fn to_big(&self) -> BigInt {
        match self {
            Int::Small(n) => BigInt::from(*n),
            Int::Big(n) => (**n).clone(),
        }
    }
}

impl From<i64> for Int {
    fn from(n: i64) -> Int {
        Int::Small(n)
    }
}

/// A floating-point number.
///
/// Equality is by bit pattern: `-0.0` and `0.0` are different tuple-layer
/// values, and a NaN equals itself so that ASTs compare reflexively.
#[derive(Clone, Copy, Debug)]
pub struct Num(pub f64);

impl PartialEq for Num {
    fn eq(&self, other: &Num) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Num {}

/// A versionstamp: a 10-byte transaction version and a 2-byte user version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vstamp {
    /// The transaction version, or `None` for an incomplete stamp that the
    /// database fills in at commit.
    pub tx: Option<[u8; 10]>,
    /// The user version, big-endian as the tuple layer stores it.
    pub user: u16,
}

impl Blank for Elem<'_> {
    fn blank() -> Self {
        Elem {
            kind: ElemKind::Nil,
            span: Span::default(),
        }
    }

    #[inline]
    fn owns_nothing(&self) -> bool {
        matches!(
            self.kind,
            ElemKind::Nil
                | ElemKind::Bool(_)
                | ElemKind::Int(Int::Small(_))
                | ElemKind::Num(_)
                | ElemKind::Str(Cow::Borrowed(_))
                | ElemKind::Uuid(_)
                | ElemKind::Vstamp(_)
                | ElemKind::F32(_)
                | ElemKind::Vstamp80(_)
        )
    }
}

impl Blank for DirElem<'_> {
    fn blank() -> Self {
        DirElem::Name {
            name: Cow::Borrowed(""),
            span: Span::default(),
        }
    }

    #[inline]
    fn owns_nothing(&self) -> bool {
        matches!(
            self,
            DirElem::Name {
                name: Cow::Borrowed(_),
                ..
            }
        )
    }
}

impl Tuple<'_> {
    /// Whether anything in the tuple (nested tuples included) is a hole.
    pub fn has_holes(&self) -> bool {
        self.rest.is_some() || self.elems.iter().any(Elem::has_holes)
    }
}

impl<'a> Elem<'a> {
    /// Whether the element is, or contains, a variable or `...`.
    pub fn has_holes(&self) -> bool {
        match &self.kind {
            ElemKind::Var(_) => true,
            ElemKind::Tuple(t) => t.has_holes(),
            _ => false,
        }
    }

    /// Calls `f` on this element and every element nested in it, outer first.
    pub fn walk<'e>(&'e self, f: &mut impl FnMut(&'e Elem<'a>)) {
        f(self);
        if let ElemKind::Tuple(t) = &self.kind {
            for e in &t.elems {
                e.walk(f);
            }
        }
    }
}

impl Directory<'_> {
    /// Whether the path matches more than one directory.
    pub fn has_holes(&self) -> bool {
        self.rest.is_some() || self.elems.iter().any(|e| matches!(e, DirElem::Var(_)))
    }

    /// Whether it is `/` alone, the root of the keyspace: an absolute
    /// path of no names, which only a key (`/(1)`) can have.
    pub fn is_root(&self) -> bool {
        self.elems.is_empty() && self.rest.is_none() && self.relative.is_none()
    }
}

impl DirElem<'_> {
    /// Where the element was written.
    pub fn span(&self) -> Span {
        match self {
            DirElem::Name { span, .. } => *span,
            DirElem::Var(v) => v.span,
            DirElem::Ref(r) => r.span,
        }
    }
}

/// Comments and blank lines, kept beside the tree for `fql fmt`.
///
/// The lists are [`ThinVec`]s, a word each: most scripts have neither, and
/// the script is moved on its way out of the parser.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trivia<'a> {
    /// Every `%` comment in source order.
    pub comments: ThinVec<Comment<'a>>,
    /// The offsets of lines that hold nothing but whitespace, in order.
    pub blank_lines: ThinVec<u32>,
}

/// A `%` comment.
#[derive(Clone, Debug, PartialEq)]
pub struct Comment<'a> {
    /// The text after `%`, without the line break.
    pub text: &'a str,
    /// Whether the comment has a line to itself, rather than trailing code.
    pub own_line: bool,
    /// From `%` to the end of the line.
    pub span: Span,
}

/// The tree stays covariant in its lifetime: a script of a longer-lived
/// text passes where a shorter borrow is expected. This does not compile
/// if a list type of the tree makes it invariant.
#[cfg(test)]
#[allow(dead_code)]
fn covariant<'long: 'short, 'short>(script: Script<'long>) -> Script<'short> {
    script
}
