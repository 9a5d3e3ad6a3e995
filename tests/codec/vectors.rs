//! Exact bytes: each vector is what another FoundationDB binding writes for
//! the same data, or what the encoding rules of docs/encoding.md state.

use fql::codec::{self, Error, Op, encode_key, encode_write};
use fql::kv::MutationType;
use fql::syntax::ast::{Elem, ElemKind, Int, Span};
use num_bigint::BigInt;

use super::{encode, encode_err, hex, key, spanned, value};

fn key_bytes(tuple: &str) -> Vec<u8> {
    let encoded = encode_key(&[], &key(tuple)).unwrap();
    assert_eq!(encoded.op, Op::Set, "{tuple}");
    encoded.bytes
}

#[test]
fn scalars_pack_as_one_element_tuples() {
    for (src, bytes) in [
        ("-1", "13fe"),
        ("0", "14"),
        ("1", "1501"),
        ("256", "160100"),
        ("-256", "12feff"),
        ("9223372036854775807", "1c7fffffffffffffff"),
        ("-9223372036854775808", "0c7fffffffffffffff"),
        ("18446744073709551616", "1d09010000000000000000"),
        ("-18446744073709551616", "0bf6feffffffffffffffff"),
        ("true", "27"),
        ("false", "26"),
        ("1.5", "21bff8000000000000"),
        ("-0.0", "217fffffffffffffff"),
        ("nan", "21fff8000000000000"),
        ("-nan", "210007ffffffffffff"),
        ("\"x\"", "027800"),
        ("\"a\\nb\"", "02610a6200"),
        (
            "5a5ebefd-2193-47e2-8def-f464fc698e31",
            "305a5ebefd219347e28deff464fc698e31",
        ),
        ("#0102030405060708090a:0b0c", "330102030405060708090a0b0c"),
    ] {
        let encoded = encode(src);
        assert_eq!(encoded.bytes, hex(bytes), "{src}");
        assert_eq!(encoded.op, Op::Set, "{src}");
    }
}

/// The crate, Go and Java write ±(2^64−1) in the 8-byte form; Python
/// writes the long form. fql writes the first and reads both.
#[test]
fn two_to_the_64_minus_1_has_the_go_form() {
    assert_eq!(
        encode("18446744073709551615").bytes,
        hex("1c ffffffffffffffff")
    );
    assert_eq!(
        encode("-18446744073709551615").bytes,
        hex("0c 0000000000000000")
    );
    assert_eq!(
        key_bytes("(18446744073709551615)"),
        hex("1cffffffffffffffff")
    );
    let max = ElemKind::Int(Int::from_big(BigInt::from(u64::MAX)));
    for python in ["1d08ffffffffffffffff", "1c ffffffffffffffff"] {
        assert_eq!(codec::decode_untyped(&hex(python)), max, "{python}");
    }
    let min = ElemKind::Int(Int::from_big(-BigInt::from(u64::MAX)));
    for python in ["0bf7 0000000000000000", "0c 0000000000000000"] {
        assert_eq!(codec::decode_untyped(&hex(python)), min, "{python}");
    }
}

#[test]
fn tuples_bytes_and_empties() {
    assert_eq!(encode("(1,nil,\"x\")").bytes, hex("1501 00 027800"));
    assert_eq!(encode("(1,(2,nil))").bytes, hex("1501 05 1502 00ff 00"));
    assert_eq!(encode("0x00ff").bytes, hex("00ff"));
    for empty in ["nil", "0x", "()"] {
        assert_eq!(encode(empty).bytes, b"", "{empty}");
    }
    // `42` and `(42)` are one value.
    assert_eq!(encode("42").bytes, encode("(42)").bytes);
}

fn data(kind: ElemKind) -> Elem {
    Elem {
        kind,
        span: Span::default(),
    }
}

#[test]
fn keys_are_prefix_and_packed_tuple() {
    assert_eq!(key_bytes("((1,nil,\"x\"))"), hex("05 1501 00ff 027800 00"));
    assert_eq!(
        key_bytes("(\"owner\",\"client1\")"),
        hex("026f776e657200 02636c69656e743100")
    );
    // A NUL inside text is escaped, and nil inside a nested tuple too.
    let nul = data(ElemKind::Str("a\0b".into()));
    assert_eq!(
        encode_key(&[], &[nul]).unwrap().bytes,
        hex("02 61 00ff 62 00")
    );
    let prefix = hex("152a");
    let encoded = encode_key(&prefix, &key("(\"owner\",\"client1\")")).unwrap();
    assert_eq!(encoded.bytes, hex("152a 026f776e657200 02636c69656e743100"));
    // The empty tuple is the bare prefix.
    assert_eq!(encode_key(&prefix, &key("()")).unwrap().bytes, prefix);
}

