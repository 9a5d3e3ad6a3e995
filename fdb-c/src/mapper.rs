//! The mapper of `fdb_transaction_get_mapped_range`: a tuple that says,
//! for each index entry the primary range returns, which key (or which
//! prefix, for a range) holds the record it points to. FDB's storage
//! servers apply it; the rules here are theirs.
//!
//! Each element of the mapper tuple is one of:
//!
//! - a string or byte string `{K[i]}` or `{V[i]}`: the `i`-th element of
//!   the index entry's key (or value) as a tuple, copied as encoded;
//! - a string or byte string holding `{{` or `}}`: the text with those
//!   unescaped to `{` and `}`, as a byte string;
//! - `{...}`, which must be the last element: the record is every key
//!   that starts with the packed elements before it (a range read)
//!   rather than that one key;
//! - anything else: copied as encoded.
//!
//! A mapper that is not a tuple is `mapper_not_tuple`; `{...}` elsewhere
//! than last is `mapper_bad_range_decriptor`; an index that is not a
//! number or lies outside the tuple is `mapper_bad_index`; a key or value
//! an index refers to that is not a tuple is `key_not_tuple` or
//! `value_not_tuple`.
//!
//! Elements are kept as their encoded bytes, never re-encoded, so a
//! mapped key is byte for byte the concatenation FDB builds.

use foundationdb_tuple::{Bytes, Element, PackResult, TupleDepth, TupleUnpack};

use crate::errors::{
    Code, KEY_NOT_TUPLE, MAPPER_BAD_INDEX, MAPPER_BAD_RANGE_DESCRIPTOR, MAPPER_NOT_TUPLE,
    VALUE_NOT_TUPLE,
};

/// A tuple's top-level elements, each as the bytes that encode it.
struct Encoded<'a>(Vec<(&'a [u8], Element<'a>)>);

impl<'a> TupleUnpack<'a> for Encoded<'a> {
    /// Unpacks the root tuple one element at a time, keeping the span
    /// each element was read from.
    fn unpack(mut input: &'a [u8], depth: TupleDepth) -> PackResult<(&'a [u8], Self)> {
        let mut elements = Vec::new();
        while !input.is_empty() {
            let (rest, element) = Element::unpack(input, depth.increment())?;
            elements.push((&input[..input.len() - rest.len()], element));
            input = rest;
        }
        Ok((input, Encoded(elements)))
    }
}

/// The encoded elements of `bytes` as a tuple, or `None` if it is not one.
fn encoded(bytes: &[u8]) -> Option<Vec<(&[u8], Element<'_>)>> {
    foundationdb_tuple::unpack::<Encoded>(bytes)
        .ok()
        .map(|e| e.0)
}

/// Where a reference takes its element from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Key,
    Value,
}

/// One element of the mapper.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    /// Bytes copied into every mapped key.
    Literal(Vec<u8>),
    /// `{K[i]}` or `{V[i]}`; `None` when the index is not a number, which
    /// FDB finds only when it maps a row.
    Element(Source, Option<i32>),
}

/// What an index entry maps to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Secondary {
    /// One key, read as a `get`.
    Key(Vec<u8>),
    /// Every key with this prefix.
    Prefix(Vec<u8>),
}

/// A parsed mapper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapper {
    parts: Vec<Part>,
    range: bool,
}

impl Mapper {
    /// Parses a mapper as FDB's storage server does before it maps the
    /// first row.
    pub fn parse(mapper: &[u8]) -> Result<Mapper, Code> {
        let elements = encoded(mapper).ok_or(MAPPER_NOT_TUPLE)?;
        let last = elements.len().saturating_sub(1);
        let mut parts = Vec::with_capacity(elements.len());
        let mut range = false;
        for (i, (raw, element)) in elements.iter().enumerate() {
            let text = match element {
                Element::Bytes(b) => b.as_ref(),
                Element::String(s) => s.as_bytes(),
                _ => {
                    parts.push(Part::Literal(raw.to_vec()));
                    continue;
                }
            };
            match directive(text) {
                Directive::Escaped(text) => parts.push(Part::Literal(bytes_element(text))),
                Directive::Element(source, index) => parts.push(Part::Element(source, index)),
                Directive::Range if i != last => return Err(MAPPER_BAD_RANGE_DESCRIPTOR),
                Directive::Range => range = true,
                Directive::None => parts.push(Part::Literal(raw.to_vec())),
            }
        }
        Ok(Mapper { parts, range })
    }

