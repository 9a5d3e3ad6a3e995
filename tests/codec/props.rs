//! Properties over generated data: what is encoded decodes to itself, and
//! packed keys sort as their elements do.

use std::cmp::Ordering;

use fql::codec::{
    self, ElementFilter, IntLayout, IntWidth, NumWidth, ValueDecoder, decode_key, encode_key,
    encode_value,
};
use fql::syntax::ast::*;
use num_bigint::BigInt;
use proptest::collection::vec;
use proptest::prelude::*;

/// A one-element key.
fn key(kind: ElemKind<'_>) -> Vec<Elem<'_>> {
    vec![elem(kind)]
}

pub fn elem(kind: ElemKind<'_>) -> Elem<'_> {
    Elem {
        kind,
        span: Span::default(),
    }
}

fn int() -> impl Strategy<Value = Int> {
    prop_oneof![
        4 => any::<i64>().prop_map(Int::Small),
        1 => (any::<bool>(), vec(any::<u8>(), 8..24)).prop_map(|(neg, bytes)| {
            let n = BigInt::from_bytes_be(num_bigint::Sign::Plus, &bytes);
            Int::from_big(if neg { -n } else { n })
        }),
        1 => prop_oneof![
            Just(BigInt::from(u64::MAX)),
            Just(-BigInt::from(u64::MAX)),
            Just(BigInt::from(1u8) << 64u32),
            Just(-(BigInt::from(1u8) << 64u32)),
        ]
        .prop_map(Int::from_big),
    ]
}

/// Data elements of every type, nested a few levels; every stamp complete
/// (an incomplete one is a write instruction, not data that is stored).
/// No user types: they stand only last, and `tuple_types` covers them.
pub fn data() -> impl Strategy<Value = ElemKind<'static>> {
    let leaf = prop_oneof![
        Just(ElemKind::Nil),
        any::<bool>().prop_map(ElemKind::Bool),
        int().prop_map(ElemKind::Int),
        any::<u64>().prop_map(|bits| ElemKind::Num(Num(f64::from_bits(bits)))),
        any::<String>().prop_map(|s| ElemKind::Str(s.into())),
        vec(any::<u8>(), 0..12).prop_map(ElemKind::Bytes),
        any::<[u8; 16]>().prop_map(|b| ElemKind::Uuid(Uuid::from_bytes(b))),
        (any::<[u8; 10]>(), any::<u16>())
            .prop_map(|(tx, user)| ElemKind::Vstamp(Vstamp { tx: Some(tx), user })),
        // A NaN as the one `f32(nan)` or `f32(-nan)` writes: the text
        // keeps only its sign.
        any::<u32>().prop_map(|bits| {
            let x = f32::from_bits(bits);
            ElemKind::F32(F32(if x.is_nan() { f32::NAN.copysign(x) } else { x }))
        }),
        any::<[u8; 10]>().prop_map(ElemKind::Vstamp80),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        vec(inner, 0..5).prop_map(|items| {
            ElemKind::Tuple(Box::new(Tuple {
                elems: items.into_iter().map(elem).collect(),
                rest: None,
                span: Span::default(),
            }))
        })
    })
}

/// The variable `<ty>` for a data element's type.
fn typed(kind: &ElemKind) -> Variable<'static> {
    let ty = codec::type_of(kind).expect("data");
    Variable {
        name: None,
        types: [TypeSpec {
            ty,
            options: Options::default(),
            span: Span::default(),
        }]
        .into_iter()
        .collect(),
        span: Span::default(),
    }
}

