//! Strategies for syntax trees that the parser can produce.
//!
//! A tree the parser could never return (a named variable without a type, a
//! NaN with a payload, a small int stored as big) would fail the round trip for a
//! reason that is no bug, so each strategy stays inside what parsing yields.
//! Spans are left at their default: spans compare equal whatever they hold.

use std::borrow::Cow;

use fql::syntax::ast::*;
use num_bigint::{BigInt, Sign};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;

fn span() -> Span {
    Span::default()
}

/// A valid bare name, biased towards words that mean something elsewhere in
/// FQL, where a confused lexer would show. Names in a tree borrow from the
/// text it was parsed from; generated ones are leaked, a few bytes a case.
pub fn name() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        3 => "[A-Za-z_][A-Za-z0-9_.-]{0,8}",
        1 => select(vec![
            "nil", "true", "false", "inf", "nan", "clear", "remove", "int", "tup", "any",
            "reverse", "e", "x", "_", "a-", "a.", "a...", "a-1", "e5", "deadbeef", "f",
        ])
        .prop_map(str::to_owned),
    ]
    .prop_map(|name: String| &*name.leak())
}

/// A character for strings and quoted names: anything, with the characters
/// that need escaping (control characters among them) or mean something
/// to the lexer made likely.
fn text_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => any::<char>(),
        3 => proptest::char::range('a', 'z'),
        3 => select(vec![
            '"', '\\', '\n', '\t', '\r', '%', '/', '(', ')', ',', '=', '<', '>', '[', ']', ':',
            '!', '@', '#', '|', ' ', '.', '-', '0', '9', '\0', '\u{7f}', '\u{85}', '\u{a0}',
            '\u{2028}', '\u{feff}', 'é', '日', '😀', '🏳', '\u{1b}', '\u{80}', '\u{9b}',
            '\u{9f}', '£', '\u{7}',
        ]),
    ]
}

/// Text for strings, quoted names, comments' neighbours and `sep:` options.
pub fn text() -> impl Strategy<Value = Cow<'static, str>> {
    prop_oneof![
        4 => vec(text_char(), 0..12).prop_map(|cs| Cow::Owned(cs.into_iter().collect())),
        1 => select(vec![
            "", " ", "...", "..", ".", "-", "1", "1abc", "9lives", "a b", "d!r", "\"", "\\",
            "\n", "\r\n", "\t", "\\n", "%", "% not a comment", "a/b", "日本語", "😀🏳️‍🌈",
            "nil", "clear", "remove", "=", "(", ")", "<>",
        ])
        .prop_map(Cow::Borrowed),
    ]
}

/// Ints over the whole i64 range and far beyond it, always in normal form.
pub fn int() -> impl Strategy<Value = Int> {
    let edges = vec![
        BigInt::from(i64::MAX) + 1,
        BigInt::from(i64::MIN) - 1,
        BigInt::from(u64::MAX),
        -BigInt::from(u64::MAX),
        BigInt::from(u128::MAX),
        BigInt::from(10).pow(40),
        -BigInt::from(10).pow(100),
    ];
    prop_oneof![
        4 => any::<i64>().prop_map(Int::Small),
        2 => select(vec![0, 1, -1, 9, -9, 10, i64::MIN, i64::MAX, i64::MIN + 1, i64::MAX - 1])
            .prop_map(Int::Small),
        2 => (any::<bool>(), vec(any::<u32>(), 1..8)).prop_map(|(neg, digits)| {
            let sign = if neg { Sign::Minus } else { Sign::Plus };
            Int::from_big(BigInt::new(sign, digits))
        }),
        1 => select(edges).prop_map(Int::from_big),
    ]
}

/// Nums of every class. Any NaN becomes the one NaN that `nan` reads as.
pub fn num() -> impl Strategy<Value = Num> {
    let special = vec![
        0.0,
        -0.0,
        1.0,
        -1.5,
        0.1,
        1e15,
        1e16,
        1e22,
        1e-7,
        1e300,
        1e-300,
        -1e308,
        123456789.0,
        9007199254740993.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::EPSILON,
        f64::MAX,
        f64::MIN,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        -f64::from_bits(1),
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
    ];
    prop_oneof![
        2 => any::<f64>(),
        2 => any::<u64>().prop_map(f64::from_bits),
        1 => (-1000i32..1000, 1u32..1000).prop_map(|(a, b)| f64::from(a) / f64::from(b)),
        2 => select(special),
    ]
    .prop_map(|x| Num(if x.is_nan() { f64::NAN.copysign(x) } else { x }))
}

/// Byte strings, some longer than the printer's 64-byte chunks.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => vec(any::<u8>(), 0..8),
        1 => vec(any::<u8>(), 60..200),
    ]
}

