//! Writing a schema from stored data: the shapes of the key-values of a
//! directory, with what varies merged into typed holes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::codec::{self, type_of};
use crate::directory::{DirectoryLayer, Space, SpaceCursor, show};
use crate::kv::{Database, DatabaseExt, RetryOptions, Transaction, read_resuming};
use crate::plan::Root;
use crate::syntax::ast::{Elem, ElemKind, Type};

use super::Error;

/// At most this many distinct leading strings (table tags such as
/// `"owner"` and `"queue"`) are kept as constants per key length; past
/// it, the first element is a typed hole like the rest.
const TAGS: usize = 32;

/// One shape of key-value found: a pattern and how many matched it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The directory; none at the root or after raw bytes.
    pub path: Vec<String>,
    /// The raw bytes the keys follow, in place of a directory.
    pub prefix: Option<Vec<u8>>,
    /// A leading string the keys share, if any.
    pub tag: Option<String>,
    /// The types found at each position of the key (after the tag).
    pub key: Vec<BTreeSet<TypeName>>,
    /// The types of the values found.
    pub value: BTreeSet<TypeName>,
    /// Key-values of this shape.
    pub count: u64,
    /// Whether the directory was sampled rather than read whole.
    pub sampled: bool,
}

/// A type, ordered by its name so printed unions are stable.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TypeName(&'static str);

impl Shape {
    fn new(space: &Space, tag: Option<String>, len: usize) -> Shape {
        let (path, prefix) = match space {
            Space::Root => (Vec::new(), None),
            Space::Directory(path) => (path.clone(), None),
            Space::Prefix(bytes) => (Vec::new(), Some(bytes.clone())),
        };
        Shape {
            path,
            prefix,
            tag,
            key: vec![BTreeSet::new(); len],
            value: BTreeSet::new(),
            count: 0,
            sampled: false,
        }
    }
}

impl Shape {
    /// The pattern with its path relative to `root` (`./users(<int>)=<str>`,
    /// `../other(...)`), so that the schema it makes checks the same data
    /// when validated under that root, and any other data under another.
    pub fn relative_to(&self, root: &Root) -> String {
        // Raw bytes are where they are, whatever the root.
        if self.prefix.is_some() {
            return self.to_string();
        }
        let mut out = root.relative(&self.path);
        self.write_rest(&mut out)
            .expect("writing to a String cannot fail");
        out
    }

    /// The pattern after its path: `(<int>)=<str>`.
    fn write_rest(&self, f: &mut impl fmt::Write) -> fmt::Result {
        f.write_str("(")?;
        let mut parts: Vec<String> = Vec::new();
        if let Some(tag) = &self.tag {
            parts.push(crate::syntax::quote(tag));
        }
        parts.extend(self.key.iter().map(hole));
        f.write_str(&parts.join(","))?;
        write!(f, ")={}", hole(&self.value))
    }
}

/// `/users(<int>,<str>)=<str|nil>`, a pattern that matches every
/// key-value of the shape.
impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.prefix {
            Some(bytes) => write!(f, "0x{}", const_hex::encode(bytes))?,
            None => f.write_str(&show(&self.path))?,
        }
        self.write_rest(f)
    }
}

fn hole(types: &BTreeSet<TypeName>) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.0).collect();
    format!("<{}>", names.join("|"))
}

