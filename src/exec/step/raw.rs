//! Statements on raw keys: keys named by their bytes, read, written and
//! cleared as they are, with values matched and printed as a tuple key's.

use crate::codec;
use crate::kv::{Fetched, RangeCursor, RangeOption, Transaction, TransactionOption};
use crate::plan::{Step, raw_bounds};
use crate::syntax::ast::*;

use crate::exec::matching::{ReadValue, ValueMatch};
use std::sync::Arc;

use crate::directory::{DirectoryLayer, OUTSIDE_END, Outside};
use crate::exec::{DirPath, Error, Found, Output, RawRow};

use super::{Emit, Hit, ReadMode};

/// Runs a statement on raw keys. `[system]` opens the system keys to its
/// reads and writes first, as FDB's `access_system_keys` does.
pub(super) fn run(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    step: &Step<'_>,
    raw: &RawKeyValue<'_>,
    mode: ReadMode,
    emit: Emit<'_>,
) -> Result<(), Error> {
    if step.options.system {
        tx.set_option(TransactionOption::AccessSystemKeys)?;
    }
    let (begin, end) = raw_bounds(&raw.key.kind);
    match (step.kind, &raw.value) {
        (Kind::Set, Value::Data(elem, opts)) => {
            let value = codec::encode_value(elem, opts)?;
            match value.op.mutation() {
                Some(m) => tx.atomic_op(&begin, &value.bytes, m)?,
                None => tx.set(&begin, &value.bytes)?,
            }
        }
        (Kind::Mutate, Value::Mutate(m)) => {
            let param = codec::encode_operand(m.op, &m.operand, &m.options)?;
            tx.atomic_op(&begin, &param, codec::mutation_type(m.op))?;
        }
        (Kind::Clear, _) => tx.clear(&begin)?,
        (Kind::ClearRange, _) => tx.clear_range(&begin, &end)?,
        (Kind::Read, _) => read(tx, layer, step, raw, &begin, mode.snapshot, emit)?,
        _ => {
            let mut range = RangeOption::new(begin, end).mode(step.options.mode);
            range.reverse = step.options.reverse;
            let mut root = AtRoot::new(layer, &range);
            scan(tx, step, raw, range, &mut root, mode, emit)?;
        }
    }
    Ok(())
}

/// One key.
fn read(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    step: &Step<'_>,
    raw: &RawKeyValue<'_>,
    key: &[u8],
    snapshot: bool,
    emit: Emit<'_>,
) -> Result<(), Error> {
    let values = ValueMatch::new(&raw.value)?;
    let Some(bytes) = tx.get(key, snapshot)? else {
        return Ok(());
    };
    let mut elems = Vec::new();
    let outside = key < OUTSIDE_END
        && codec::decode_key_into(&[], key, &mut elems)
        && layer.prefix_holding(tx, key, snapshot)?.is_none();
    let root = Arc::new(DirPath::root());
    let at_root = outside.then_some((&root, elems.as_slice()));
    found(step, &values, key, &bytes, at_root, emit).map(|_| ())
}

/// Which keys of a raw range read lie outside every directory: those
/// that are tuples print as keys at the root (`/(1)=2`), the form that
/// names them in queries; a directory's keys stay bytes, since their
/// tuples mean something only under its path. Rows come in key order (or
/// reversed), so the ranges outside are walked beside them.
struct AtRoot<'l> {
    layer: &'l DirectoryLayer,
    gaps: Outside,
    /// The range outside that the last key was checked against; `None`
    /// before the first and after the last.
    gap: Option<(Vec<u8>, Vec<u8>)>,
    started: bool,
    reverse: bool,
    path: Arc<DirPath>,
}

impl<'l> AtRoot<'l> {
    fn new(layer: &'l DirectoryLayer, range: &RangeOption) -> AtRoot<'l> {
        let (begin, end) = (range.begin.clone(), range.end.clone());
        AtRoot {
            layer,
            gaps: Outside::new(begin, end, range.reverse),
            gap: None,
            started: false,
            reverse: range.reverse,
            path: Arc::new(DirPath::root()),
        }
    }

    /// Whether `key`, the next row's, lies outside every directory.
    fn holds(
        &mut self,
        tx: &mut dyn Transaction,
        key: &[u8],
        snapshot: bool,
    ) -> Result<bool, Error> {
        loop {
            if !self.started {
                self.gap = self.gaps.next(tx, self.layer, snapshot)?;
                self.started = true;
            }
            let Some((begin, end)) = &self.gap else {
                return Ok(false);
            };
            let passed = if self.reverse {
                key < begin.as_slice()
            } else {
                key >= end.as_slice()
            };
            if !passed {
                return Ok(key >= begin.as_slice() && key < end.as_slice());
            }
            self.started = false;
        }
    }
}

/// Every key of a range, in order, up to the statement's limit.
fn scan(
    tx: &mut dyn Transaction,
    step: &Step<'_>,
    raw: &RawKeyValue<'_>,
    range: RangeOption,
    root: &mut AtRoot<'_>,
    mode: ReadMode,
    emit: Emit<'_>,
) -> Result<(), Error> {
    let values = ValueMatch::new(&raw.value)?;
    let mut left = step.options.limit;
    let mut cursor = RangeCursor::new(range, mode.snapshot);
    while let Some(batch) = cursor.fetch(tx, mode.split)? {
        let rows = match batch {
            Fetched::Rows(rows) => rows,
            Fetched::NewSnapshot => {
                // The reset that began the new transaction took the
                // option with it.
                if step.options.system {
                    tx.set_option(TransactionOption::AccessSystemKeys)?;
                }
                emit(Hit::One {
                    found: Output::NewSnapshot.into(),
                    captures: &mut Vec::new(),
                })?;
                continue;
            }
        };
        let mut elems = Vec::new();
        for kv in &rows {
            if left == Some(0) {
                return Ok(());
            }
            elems.clear();
            let tuple = kv.key.as_slice() < OUTSIDE_END
                && codec::decode_key_into(&[], &kv.key, &mut elems)
                && root.holds(tx, &kv.key, mode.snapshot)?;
            let at_root = tuple.then_some((&root.path, elems.as_slice()));
            if found(step, &values, &kv.key, &kv.value, at_root, emit)? {
                left = left.map(|n| n - 1);
            }
        }
    }
    Ok(())
}

/// A key-value read: handed on when its value matches, an error when it
/// does not and the statement is strict, else passed over. Returns
/// whether it matched.
fn found(
    step: &Step<'_>,
    values: &ValueMatch<'_>,
    key: &[u8],
    bytes: &[u8],
    at_root: Option<(&Arc<DirPath>, &[Elem<'_>])>,
    emit: Emit<'_>,
) -> Result<bool, Error> {
    let Some(value) = values.read(bytes) else {
        if step.options.strict {
            let value = ReadValue::Data(codec::decode_untyped(bytes), None);
            return Err(Error::Mismatch {
                key: raw_row(key, &value).to_string(),
                at: step.span,
            });
        }
        return Ok(false);
    };
    let mut captures = Vec::new();
    if step.feeds {
        values.captures(&value, &mut captures);
    }
    let found = match at_root {
        Some((path, elems)) => Found::row(path, elems, &value),
        None => Output::Raw(raw_row(key, &value)).into(),
    };
    emit(Hit::One {
        found,
        captures: &mut captures,
    })?;
    Ok(true)
}

/// The owned row of a key and the value read there.
pub(super) fn raw_row(key: &[u8], value: &ReadValue<'_>) -> RawRow {
    RawRow {
        key: key.to_vec(),
        value: value.to_owned(),
    }
}
