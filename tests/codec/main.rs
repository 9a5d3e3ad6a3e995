//! The codec: exact bytes of keys and values (`vectors`), reading values
//! back (`decode`), the tuple layer's less common types (`tuple_types`),
//! and round trips and key order over generated data (`props`).
//!
//! Elements come from parsing FQL, so each case reads as the statement a
//! user would write.

mod decode;
mod engine;
mod props;
mod store;
mod tuple_types;
mod vectors;

use fql::codec::Error;
use fql::syntax::ast::{Elem, Item, Options, Query, Span, Value, Variable};
use fql::syntax::{self};

/// Hex digits, with spaces allowed between groups for legibility.
pub fn hex(text: &str) -> Vec<u8> {
    let digits: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    const_hex::decode(digits).expect("valid hex in a test")
}

/// The key-value of the statement `src`. The tree borrows its text, which
/// is leaked so that helpers can hand elements out: a few bytes a case.
fn key_value(src: &str) -> fql::syntax::ast::KeyValue<'static> {
    let src: &'static str = src.to_owned().leak();
    let script = syntax::parse(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
    match script.items.into_iter().next() {
        Some(Item::Statement(stmt)) => match stmt.query {
            Query::KeyValue(kv) => kv,
            other => panic!("{src}: not a key-value: {other:?}"),
        },
        other => panic!("{src}: not a statement: {other:?}"),
    }
}

/// The value of `/t(0)=<src>`, with its options.
pub fn value(src: &str) -> (Elem<'static>, Options<'static>) {
    match key_value(&format!("/t(0)={src}")).value {
        Value::Data(elem, opts) => (elem, opts),
        other => panic!("{src}: no value: {other:?}"),
    }
}

/// The elements of the key `/t<tuple>`.
pub fn key(tuple: &str) -> Vec<Elem<'static>> {
    key_value(&format!("/t{tuple}"))
        .key
        .tuple
        .elems
        .into_iter()
        .collect()
}

/// The variable of `/t(0)=<src>`.
pub fn variable(src: &str) -> Variable<'static> {
    match value(src).0.kind {
        fql::syntax::ast::ElemKind::Var(var) => var,
        other => panic!("{src}: not a variable: {other:?}"),
    }
}

/// The value's bytes, which must encode.
pub fn encode(src: &str) -> fql::codec::Encoded {
    let (elem, opts) = value(src);
    fql::codec::encode_value(&elem, &opts).unwrap_or_else(|e| panic!("{src}: {e:?}"))
}

/// The error encoding the value gives.
pub fn encode_err(src: &str) -> Error {
    let (elem, opts) = value(src);
    match fql::codec::encode_value(&elem, &opts) {
        Ok(encoded) => panic!("{src} encodes to {:02x?}", encoded.bytes),
        Err(e) => e,
    }
}

/// The source text a span covers in `/t(0)=<src>`.
pub fn spanned(src: &str, at: Span) -> String {
    format!("/t(0)={src}")[at.range()].to_string()
}