/// 32-bit floats of every class, a NaN as the one `nan` or `-nan` reads.
fn f32_elem() -> impl Strategy<Value = ElemKind<'static>> {
    prop_oneof![
        2 => any::<u32>().prop_map(f32::from_bits),
        1 => select(vec![0.0, -0.0, 1.5, 0.1, f32::MAX, f32::from_bits(1), f32::INFINITY, f32::NEG_INFINITY]),
    ]
    .prop_map(|x| ElemKind::F32(F32(if x.is_nan() { f32::NAN.copysign(x) } else { x })))
}

fn uuid() -> impl Strategy<Value = Uuid> {
    prop_oneof![
        4 => any::<[u8; 16]>().prop_map(Uuid::from_bytes),
        1 => Just(Uuid::nil()),
        1 => Just(Uuid::max()),
    ]
}

fn vstamp() -> impl Strategy<Value = Vstamp> {
    (option::of(any::<[u8; 10]>()), any::<u16>()).prop_map(|(tx, user)| Vstamp { tx, user })
}

pub fn ty() -> impl Strategy<Value = Type> {
    select(Type::ALL.to_vec())
}

pub fn ident() -> impl Strategy<Value = Ident<'static>> {
    name().prop_map(|name| Ident { name, span: span() })
}

fn opt_arg() -> impl Strategy<Value = OptArgKind<'static>> {
    prop_oneof![
        name().prop_map(OptArgKind::Name),
        int().prop_map(OptArgKind::Int),
        text().prop_map(OptArgKind::Str),
    ]
}

/// Any option with any argument: which fit where is for the checker.
pub fn opt() -> impl Strategy<Value = Opt<'static>> {
    (select(OptName::ALL.to_vec()), option::of(opt_arg())).prop_map(|(name, arg)| Opt {
        name,
        arg: arg.map(|kind| OptArg { kind, span: span() }),
        span: span(),
    })
}

/// An option list, often empty (no brackets at all).
pub fn options() -> impl Strategy<Value = Options<'static>> {
    prop_oneof![
        2 => Just(Options::default()),
        1 => vec(opt(), 1..4).prop_map(|items| Options {
            items: items.into(),
            span: span(),
        }),
    ]
}

fn type_spec() -> impl Strategy<Value = TypeSpec<'static>> {
    (ty(), options()).prop_map(|(ty, options)| TypeSpec {
        ty,
        options,
        span: span(),
    })
}

/// `<>`, `<int|str[be]>` or `<name:type>`; a name always comes with a type.
pub fn variable() -> impl Strategy<Value = Variable<'static>> {
    prop_oneof![
        vec(type_spec(), 0..4).prop_map(|types| (None, types)),
        (name(), vec(type_spec(), 1..4)).prop_map(|(name, types)| (Some(name), types)),
    ]
    .prop_map(|(name, types)| Variable {
        name,
        types: types.into(),
        span: span(),
    })
}

pub fn reference() -> impl Strategy<Value = Reference<'static>> {
    (ident(), option::of(ty())).prop_map(|(name, cast)| Reference {
        name,
        cast: cast.map(|ty| Cast { ty, span: span() }),
        span: span(),
    })
}

fn elem_of(kind: ElemKind<'static>) -> Elem<'static> {
    Elem { kind, span: span() }
}

/// Every element that holds no other element.
fn leaf() -> impl Strategy<Value = Elem<'static>> {
    prop_oneof![
        Just(ElemKind::Nil),
        any::<bool>().prop_map(ElemKind::Bool),
        int().prop_map(ElemKind::Int),
        num().prop_map(ElemKind::Num),
        text().prop_map(ElemKind::Str),
        bytes().prop_map(ElemKind::Bytes),
        uuid().prop_map(ElemKind::Uuid),
        vstamp().prop_map(ElemKind::Vstamp),
        f32_elem(),
        any::<[u8; 10]>().prop_map(ElemKind::Vstamp80),
        (0x40u8..=0x4f, bytes())
            .prop_map(|(code, data)| ElemKind::User(Box::new(UserType { code, data }))),
        variable().prop_map(ElemKind::Var),
        reference().prop_map(|r| ElemKind::Ref(Box::new(r))),
    ]
    .prop_map(elem_of)
}

fn tuple_of(elem: impl Strategy<Value = Elem<'static>>) -> impl Strategy<Value = Tuple<'static>> {
    (vec(elem, 0..5), any::<bool>()).prop_map(|(elems, rest)| Tuple {
        elems: elems.into(),
        rest: rest.then(span),
        span: span(),
    })
}

/// Any element, with tuples nested several levels deep.
pub fn elem() -> impl Strategy<Value = Elem<'static>> {
    leaf().prop_recursive(4, 40, 5, |inner| {
        tuple_of(inner).prop_map(|t| elem_of(ElemKind::Tuple(Box::new(t))))
    })
}

