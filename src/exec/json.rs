//! Results as JSON: the form `fql --format json` and `--format jsonl`
//! print, for any program that wants the same (feature `serde`).
//!
//! The form of every element is documented in `docs/cli.md` (section
//! "`--format jsonl` and `--format json`"): JSON's own types where they
//! say the same thing (nil, bool, str, int and num as numbers, tuples as
//! arrays), a one-key object naming the type otherwise, so that a reader
//! can always tell an int from a num, and bytes, uuids and vstamps from
//! strings. Ints keep every digit, whatever their size.
//!
//! [`Output`] serializes in that form with bytes in full; [`Json`] chooses
//! how bytes show. [`write()`] writes any value as compact JSON, nums as FQL
//! prints them (`1e300`), in text that holds no control character:
//! besides what JSON requires, it escapes DEL and the C1 controls (U+0080
//! to U+009F), which some terminals act on as they act on escape
//! sequences.
//!
//! ```
//! use std::sync::Arc;
//! use fql::exec::{DirPath, Output, Part, Row, json};
//! use fql::syntax::ast::ElemKind;
//!
//! let row = Output::KeyValue(Row {
//!     path: Arc::new(DirPath::new(vec!["app".into()])),
//!     key: vec![Part::Data(ElemKind::Bytes(vec![0, 255]))],
//!     rest: false,
//!     value: None,
//! });
//! let mut out = Vec::new();
//! json::write(&mut out, &row).unwrap();
//! assert_eq!(out, br#"{"type":"kv","path":["app"],"key":[{"bytes":"00ff"}]}"#);
//! json::write(&mut out, &json::Json::new(&row, json::Bytes::Len)).unwrap();
//! assert!(out.ends_with(br#""key":[{"bytes_len":2}]}"#));
//! json::write(&mut out, &json::Json::new(&row, json::Bytes::Escaped)).unwrap();
//! assert!(out.ends_with(br#""key":[{"bytes_escaped":"\\x00\\xff"}]}"#));
//! ```

use std::io;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::ser::Formatter;
use serde_json::value::RawValue;

use super::{Output, Part, RawRow, Row};
use crate::syntax::ast::{ElemKind, Int, Num};

/// How bytes show in JSON.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Bytes {
    /// `{"bytes":"00ff"}`: every byte, in lowercase hex.
    #[default]
    Hex,
    /// `{"bytes_len":2}`: only how many there are.
    Len,
    /// `{"bytes_escaped":"\\x00\\xff"}`: every byte, as the text between
    /// the quotes of the escaped literal `b"\x00\xff"` (printable ASCII as
    /// it is, `\\` and `\"`, every other byte `\xNN`): fdbcli's printable
    /// form, which decodes back to the same bytes and holds no control
    /// character.
    Escaped,
}

/// A result in JSON form, with bytes shown as [`Bytes`] says.
#[derive(Clone, Copy, Debug)]
pub struct Json<'a> {
    output: &'a Output,
    bytes: Bytes,
}

impl<'a> Json<'a> {
    /// `output`, with bytes as `bytes` says.
    pub fn new(output: &'a Output, bytes: Bytes) -> Json<'a> {
        Json { output, bytes }
    }
}

impl Serialize for Output {
    /// The JSON form, bytes in full.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Json::new(self, Bytes::Hex).serialize(s)
    }
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self.output {
            Output::Directory(path) => {
                map.serialize_entry("type", "dir")?;
                map.serialize_entry("path", path)?;
            }
            Output::DirPrefix { path, prefix } => {
                map.serialize_entry("type", "dir")?;
                map.serialize_entry("path", path)?;
                let prefix = ElemKind::Bytes(prefix.clone());
                map.serialize_entry("prefix", &Elem(&prefix, self.bytes))?;
            }
            Output::NewSnapshot => map.serialize_entry("type", "new_snapshot")?,
            Output::KeyValue(row) => self.row(&mut map, row)?,
            Output::Raw(row) => self.raw(&mut map, row)?,
        }
        map.end()
    }
}

impl Bytes {
    /// Bytes that name where a key is, which their length would not:
    /// escaped when asked, else in hex.
    fn in_full(self) -> Bytes {
        match self {
            Bytes::Escaped => Bytes::Escaped,
            Bytes::Hex | Bytes::Len => Bytes::Hex,
        }
    }
}

