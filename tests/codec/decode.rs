//! Reading values and keys back: untyped reads, typed reads in order, the
//! fixed-width and raw forms, and bytes that are not what a type expects.

use fql::codec::{self, ElementFilter, Error, ValueDecoder, decode_key, decode_untyped};
use fql::syntax::ast::{ElemKind, Int, Num, Uuid, Vstamp};

use super::{encode, hex, key, value, variable};

fn decoder(src: &str) -> ValueDecoder {
    ValueDecoder::new(&variable(src)).unwrap_or_else(|e| panic!("{src}: {e:?}"))
}

/// The element `src` reads from `bytes`, and which type read it.
fn read<'b>(src: &str, bytes: &'b [u8]) -> Option<(ElemKind<'b>, Option<usize>)> {
    decoder(src).decode(bytes).map(|d| (d.elem, d.alternative))
}

fn kind(src: &str) -> ElemKind<'static> {
    value(src).0.kind
}

#[test]
fn untyped_reads_unwrap_one_element() {
    assert_eq!(decode_untyped(b""), ElemKind::Nil);
    assert_eq!(decode_untyped(&hex("00")), ElemKind::Nil);
    assert_eq!(decode_untyped(&hex("1501")), kind("1"));
    assert_eq!(decode_untyped(&hex("1501 1502")), kind("(1,2)"));
    assert_eq!(decode_untyped(&hex("05 1501 00")), kind("(1)"));
    // Not a tuple: the raw bytes.
    assert_eq!(decode_untyped(&hex("ff")), kind("0xff"));
    assert_eq!(decode_untyped(b"abc"), kind("0x616263"));
    // A stored 32-bit float reads as itself, not widened to a num.
    assert_eq!(decode_untyped(&hex("20 bfc00000")), kind("f32(1.5)"));
    // What each empty writes reads back as nil.
    for empty in ["nil", "0x", "()"] {
        assert_eq!(decode_untyped(&encode(empty).bytes), ElemKind::Nil);
    }
    assert_eq!(
        ValueDecoder::untyped().decode(&hex("27")).map(|d| d.elem),
        Some(ElemKind::Bool(true))
    );
}

#[test]
fn typed_reads_try_types_in_order() {
    let one = hex("1501");
    assert_eq!(read("<int|str>", &one), Some((kind("1"), Some(0))));
    assert_eq!(read("<str|int>", &one), Some((kind("1"), Some(1))));
    assert_eq!(read("<str|bool>", &one), None);
    assert_eq!(read("<any>", &one), Some((kind("1"), Some(0))));
    assert_eq!(read("<nil>", b""), Some((ElemKind::Nil, Some(0))));
    assert_eq!(read("<nil>", &one), None);
    // Bytes are written raw, and read raw, whatever they hold.
    assert_eq!(read("<bytes>", &one), Some((kind("0x1501"), Some(0))));
    assert_eq!(
        read("<int|bytes>", &hex("ff")),
        Some((kind("0xff"), Some(1)))
    );
    // A tuple read takes any tuple, unwrapped or not.
    assert_eq!(read("<tuple>", &one), Some((kind("(1)"), Some(0))));
    assert_eq!(read("<tuple>", b""), Some((kind("()"), Some(0))));
    assert_eq!(read("<tuple>", &hex("ff")), None);
    assert_eq!(
        read("<num|int>", &encode("2.5").bytes),
        Some((kind("2.5"), Some(0)))
    );
    let id = "5a5ebefd-2193-47e2-8def-f464fc698e31";
    assert_eq!(read("<uuid>", &encode(id).bytes), Some((kind(id), Some(0))));
    let stamp = "#0102030405060708090a:0b0c";
    assert_eq!(
        read("<vstamp>", &encode(stamp).bytes),
        Some((kind(stamp), Some(0)))
    );
}

#[test]
fn aggregates_read_what_they_fold() {
    assert_eq!(read("<sum>", &hex("1501")), Some((kind("1"), Some(0))));
    assert_eq!(read("<sum>", &hex("027800")), None);
    assert_eq!(read("<count>", &hex("ff")), Some((kind("0xff"), Some(0))));
    assert_eq!(
        read("<append>", &hex("027800")),
        Some((kind("\"x\""), Some(0)))
    );
    assert_eq!(read("<append>", b"raw"), Some((kind("0x726177"), Some(0))));
}

