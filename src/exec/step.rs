//! Running one statement inside a transaction.

use crate::codec::{self, ElementFilter, Op, Scalar};
use crate::directory::DirectoryLayer;
use crate::kv::{RangeCursor, RangeOption, Transaction};
use crate::plan::Step;
use crate::syntax::ast::*;

use super::aggregate::Fold;
use super::dirs::{self, Dirs};
use super::matching::{Captures, ReadValue, TupleMatch, ValueMatch};
use super::{DirPath, Error, Found, Output, Part, Row};
use std::sync::Arc;

/// A result and the values its named variables took, which only a
/// statement that feeds another collects. The values are lent, so that a
/// result with none costs nothing to hand over and drop.
pub struct Hit<'a> {
    pub found: Found<'a>,
    pub captures: &'a mut Captures,
}

type Emit<'a> = &'a mut dyn FnMut(Hit<'_>) -> Result<(), Error>;

/// What the statements of one transaction attempt share: the directories
/// looked up, and the buffers each write is encoded into.
pub struct Attempt<'a> {
    pub dirs: Dirs<'a>,
    write: codec::Write,
}

impl<'a> Attempt<'a> {
    pub fn new(layer: &'a DirectoryLayer) -> Attempt<'a> {
        Attempt {
            dirs: Dirs::new(layer),
            write: codec::Write::default(),
        }
    }
}

/// Runs `step` (its `query`, which may have had references replaced),
/// handing each result to `emit`.
pub fn run(
    tx: &mut dyn Transaction,
    attempt: &mut Attempt<'_>,
    step: &Step<'_>,
    query: &Query<'_>,
    split: bool,
    emit: Emit<'_>,
) -> Result<(), Error> {
    let Attempt { dirs, write } = attempt;
    match query {
        Query::Directory(pattern) => {
            for path in dirs::matching(tx, dirs.layer, pattern)? {
                let mut captures = Vec::new();
                dirs::captures(pattern, &path, &mut captures);
                emit(Hit {
                    found: Output::Directory(path).into(),
                    captures: &mut captures,
                })?;
            }
            Ok(())
        }
        Query::Remove { dir, .. } => {
            for path in dirs::matching(tx, dirs.layer, dir)? {
                // A parent removed earlier took its children with it.
                dirs.remove(tx, &path)?;
            }
            Ok(())
        }
        Query::KeyValue(kv) => match step.kind {
            Kind::Set => set(tx, dirs, write, kv, step.span),
            Kind::Clear => clear(tx, dirs, kv, step.span),
            // An aggregate folds even the one key of a single read.
            Kind::Read if !has_aggregate(kv) => read(tx, dirs, kv, step, emit),
            _ => scan(tx, dirs, kv, step, split, emit),
        },
    }
}

fn set(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    write: &mut codec::Write,
    kv: &KeyValue<'_>,
    at: Span,
) -> Result<(), Error> {
    let Value::Data(value, opts) = &kv.value else {
        unreachable!("a set has a value")
    };
    let prefix = dirs.prefix_of(tx, &kv.key.dir, at, true)?.expect("created");
    codec::encode_write_into(prefix, &kv.key.tuple.elems, value, opts, write)?;
    match write.op.mutation() {
        Some(m) => tx.atomic_op(&write.key, &write.value, m)?,
        None => tx.set(&write.key, &write.value)?,
    }
    Ok(())
}

fn clear(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    kv: &KeyValue<'_>,
    at: Span,
) -> Result<(), Error> {
    let Some(prefix) = dirs.prefix_of(tx, &kv.key.dir, at, false)? else {
        return Ok(());
    };
    let key = codec::encode_key(prefix, &kv.key.tuple.elems)?;
    debug_assert_eq!(key.op, Op::Set);
    tx.clear(&key.bytes)?;
    Ok(())
}

fn read(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    kv: &KeyValue<'_>,
    step: &Step<'_>,
    emit: Emit<'_>,
) -> Result<(), Error> {
    let path = dirs::path(&kv.key.dir);
    let Some(prefix) = dirs.prefix(tx, &path, step.span, false)? else {
        return Ok(());
    };
    let key = codec::encode_key(prefix, &kv.key.tuple.elems)?.bytes;
    let Some(bytes) = tx.get(&key, step.options.snapshot)? else {
        return Ok(());
    };
    let values = ValueMatch::new(&kv.value)?;
    let mut elems = Vec::new();
    // The key as stored, which is the key as written.
    codec::decode_key_into(prefix, &key, &mut elems);
    match values.read(&bytes) {
        Some(value) => {
            let mut captures = Vec::new();
            if step.feeds {
                values.captures(&value, &mut captures);
            }
            let path = Arc::new(DirPath::new(path));
            emit(Hit {
                found: Found::row(&path, &elems, &value),
                captures: &mut captures,
            })
        }
        None if step.options.strict => Err(mismatch(&path, prefix, &key, &bytes, step)),
        None => Ok(()),
    }
}

/// Range reads and clears over patterns: every directory that matches,
/// the keys under the constant part of the key, filtered here.
///
/// With `split`, a read that outlives its transaction goes on in a new one.
fn scan(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    kv: &KeyValue<'_>,
    step: &Step<'_>,
    split: bool,
    emit: Emit<'_>,
) -> Result<(), Error> {
    let clearing = step.kind == Kind::ClearRange;
    let tuple = &kv.key.tuple;
    let fixed = tuple
        .elems
        .iter()
        .position(Elem::has_holes)
        .unwrap_or(tuple.elems.len());
    let keys = TupleMatch::new(tuple);
    let values = ValueMatch::new(&kv.value)?;
    let key_aggs = keys.aggregates();
    let value_agg = values.aggregate();
    let folding = !key_aggs.is_empty() || value_agg.is_some();
    // A clear of everything under a constant prefix needs no reading.
    let whole_range = clearing && fixed == tuple.elems.len() && matches!(kv.value, Value::Clear(_));
    // Rows printed as they are read take the way that needs no decoding,
    // when their key and value are scalars.
    let fast = (!clearing && !folding && !step.feeds)
        .then(|| values.scalar_filter())
        .flatten();
    let opts = step.options;
    let mut left = opts.limit;
    for path in dirs::matching_or_path(tx, dirs.layer, &kv.key.dir)? {
        let Some(prefix) = dirs.prefix(tx, &path, step.span, false)? else {
            continue;
        };
        let mut dir_captures = Vec::new();
        dirs::captures(&kv.key.dir, &path, &mut dir_captures);
        let shared = Arc::new(DirPath::new(path.clone()));
        let start = codec::encode_key(prefix, &tuple.elems[..fixed])?.bytes;
        let mut range = RangeOption::prefix(&start).mode(opts.mode);
        range.reverse = opts.reverse;
        if whole_range {
            tx.clear_range(&range.begin, &range.end)?;
            continue;
        }
        let mut folds = Folds::new(&key_aggs, value_agg.as_ref());
        // What a row binds, taken by the statements it feeds: empty when
        // the statement feeds none.
        let mut captures = Vec::new();
        let mut cursor = RangeCursor::new(range, opts.snapshot);
        'rows: loop {
            let batch = match cursor.next_batch(tx) {
                Ok(Some(batch)) => batch,
                Ok(None) => break,
                Err(crate::kv::Error::TransactionTooOld) if split => {
                    tx.reset();
                    emit(Hit {
                        found: Output::NewSnapshot.into(),
                        captures: &mut Vec::new(),
                    })?;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            // Each row's key decodes into one of these vectors, borrowing
            // the batch: a row costs no allocation unless it is kept.
            let mut elems = Vec::new();
            let mut scalars = Vec::new();
            for stored in &batch {
                if left == Some(0) {
                    break 'rows;
                }
                let scalars_match = match (&fast, stored.key.get(prefix.len()..)) {
                    // The range holds only keys under the prefix.
                    (Some(filter), Some(key)) => {
                        scalar_row(&keys, filter, key, &stored.value, &mut scalars)
                    }
                    _ => None,
                };
                let matched = match scalars_match {
                    Some(true) => Some(Read::Scalars),
                    Some(false) => None,
                    // Only the general decoding can tell.
                    None => {
                        elems.clear();
                        let key_ok = codec::decode_key_into(prefix, &stored.key, &mut elems)
                            && keys.matches(&elems);
                        key_ok
                            .then(|| values.read(&stored.value).map(Read::Decoded))
                            .flatten()
                    }
                };
                let Some(read) = matched else {
                    if opts.strict {
                        return Err(mismatch(&path, prefix, &stored.key, &stored.value, step));
                    }
                    continue;
                };
                if let Some(n) = left.as_mut() {
                    *n -= 1;
                }
                let value = match read {
                    Read::Scalars => {
                        emit(Hit {
                            found: Found::scalars(&shared, &scalars),
                            captures: &mut captures,
                        })?;
                        continue;
                    }
                    Read::Decoded(value) => value,
                };
                if clearing {
                    tx.clear(&stored.key)?;
                } else if folding {
                    folds.push(&elems, &value);
                } else {
                    captures.clear();
                    if step.feeds {
                        captures.extend_from_slice(&dir_captures);
                        keys.captures(&elems, &mut captures);
                        values.captures(&value, &mut captures);
                    }
                    emit(Hit {
                        found: Found::row(&shared, &elems, &value),
                        captures: &mut captures,
                    })?;
                }
            }
        }
        if folding && let Some(output) = folds.finish(&shared, kv) {
            emit(Hit {
                found: output.into(),
                captures: &mut dir_captures,
            })?;
        }
        if left == Some(0) {
            break;
        }
    }
    Ok(())
}

/// How a range read read a row that matches.
enum Read<'r> {
    /// Its scalars straight from its bytes (see [`scalar_row`]).
    Scalars,
    /// Its key decoded, and its value.
    Decoded(ReadValue<'r>),
}

/// Whether a row of scalars matches, read straight from its bytes: its
/// key by `keys`, its value by `value`, which must be one scalar of a type
/// the filter accepts. A match leaves the key's scalars, then the value,
/// in `out`. `None` when the row holds another element before that is
/// known, and only the general decoding can tell.
#[inline]
fn scalar_row<'b>(
    keys: &TupleMatch<'_>,
    value: &ElementFilter,
    key: &'b [u8],
    stored: &'b [u8],
    out: &mut Vec<Scalar<'b>>,
) -> Option<bool> {
    if !keys.matches_scalars(key, out)? {
        return Some(false);
    }
    match Scalar::read(stored)? {
        (s, []) if value.accepts_scalar(s) => {
            out.push(s);
            Some(true)
        }
        (_, []) => Some(false),
        // A tuple of several elements, which `<>` may take.
        _ => None,
    }
}

/// The aggregates of one directory's rows, and the value they share.
struct Folds {
    keys: Vec<(usize, Fold)>,
    value: Option<Fold>,
    /// The value every row had so far: `None` before the first row,
    /// `Some(None)` once two differed.
    common: Option<Option<(Part, Option<Arc<str>>)>>,
}

impl Folds {
    fn new(keys: &[(usize, Agg, Options<'_>)], value: Option<&(Agg, Options<'_>)>) -> Folds {
        Folds {
            keys: keys
                .iter()
                .map(|(n, agg, opts)| (*n, Fold::new(*agg, opts)))
                .collect(),
            value: value.map(|(agg, opts)| Fold::new(*agg, opts)),
            common: None,
        }
    }

    fn push(&mut self, elems: &[Elem<'_>], value: &ReadValue<'_>) {
        for (n, fold) in &mut self.keys {
            fold.push(&elems[*n].kind);
        }
        match &mut self.value {
            Some(fold) => {
                if let ReadValue::Data(v, _) = value {
                    fold.push(v);
                }
            }
            None => {
                self.common = match self.common.take() {
                    None => Some(Some(value.to_owned())),
                    Some(Some(c)) if value.is(&c) => Some(Some(c)),
                    Some(_) => Some(None),
                }
            }
        }
    }

    /// The query's key with each aggregate replaced by its result, `...`
    /// and the other holes kept; the value is the value's aggregate, or
    /// the value every row shared, or the query's value as written.
    fn finish(self, path: &Arc<DirPath>, kv: &KeyValue<'_>) -> Option<Output> {
        let mut key: Vec<Part> = kv
            .key
            .tuple
            .elems
            .iter()
            .map(|e| Part::Written(e.to_string().into()))
            .collect();
        for (n, fold) in self.keys {
            key[n] = Part::Data(fold.finish()?);
        }
        let value = match (self.value, self.common) {
            (Some(fold), _) => Some((Part::Data(fold.finish()?), None)),
            (None, Some(Some(common))) => Some(common),
            (None, _) => match &kv.value {
                Value::Data(e, o) => Some((Part::Written(format!("{e}{o}").into()), None)),
                Value::Omitted | Value::Clear(_) => None,
            },
        };
        Some(Output::KeyValue(Row {
            path: path.clone(),
            key,
            rest: kv.key.tuple.rest.is_some(),
            value,
        }))
    }
}

/// Whether the key or the value holds an aggregate.
fn has_aggregate(kv: &KeyValue<'_>) -> bool {
    let agg =
        |e: &Elem<'_>| matches!(&e.kind, ElemKind::Var(v) if v.types.iter().any(|t| t.ty.is_agg()));
    kv.key.tuple.elems.iter().any(agg) || matches!(&kv.value, Value::Data(e, _) if agg(e))
}

fn mismatch(path: &[String], prefix: &[u8], key: &[u8], value: &[u8], step: &Step<'_>) -> Error {
    let mut elems = Vec::new();
    let shown = if codec::decode_key_into(prefix, key, &mut elems) {
        let path = Arc::new(DirPath::new(path.to_vec()));
        let value = ReadValue::Data(codec::decode_untyped(value), None);
        Found::row(&path, &elems, &value).to_string()
    } else {
        format!("the key 0x{} (not a tuple)", const_hex::encode(key))
    };
    Error::Mismatch {
        key: shown,
        at: step.span,
    }
}
