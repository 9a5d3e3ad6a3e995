//! Running one statement inside a transaction.

use crate::codec::{self, Op};
use crate::directory::DirectoryLayer;
use crate::kv::{RangeCursor, RangeOption, Transaction};
use crate::plan::Step;
use crate::syntax::ast::*;

use super::matching::{TupleMatch, ValueMatch};
use super::{Error, Output, dirs};

/// Runs `step`, handing each result to `emit`.
pub fn run(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    step: &Step,
    emit: &mut dyn FnMut(Output) -> Result<(), Error>,
) -> Result<(), Error> {
    match &step.query {
        Query::Directory(pattern) => {
            for path in dirs::matching(tx, layer, pattern)? {
                emit(Output::Directory(path))?;
            }
            Ok(())
        }
        Query::Remove { dir, .. } => {
            for path in dirs::matching(tx, layer, dir)? {
                // A parent removed earlier took its children with it.
                layer.remove_if_exists(tx, &path)?;
            }
            Ok(())
        }
        Query::KeyValue(kv) => match step.kind {
            Kind::Set => set(tx, layer, kv, step.span),
            Kind::Clear => clear(tx, layer, kv, step.span),
            Kind::Read => read(tx, layer, kv, step, emit),
            _ => scan(tx, layer, kv, step, emit),
        },
    }
}

/// The key prefix of the directory at `path`; `None` when it is missing.
fn prefix_of(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    path: &[String],
    at: Span,
    create: bool,
) -> Result<Option<Vec<u8>>, Error> {
    let dir = if create {
        layer.create_or_open(tx, path, b"")?
    } else {
        if !layer.exists(tx, path)? {
            return Ok(None);
        }
        layer.open(tx, path, b"")?
    };
    if dir.is_partition() {
        return Err(Error::Partition {
            path: dirs::display(path),
            at,
        });
    }
    Ok(Some(dir.prefix()?.to_vec()))
}

fn set(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    kv: &KeyValue,
    at: Span,
) -> Result<(), Error> {
    let Value::Data(value, opts) = &kv.value else {
        unreachable!("a set has a value")
    };
    let path = dirs::path(&kv.key.dir);
    let prefix = prefix_of(tx, layer, &path, at, true)?.expect("created");
    let write = codec::encode_write(&prefix, &kv.key.tuple.elems, value, opts)?;
    match write.op.mutation() {
        Some(m) => tx.atomic_op(&write.key, &write.value, m)?,
        None => tx.set(&write.key, &write.value)?,
    }
    Ok(())
}

fn clear(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    kv: &KeyValue,
    at: Span,
) -> Result<(), Error> {
    let path = dirs::path(&kv.key.dir);
    let Some(prefix) = prefix_of(tx, layer, &path, at, false)? else {
        return Ok(());
    };
    let key = codec::encode_key(&prefix, &kv.key.tuple.elems)?;
    debug_assert_eq!(key.op, Op::Set);
    tx.clear(&key.bytes)?;
    Ok(())
}

fn read(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    kv: &KeyValue,
    step: &Step,
    emit: &mut dyn FnMut(Output) -> Result<(), Error>,
) -> Result<(), Error> {
    let path = dirs::path(&kv.key.dir);
    let Some(prefix) = prefix_of(tx, layer, &path, step.span, false)? else {
        return Ok(());
    };
    let key = codec::encode_key(&prefix, &kv.key.tuple.elems)?.bytes;
    let Some(bytes) = tx.get(&key, step.options.snapshot)? else {
        return Ok(());
    };
    let values = ValueMatch::new(&kv.value)?;
    match values.read(&bytes) {
        Some((value, opts)) => emit(row(&path, kv.key.tuple.elems.to_vec(), value, opts)),
        None if step.options.strict => Err(mismatch(&path, &kv.key.tuple.elems, &bytes, step)),
        None => Ok(()),
    }
}

/// Range reads and clears over patterns: every directory that matches,
/// the keys under the constant part of the key, filtered here.
fn scan(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    kv: &KeyValue,
    step: &Step,
    emit: &mut dyn FnMut(Output) -> Result<(), Error>,
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
    // A clear of everything under a constant prefix needs no reading.
    let whole_range = clearing && fixed == tuple.elems.len() && matches!(kv.value, Value::Clear(_));
    let opts = step.options;
    let mut left = opts.limit;
    for path in dirs::matching_or_path(tx, layer, &kv.key.dir)? {
        let Some(prefix) = prefix_of(tx, layer, &path, step.span, false)? else {
            continue;
        };
        let start = codec::encode_key(&prefix, &tuple.elems[..fixed])?.bytes;
        let mut range = RangeOption::prefix(&start).mode(opts.mode);
        range.reverse = opts.reverse;
        if whole_range {
            tx.clear_range(&range.begin, &range.end)?;
            continue;
        }
        let mut cursor = RangeCursor::new(range, opts.snapshot);
        while let Some(batch) = cursor.next_batch(tx)? {
            for stored in batch {
                if left == Some(0) {
                    return Ok(());
                }
                let found = codec::decode_key(&prefix, &stored.key)
                    .filter(|elems| keys.matches(elems))
                    .and_then(|elems| values.read(&stored.value).map(|v| (elems, v)));
                let Some((elems, (value, vopts))) = found else {
                    if opts.strict {
                        let elems = codec::decode_key(&prefix, &stored.key).unwrap_or_default();
                        return Err(mismatch(&path, &elems, &stored.value, step));
                    }
                    continue;
                };
                if let Some(n) = left.as_mut() {
                    *n -= 1;
                }
                if clearing {
                    tx.clear(&stored.key)?;
                } else {
                    emit(row(&path, elems, value, vopts))?;
                }
            }
        }
    }
    Ok(())
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

fn mismatch(path: &[String], elems: &[Elem], value: &[u8], step: &Step) -> Error {
    let kind = codec::decode_untyped(value);
    let Output::KeyValue(kv) = row(path, elems.to_vec(), kind, Options::default()) else {
        unreachable!()
    };
    Error::Mismatch {
        key: kv.to_string(),
        at: step.span,
    }
}