impl Json<'_> {
    /// A raw row: its key as bytes, always in full (escaped or in hex),
    /// since it is all that names the key; its value as any other.
    fn raw<M: SerializeMap>(&self, map: &mut M, row: &RawRow) -> Result<(), M::Error> {
        let bytes = self.bytes;
        map.serialize_entry("type", "raw")?;
        let key = ElemKind::Bytes(row.key.clone());
        map.serialize_entry("key", &Elem(&key, bytes.in_full()))?;
        let (part, options) = &row.value;
        map.serialize_entry("value", &PartJson { part, bytes })?;
        if let Some(options) = options {
            map.serialize_entry("options", &**options)?;
        }
        Ok(())
    }

    fn row<M: SerializeMap>(&self, map: &mut M, row: &Row) -> Result<(), M::Error> {
        let bytes = self.bytes;
        map.serialize_entry("type", "kv")?;
        // A key after raw bytes has no path: its bytes, in full, name
        // where it is, as a raw row's key does.
        match row.path.prefix() {
            Some(prefix) => {
                let prefix = ElemKind::Bytes(prefix.to_vec());
                map.serialize_entry("prefix", &Elem(&prefix, bytes.in_full()))?;
            }
            None => map.serialize_entry("path", row.path.names())?,
        }
        map.serialize_entry("key", &KeyJson(&row.key, bytes))?;
        if row.rest {
            map.serialize_entry("rest", &true)?;
        }
        if let Some((part, options)) = &row.value {
            map.serialize_entry("value", &PartJson { part, bytes })?;
            if let Some(options) = options {
                map.serialize_entry("options", &**options)?;
            }
        }
        Ok(())
    }
}

/// The elements of a key, written as they are read: no list is built for
/// each row.
struct KeyJson<'a>(&'a [Part], Bytes);

impl Serialize for KeyJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let KeyJson(key, bytes) = *self;
        s.collect_seq(key.iter().map(|part| PartJson { part, bytes }))
    }
}

/// One element of a key or a value.
struct PartJson<'a> {
    part: &'a Part,
    bytes: Bytes,
}

impl Serialize for PartJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.part {
            Part::Data(data) => Elem(data, self.bytes).serialize(s),
            Part::Written(text) => tagged(s, "fql", text),
        }
    }
}

/// Data, read or computed.
struct Elem<'a>(&'a ElemKind<'a>, Bytes);

impl Serialize for Elem<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Elem(data, bytes) = *self;
        match data {
            ElemKind::Nil => s.serialize_unit(),
            ElemKind::Bool(b) => s.serialize_bool(*b),
            ElemKind::Int(Int::Small(n)) => s.serialize_i64(*n),
            ElemKind::Int(Int::Big(n)) => big(s, n),
            ElemKind::Num(Num(n)) if n.is_finite() => s.serialize_f64(*n),
            ElemKind::Num(n) => tagged(s, "num", &n.to_string()),
            ElemKind::Str(text) => s.serialize_str(text),
            ElemKind::Bytes(b) => match bytes {
                Bytes::Hex => tagged(s, "bytes", &const_hex::encode(b)),
                Bytes::Len => {
                    let mut map = s.serialize_map(Some(1))?;
                    map.serialize_entry("bytes_len", &b.len())?;
                    map.end()
                }
                Bytes::Escaped => {
                    let mut text = String::with_capacity(b.len());
                    crate::syntax::write_byte_escapes(&mut text, b).expect("writing to a String");
                    tagged(s, "bytes_escaped", &text)
                }
            },
            ElemKind::Uuid(u) => tagged(s, "uuid", &u.hyphenated().to_string()),
            ElemKind::Vstamp(v) => tagged(s, "vstamp", &v.to_string()),
            ElemKind::Vstamp80(_) => tagged(s, "vstamp", &data.to_string()),
            ElemKind::F32(_) => tagged(s, "f32", &data.to_string()),
            ElemKind::User(_) => tagged(s, "user", &data.to_string()),
            ElemKind::Tuple(t) => {
                let mut seq = s.serialize_seq(Some(t.elems.len()))?;
                for e in &t.elems {
                    seq.serialize_element(&Elem(&e.kind, bytes))?;
                }
                seq.end()
            }
            // Results hold data only; a hole an aggregate keeps is a
            // `Part::Written`.
            ElemKind::Var(_) | ElemKind::Ref(_) => tagged(s, "fql", &data.to_string()),
        }
    }
}

/// An int beyond 64 bits, as a number with every digit: within 128 bits
/// any serializer can write it; past that, a JSON number written as is.
fn big<S: Serializer>(s: S, n: &num_bigint::BigInt) -> Result<S::Ok, S::Error> {
    if let Ok(n) = i128::try_from(n) {
        return s.serialize_i128(n);
    }
    let digits = RawValue::from_string(n.to_string()).map_err(serde::ser::Error::custom)?;
    digits.serialize(s)
}

