//! From FQL data to the bytes of keys and values, and back.
//!
//! Keys are a directory prefix and a packed tuple ([`encode_key`],
//! [`decode_key`]); values are packed, raw or fixed-width as their options
//! say ([`encode_value`], [`ValueDecoder`]). Packing is the
//! `foundationdb-tuple` crate's, so the bytes are those of every other
//! FoundationDB binding; this module adds what the crate leaves out: FQL's
//! value rules and options, one canonical form per value, and errors in
//! place of the crate's panics.
//!
//! The static checker calls the same functions on literals
//! ([`options::resolve`], [`encode_value`], [`ElementFilter::new`],
//! [`ValueDecoder::new`], [`single_vstamp`]), so whatever can be known
//! wrong without a database is reported before a script runs, in the same
//! words. `docs/encoding.md` gives the bytes of every form.
//!
//! ```
//! use fql::codec::{self, Op};
//! use fql::syntax::ast::{Elem, ElemKind, Int, Options, Span};
//!
//! let elem = Elem { kind: ElemKind::Int(Int::Small(256)), span: Span::default() };
//! let value = codec::encode_value(&elem, &Options::default()).unwrap();
//! assert_eq!(value.bytes, [0x16, 0x01, 0x00]);
//! assert_eq!(value.op, Op::Set);
//! ```

mod element;
mod error;
mod extended;
mod fixed;
mod key;
mod mutation;
pub mod options;
mod part;
mod tuple;
mod unpack;
mod value;

use crate::kv::MutationType;
use crate::syntax::ast::{Elem, Options};

pub use element::{
    from_element, from_elements, into_owned, single_vstamp, to_owned, type_of, user_types_last,
};
pub use error::{Error, OptionError};
pub use key::{ElementFilter, compare, decode_key, decode_key_into, encode_key};
pub use mutation::{encode_operand, mutation_type};
pub use options::{Encoding, IntLayout, IntWidth, NumLayout, NumWidth, Subject};
pub use unpack::Scalar;
pub use value::{Decoded, ValueDecoder, decode_tuple, decode_untyped, encode_value};

/// Encoded bytes and the way they must be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// The key or value; for a versionstamped one, followed by the 4-byte
    /// little-endian offset of the stamp, as the mutation expects.
    pub bytes: Vec<u8>,
    /// How to write them.
    pub op: Op,
}

/// How a key-value is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Op {
    /// A plain set.
    #[default]
    Set,
    /// `SET_VERSIONSTAMPED_KEY`: the key holds an incomplete vstamp.
    VersionstampedKey,
    /// `SET_VERSIONSTAMPED_VALUE`: the value holds an incomplete vstamp.
    VersionstampedValue,
}

impl Op {
    /// The atomic operation to write with, or `None` for a plain set.
    pub fn mutation(self) -> Option<MutationType> {
        match self {
            Op::Set => None,
            Op::VersionstampedKey => Some(MutationType::SetVersionstampedKey),
            Op::VersionstampedValue => Some(MutationType::SetVersionstampedValue),
        }
    }
}

/// A key-value ready to write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Write {
    /// The key (the mutation's key).
    pub key: Vec<u8>,
    /// The value (the mutation's parameter).
    pub value: Vec<u8>,
    /// How to write them.
    pub op: Op,
}

/// Encodes a whole write: the key under `prefix`, and the value with its
/// options. One incomplete vstamp, in the key or in the value, makes the
/// write versionstamped; FoundationDB fills in only one per mutation, so
/// two, wherever they stand, are an error.
pub fn encode_write(
    prefix: &[u8],
    key: &[Elem],
    value: &Elem,
    opts: &Options,
) -> Result<Write, Error> {
    single_vstamp(key.iter().chain([value]))?;
    let key = encode_key(prefix, key)?;
    let value = encode_value(value, opts)?;
    let op = match (key.op, value.op) {
        (Op::Set, op) | (op, _) => op,
    };
    Ok(Write {
        key: key.bytes,
        value: value.bytes,
        op,
    })
}

/// [`encode_write`] into `out`, reusing its buffers: a script of a million
/// writes encodes each into the same two. A write of strings and ints with
/// no options is packed here directly.
pub fn encode_write_into(
    prefix: &[u8],
    key: &[Elem],
    value: &Elem,
    opts: &Options,
    out: &mut Write,
) -> Result<(), Error> {
    if opts.is_empty()
        && tuple::pack_plain_into(&mut out.value, &[], std::slice::from_ref(value))
        && tuple::pack_plain_into(&mut out.key, prefix, key)
    {
        out.op = Op::Set;
        return Ok(());
    }
    *out = encode_write(prefix, key, value, opts)?;
    Ok(())
}

/// Ints at every byte length of their encoding, both signs, and either
/// side of each boundary: where the tuple layer's int codes change.
#[cfg(test)]
fn ints_at_every_length() -> impl Iterator<Item = i64> {
    (0..64).flat_map(|shift| {
        let n = 1i64.wrapping_shl(shift);
        let m = n.wrapping_neg();
        [
            n,
            n.wrapping_sub(1),
            n.wrapping_add(1),
            m,
            m.wrapping_add(1),
            m.wrapping_sub(1),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key, value and options of a one-statement script's write.
    fn write_of(src: &str) -> (Vec<Elem<'_>>, Elem<'_>, Options<'_>) {
        let script = crate::syntax::parse(src).unwrap();
        let crate::syntax::ast::Item::Statement(stmt) = &script.items[0] else {
            unreachable!()
        };
        let crate::syntax::ast::Query::KeyValue(kv) = &stmt.query else {
            unreachable!()
        };
        let crate::syntax::ast::Value::Data(value, opts) = &kv.value else {
            unreachable!()
        };
        let key = kv.key.tuple.elems.iter().cloned().collect();
        (key, value.clone(), opts.clone())
    }

    #[test]
    fn writes_encode_into_reused_buffers_as_they_encode_alone() {
        let mut out = Write {
            key: b"left over".to_vec(),
            value: b"from before".to_vec(),
            op: Op::VersionstampedKey,
        };
        for src in [
            r#"/a(1,"k")="v""#,
            "/a(-72057594037927935,\"\\x00x\")=72057594037927935",
            r#"/a(9223372036854775807)=-9223372036854775808"#,
            r#"/a("k")=7[i64]"#,
            r#"/a("k")=nil"#,
            r#"/a(#:0001)="v""#,
            r#"/a(1.5,(1,"x"))=0xff"#,
        ] {
            let (key, value, opts) = write_of(src);
            let alone = encode_write(b"\x15\x02", &key, &value, &opts).unwrap();
            encode_write_into(b"\x15\x02", &key, &value, &opts, &mut out).unwrap();
            assert_eq!(out, alone, "{src}");
        }
    }
}
