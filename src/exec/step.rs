//! Running one statement inside a transaction.

mod fill;
mod raw;
mod scan;

use std::sync::Arc;

use crate::codec::{self, Op};
use crate::directory::DirectoryLayer;
use crate::kv::Transaction;
use crate::plan::Step;
use crate::syntax::ast::*;

use super::dirs::{self, Dirs};
use super::matching::{Captures, ReadValue, ValueMatch, agree, repeats};
use super::{Batch, DirPath, Error, Found, Output, Reads};
pub use fill::Filled;
use scan::scan;

/// What a statement hands on as it runs.
pub enum Hit<'a> {
    /// A result and the values its named variables took, which only a
    /// statement that feeds another collects. The values are lent, so
    /// that a result with none costs nothing to hand over and drop.
    One {
        found: Found<'a>,
        captures: &'a mut Captures,
    },
    /// Rows of scalars of a read that binds nothing.
    Batch(Batch<'a>),
}

type Emit<'a> = &'a mut dyn FnMut(Hit<'_>) -> Result<(), Error>;

/// How a statement's reads read.
#[derive(Clone, Copy, Debug)]
struct ReadMode {
    /// A range read that outlives its transaction goes on in a new one.
    split: bool,
    /// Reads add no read conflict.
    snapshot: bool,
}

/// What the statements of one transaction attempt share: the directories
/// looked up, the buffers each write is encoded into, and how its reads
/// read.
pub struct Attempt<'a> {
    pub dirs: Dirs<'a>,
    write: codec::Write,
    /// For a transaction that writes nothing, each read is a snapshot
    /// read, which keeps no conflict range (a join of a million point
    /// reads would otherwise hold a million ranges until the transaction
    /// ends), and a range read may go on in a new transaction.
    reads: Reads,
}

