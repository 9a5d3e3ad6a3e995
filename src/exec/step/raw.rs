//! Statements on raw keys: keys named by their bytes, read, written and
//! cleared as they are, with values matched and printed as a tuple key's.

use crate::codec;
use crate::kv::{Fetched, RangeCursor, RangeOption, Transaction, TransactionOption};
use crate::plan::{Step, raw_bounds};
use crate::syntax::ast::*;

use crate::exec::matching::{ReadValue, ValueMatch};
use crate::exec::{Error, Output, RawRow};

use super::{Emit, Hit};

/// Runs a statement on raw keys. `[system]` opens the system keys to its
/// reads and writes first, as FDB's `access_system_keys` does.
pub(super) fn run(
    tx: &mut dyn Transaction,
    step: &Step<'_>,
    raw: &RawKeyValue<'_>,
    (split, snapshot): (bool, bool),
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
        (Kind::Read, _) => read(tx, step, raw, &begin, snapshot, emit)?,
        _ => {
            let mut range = RangeOption::new(begin, end).mode(step.options.mode);
            range.reverse = step.options.reverse;
            scan(tx, step, raw, range, (split, snapshot), emit)?;
        }
    }
    Ok(())
}

/// One key.
fn read(
    tx: &mut dyn Transaction,
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
    found(step, &values, key, &bytes, emit).map(|_| ())
}

/// Every key of a range, in order, up to the statement's limit.
fn scan(
    tx: &mut dyn Transaction,
    step: &Step<'_>,
    raw: &RawKeyValue<'_>,
    range: RangeOption,
    (split, snapshot): (bool, bool),
    emit: Emit<'_>,
) -> Result<(), Error> {
    let values = ValueMatch::new(&raw.value)?;
    let mut left = step.options.limit;
    let mut cursor = RangeCursor::new(range, snapshot);
    while let Some(batch) = cursor.fetch(tx, split)? {
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
        for kv in &rows {
            if left == Some(0) {
                return Ok(());
            }
            if found(step, &values, &kv.key, &kv.value, emit)? {
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
    emit(Hit::One {
        found: Output::Raw(raw_row(key, &value)).into(),
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