    /// The key or prefix the index entry `(key, value)` maps to. The key
    /// and value are unpacked only if the mapper refers to them.
    pub fn map(&self, key: &[u8], value: &[u8]) -> Result<Secondary, Code> {
        let mut key_tuple = None;
        let mut value_tuple = None;
        let mut out = Vec::new();
        for part in &self.parts {
            match part {
                Part::Literal(bytes) => out.extend_from_slice(bytes),
                Part::Element(source, index) => {
                    let index = index.ok_or(MAPPER_BAD_INDEX)?;
                    let elements = match source {
                        Source::Key => unpacked(&mut key_tuple, key, KEY_NOT_TUPLE)?,
                        Source::Value => unpacked(&mut value_tuple, value, VALUE_NOT_TUPLE)?,
                    };
                    let raw = usize::try_from(index)
                        .ok()
                        .and_then(|i| elements.get(i))
                        .ok_or(MAPPER_BAD_INDEX)?;
                    out.extend_from_slice(raw);
                }
            }
        }
        Ok(if self.range {
            Secondary::Prefix(out)
        } else {
            Secondary::Key(out)
        })
    }
}

/// The encoded elements of `bytes`, unpacked once into `cache`.
fn unpacked<'c>(
    cache: &'c mut Option<Vec<Vec<u8>>>,
    bytes: &[u8],
    not_tuple: Code,
) -> Result<&'c [Vec<u8>], Code> {
    if cache.is_none() {
        let elements = encoded(bytes).ok_or(not_tuple)?;
        *cache = Some(elements.into_iter().map(|(raw, _)| raw.to_vec()).collect());
    }
    Ok(cache.as_deref().unwrap_or_default())
}

/// What a string element of the mapper asks for.
#[derive(Debug, PartialEq, Eq)]
enum Directive {
    /// Text with `{{` or `}}`, unescaped.
    Escaped(Vec<u8>),
    Element(Source, Option<i32>),
    Range,
    /// Plain text.
    None,
}

/// FDB's reading of a string element: escapes first, then `{K[..]}` and
/// `{V[..]}` (more than five bytes), then `{...}`.
fn directive(text: &[u8]) -> Directive {
    let (text, opened) = replace(text, b"{{", b"{");
    let (text, closed) = replace(&text, b"}}", b"}");
    if opened || closed {
        return Directive::Escaped(text);
    }
    let n = text.len();
    if n > 5 && text[0] == b'{' && text[2] == b'[' && text[n - 2] == b']' && text[n - 1] == b'}' {
        let source = match text[1] {
            b'K' => Some(Source::Key),
            b'V' => Some(Source::Value),
            _ => None,
        };
        if let Some(source) = source {
            return Directive::Element(source, stoi(&text[3..n - 2]));
        }
    }
    if text == b"{...}" {
        return Directive::Range;
    }
    Directive::None
}

/// `text` with every `from` replaced by `to`, left to right, and whether
/// any was.
fn replace(text: &[u8], from: &[u8], to: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(text.len());
    let mut found = false;
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
            found = true;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    (out, found)
}

/// `text` packed as a byte-string element.
fn bytes_element(text: Vec<u8>) -> Vec<u8> {
    foundationdb_tuple::pack(&(Bytes::from(text),))
}

/// The index as C++'s `std::stoi` reads it, which FDB uses: leading
/// white space, a sign, then decimal digits up to the first other byte;
/// `None` without a digit or beyond an `int`.
fn stoi(text: &[u8]) -> Option<i32> {
    let text = match text.iter().position(|b| !b" \t\n\x0b\x0c\r".contains(b)) {
        Some(start) => &text[start..],
        None => return None,
    };
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    if len == 0 {
        return None;
    }
    let mut v: i64 = 0;
    for d in &digits[..len] {
        v = v.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
    }
    i32::try_from(if negative { -v } else { v }).ok()
}

#[cfg(test)]
mod tests {
    use foundationdb_tuple::{Element, pack};

    use super::*;