#[test]
fn a_key_with_an_incomplete_vstamp_ends_in_its_offset() {
    let elems = key("(\"idx\",#:0007,1)");
    let encoded = encode_key(&[], &elems).unwrap();
    assert_eq!(
        encoded.bytes,
        hex("0269647800 33 ffffffffffffffffffff 0007 1501 06000000")
    );
    assert_eq!(encoded.op, Op::VersionstampedKey);
    assert_eq!(
        encoded.op.mutation(),
        Some(MutationType::SetVersionstampedKey)
    );
    // The offset counts the prefix.
    let encoded = encode_key(b"PFX", &elems).unwrap();
    assert_eq!(&encoded.bytes[encoded.bytes.len() - 4..], hex("09000000"));
    // The fdb-mutex queue key: P ‖ ("queue", stamp).
    let encoded = encode_key(&hex("152a"), &key("(\"queue\",#:0000)")).unwrap();
    assert_eq!(
        encoded.bytes,
        hex("152a0271756575650033ffffffffffffffffffff00000a000000")
    );
}

/// A complete stamp of all `ff` looks incomplete to the tuple crate; the
/// offset is still that of the one stamp the script leaves open.
#[test]
fn an_all_ff_complete_stamp_does_not_move_the_offset() {
    let elems = key("(#ffffffffffffffffffff:0001,\"a\",(#:0002))");
    let encoded = encode_key(&[], &elems).unwrap();
    let offset = 13 + 3 + 2;
    let n = encoded.bytes.len();
    assert_eq!(encoded.bytes[n - 4..], (offset as u32).to_le_bytes());
    assert_eq!(encoded.bytes[offset - 1], 0x33);
    assert_eq!(encoded.op, Op::VersionstampedKey);
    // Without an open stamp it is plain data.
    let encoded = encode_key(&[], &key("(#ffffffffffffffffffff:0001)")).unwrap();
    assert_eq!(encoded.bytes, hex("33 ffffffffffffffffffff 0001"));
    assert_eq!(encoded.op, Op::Set);
}

#[test]
fn two_incomplete_vstamps_are_an_error_not_a_panic() {
    let elems = key("(#:0001,(#:0002))");
    match encode_key(&[], &elems) {
        Err(Error::TooManyVstamps { at, first }) => {
            assert_eq!(at, elems[1].span);
            assert_eq!(first.range(), elems[0].span.range());
        }
        other => panic!("{other:?}"),
    }
    let (v, opts) = value("#:0003");
    assert!(matches!(
        encode_write(&[], &key("(#:0001)"), &v, &opts),
        Err(Error::TooManyVstamps { .. })
    ));
    assert!(matches!(
        codec::encode_value(&value("(#:0001,#:0002)").0, &Default::default()),
        Err(Error::TooManyVstamps { .. })
    ));
}

#[test]
fn a_value_with_an_incomplete_vstamp_is_versionstamped() {
    let encoded = encode("#:0001");
    assert_eq!(encoded.bytes, hex("33 ffffffffffffffffffff 0001 01000000"));
    assert_eq!(encoded.op, Op::VersionstampedValue);
    let encoded = encode("(\"a\",#:0002)");
    assert_eq!(
        encoded.bytes,
        hex("026100 33 ffffffffffffffffffff 0002 04000000")
    );
    assert_eq!(
        encoded.op.mutation(),
        Some(MutationType::SetVersionstampedValue)
    );
    let (v, opts) = value("#:0000[raw]");
    let write = encode_write(b"k", &key("(\"owner\",\"c\")"), &v, &opts).unwrap();
    assert_eq!(write.op, Op::VersionstampedValue);
    assert_eq!(write.key, hex("6b 026f776e657200 026300"));
}

