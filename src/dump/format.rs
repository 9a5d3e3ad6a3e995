//! The lines of a dump: how each is written and read back.

use std::fmt::Write as _;

use crate::codec::{self, Op};
use crate::syntax::ast::{DirElem, Elem, ElemKind, Item, Options, Query, Value};
use crate::syntax::{self, write_bytes, write_elem};

/// The first line of every dump; the number is the format's version.
pub const MAGIC: &str = "% fql dump 1";

/// One line of a dump, as the loader reads it.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// The first line.
    Magic,
    /// `% root PATH`: a directory the dump holds.
    Root(Vec<String>),
    /// `% all`: the dump holds the whole database.
    All,
    /// `% outside`: the raw lines after it are whole keys, outside every
    /// directory.
    Outside,
    /// `% read version N`.
    Version(u64),
    /// `% directory PATH` or `% layer LAYER PATH`.
    Directory {
        /// The directory.
        path: Vec<String>,
        /// Its layer; empty for a plain one.
        layer: Vec<u8>,
    },
    /// `% raw 0xKEY=VALUE`: a key under the last directory, as the bytes
    /// after its prefix, or after `% outside` the whole key.
    Raw {
        /// The key after the prefix.
        suffix: Vec<u8>,
        /// The value.
        value: Vec<u8>,
    },
    /// `/PATH(TUPLE)=VALUE`, or `/(TUPLE)=VALUE` at the root.
    KeyValue {
        /// The directory; empty at the root, outside every directory.
        path: Vec<String>,
        /// The packed tuple, without the prefix.
        key: Vec<u8>,
        /// The value.
        value: Vec<u8>,
    },
    /// `% end N`: the key-values the dump holds.
    End(u64),
    /// A blank line or any other comment.
    Nothing,
}

/// Appends a value's text: its element when that packs back to the same
/// bytes, otherwise the bytes.
pub fn put_value(out: &mut String, value: &[u8]) {
    let elem = Elem {
        kind: codec::decode_untyped(value),
        span: Default::default(),
    };
    let exact = codec::encode_value(&elem, &Options::default())
        .is_ok_and(|e| e.op == Op::Set && e.bytes == value);
    if exact {
        let _ = write_elem(out, &elem.kind);
    } else {
        let _ = write_bytes(out, value);
    }
}

/// Appends a key's line without its value: `PATH(TUPLE)=` when the rest
/// of the key after `prefix` is a tuple that packs back to the same
/// bytes, otherwise `% raw 0xREST=`. `elems` is scratch space.
pub fn put_key<'k>(
    out: &mut String,
    path: &str,
    prefix: &[u8],
    key: &'k [u8],
    elems: &mut Vec<Elem<'k>>,
) {
    elems.clear();
    let tuple = codec::decode_key_into(prefix, key, elems)
        && codec::encode_key(prefix, elems).is_ok_and(|e| e.op == Op::Set && e.bytes == key);
    if tuple {
        out.push_str(path);
        out.push('(');
        for (n, e) in elems.iter().enumerate() {
            if n > 0 {
                out.push(',');
            }
            let _ = write_elem(out, &e.kind);
        }
        out.push_str(")=");
    } else {
        put_raw_key(out, &key[prefix.len()..]);
    }
}

/// Appends a raw line's key without its value: `% raw 0xBYTES=`.
pub fn put_raw_key(out: &mut String, bytes: &[u8]) {
    out.push_str("% raw ");
    let _ = write_bytes(out, bytes);
    out.push('=');
}

/// Appends a directory's line.
pub fn put_directory(out: &mut String, path: &[String], layer: &[u8]) {
    if layer.is_empty() {
        let _ = write!(out, "% directory {}", crate::directory::show(path));
        return;
    }
    out.push_str("% layer ");
    match std::str::from_utf8(layer) {
        Ok(text) => {
            let _ = write_elem(out, &ElemKind::Str(text.into()));
        }
        Err(_) => {
            let _ = write_bytes(out, layer);
        }
    }
    let _ = write!(out, " {}", crate::directory::show(path));
}