    fn s(text: &str) -> Element<'_> {
        Element::String(text.into())
    }

    fn tuple(elements: Vec<Element<'_>>) -> Vec<u8> {
        pack(&Element::Tuple(elements))
    }

    #[test]
    fn a_nested_tuple_at_the_root_packs_flat() {
        // The tests below build tuples so; check that it is FDB's layout.
        assert_eq!(
            tuple(vec![s("a"), Element::Int(1)]),
            pack(&("a", 1)),
            "Element::Tuple at the root packs as the tuple itself"
        );
    }

    #[test]
    fn references_copy_the_key_s_and_value_s_encoded_elements() {
        let nested = Element::Tuple(vec![Element::Int(7), Element::Nil]);
        let key = tuple(vec![s("idx"), nested.clone(), Element::Int(-300)]);
        let value = tuple(vec![Element::Bytes(b"v\x00".as_slice().into())]);
        let m = Mapper::parse(&tuple(vec![
            s("rec"),
            s("{K[2]}"),
            Element::Bytes(b"{V[0]}".as_slice().into()),
            s("{K[1]}"),
        ]))
        .unwrap();
        let expected = tuple(vec![
            s("rec"),
            Element::Int(-300),
            Element::Bytes(b"v\x00".as_slice().into()),
            nested,
        ]);
        assert_eq!(m.map(&key, &value), Ok(Secondary::Key(expected)));
    }

    #[test]
    fn a_trailing_range_descriptor_maps_to_a_prefix() {
        let m = Mapper::parse(&tuple(vec![s("rec"), s("{K[1]}"), s("{...}")])).unwrap();
        let key = tuple(vec![s("idx"), Element::Int(5)]);
        assert_eq!(
            m.map(&key, b"not a tuple \xff"),
            Ok(Secondary::Prefix(tuple(vec![s("rec"), Element::Int(5)])))
        );
        assert_eq!(
            Mapper::parse(&tuple(vec![s("{...}"), s("rec")])),
            Err(MAPPER_BAD_RANGE_DESCRIPTOR)
        );
    }

    #[test]
    fn escapes_become_byte_strings() {
        let m = Mapper::parse(&tuple(vec![s("{{K[0]}}"), s("{...}}")])).unwrap();
        let expected = tuple(vec![
            Element::Bytes(b"{K[0]}".as_slice().into()),
            Element::Bytes(b"{...}".as_slice().into()),
        ]);
        assert_eq!(m.map(b"", b""), Ok(Secondary::Key(expected)));
    }

    #[test]
    fn bad_mappers_indexes_keys_and_values_fail_with_fdbs_codes() {
        assert_eq!(Mapper::parse(b"\x15\x01\x35"), Err(MAPPER_NOT_TUPLE));
        let key = tuple(vec![s("a"), s("b")]);
        let map =
            |m: &str, k: &[u8], v: &[u8]| Mapper::parse(&tuple(vec![s(m)])).unwrap().map(k, v);
        assert_eq!(map("{K[2]}", &key, b""), Err(MAPPER_BAD_INDEX));
        assert_eq!(map("{K[-1]}", &key, b""), Err(MAPPER_BAD_INDEX));
        assert_eq!(map("{K[x]}", &key, b""), Err(MAPPER_BAD_INDEX));
        assert_eq!(map("{K[1]}", b"\x35", b""), Err(KEY_NOT_TUPLE));
        assert_eq!(map("{V[0]}", &key, b"\x35"), Err(VALUE_NOT_TUPLE));
        // `stoi` reads leading digits and ignores what follows.
        assert_eq!(
            map("{K[1x]}", &key, b""),
            Ok(Secondary::Key(tuple(vec![s("b")])))
        );
        // Five bytes or fewer are plain text.
        assert_eq!(
            map("{K[]}", &key, b""),
            Ok(Secondary::Key(tuple(vec![s("{K[]}")])))
        );
    }

    #[test]
    fn stoi_reads_as_cpp_does() {
        assert_eq!(stoi(b" +12ab"), Some(12));
        assert_eq!(stoi(b"-3"), Some(-3));
        assert_eq!(stoi(b"2147483648"), None);
        assert_eq!(stoi(b"-"), None);
        assert_eq!(stoi(b""), None);
    }
}
