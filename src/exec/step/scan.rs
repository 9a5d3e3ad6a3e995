//! Range reads and clears over patterns: the rows under the constant part
//! of a key, filtered, decoded and handed on as they are read.

use std::ops::ControlFlow;
use std::sync::Arc;

use crate::codec::{self, ElementFilter, Scalar};
use crate::kv::{Fetched, RangeCursor, RangeOption, Transaction};
use crate::plan::Step;
use crate::syntax::ast::*;

use crate::exec::aggregate::Fold;
use crate::exec::dirs::{self, Dirs};
use crate::exec::matching::{ReadValue, TupleMatch, ValueMatch};
use crate::exec::{Batch, DirPath, Error, Found, Output, Part, Row};

use super::{Emit, Hit, mismatch};

/// Range reads and clears over patterns: every directory that matches,
/// the keys under the constant part of the key, filtered here.
///
/// With `split`, a read that outlives its transaction goes on in a new one;
/// with `snapshot`, it adds no read conflict.
pub(super) fn scan(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    kv: &KeyValue<'_>,
    step: &Step<'_>,
    split: bool,
    snapshot: bool,
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
        // Each row's key decodes into `elems`, borrowing its batch: a row
        // costs no allocation unless it is kept. Rows of scalars gather in
        // `pending` and go out together. `tx` is there for a clear.
        let mut rows = |batch: &Fetched,
                        mut tx: Option<&mut (dyn Transaction + '_)>,
                        emit: Emit<'_>|
         -> Result<ControlFlow<()>, Error> {
            let batch = match batch {
                Fetched::Rows(batch) => batch,
                Fetched::NewSnapshot => {
                    emit(Hit::One {
                        found: Output::NewSnapshot.into(),
                        captures: &mut Vec::new(),
                    })?;
                    return Ok(ControlFlow::Continue(()));
                }
            };
            let mut elems = Vec::new();
            let mut pending = Pending::default();
            for stored in batch {
                if left == Some(0) {
                    break;
                }
                let scalars_match = match (&fast, stored.key.get(prefix.len()..)) {
                    // The range holds only keys under the prefix.
                    (Some(filter), Some(key)) => {
                        pending.push_row(|out| scalar_row(&keys, filter, key, &stored.value, out))
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
                        pending.flush(&shared, emit)?;
                        return Err(mismatch(&path, prefix, &stored.key, &stored.value, step));
                    }
                    continue;
                };
                if let Some(n) = left.as_mut() {
                    *n -= 1;
                }
                let value = match read {
                    Read::Scalars => {
                        if pending.full() {
                            pending.flush(&shared, emit)?;
                        }
                        continue;
                    }
                    Read::Decoded(value) => value,
                };
                if let Some(tx) = tx.as_deref_mut() {
                    tx.clear(&stored.key)?;
                } else if folding {
                    folds.push(&elems, &value);
                } else {
                    pending.flush(&shared, emit)?;
                    captures.clear();
                    if step.feeds {
                        captures.extend_from_slice(&dir_captures);
                        keys.captures(&elems, &mut captures);
                        values.captures(&value, &mut captures);
                    }
                    emit(Hit::One {
                        found: Found::row(&shared, &elems, &value),
                        captures: &mut captures,
                    })?;
                }
            }
            pending.flush(&shared, emit)?;
            Ok(match left {
                Some(0) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            })
        };
        let mut cursor = RangeCursor::new(range, snapshot);
        if clearing || opts.limit.is_some() {
            // A clear writes as it reads, and a read with a limit reads no
            // further than it must.
            while let Some(batch) = cursor.fetch(tx, split)? {
                let tx = clearing.then_some(&mut *tx);
                if rows(&batch, tx, emit)?.is_break() {
                    break;
                }
            }
        } else {
            cursor.read_ahead(tx, split, |batch| rows(batch, None, emit))?;
        }
        if folding && let Some(output) = folds.finish(&shared, kv) {
            emit(Hit::One {
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

/// Rows of scalars read from one batch and not yet handed on: a few
/// hundred, so that they are still in cache when the sink prints them.
#[derive(Default)]
struct Pending<'b> {
    scalars: Vec<Scalar<'b>>,
    ends: Vec<u32>,
}

impl<'b> Pending<'b> {
    const ROWS: usize = 256;

    /// Reads a row with `read` onto the end of the pending scalars, and
    /// keeps it if it matches (`Some(true)`).
    #[inline(always)]
    fn push_row(
        &mut self,
        read: impl FnOnce(&mut Vec<Scalar<'b>>) -> Option<bool>,
    ) -> Option<bool> {
        let start = self.scalars.len();
        let matched = read(&mut self.scalars);
        match matched {
            // A row has a few scalars, and a batch a few hundred rows.
            Some(true) => self.ends.push(self.scalars.len() as u32),
            _ => self.scalars.truncate(start),
        }
        matched
    }

    fn full(&self) -> bool {
        self.ends.len() >= Self::ROWS
    }

    /// Hands the pending rows on, if any.
    fn flush(&mut self, path: &Arc<DirPath>, emit: Emit<'_>) -> Result<(), Error> {
        if self.ends.is_empty() {
            return Ok(());
        }
        let handed = emit(Hit::Batch(Batch::new(path, &self.scalars, &self.ends)));
        self.scalars.clear();
        self.ends.clear();
        handed
    }
}

/// Whether a row of scalars matches, read straight from its bytes: its
/// key by `keys`, its value by `value`, which must be one scalar of a type
/// the filter accepts. A match leaves the key's scalars, then the value,
/// on the end of `out`; the caller drops what else it left there. `None`
/// when the row holds another element before that is known, and only the
/// general decoding can tell.
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