#[test]
fn fixed_width_reads() {
    assert_eq!(
        read("<int[i64,be]>", &encode("37534[i64,be]").bytes),
        Some((kind("37534"), Some(0)))
    );
    // The little-endian bytes are another number.
    assert_eq!(
        read("<int[i64,be]>", &encode("37534[i64]").bytes),
        Some((ElemKind::Int(Int::Small(-7020548869117181952)), Some(0)))
    );
    assert_eq!(read("<int[i8]>", &hex("ff")), Some((kind("-1"), Some(0))));
    assert_eq!(read("<int[u8]>", &hex("ff")), Some((kind("255"), Some(0))));
    assert_eq!(
        read("<int[u64]>", &hex("ffffffffffffffff")),
        Some((kind("18446744073709551615"), Some(0)))
    );
    assert_eq!(
        read("<int[i64]>", &hex("ffffffffffffffff")),
        Some((kind("-1"), Some(0)))
    );
    // Another length is no match, and the next type is tried.
    assert_eq!(read("<int[i32]>", &hex("ffff")), None);
    assert_eq!(
        read("<int[i32]|int[i16]>", &hex("ffff")),
        Some((kind("-1"), Some(1)))
    );
    assert_eq!(
        read("<num[f32]>", &hex("0000c03f")),
        Some((ElemKind::Num(Num(1.5)), Some(0)))
    );
    assert_eq!(
        read("<num[f64,be]>", &hex("3ff8000000000000")),
        Some((ElemKind::Num(Num(1.5)), Some(0)))
    );
    assert_eq!(read("<num[f64]>", &hex("0000c03f")), None);
}

/// 80-bit nums, as x87 stores them (the bytes a C `long double` holds on
/// x86-64), read back rounded to the nearest binary64.
#[test]
fn extended_nums_read_rounded_to_binary64() {
    let num = |x: f64| Some((ElemKind::Num(Num(x)), Some(0)));
    assert_eq!(read("<num[f80]>", &hex("00000000000000c0ff3f")), num(1.5));
    assert_eq!(
        read("<num[f80,be]>", &hex("3fffc000000000000000")),
        num(1.5)
    );
    assert_eq!(
        read("<num[width:80]>", &hex("00d0ccccccccccccfb3f")),
        num(0.1)
    );
    // 1.5 + 2^-64 + 2^-53 is nearer 1.5 + 2^-52 than 1.5.
    assert_eq!(
        read("<num[f80]>", &hex("010400000000 00c0 ff3f")),
        num(1.5000000000000002)
    );
    // Past binary64's range: infinity, as x87's own conversion gives.
    assert_eq!(
        read("<num[f80]>", &hex("0000000000000080 0044")),
        num(f64::INFINITY)
    );
    // Wrong length, and an unnormal (integer bit clear), are no match.
    assert_eq!(read("<num[f80]>", &hex("000000000000f83f")), None);
    assert_eq!(read("<num[f80]>", &hex("0000000000000040 ff3f")), None);
}

#[test]
fn raw_reads() {
    assert_eq!(
        read("<str[raw]>", "héllo".as_bytes()),
        Some((kind("\"héllo\""), Some(0)))
    );
    // Not UTF-8: no match, and no panic.
    assert_eq!(read("<str[raw]>", &hex("ff fe")), None);
    assert_eq!(
        read("<str[raw]|bytes>", &hex("fffe")),
        Some((kind("0xfffe"), Some(1)))
    );
    let id = "77542869-5708-4af9-821e-d65354fb1a12";
    assert_eq!(
        read("<uuid[raw]>", &hex("7754286957084af9821ed65354fb1a12")),
        Some((kind(id), Some(0)))
    );
    assert_eq!(read("<uuid[raw]>", &hex("77")), None);
    // The Go heartbeat, after its commit.
    assert_eq!(
        read("<vstamp[raw]>", &hex("0000000a1b2c3d4e00030000")),
        Some((
            ElemKind::Vstamp(Vstamp {
                tx: Some(hex("0000000a1b2c3d4e0003").try_into().unwrap()),
                user: 0
            }),
            Some(0)
        ))
    );
    assert_eq!(read("<vstamp[raw]>", &hex("00")), None);
    // Tuple-decoding raw values misreads them; the spec's typeless read
    // does, which is why raw data is read by type.
    assert_eq!(
        decode_untyped(&hex("000000012a05f20000010000")),
        kind("(nil,nil,nil,0x2a05f2,nil,0x,nil)")
    );
}

