//! Running one statement inside a transaction.

use crate::codec::{self, Op};
use crate::kv::{RangeCursor, RangeOption, Transaction};
use crate::plan::Step;
use crate::syntax::ast::*;

use super::aggregate::Fold;
use super::dirs::{self, Dirs};
use super::matching::{TupleMatch, ValueMatch};
use super::{Error, Output};

/// A result and the values its named variables took.
pub struct Found {
    pub output: Output,
    pub captures: Vec<(String, ElemKind)>,
}

type Emit<'a> = &'a mut dyn FnMut(Found) -> Result<(), Error>;

/// Runs `step` (its `query`, which may have had references replaced),
/// handing each result to `emit`.
pub fn run(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    step: &Step,
    query: &Query,
    split: bool,
    emit: Emit<'_>,
) -> Result<(), Error> {
    match query {
        Query::Directory(pattern) => {
            for path in dirs::matching(tx, dirs.layer, pattern)? {
                let mut captures = Vec::new();
                dirs::captures(pattern, &path, &mut captures);
                emit(Found {
                    output: Output::Directory(path),
                    captures,
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
            Kind::Set => set(tx, dirs, kv, step.span),
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
    kv: &KeyValue,
    at: Span,
) -> Result<(), Error> {
    let Value::Data(value, opts) = &kv.value else {
        unreachable!("a set has a value")
    };
    let prefix = dirs.prefix_of(tx, &kv.key.dir, at, true)?.expect("created");
    let write = codec::encode_write(prefix, &kv.key.tuple.elems, value, opts)?;
    match write.op.mutation() {
        Some(m) => tx.atomic_op(&write.key, &write.value, m)?,
        None => tx.set(&write.key, &write.value)?,
    }
    Ok(())
}

fn clear(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    kv: &KeyValue,
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
    kv: &KeyValue,
    step: &Step,
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
    match values.read(&bytes) {
        Some((value, opts)) => {
            let mut captures = Vec::new();
            values.captures(&value, &mut captures);
            emit(Found {
                output: row(&path, kv.key.tuple.elems.to_vec(), value, opts),
                captures,
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
    kv: &KeyValue,
    step: &Step,
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
    let opts = step.options;
    let mut left = opts.limit;
    for path in dirs::matching_or_path(tx, dirs.layer, &kv.key.dir)? {
        let Some(prefix) = dirs.prefix(tx, &path, step.span, false)? else {
            continue;
        };
        let mut dir_captures = Vec::new();
        dirs::captures(&kv.key.dir, &path, &mut dir_captures);
        let start = codec::encode_key(prefix, &tuple.elems[..fixed])?.bytes;
        let mut range = RangeOption::prefix(&start).mode(opts.mode);
        range.reverse = opts.reverse;
        if whole_range {
            tx.clear_range(&range.begin, &range.end)?;
            continue;
        }
        let mut folds = Folds::new(&key_aggs, value_agg.as_ref());
        let mut cursor = RangeCursor::new(range, opts.snapshot);
        'rows: loop {
            let batch = match cursor.next_batch(tx) {
                Ok(Some(batch)) => batch,
                Ok(None) => break,
                Err(crate::kv::Error::TransactionTooOld) if split => {
                    tx.reset();
                    emit(Found {
                        output: Output::NewSnapshot,
                        captures: Vec::new(),
                    })?;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            for stored in batch {
                if left == Some(0) {
                    break 'rows;
                }
                let found = codec::decode_key(prefix, &stored.key)
                    .filter(|elems| keys.matches(elems))
                    .and_then(|elems| values.read(&stored.value).map(|v| (elems, v)));
                let Some((elems, (value, vopts))) = found else {
                    if opts.strict {
                        return Err(mismatch(&path, prefix, &stored.key, &stored.value, step));
                    }
                    continue;
                };
                if let Some(n) = left.as_mut() {
                    *n -= 1;
                }
                if clearing {
                    tx.clear(&stored.key)?;
                } else if folding {
                    folds.push(&elems, &value, &vopts);
                } else {
                    let mut captures = dir_captures.clone();
                    keys.captures(&elems, &mut captures);
                    values.captures(&value, &mut captures);
                    emit(Found {
                        output: row(&path, elems, value, vopts),
                        captures,
                    })?;
                }
            }
        }
        if folding && let Some(output) = folds.finish(&path, kv) {
            emit(Found {
                output,
                captures: dir_captures,
            })?;
        }
        if left == Some(0) {
            break;
        }
    }
    Ok(())
}

/// The aggregates of one directory's rows, and the value they share.
struct Folds {
    keys: Vec<(usize, Fold)>,
    value: Option<Fold>,
    /// The value every row had so far: `None` before the first row,
    /// `Some(None)` once two differed.
    common: Option<Option<(ElemKind, Options)>>,
}

impl Folds {
    fn new(keys: &[(usize, Agg, Options)], value: Option<&(Agg, Options)>) -> Folds {
        Folds {
            keys: keys
                .iter()
                .map(|(n, agg, opts)| (*n, Fold::new(*agg, opts)))
                .collect(),
            value: value.map(|(agg, opts)| Fold::new(*agg, opts)),
            common: None,
        }
    }

    fn push(&mut self, elems: &[Elem], value: &ElemKind, opts: &Options) {
        for (n, fold) in &mut self.keys {
            fold.push(&elems[*n].kind);
        }
        match &mut self.value {
            Some(fold) => fold.push(value),
            None => {
                let same = |c: &(ElemKind, Options)| c.0 == *value;
                self.common = match self.common.take() {
                    None => Some(Some((value.clone(), opts.clone()))),
                    Some(Some(c)) if same(&c) => Some(Some(c)),
                    Some(_) => Some(None),
                }
            }
        }
    }

    /// The query's key with each aggregate replaced by its result, `...`
    /// and the other holes kept; the value is the value's aggregate, or
    /// the value every row shared, or the query's value as written.
    fn finish(self, path: &[String], kv: &KeyValue) -> Option<Output> {
        let mut tuple = kv.key.tuple.clone();
        for (n, fold) in self.keys {
            tuple.elems[n].kind = fold.finish()?;
        }
        let value = match (self.value, self.common) {
            (Some(fold), _) => Value::Data(
                Elem {
                    kind: fold.finish()?,
                    span: Span::default(),
                },
                Options::default(),
            ),
            (None, Some(Some((kind, opts)))) => Value::Data(
                Elem {
                    kind,
                    span: Span::default(),
                },
                opts,
            ),
            (None, _) => kv.value.clone(),
        };
        let Output::KeyValue(mut out) = row(path, Vec::new(), ElemKind::Nil, Options::default())
        else {
            unreachable!("a row is a key-value")
        };
        out.value = value;
        out.key.tuple = tuple;
        Some(Output::KeyValue(out))
    }
}

/// Whether the key or the value holds an aggregate.
fn has_aggregate(kv: &KeyValue) -> bool {
    let agg =
        |e: &Elem| matches!(&e.kind, ElemKind::Var(v) if v.types.iter().any(|t| t.ty.is_agg()));
    kv.key.tuple.elems.iter().any(agg) || matches!(&kv.value, Value::Data(e, _) if agg(e))
}

/// A result row as FQL.
fn row(path: &[String], elems: Vec<Elem>, value: ElemKind, opts: Options) -> Output {
    let span = Span::default();
    Output::KeyValue(KeyValue {
        key: Key {
            dir: Directory {
                elems: path
                    .iter()
                    .map(|n| DirElem::Name {
                        name: n.as_str().into(),
                        span,
                    })
                    .collect(),
                rest: None,
                span,
            },
            tuple: Tuple {
                elems: elems.into_iter().collect(),
                rest: None,
                span,
            },
        },
        value: Value::Data(Elem { kind: value, span }, opts),
    })
}

fn mismatch(path: &[String], prefix: &[u8], key: &[u8], value: &[u8], step: &Step) -> Error {
    let kind = codec::decode_untyped(value);
    let shown = match codec::decode_key(prefix, key) {
        Some(elems) => row(path, elems, kind, Options::default()).to_string(),
        None => format!("the key 0x{} (not a tuple)", const_hex::encode(key)),
    };
    Error::Mismatch {
        key: shown,
        at: step.span,
    }
}