pub fn tuple() -> impl Strategy<Value = Tuple<'static>> {
    tuple_of(elem())
}

/// Names that need quotes as often as names that do not.
fn dir_name() -> impl Strategy<Value = Cow<'static, str>> {
    prop_oneof![name().prop_map(Cow::Borrowed), text()]
}

pub fn dir_elem() -> impl Strategy<Value = DirElem<'static>> {
    prop_oneof![
        4 => dir_name().prop_map(|name| DirElem::Name { name, span: span() }),
        1 => variable().prop_map(|v| DirElem::Var(Box::new(v))),
        1 => reference().prop_map(|r| DirElem::Ref(Box::new(r))),
    ]
}

/// A path; with no elements an absolute one is `/...`, the one absolute
/// path without any. Now and then relative: `.` or `..`s before it.
pub fn directory() -> impl Strategy<Value = Directory<'static>> {
    let relative = prop_oneof![
        3 => Just(None),
        1 => (0..4u32).prop_map(|up| Some(Relative { up, span: span() })),
    ];
    (vec(dir_elem(), 0..4), any::<bool>(), relative).prop_map(|(elems, rest, relative)| Directory {
        rest: (rest || (elems.is_empty() && relative.is_none())).then(span),
        elems: elems.into(),
        relative,
        span: span(),
    })
}

/// What follows a key. A variable takes no options after it (they belong
/// inside it), so it gets none.
pub fn value() -> impl Strategy<Value = Value<'static>> {
    prop_oneof![
        1 => Just(Value::Omitted),
        1 => Just(Value::Clear(span())),
        4 => (elem(), options()).prop_map(|(elem, opts)| {
            let opts = match elem.kind {
                ElemKind::Var(_) => Options::default(),
                _ => opts,
            };
            Value::Data(elem, opts)
        }),
        1 => (select(AtomicOp::ALL.to_vec()), elem(), options()).prop_map(|(op, elem, options)| {
            // An operand is data: the parser refuses a variable there.
            let operand = match elem.kind {
                ElemKind::Var(_) => Elem { kind: ElemKind::Nil, span: span() },
                _ => elem,
            };
            Value::Mutate(Box::new(Mutation { op, op_span: span(), operand, options, span: span() }))
        }),
    ]
}

pub fn query() -> impl Strategy<Value = Query<'static>> {
    prop_oneof![
        1 => directory().prop_map(Query::Directory),
        1 => directory().prop_map(|dir| Query::Remove { dir, keyword: span() }),
        4 => (directory(), tuple(), value()).prop_map(|(dir, tuple, value)| {
            Query::KeyValue(KeyValue {
                key: Key { dir, prefix: None, tuple },
                value,
            })
        }),
        // At the root, and after raw bytes: no directory.
        1 => (option::of(vec(any::<u8>(), 0..6)), tuple(), value()).prop_map(|(prefix, tuple, value)| {
            let dir = Directory { span: span(), ..Directory::default() };
            Query::KeyValue(KeyValue {
                key: Key { dir, prefix: prefix.map(Into::into), tuple },
                value,
            })
        }),
        1 => (raw_key(), value()).prop_map(|(key, value)| Query::Raw(RawKeyValue { key, value })),
    ]
}

/// Keys as bytes: one key, a prefix (the empty one included) or a range.
pub fn raw_key() -> impl Strategy<Value = RawKey> {
    let bytes = || vec(any::<u8>(), 0..6);
    prop_oneof![
        bytes().prop_map(RawKeyKind::Key),
        bytes().prop_map(RawKeyKind::Prefix),
        (bytes(), bytes()).prop_map(|(b, e)| RawKeyKind::Range(b, e)),
    ]
    .prop_map(|kind| RawKey { kind, span: span() })
}

pub fn statement() -> impl Strategy<Value = Statement<'static>> {
    (options(), query()).prop_map(|(options, query)| Statement {
        options,
        query,
        span: span(),
    })
}

pub fn item() -> impl Strategy<Value = Item<'static>> {
    prop_oneof![
        4 => statement().prop_map(Item::Statement),
        1 => select(MetaKind::ALL.to_vec()).prop_map(|kind| Item::Meta(Meta { kind, span: span() })),
    ]
}

pub fn script() -> impl Strategy<Value = Script<'static>> {
    vec(item(), 0..6).prop_map(|items| Script {
        items: items.into(),
        trivia: Trivia::default(),
    })
}