#[test]
fn decoders_report_option_errors() {
    let errors = ValueDecoder::new(&variable("<int[f32]|num[f80]|bool[raw]>")).unwrap_err();
    assert_eq!(errors.len(), 2);
    assert!(errors.iter().all(|e| matches!(e, Error::Option(_))));
    let in_key = key("(<int[i64]>)");
    let fql::syntax::ast::ElemKind::Var(var) = &in_key[0].kind else {
        panic!("a variable");
    };
    assert!(matches!(
        ElementFilter::new(var).unwrap_err()[..],
        [Error::EncodingInTuple { .. }]
    ));
}

#[test]
fn element_filters_match_types() {
    let filter = |src: &str| {
        let elems = key(&format!("({src})"));
        let fql::syntax::ast::ElemKind::Var(var) = &elems[0].kind else {
            panic!("a variable");
        };
        ElementFilter::new(var).unwrap()
    };
    assert!(filter("<>").accepts(&kind("1")));
    assert!(filter("<int|str>").accepts(&kind("\"a\"")));
    assert!(!filter("<int|str>").accepts(&kind("1.5")));
    assert!(filter("<sum>").accepts(&kind("1.5")));
    assert!(filter("<append>").accepts(&kind("0x00")));
    assert!(!filter("<any>").accepts(&kind("<int>")));
}

#[test]
fn keys_decode_as_element_lists() {
    let prefix = hex("152a");
    let one = decode_key(&prefix, &hex("152a 1501")).unwrap();
    let nested = decode_key(&prefix, &hex("152a 05 1501 00")).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].kind, kind("1"));
    assert_eq!(nested[0].kind, kind("(1)"));
    assert_ne!(one, nested);
    assert_eq!(decode_key(&prefix, &prefix), Some(vec![]));
    assert_eq!(decode_key(&prefix, &hex("1601")), None);
    assert_eq!(decode_key(&prefix, &hex("152a ff")), None);
    let stamp = decode_key(&[], &hex("33 ffffffffffffffffffff 0001")).unwrap();
    assert_eq!(
        stamp[0].kind,
        ElemKind::Vstamp(Vstamp {
            tx: Some([0xff; 10]),
            user: 1
        })
    );
}

/// Nesting is bounded before the tuple crate, which recurses, reads it.
#[test]
fn deep_nesting_is_not_a_tuple() {
    for depth in [101, 100_000] {
        let mut bytes = vec![0x05; depth];
        bytes.extend(vec![0x00; depth]);
        assert_eq!(decode_untyped(&bytes), ElemKind::Bytes(bytes.clone()));
        assert_eq!(decode_key(&[], &bytes), None);
        assert_eq!(codec::decode_tuple(&bytes), None);
    }
    let mut ok = vec![0x05; 100];
    ok.extend(vec![0x00; 100]);
    assert!(matches!(decode_untyped(&ok), ElemKind::Tuple(_)));
    // 05 inside strings and ints does not count as nesting.
    let mut flat = Vec::new();
    for _ in 0..200 {
        flat.extend(hex("01 05 00 15 05"));
    }
    assert!(matches!(decode_untyped(&flat), ElemKind::Tuple(t) if t.elems.len() == 400));
}

#[test]
fn stored_uuid_and_vstamp_types() {
    let u = Uuid::from_bytes([7; 16]);
    let mut bytes = vec![0x30];
    bytes.extend([7; 16]);
    assert_eq!(decode_untyped(&bytes), ElemKind::Uuid(u));
}