proptest! {
    #[test]
    fn keys_round_trip(kinds in vec(data(), 0..5), prefix in vec(any::<u8>(), 0..4)) {
        let elems: Vec<Elem> = kinds.into_iter().map(elem).collect();
        let encoded = encode_key(&prefix, &elems).unwrap();
        prop_assert_eq!(encoded.op, codec::Op::Set);
        prop_assert_eq!(decode_key(&prefix, &encoded.bytes), Some(elems));
    }

    /// Read by its own type, every value is what was written.
    #[test]
    fn values_round_trip(kind in data()) {
        let encoded = encode_value(&elem(kind.clone()), &Options::default()).unwrap();
        let decoded = ValueDecoder::new(&typed(&kind)).unwrap().decode(&encoded.bytes);
        prop_assert_eq!(decoded.map(|d| d.elem), Some(kind.clone()));
        // Read untyped, only bytes and tuples may come back otherwise.
        let untyped = codec::decode_untyped(&encoded.bytes);
        if !matches!(kind, ElemKind::Bytes(_) | ElemKind::Tuple(_)) {
            prop_assert_eq!(untyped, kind);
        }
    }

    #[test]
    fn element_filters_accept_their_type(kind in data()) {
        prop_assert!(ElementFilter::new(&typed(&kind)).unwrap().accepts(&kind));
    }

    #[test]
    fn fixed_width_ints_round_trip(
        n in any::<i64>(),
        w in 0usize..4,
        unsigned: bool,
        big_endian: bool,
    ) {
        let width = [IntWidth::W8, IntWidth::W16, IntWidth::W32, IntWidth::W64][w];
        let bits = width.bits();
        // Fit the value into the width, as a script must.
        let n = if unsigned {
            i128::from(n).rem_euclid(1i128 << bits)
        } else {
            (i128::from(n) << (128 - bits)) >> (128 - bits)
        };
        let int = Int::from_big(BigInt::from(n));
        let layout = IntLayout { width, unsigned, big_endian };
        let src = format!("{int}{}", options(&layout));
        let (e, opts) = super::value(&src);
        let bytes = encode_value(&e, &opts).unwrap().bytes;
        prop_assert_eq!(bytes.len() as u32 * 8, bits);
        let var = super::variable(&format!("<int{}>", options(&layout)));
        let back = ValueDecoder::new(&var).unwrap().decode(&bytes).map(|d| d.elem);
        prop_assert_eq!(back, Some(ElemKind::Int(int)));
    }

    #[test]
    fn fixed_width_nums_round_trip(bits: u64, single: bool, big_endian: bool) {
        let (x, width) = if single {
            (f64::from(f32::from_bits(bits as u32)), NumWidth::F32)
        } else {
            (f64::from_bits(bits), NumWidth::F64)
        };
        let suffix = if single { "f32" } else { "f64" };
        let be = if big_endian { ",be" } else { "" };
        let e = elem(ElemKind::Num(Num(x)));
        let (_, opts) = super::value(&format!("1.0[{suffix}{be}]"));
        let encoded = encode_value(&e, &opts).unwrap().bytes;
        let var = super::variable(&format!("<num[{suffix}{be}]>"));
        let back = ValueDecoder::new(&var).unwrap().decode(&encoded);
        let Some(ElemKind::Num(Num(y))) = back.map(|d| d.elem) else {
            return Err(TestCaseError::fail("no num"));
        };
        if x.is_nan() {
            prop_assert!(y.is_nan());
        } else {
            prop_assert_eq!(x.to_bits(), y.to_bits());
        }
        prop_assert_eq!(encoded.len(), if width == NumWidth::F32 { 4 } else { 8 });
    }

    /// Packed ints sort numerically and packed strings by their UTF-8
    /// bytes, so the database's key order is the elements' order.
    #[test]
    fn key_order_is_element_order(a in int(), b in int(), s in any::<String>(), t in any::<String>()) {
        let packed = codec::compare(&key(ElemKind::Int(a.clone())), &key(ElemKind::Int(b.clone()))).unwrap();
        prop_assert_eq!(packed, a.to_big().cmp(&b.to_big()));
        let packed = codec::compare(&key(ElemKind::Str(s.as_str().into())), &key(ElemKind::Str(t.as_str().into()))).unwrap();
        prop_assert_eq!(packed, s.as_bytes().cmp(t.as_bytes()));
        // A longer tuple with the same start sorts after it.
        let mut longer = key(ElemKind::Int(a.clone()));
        longer.push(elem(ElemKind::Nil));
        prop_assert_eq!(codec::compare(&key(ElemKind::Int(a)), &longer).unwrap(), Ordering::Less);
    }

    /// Whatever the bytes, decoding never panics.
    #[test]
    fn any_bytes_decode(bytes in vec(any::<u8>(), 0..64)) {
        let _ = codec::decode_untyped(&bytes);
        let _ = decode_key(&[], &bytes);
        let var = super::variable("<int[i16]|num[f32,be]|str[raw]|uuid[raw]|vstamp[raw]|tuple|bytes>");
        prop_assert!(ValueDecoder::new(&var).unwrap().decode(&bytes).is_some());
    }
}

fn options(layout: &IntLayout) -> String {
    let mut opts = vec![format!("width:{}", layout.width.bits())];
    if layout.unsigned {
        opts.push("unsigned".into());
    }
    if layout.big_endian {
        opts.push("be".into());
    }
    format!("[{}]", opts.join(","))
}

/// The tuple crate orders `nil` and `(nil)` alike; packed bytes do not.
#[test]
fn order_is_by_bytes_not_by_the_crates_element_order() {
    let nil = vec![elem(ElemKind::Nil)];
    let nested = vec![elem(ElemKind::Tuple(Box::new(Tuple {
        elems: [elem(ElemKind::Nil)].into_iter().collect(),
        rest: None,
        span: Span::default(),
    })))];
    let a = foundationdb_tuple::Element::Nil;
    let b = foundationdb_tuple::Element::Tuple(vec![foundationdb_tuple::Element::Nil]);
    assert_eq!(a.cmp(&b), Ordering::Equal);
    assert_eq!(codec::compare(&nil, &nested).unwrap(), Ordering::Less);
}