impl<'a> Attempt<'a> {
    pub fn new(layer: &'a DirectoryLayer, reads: Reads) -> Attempt<'a> {
        Attempt {
            dirs: Dirs::new(layer),
            write: codec::Write::default(),
            reads,
        }
    }
}

/// Runs `step` (its `query`, which may have had references replaced),
/// handing each result to `emit`. A write over the database's size limits
/// is reported at the statement.
pub fn run(
    tx: &mut dyn Transaction,
    attempt: &mut Attempt<'_>,
    step: &Step<'_>,
    query: &Query<'_>,
    emit: Emit<'_>,
) -> Result<(), Error> {
    run_query(tx, attempt, step, query, emit).map_err(|e| e.of_statement(step.span))
}

fn run_query(
    tx: &mut dyn Transaction,
    attempt: &mut Attempt<'_>,
    step: &Step<'_>,
    query: &Query<'_>,
    emit: Emit<'_>,
) -> Result<(), Error> {
    let Attempt { dirs, write, reads } = attempt;
    let mode = ReadMode {
        split: reads.split(),
        snapshot: step.options.snapshot || reads.snapshot(),
    };
    match query {
        Query::Directory(pattern) => {
            for path in dirs::matching(tx, dirs.layer, pattern)? {
                let mut captures = Vec::new();
                dirs::captures(pattern, &path, &mut captures);
                // `/<x:str>/<x:str>`: one name, one value.
                if !agree(&captures) {
                    continue;
                }
                let found = if step.options.prefix {
                    listed_with_prefix(tx, dirs, path)?
                } else {
                    Output::Directory(path)
                };
                emit(Hit::One {
                    found: found.into(),
                    captures: &mut captures,
                })?;
            }
            Ok(())
        }
        Query::Remove { dir, .. } => {
            for path in dirs::matching(tx, dirs.layer, dir)? {
                let mut captures = Vec::new();
                dirs::captures(dir, &path, &mut captures);
                if !agree(&captures) {
                    continue;
                }
                // A parent removed earlier took its children with it.
                dirs.remove(tx, &path)?;
            }
            Ok(())
        }
        Query::KeyValue(kv) => match step.kind {
            Kind::Set => set(tx, dirs, write, kv, step.span),
            Kind::Mutate => mutate(tx, dirs, kv, step.span),
            Kind::Clear => clear(tx, dirs, kv, step.span),
            // An aggregate folds even the one key of a single read.
            Kind::Read if !has_aggregate(kv) => read(tx, dirs, kv, step, mode.snapshot, emit),
            _ => scan(tx, dirs, kv, step, mode, emit),
        },
        Query::Raw(raw) => raw::run(tx, dirs.layer, step, raw, mode, emit),
    }
}

/// A directory as `[prefix]` lists it: with the prefix of its keys, or
/// alone for a partition, whose keys have none of their own.
fn listed_with_prefix(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    path: Vec<String>,
) -> Result<Output, Error> {
    Ok(match dirs.matched_prefix(tx, &path)? {
        Some(prefix) => {
            let prefix = prefix.to_vec();
            Output::DirPrefix { path, prefix }
        }
        None => Output::Directory(path),
    })
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
    let prefix = dirs.key_prefix(tx, &kv.key, at, true)?.expect("created");
    codec::encode_write_into(prefix, &kv.key.tuple.elems, value, opts, write)?;
    dirs.check_outside(tx, &kv.key, &write.key, at)?;
    match write.op.mutation() {
        Some(m) => tx.atomic_op(&write.key, &write.value, m)?,
        None => tx.set(&write.key, &write.value)?,
    }
    Ok(())
}

/// An atomic operation: FDB's mutation on one key, which reads nothing, so
/// the transaction takes no read conflict on the key. Like a write, it
/// creates its directory; `compare_and_clear` only ever clears, so it
/// creates none and does nothing where the directory is missing.
fn mutate(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    kv: &KeyValue<'_>,
    at: Span,
) -> Result<(), Error> {
    let Value::Mutate(m) = &kv.value else {
        unreachable!("a mutation has an operation")
    };
    let param = codec::encode_operand(m.op, &m.operand, &m.options)?;
    let create = m.op != AtomicOp::CompareAndClear;
    let Some(prefix) = dirs.key_prefix(tx, &kv.key, at, create)? else {
        return Ok(());
    };
    let key = codec::encode_key(prefix, &kv.key.tuple.elems)?;
    debug_assert_eq!(key.op, Op::Set);
    dirs.check_outside(tx, &kv.key, &key.bytes, at)?;
    tx.atomic_op(&key.bytes, &param, codec::mutation_type(m.op))?;
    Ok(())
}

fn clear(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    kv: &KeyValue<'_>,
    at: Span,
) -> Result<(), Error> {
    let Some(prefix) = dirs.key_prefix(tx, &kv.key, at, false)? else {
        return Ok(());
    };
    let key = codec::encode_key(prefix, &kv.key.tuple.elems)?;
    debug_assert_eq!(key.op, Op::Set);
    dirs.check_outside(tx, &kv.key, &key.bytes, at)?;
    tx.clear(&key.bytes)?;
    Ok(())
}

fn read(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    kv: &KeyValue<'_>,
    step: &Step<'_>,
    snapshot: bool,
    emit: Emit<'_>,
) -> Result<(), Error> {
    // A join reads one key per row, mostly in the directory of the row
    // before: its prefix is found without building its path, which is
    // built only for a key found.
    let Some(prefix) = dirs.key_prefix(tx, &kv.key, step.span, false)? else {
        return Ok(());
    };
    let key = codec::encode_key(prefix, &kv.key.tuple.elems)?.bytes;
    // The key starts with its prefix: taken from it, the prefix no longer
    // borrows what the directories know.
    let prefix = &key[..prefix.len()];
    // A key at the root under a directory's prefix is the directory's.
    if dirs.holder(tx, &kv.key, &key, snapshot)?.is_some() {
        return Ok(());
    }
    let Some(bytes) = tx.get(&key, snapshot)? else {
        return Ok(());
    };
    let path = DirPath::of(&kv.key);
    let values = ValueMatch::new(&kv.value)?;
    let mut elems = Vec::new();
    // The key as stored, which is the key as written.
    codec::decode_key_into(prefix, &key, &mut elems);
    // A name twice in the value must take one value twice.
    let agrees = |value: &ReadValue<'_>| {
        let mut bound = Vec::new();
        values.captures(value, &mut bound);
        agree(&bound)
    };
    let repeats = repeats(kv);
    match values.read(&bytes).filter(|v| !repeats || agrees(v)) {
        Some(value) => {
            let mut captures = Vec::new();
            if step.feeds {
                values.captures(&value, &mut captures);
            }
            let path = Arc::new(path);
            emit(Hit::One {
                found: Found::row(&path, &elems, &value),
                captures: &mut captures,
            })
        }
        None if step.options.strict => Err(mismatch(&path, prefix, &key, &bytes, step)),
        None => Ok(()),
    }
}

/// Whether `query` folds what it reads into aggregates.
pub fn aggregates(query: &Query<'_>) -> bool {
    matches!(query, Query::KeyValue(kv) if has_aggregate(kv))
}

/// Whether the key or the value holds an aggregate.
fn has_aggregate(kv: &KeyValue<'_>) -> bool {
    let agg =
        |e: &Elem<'_>| matches!(&e.kind, ElemKind::Var(v) if v.types.iter().any(|t| t.ty.is_agg()));
    kv.key.tuple.elems.iter().any(agg) || matches!(&kv.value, Value::Data(e, _) if agg(e))
}

fn mismatch(path: &DirPath, prefix: &[u8], key: &[u8], value: &[u8], step: &Step<'_>) -> Error {
    let mut elems = Vec::new();
    let shown = if codec::decode_key_into(prefix, key, &mut elems) {
        let path = Arc::new(path.clone());
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