/// The shapes stored in `dir` and, `depth` levels down, its
/// subdirectories; at most `sample` key-values are read per directory.
/// `retry` bounds each transaction, and each read of the scan, as the
/// caller's other transactions are bounded (`fql --timeout`).
pub fn infer(
    db: &dyn Database,
    retry: RetryOptions,
    dir: &[String],
    depth: usize,
    sample: Option<u64>,
) -> Result<Vec<Shape>, Error> {
    let layer = DirectoryLayer::new();
    let mut paths = vec![dir.to_vec()];
    let mut frontier = vec![dir.to_vec()];
    for _ in 0..depth {
        let mut next = Vec::new();
        for path in &frontier {
            let (children, _) = db
                .run_with(retry, |tx, _| layer.list(tx, path))
                .map_err(crate::exec::Error::from)?;
            for child in children {
                let mut p = path.clone();
                p.push(child);
                next.push(p);
            }
        }
        paths.extend(next.iter().cloned());
        frontier = next;
    }
    paths.sort();
    let mut shapes = Vec::new();
    let mut tx = db.create_trx()?;
    for path in &paths {
        // The root's own keys are those outside every directory.
        let space = match path.is_empty() {
            true => Space::Root,
            false => Space::Directory(path.clone()),
        };
        let cursor = space
            .cursor(&mut *tx, &layer, true)
            .map_err(crate::exec::Error::from)?;
        // A missing directory, or a partition, has no keys of its own.
        if let Some(cursor) = cursor {
            shapes.extend(directory(&mut tx, retry, &space, cursor, sample)?);
        }
    }
    Ok(shapes)
}

/// The shapes of the keys after the raw bytes `prefix`, a subspace that is
/// no directory: at most `sample` of them read.
pub fn infer_prefix(
    db: &dyn Database,
    retry: RetryOptions,
    prefix: &[u8],
    sample: Option<u64>,
) -> Result<Vec<Shape>, Error> {
    let layer = DirectoryLayer::new();
    let space = Space::Prefix(prefix.to_vec());
    let mut tx = db.create_trx()?;
    let cursor = space
        .cursor(&mut *tx, &layer, true)
        .map_err(crate::exec::Error::from)?;
    match cursor {
        Some(cursor) => directory(&mut tx, retry, &space, cursor, sample),
        None => Ok(Vec::new()),
    }
}

/// The shapes of one space: a directory, the root or a raw prefix.
fn directory(
    tx: &mut Box<dyn Transaction>,
    retry: RetryOptions,
    space: &Space,
    mut cursor: SpaceCursor,
    sample: Option<u64>,
) -> Result<Vec<Shape>, Error> {
    // By key length, then leading tag.
    let mut groups: BTreeMap<(usize, Option<String>), Shape> = BTreeMap::new();
    let mut tags: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    let prefix = &cursor.prefix().to_vec();
    let mut read = 0u64;
    let mut sampled = false;
    'scan: loop {
        let next = read_resuming(tx, retry, |tx| cursor.next_batch(tx))?;
        let Some(batch) = next.0 else {
            break;
        };
        for kv in batch {
            if sample.is_some_and(|s| read >= s) {
                sampled = true;
                break 'scan;
            }
            read += 1;
            let Some(elems) = codec::decode_key(prefix, &kv.key) else {
                continue;
            };
            let tag = match elems.first().map(|e| &e.kind) {
                Some(ElemKind::Str(s)) => {
                    let known = tags.entry(elems.len()).or_default();
                    if known.contains(s.as_ref()) || known.len() < TAGS {
                        known.insert(s.to_string());
                        Some(s.to_string())
                    } else {
                        None
                    }
                }
                _ => None,
            };
            let rest: &[Elem<'_>] = if tag.is_some() { &elems[1..] } else { &elems };
            let shape = groups
                .entry((elems.len(), tag.clone()))
                .or_insert_with(|| Shape::new(space, tag, rest.len()));
            for (slot, e) in shape.key.iter_mut().zip(rest) {
                slot.insert(name_of(&e.kind));
            }
            shape
                .value
                .insert(name_of(&codec::decode_untyped(&kv.value)));
            shape.count += 1;
        }
    }
    Ok(groups
        .into_values()
        .map(|mut s| {
            s.sampled = sampled;
            s
        })
        .collect())
}

fn name_of(kind: &ElemKind<'_>) -> TypeName {
    TypeName(type_of(kind).unwrap_or(Type::Any).name())
}