/// `{"tag":"text"}`.
fn tagged<S: Serializer>(s: S, tag: &str, text: &str) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(1))?;
    map.serialize_entry(tag, text)?;
    map.end()
}

/// serde_json's compact form, with DEL and the C1 controls in strings
/// escaped as `\u007f` and `\u0080`..`\u009f` too: the same JSON value,
/// with no control character in its text. Outside its strings JSON text
/// is ASCII, so every such character it holds is in a string.
#[derive(Clone, Copy, Debug, Default)]
pub struct SafeFormatter;

impl Formatter for SafeFormatter {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        out: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut rest = fragment;
        while let Some(at) = rest.find(|c| matches!(c, '\u{7f}'..='\u{9f}')) {
            out.write_all(&rest.as_bytes()[..at])?;
            let c = rest[at..].chars().next().unwrap_or_default();
            write!(out, "\\u{:04x}", u32::from(c))?;
            rest = &rest[at + c.len_utf8()..];
        }
        out.write_all(rest.as_bytes())
    }

    /// As FQL prints a num: the shortest digits that read back the same,
    /// `1e300` rather than serde_json's `1e+300`. Only finite numbers come
    /// here; serde_json writes the others as `null`, which [`Json`] never
    /// asks it to.
    fn write_f64<W: ?Sized + io::Write>(&mut self, out: &mut W, value: f64) -> io::Result<()> {
        out.write_all(ryu::Buffer::new().format_finite(value).as_bytes())
    }
}

/// Writes `value` as compact JSON through [`SafeFormatter`].
pub fn write<W: io::Write, T: Serialize + ?Sized>(out: W, value: &T) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, SafeFormatter);
    value.serialize(&mut serializer).map_err(io::Error::from)
}

/// `value` as compact JSON through [`SafeFormatter`].
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    // Writing to memory fails only for a value that cannot be JSON (a
    // map with keys that are not strings), which no caller has.
    let _ = write(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_the_value_is_the_same() {
        let text = "a\u{1b}[31m\u{7f}\u{80}\u{9b}\u{9f}\u{a0}é\n\"";
        let json = to_string(text);
        assert_eq!(
            json,
            "\"a\\u001b[31m\\u007f\\u0080\\u009b\\u009f\u{a0}é\\n\\\"\""
        );
        assert!(!json.chars().any(char::is_control));
        let back: String = serde_json::from_str(&json).unwrap();
        assert_eq!(back, text);
        let value = serde_json::json!({ "k": [text] });
        let shown = to_string(&value);
        assert!(!shown.chars().any(char::is_control));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&shown).unwrap(),
            value
        );
    }

    #[test]
    fn numbers_keep_every_digit() {
        let int = |text: &str| {
            let n: num_bigint::BigInt = text.parse().unwrap();
            let kind = ElemKind::Int(Int::from_big(n));
            to_string(&Elem(&kind, Bytes::Hex))
        };
        let num = ElemKind::Num(Num(1e300));
        assert_eq!(to_string(&Elem(&num, Bytes::Hex)), "1e300");
        for n in [
            "-42",
            "9223372036854775808",
            "-170141183460469231731687303715884105728",
            "170141183460469231731687303715884105728",
            "-123456789012345678901234567890123456789012345678901234567890",
        ] {
            assert_eq!(int(n), n);
        }
    }

    /// The tuple layer's less common types are tagged with their FQL text,
    /// so that none reads as a plain num or vstamp; a NaN keeps its sign.
    #[test]
    fn rare_tuple_types_are_tagged() {
        let shown = |kind: ElemKind| to_string(&Elem(&kind, Bytes::Hex));
        assert_eq!(
            shown(ElemKind::F32(crate::syntax::ast::F32(1.5))),
            r#"{"f32":"f32(1.5)"}"#
        );
        assert_eq!(
            shown(ElemKind::Vstamp80([0xab; 10])),
            r##"{"vstamp":"#abababababababababab"}"##
        );
        let user = crate::syntax::ast::UserType {
            code: 0x4f,
            data: vec![0, 0xff],
        };
        assert_eq!(
            shown(ElemKind::User(Box::new(user))),
            r#"{"user":"user(0x4f,0x00ff)"}"#
        );
        assert_eq!(shown(ElemKind::Num(Num(-f64::NAN))), r#"{"num":"-nan"}"#);
    }
}
