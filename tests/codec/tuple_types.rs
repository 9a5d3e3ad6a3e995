//! The tuple layer's types beyond FQL's bare literals: 32-bit floats
//! (`20`), 80-bit versionstamps (`32`) and user types (`40` to `4f`), and
//! the sign of a NaN. Each reads back as itself, prints as FQL that parses
//! to the same element, and is written with the same bytes: the
//! `foundationdb_tuple` crate's where it has the type, and FoundationDB's
//! tuple specification (design/tuple.md) where it does not.

use std::cmp::Ordering;

use fql::codec::{self, ElementFilter, Error, decode_key, decode_untyped, encode_key};
use fql::syntax::ast::{Elem, ElemKind, F32, Span, Type, UserType};
use proptest::prelude::*;

use super::{encode, encode_err, hex, key, value};

fn kind(src: &str) -> ElemKind<'static> {
    value(src).0.kind
}

fn key_bytes(tuple: &str) -> Vec<u8> {
    encode_key(&[], &key(tuple)).unwrap().bytes
}

/// A stored key read back, printed, parsed and written again: the same
/// bytes, and the same elements.
fn round_trip(bytes: &[u8]) -> String {
    let elems = decode_key(&[], bytes).unwrap_or_else(|| panic!("{bytes:02x?} did not decode"));
    let text = fql::syntax::ast::Tuple {
        elems: elems.iter().cloned().collect(),
        rest: None,
        span: Span::default(),
    }
    .to_string();
    assert_eq!(key_bytes(&text), bytes, "{text}");
    assert_eq!(
        key(&text).iter().map(|e| &e.kind).collect::<Vec<_>>(),
        elems.iter().map(|e| &e.kind).collect::<Vec<_>>()
    );
    text
}

#[test]
fn f32_keys_are_the_crates_bytes() {
    for (x, text) in [
        (1.5f32, "f32(1.5)"),
        (-42.0, "f32(-42.0)"),
        (0.1, "f32(0.1)"),
        (-0.0, "f32(-0.0)"),
        (f32::INFINITY, "f32(inf)"),
        (f32::NEG_INFINITY, "f32(-inf)"),
        (f32::NAN, "f32(nan)"),
        (-f32::NAN, "f32(-nan)"),
        (f32::MAX, "f32(3.4028235e38)"),
        (f32::from_bits(1), "f32(1e-45)"),
    ] {
        let theirs = foundationdb_tuple::pack(&(x,));
        assert_eq!(key_bytes(&format!("({text})")), theirs, "{text}");
        assert_eq!(round_trip(&theirs), format!("({text})"));
    }
    // The specification's own test case.
    assert_eq!(key_bytes("(f32(-42.0))"), hex("20 3dd7ffff"));
    // As a value: packed as a one-element tuple, as a num is.
    assert_eq!(encode("f32(1.5)").bytes, hex("20 bfc00000"));
    assert_eq!(decode_untyped(&hex("20 bfc00000")), kind("f32(1.5)"));
}

#[test]
fn f32_and_f64_are_different_elements() {
    assert_ne!(kind("f32(1.5)"), kind("1.5"));
    assert_ne!(key_bytes("(f32(1.5))"), key_bytes("(1.5)"));
    // Every 32-bit float sorts before every double: the type code first.
    assert_eq!(
        codec::compare(&key("(f32(inf))"), &key("(-inf)")).unwrap(),
        Ordering::Less
    );
}