/// The Go fdb-mutex heartbeat: SET_VERSIONSTAMPED_VALUE with sixteen zero
/// bytes, the last four the offset 0, leaving twelve bytes stored.
#[test]
fn the_raw_heartbeat_is_gos() {
    let encoded = encode("#:0000[raw]");
    assert_eq!(encoded.bytes, [0u8; 16]);
    assert_eq!(encoded.op, Op::VersionstampedValue);
    // The commit drops the offset and writes the stamp at offset 0.
    let mut stored = encoded.bytes[..encoded.bytes.len() - 4].to_vec();
    stored[..10].copy_from_slice(&hex("0000000a1b2c3d4e0003"));
    assert_eq!(stored, hex("0000000a1b2c3d4e00030000"));
    assert_eq!(
        encode("#:00cd[raw]").bytes,
        hex("00000000000000000000 00cd 00000000")
    );
}

#[test]
fn fixed_width_ints() {
    for (src, bytes) in [
        ("37534[i64,be]", "000000000000929e"),
        ("37534[width:64,bigendian]", "000000000000929e"),
        ("37534[i64]", "9e92000000000000"),
        ("37534[width:32,bigendian,unsigned]", "0000929e"),
        ("-1[i8]", "ff"),
        ("-1[i16]", "ffff"),
        ("-2[i32,be]", "fffffffe"),
        ("127[i8]", "7f"),
        ("-128[i8]", "80"),
        ("255[u8]", "ff"),
        ("65535[u16,be]", "ffff"),
        ("4294967295[u32]", "ffffffff"),
        ("18446744073709551615[u64]", "ffffffffffffffff"),
        ("-9223372036854775808[i64,be]", "8000000000000000"),
        ("1[width:16,unsigned,be]", "0001"),
    ] {
        assert_eq!(encode(src).bytes, hex(bytes), "{src}");
    }
}

#[test]
fn fixed_width_nums() {
    for (src, bytes) in [
        ("1.5[f32]", "0000c03f"),
        ("1.5[f32,be]", "3fc00000"),
        ("1.5[f64]", "000000000000f83f"),
        ("1.5[f64,be]", "3ff8000000000000"),
        ("1.5[width:64,bigendian]", "3ff8000000000000"),
        ("-inf[f32,be]", "ff800000"),
        ("3.4028234663852886e38[f32,be]", "7f7fffff"),
        // x87 extended, as a C `long double` holds it on x86-64.
        ("1.5[f80]", "00000000000000c0ff3f"),
        ("-1.5[f80]", "00000000000000c0ffbf"),
        ("1.5[f80,be]", "3fffc000000000000000"),
        ("1.5[width:80]", "00000000000000c0ff3f"),
        ("0.1[f80]", "00d0ccccccccccccfb3f"),
        ("-0.0[f80]", "00000000000000000080"),
        ("inf[f80]", "0000000000000080ff7f"),
        ("5e-324[f80]", "0000000000000080cd3b"),
        ("-2.9999999999999908e-310[f80]", "000004ca4a89e6dcfabb"),
        ("1.7976931348623157e308[f80]", "00f8fffffffffffffe43"),
    ] {
        assert_eq!(encode(src).bytes, hex(bytes), "{src}");
    }
}

#[test]
fn raw_values() {
    assert_eq!(encode("\"héllo\"[raw]").bytes, "héllo".as_bytes());
    assert_eq!(encode("\"\"[raw]").bytes, b"");
    assert_eq!(
        encode("77542869-5708-4af9-821e-d65354fb1a12[raw]").bytes,
        hex("7754286957084af9821ed65354fb1a12")
    );
    let stamp = encode("#0102030405060708090a:0b0c[raw]");
    assert_eq!(stamp.bytes, hex("0102030405060708090a0b0c"));
    assert_eq!(stamp.op, Op::Set);
}

#[test]
fn values_that_do_not_fit_are_errors() {
    for (src, fits, help) in [
        ("300[u8]", "an unsigned 8-bit int", "it holds 0 to 255"),
        ("256[u8]", "an unsigned 8-bit int", "it holds 0 to 255"),
        (
            "-1[u64]",
            "an unsigned 64-bit int",
            "it holds 0 to 18446744073709551615",
        ),
        ("128[i8]", "a signed 8-bit int", "it holds -128 to 127"),
        ("-129[i8]", "a signed 8-bit int", "it holds -128 to 127"),
        (
            "32768[i16,be]",
            "a signed 16-bit int",
            "it holds -32768 to 32767",
        ),
        (
            "4294967296[u32]",
            "an unsigned 32-bit int",
            "it holds 0 to 4294967295",
        ),
        (
            "9223372036854775808[i64]",
            "a signed 64-bit int",
            "it holds -9223372036854775808 to 9223372036854775807",
        ),
        (
            "18446744073709551616[u64]",
            "an unsigned 64-bit int",
            "it holds 0 to 18446744073709551615",
        ),
        (
            "1e300[f32]",
            "a 32-bit num",
            "a 32-bit num holds magnitudes up to 3.4028235e38",
        ),
    ] {
        match encode_err(src) {
            Error::OutOfRange {
                encoding,
                at,
                help: h,
                ..
            } => {
                assert_eq!(encoding, fits, "{src}");
                assert_eq!(h, help, "{src}");
                assert_eq!(spanned(src, at), src[..src.find('[').unwrap()], "{src}");
            }
            other => panic!("{src}: {other:?}"),
        }
    }
}