/// Reads one line; the message says what is wrong with a line that is
/// none of a dump's.
pub fn parse(text: &str) -> Result<Line, String> {
    let text = text.trim_end_matches(['\n', '\r']);
    if text == MAGIC {
        return Ok(Line::Magic);
    }
    // For `fql -w -f`; the loader makes transactions of its own.
    if text.trim() == "@commit" {
        return Ok(Line::Nothing);
    }
    let Some(comment) = text.strip_prefix('%') else {
        if text.trim().is_empty() {
            return Ok(Line::Nothing);
        }
        return key_value(text);
    };
    let comment = comment.strip_prefix(' ').unwrap_or(comment);
    let (word, rest) = comment.split_once(' ').unwrap_or((comment, ""));
    match word {
        "root" => path(rest).map(Line::Root),
        "all" => Ok(Line::All),
        "outside" => Ok(Line::Outside),
        "directory" => path(rest).map(|path| Line::Directory {
            path,
            layer: Vec::new(),
        }),
        "layer" => layer(rest),
        "raw" => raw(rest),
        "read" => number(rest.strip_prefix("version ").unwrap_or(rest)).map(Line::Version),
        "end" => number(rest).map(Line::End),
        _ => Ok(Line::Nothing),
    }
}

fn number(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{} is not a number", syntax::printable(text)))
}

/// The one statement of a line.
fn statement(text: &str) -> Result<Query<'_>, String> {
    let script = syntax::parse(text).map_err(|errors| match errors.first() {
        Some(e) => format!("{e}"),
        None => "does not parse".into(),
    })?;
    let mut items = script.items.into_iter();
    match (items.next(), items.next()) {
        (Some(Item::Statement(s)), None) if s.options.items.is_empty() => Ok(s.query),
        _ => Err(format!(
            "{} is not one statement of a dump",
            syntax::printable(text)
        )),
    }
}

fn path(text: &str) -> Result<Vec<String>, String> {
    match statement(text)? {
        Query::Directory(dir) => names(&dir, text),
        _ => Err(format!("{} is not a directory", syntax::printable(text))),
    }
}

/// The names of an absolute path of names only.
fn names(dir: &syntax::ast::Directory<'_>, text: &str) -> Result<Vec<String>, String> {
    let not = || {
        format!(
            "{} is not an absolute path of names",
            syntax::printable(text)
        )
    };
    if dir.relative.is_some() || dir.rest.is_some() || dir.elems.is_empty() {
        return Err(not());
    }
    dir.elems
        .iter()
        .map(|e| match e {
            DirElem::Name { name, .. } => Ok(name.to_string()),
            _ => Err(not()),
        })
        .collect()
}

/// `% layer LAYER PATH`: the layer is a string or bytes.
fn layer(text: &str) -> Result<Line, String> {
    let end =
        element_end(text).ok_or_else(|| format!("no layer in {}", syntax::printable(text)))?;
    let elem = syntax::parse_element(&text[..end])
        .map_err(|_| format!("{} is not a layer", syntax::printable(&text[..end])))?;
    let layer = match elem.kind {
        ElemKind::Str(s) => s.as_bytes().to_vec(),
        ElemKind::Bytes(b) => b,
        _ => {
            return Err(format!(
                "{} is not a layer",
                syntax::printable(&text[..end])
            ));
        }
    };
    let path = path(text[end..].trim_start())?;
    Ok(Line::Directory { path, layer })
}

/// Where the string or bytes literal that starts `text` ends.
fn element_end(text: &str) -> Option<usize> {
    if !text.starts_with('"') {
        return text.find(' ');
    }
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i + 1),
            _ => {}
        }
    }
    None
}

fn raw(text: &str) -> Result<Line, String> {
    match statement(text)? {
        Query::Raw(raw) => match (raw.key.kind, raw.value) {
            (syntax::ast::RawKeyKind::Key(suffix), Value::Data(elem, options)) => Ok(Line::Raw {
                suffix,
                value: value(&elem, &options)?,
            }),
            _ => Err(format!("{} is not a raw write", syntax::printable(text))),
        },
        _ => Err(format!("{} is not a raw write", syntax::printable(text))),
    }
}