#[test]
fn vstamp80_keys_are_the_specifications_bytes() {
    // `32` and the ten bytes, big-endian as stored: design/tuple.md.
    let bytes = hex("32 0102030405060708090a");
    assert_eq!(key_bytes("(#0102030405060708090a)"), bytes);
    assert_eq!(round_trip(&bytes), "(#0102030405060708090a)");
    assert_eq!(
        decode_key(&[], &bytes).unwrap()[0].kind,
        ElemKind::Vstamp80([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    );
    // Nested, beside a nil, and followed by more.
    let nested = hex("05 32 ffffffffffffffffffff 00ff 00 1501");
    assert_eq!(round_trip(&nested), "((#ffffffffffffffffffff,nil),1)");
    // Sorts before every 96-bit stamp, by its code.
    assert_eq!(
        codec::compare(
            &key("(#ffffffffffffffffffff)"),
            &key("(#00000000000000000000:0000)")
        )
        .unwrap(),
        Ordering::Less
    );
    // Too short is no tuple.
    assert_eq!(decode_key(&[], &hex("32 0102")), None);
    // Raw, it is its ten bytes.
    assert_eq!(
        encode("#0102030405060708090a[raw]").bytes,
        hex("0102030405060708090a")
    );
}

#[test]
fn user_types_run_to_the_end_of_the_tuple() {
    for code in UserType::CODES {
        let bytes = [&hex("1501 02 7800")[..], &[code], &hex("00 aa 00 ff")].concat();
        let text = round_trip(&bytes);
        assert_eq!(text, format!("(1,\"x\",user(0x{code:02x},0x00aa00ff))"));
    }
    assert_eq!(round_trip(&hex("40")), "(user(0x40,0x))");
    assert_eq!(key_bytes("(1,user(0x40,0xaabb))"), hex("15 01 40 aabb"));
    // Inside a nested tuple its end is unknown: the key is no tuple.
    assert_eq!(decode_key(&[], &hex("05 40 aa 00")), None);
    // A value: the whole value, or the last of a tuple value.
    assert_eq!(encode("user(0x4f,0xaabb)").bytes, hex("4f aabb"));
    assert_eq!(encode("(1,user(0x41,0x00))").bytes, hex("1501 41 00"));
    assert_eq!(
        decode_untyped(&hex("1501 41 00")),
        kind("(1,user(0x41,0x00))")
    );
}

#[test]
fn user_types_stand_last_and_never_nested() {
    for (src, nested) in [
        ("(user(0x40,0x),1)", false),
        ("((user(0x40,0x)),1)", true),
        ("((1,user(0x40,0x)))", true),
    ] {
        match encode_key(&[], &key(src)) {
            Err(Error::UserTypeNotLast { nested: n, .. }) => assert_eq!(n, nested, "{src}"),
            other => panic!("{src}: {other:?}"),
        }
    }
    assert!(matches!(
        encode_err("(user(0x40,0x),1)"),
        Error::UserTypeNotLast { nested: false, .. }
    ));
}

/// `num` matches both float widths, `vstamp` both stamp sizes; `f32`,
/// `vstamp80` and `user` only their own.
#[test]
fn types_match_their_elements() {
    let filter = |src: &str| {
        let elems = key(&format!("({src})"));
        let ElemKind::Var(var) = &elems[0].kind else {
            panic!("a variable");
        };
        ElementFilter::new(var).unwrap()
    };
    let f32 = kind("f32(1.5)");
    let stamp80 = kind("#0102030405060708090a");
    let user = kind("user(0x40,0x)");
    assert!(filter("<num>").accepts(&f32));
    assert!(filter("<f32>").accepts(&f32));
    assert!(!filter("<f32>").accepts(&kind("1.5")));
    assert!(filter("<sum>").accepts(&f32));
    assert!(filter("<vstamp>").accepts(&stamp80));
    assert!(filter("<vstamp80>").accepts(&stamp80));
    assert!(!filter("<vstamp80>").accepts(&kind("#0102030405060708090a:0000")));
    assert!(filter("<user>").accepts(&user));
    assert!(!filter("<bytes>").accepts(&user));
    assert!(filter("<>").accepts(&user));
    assert_eq!(codec::type_of(&f32), Some(Type::F32));
    assert_eq!(codec::type_of(&stamp80), Some(Type::Vstamp80));
    assert_eq!(codec::type_of(&user), Some(Type::User));
}

#[test]
fn nans_keep_their_sign_and_sort_outside_the_infinities() {
    assert!(matches!(kind("-nan"), ElemKind::Num(n) if n.0.is_nan() && n.0.is_sign_negative()));
    assert_eq!(kind("-nan").to_string(), "-nan");
    assert_eq!(kind("nan").to_string(), "nan");
    let order = [
        "(-nan)", "(-inf)", "(-1.5)", "(-0.0)", "(0.0)", "(inf)", "(nan)",
    ];
    for pair in order.windows(2) {
        assert_eq!(
            codec::compare(&key(pair[0]), &key(pair[1])).unwrap(),
            Ordering::Less,
            "{pair:?}"
        );
    }
    // As the crate packs them.
    assert_eq!(key_bytes("(-nan)"), foundationdb_tuple::pack(&(-f64::NAN,)));
    // A stored NaN with another payload reads by its sign.
    let odd = hex("21 0007fffffffffff0");
    assert_eq!(decode_untyped(&odd).to_string(), "-nan");
}

proptest! {
    /// Every 32-bit float the crate packs reads back as itself and prints
    /// as text that writes its bytes again, its NaN payload aside.
    #[test]
    fn every_f32_round_trips(bits in any::<u32>()) {
        let x = f32::from_bits(bits);
        let theirs = foundationdb_tuple::pack(&(x,));
        let elems = decode_key(&[], &theirs).unwrap();
        prop_assert_eq!(&elems[0].kind, &ElemKind::F32(F32(x)));
        let text = elems[0].kind.to_string();
        let again = key_bytes(&format!("({text})"));
        if x.is_nan() {
            let canonical = if x.is_sign_negative() { -f32::NAN } else { f32::NAN };
            prop_assert_eq!(again, foundationdb_tuple::pack(&(canonical,)));
        } else {
            prop_assert_eq!(again, theirs);
        }
    }

    /// Any 80-bit stamp and user type, anywhere they may stand.
    #[test]
    fn stamps_and_user_types_round_trip(
        tx in any::<[u8; 10]>(),
        code in 0x40u8..=0x4f,
        data in proptest::collection::vec(any::<u8>(), 0..12),
        n in any::<i64>(),
    ) {
        let mut bytes = foundationdb_tuple::pack(&(n,));
        bytes.push(0x32);
        bytes.extend_from_slice(&tx);
        bytes.extend_from_slice(&[0x05, 0x32]);
        bytes.extend_from_slice(&tx);
        bytes.push(0x00);
        bytes.push(code);
        bytes.extend_from_slice(&data);
        round_trip(&bytes);
        let elems = decode_key(&[], &bytes).unwrap();
        prop_assert_eq!(elems.len(), 4);
        let user = UserType { code, data };
        prop_assert_eq!(&elems[3], &Elem { kind: ElemKind::User(Box::new(user)), span: Span::default() });
    }
}