/// A reference's value is checked when it is known, and the error points
/// at the reference.
#[test]
fn a_bound_value_that_does_not_fit_points_at_the_reference() {
    let (reference, opts) = value(":n[u8]");
    let bound = Elem {
        kind: ElemKind::Int(Int::Small(300)),
        span: reference.span,
    };
    match codec::encode_value(&bound, &opts) {
        Err(Error::OutOfRange { at, .. }) => assert_eq!(spanned(":n[u8]", at), ":n"),
        other => panic!("{other:?}"),
    }
    // The same options with a bound str are misplaced.
    let bound = Elem {
        kind: ElemKind::Str("x".into()),
        span: reference.span,
    };
    assert!(matches!(
        codec::encode_value(&bound, &opts),
        Err(Error::Option(_))
    ));
}

#[test]
fn options_that_cannot_encode_are_errors() {
    for src in [
        "1.5[i32]",
        "\"x\"[width:16]",
        "nil[raw]",
        "0x01[raw]",
        "(1)[raw]",
        "true[i8]",
        "7[unsigned]",
        "7[i64,u8]",
        "7[width:12]",
        "\"x\"[raw,raw]",
    ] {
        assert!(matches!(encode_err(src), Error::Option(_)), "{src}");
    }
    for src in ["7[f80]", "7[width:80]", "1.5[f80,unsigned]"] {
        assert!(matches!(encode_err(src), Error::Option(_)), "{src}");
    }
}

#[test]
fn holes_are_not_data() {
    let (var, opts) = value("<int>");
    assert!(matches!(
        codec::encode_value(&var, &opts),
        Err(Error::NotData { .. })
    ));
    assert!(matches!(
        encode_key(&[], &key("(1,(<>))")),
        Err(Error::NotData { .. })
    ));
    assert!(matches!(
        encode_key(&[], &key("((1,...))")),
        Err(Error::NotData { .. })
    ));
}

#[test]
fn plain_writes_use_set() {
    let (v, opts) = value("\"x\"[raw]");
    let write = encode_write(&hex("15"), &key("(1)"), &v, &opts).unwrap();
    assert_eq!(write.key, hex("15 1501"));
    assert_eq!(write.value, b"x");
    assert_eq!(write.op, Op::Set);
    assert_eq!(write.op.mutation(), None);
}

#[test]
fn oversized_data_is_refused_before_packing() {
    let huge = data(ElemKind::Bytes(vec![0; 33 << 20]));
    assert!(matches!(
        encode_key(&[], &[huge]),
        Err(Error::TooLarge { .. })
    ));
}

/// Every table row of docs/encoding.md that pairs FQL with bytes holds:
/// right under `## Keys` the FQL is a key tuple, elsewhere a value.
#[test]
fn the_encoding_doc_is_true() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/encoding.md"))
        .expect("docs/encoding.md");
    let mut section = "";
    let mut checked = 0;
    for line in doc.lines() {
        if line.starts_with("## ") || line.starts_with("### ") {
            section = line;
        }
        if !line.starts_with("| `") {
            continue;
        }
        let cells: Vec<&str> = line.split(" | ").collect();
        let bytes = cells[1].trim_end_matches(" |");
        let bytes = match bytes {
            "(empty)" | "nothing: the key is the bare prefix" => String::new(),
            b if b.starts_with('`') => b.replace('`', ""),
            _ => continue,
        };
        let Ok(bytes) = const_hex::decode(bytes.replace(' ', "")) else {
            continue;
        };
        let sources = cells[0].trim_start_matches("| `").trim_end_matches('`');
        for src in sources.split("`, `") {
            let got = if section == "## Keys" {
                encode_key(&[], &key(src)).unwrap().bytes
            } else {
                encode(src).bytes
            };
            assert_eq!(got, bytes, "docs/encoding.md: {src}");
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} rows checked");
}