fn value(elem: &Elem<'_>, options: &Options<'_>) -> Result<Vec<u8>, String> {
    match codec::encode_value(elem, options) {
        Ok(e) if e.op == Op::Set => Ok(e.bytes),
        Ok(_) => Err("a value with an incomplete vstamp is no dump's".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn key_value(text: &str) -> Result<Line, String> {
    let Query::KeyValue(kv) = statement(text)? else {
        return Err(format!(
            "{} is not a write of one key-value",
            syntax::printable(text)
        ));
    };
    let Value::Data(elem, options) = &kv.value else {
        return Err(format!(
            "{} is not a write of one key-value",
            syntax::printable(text)
        ));
    };
    let path = match kv.key.place() {
        syntax::ast::Place::Directory(dir) => names(dir, text)?,
        syntax::ast::Place::Root => Vec::new(),
        syntax::ast::Place::Prefix(_) => {
            return Err(format!(
                "{} is not a key of a directory or the root",
                syntax::printable(text)
            ));
        }
    };
    if kv.key.tuple.rest.is_some() {
        return Err(format!("{} holds `...`", syntax::printable(text)));
    }
    let key = match codec::encode_key(&[], &kv.key.tuple.elems) {
        Ok(e) if e.op == Op::Set => e.bytes,
        Ok(_) => return Err("a key with an incomplete vstamp is no dump's".into()),
        Err(e) => return Err(e.to_string()),
    };
    Ok(Line::KeyValue {
        path,
        key,
        value: value(elem, options)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(path: &[&str]) -> Vec<String> {
        path.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn directory_lines_read_back_what_was_written() {
        for (path, layer) in [
            (&["app", "my dir"][..], &b""[..]),
            (&["a"], b"say \"hi\" \\ there"),
            (&["a", "b"], b"\xff\x00"),
        ] {
            let mut line = String::new();
            put_directory(&mut line, &names(path), layer);
            assert_eq!(
                parse(&line),
                Ok(Line::Directory {
                    path: names(path),
                    layer: layer.to_vec()
                }),
                "{line}"
            );
        }
    }

    #[test]
    fn keys_and_values_read_back_as_their_bytes() {
        let prefix = [0x15, 0x20];
        for (key, value) in [
            (&[0x15, 0x20, 0x15, 0x01][..], &[0x02, b'x', 0x00][..]),
            (&[0x15, 0x20, 0x01, 0xff], &[0x05, 0x15, 0x01, 0x00]),
            (&[0x15, 0x20], &[]),
            (&[0x15, 0x20, 0x1c, 0, 0, 0, 0, 0, 0, 0, 1], &[0xff]),
        ] {
            let mut line = String::new();
            let mut elems = Vec::new();
            put_key(&mut line, "/a", &prefix, key, &mut elems);
            put_value(&mut line, value);
            let (suffix, read) = match parse(&line) {
                Ok(Line::KeyValue { path, key, value }) => {
                    assert_eq!(path, names(&["a"]));
                    (key, value)
                }
                Ok(Line::Raw { suffix, value }) => (suffix, value),
                other => panic!("{line}: {other:?}"),
            };
            assert_eq!((&suffix[..], &read[..]), (&key[2..], value), "{line}");
        }
    }

    #[test]
    fn lines_that_are_no_dumps_are_named() {
        for (text, says) in [
            ("/a(<int>)=1", "<int>"),
            ("/a/<>(1)=2", "is not an absolute path of names"),
            ("./a(1)=2", "is not an absolute path of names"),
            ("/a(1)", "is not a write of one key-value"),
            ("% end x", "x is not a number"),
            ("% layer \"x /a", "no layer"),
            ("% raw 0x01...", "is not a raw write"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
        assert_eq!(parse("% a comment"), Ok(Line::Nothing));
        assert_eq!(parse(""), Ok(Line::Nothing));
    }
}
