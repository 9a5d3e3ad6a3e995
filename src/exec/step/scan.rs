//! Range reads and clears over patterns: the rows under the constant part
//! of a key, filtered, decoded and handed on as they are read.

use std::ops::ControlFlow;
use std::sync::Arc;

use crate::codec::{self, ElementFilter, Scalar};
use crate::directory::{DirectoryLayer, Outside};
use crate::kv::{Fetched, RangeCursor, RangeOption, Transaction};
use crate::plan::Step;
use crate::syntax::ast::*;

use crate::exec::aggregate::Fold;
use crate::exec::dirs::{self, Dirs};
use crate::exec::matching::{AggHole, Captures, ReadValue, TupleMatch, ValueMatch, agree, repeats};
use crate::exec::{Batch, DirPath, Error, Found, Output, Part, Row};

use super::raw::raw_row;
use super::{Emit, Hit, ReadMode, mismatch};

/// Range reads and clears over patterns: every directory that matches,
/// the keys under the constant part of the key, filtered here.
///
/// Every read reads as `reads` says.
pub(super) fn scan(
    tx: &mut dyn Transaction,
    dirs: &mut Dirs<'_>,
    kv: &KeyValue<'_>,
    step: &Step<'_>,
    reads: ReadMode,
    emit: Emit<'_>,
) -> Result<(), Error> {
    let scan = Scan::new(kv, step)?;
    let mut left = step.options.limit;
    let layer = dirs.layer;
    let pattern = match kv.key.place() {
        Place::Prefix(bytes) => {
            let shown = Arc::new(DirPath::prefixed(bytes.to_vec()));
            let at = Dir::new(&[], bytes, &shown);
            return scan.directory(tx, at, &mut left, reads, emit);
        }
        Place::Root => {
            return scan.directory(
                tx,
                Dir::root(layer, &Arc::new(DirPath::root())),
                &mut left,
                reads,
                emit,
            );
        }
        Place::Directory(pattern) => pattern,
    };
    // `/...` is the root and every directory: the keys outside them first.
    if dirs::includes_root(pattern) {
        scan.directory(
            tx,
            Dir::root(layer, &Arc::new(DirPath::root())),
            &mut left,
            reads,
            emit,
        )?;
        if left == Some(0) {
            return Ok(());
        }
    }
    let holes = pattern.has_holes();
    for path in dirs::matching_or_path(tx, layer, pattern)? {
        // A pattern passes over the partitions it matches and reads the
        // directories inside them; a path naming one is refused before
        // anything is read.
        let prefix = match holes {
            true => dirs.matched_prefix(tx, &path)?,
            false => dirs.prefix(tx, &path, step.span, false)?,
        };
        let Some(prefix) = prefix else {
            continue;
        };
        let shown = Arc::new(DirPath::new(path.clone()));
        scan.directory(tx, Dir::new(&path, prefix, &shown), &mut left, reads, emit)?;
        if left == Some(0) {
            break;
        }
    }
    Ok(())
}

/// What a range read or clear decides once, before it reads any directory.
struct Scan<'q, 'a> {
    kv: &'q KeyValue<'a>,
    step: &'q Step<'a>,
    keys: TupleMatch<'a>,
    values: ValueMatch<'a>,
    key_aggs: Vec<(usize, AggHole<'a>)>,
    value_agg: Option<AggHole<'a>>,
    /// How many elements of the key come before its first hole: the
    /// range read is of the keys under them.
    fixed: usize,
    clearing: bool,
    folding: bool,
    /// A clear of everything under a constant prefix, which needs no
    /// reading.
    whole_range: bool,
    /// For rows printed as they are read, when their key and value are
    /// scalars: the value's filter, for the way that needs no decoding.
    fast: Option<ElementFilter>,
    /// Whether a name is bound in two places, which must then hold the
    /// same value for a row to match.
    repeats: bool,
}

/// A place a scan reads: a directory's path and its key prefix, or the
/// root of the keyspace, less what the directory layer holds.
#[derive(Clone, Copy)]
struct Dir<'d> {
    path: &'d [String],
    prefix: &'d [u8],
    /// How its rows show where they are.
    shown: &'d Arc<DirPath>,
    /// At the root: the layer whose directories' keys are left out.
    outside: Option<&'d DirectoryLayer>,
}

impl<'d> Dir<'d> {
    fn new(path: &'d [String], prefix: &'d [u8], shown: &'d Arc<DirPath>) -> Dir<'d> {
        Dir {
            path,
            prefix,
            shown,
            outside: None,
        }
    }

    fn root(layer: &'d DirectoryLayer, shown: &'d Arc<DirPath>) -> Dir<'d> {
        Dir {
            path: &[],
            prefix: &[],
            shown,
            outside: Some(layer),
        }
    }
}

impl<'q, 'a> Scan<'q, 'a> {
    fn new(kv: &'q KeyValue<'a>, step: &'q Step<'a>) -> Result<Self, Error> {
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
        let whole_range =
            clearing && fixed == tuple.elems.len() && matches!(kv.value, Value::Clear(_));
        let repeats = repeats(kv);
        let fast = (!clearing && !folding && !step.feeds && !repeats)
            .then(|| values.scalar_filter())
            .flatten();
        Ok(Scan {
            kv,
            step,
            keys,
            values,
            key_aggs,
            value_agg,
            fixed,
            clearing,
            folding,
            whole_range,
            fast,
            repeats,
        })
    }

    /// Reads (or clears) the matching rows of one directory, counting
    /// them off `left`.
    fn directory(
        &self,
        tx: &mut dyn Transaction,
        dir: Dir<'_>,
        left: &mut Option<usize>,
        reads: ReadMode,
        emit: Emit<'_>,
    ) -> Result<(), Error> {
        let start = codec::encode_key(dir.prefix, &self.kv.key.tuple.elems[..self.fixed])?.bytes;
        let range = RangeOption::prefix(&start);
        let mut dir_captures = Vec::new();
        dirs::captures(&self.kv.key.dir, dir.path, &mut dir_captures);
        let shared = dir.shown;
        let mut rows = Rows {
            scan: self,
            dir,
            shared,
            dir_captures: &dir_captures,
            left,
            folds: Folds::new(&self.key_aggs, self.value_agg.as_ref()),
            captures: Vec::new(),
        };
        match dir.outside {
            None => self.range(tx, range.begin, range.end, &mut rows, reads, emit)?,
            Some(layer) => {
                // The ranges between the directories' prefixes, each read
                // as a directory's whole range is.
                let reverse = self.step.options.reverse;
                let mut gaps = Outside::new(range.begin, range.end, reverse);
                while let Some((begin, end)) = gaps.next(tx, layer, reads.snapshot)? {
                    self.range(tx, begin, end, &mut rows, reads, emit)?;
                    if *rows.left == Some(0) {
                        break;
                    }
                }
            }
        }
        let folds = rows.folds;
        if self.folding
            && let Some(output) = folds.finish(shared, self.kv, &mut dir_captures)
        {
            emit(Hit::One {
                found: output.into(),
                captures: &mut dir_captures,
            })?;
        }
        Ok(())
    }

    /// Reads (or clears) the matching rows of `begin..end`, within one
    /// place, onto `rows`.
    fn range(
        &self,
        tx: &mut dyn Transaction,
        begin: Vec<u8>,
        end: Vec<u8>,
        rows: &mut Rows<'_, '_, '_>,
        reads: ReadMode,
        emit: Emit<'_>,
    ) -> Result<(), Error> {
        let opts = self.step.options;
        if self.whole_range {
            tx.clear_range(&begin, &end)?;
            return Ok(());
        }
        let mut range = RangeOption::new(begin, end).mode(opts.mode);
        range.reverse = opts.reverse;
        // Every key-value read is a result: the database can count them,
        // and reads no more than the limit (`exact` mode needs it to).
        if opts.read_limit {
            range.limit = *rows.left;
        }
        let mut cursor = RangeCursor::new(range, reads.snapshot);
        if self.clearing || opts.limit.is_some() {
            // A clear writes as it reads, and a read with a limit reads no
            // further than it must.
            while let Some(batch) = cursor.fetch(tx, reads.split)? {
                let tx = self.clearing.then_some(&mut *tx);
                if rows.batch(&batch, tx, emit)?.is_break() {
                    break;
                }
            }
        } else {
            cursor.read_ahead(tx, reads.split, |batch| rows.batch(batch, None, emit))?;
        }
        Ok(())
    }

    /// A row whose key is not a tuple under the directory's prefix. A
    /// read shows it, by its bytes, when its value matches: passed over,
    /// it would vanish from every read. Where it cannot be shown it is
    /// passed over: a strict read fails on it, a clear of matching keys
    /// cannot tell that it matches, an aggregate has no elements of it to
    /// fold, and a read that feeds later statements no values to bind.
    fn undecodable<'r>(&'r self, value: &'r [u8]) -> Option<Read<'r>> {
        let shown = !self.clearing && !self.folding && !self.step.feeds;
        if !shown || self.step.options.strict {
            return None;
        }
        self.values.read(value).map(Read::Raw)
    }

    /// How a stored row matches, if it does: as scalars read straight
    /// onto `pending`, or decoded into `elems` with its value.
    #[inline]
    fn matched<'r>(
        &'r self,
        prefix: &[u8],
        stored: &'r crate::kv::KeyValue,
        elems: &mut Vec<Elem<'r>>,
        pending: &mut Pending<'r>,
    ) -> Option<Read<'r>> {
        let scalars_match = match (&self.fast, stored.key.get(prefix.len()..)) {
            // The range holds only keys under the prefix.
            (Some(filter), Some(key)) => {
                pending.push_row(|out| scalar_row(&self.keys, filter, key, &stored.value, out))
            }
            _ => None,
        };
        match scalars_match {
            Some(true) => Some(Read::Scalars),
            Some(false) => None,
            // Only the general decoding can tell.
            None => {
                elems.clear();
                if !codec::decode_key_into(prefix, &stored.key, elems) {
                    return self.undecodable(&stored.value);
                }
                self.keys
                    .matches(elems)
                    .then(|| self.values.read(&stored.value).map(Read::Decoded))
                    .flatten()
            }
        }
    }
}

/// One directory's read under way: what its rows go to.
struct Rows<'s, 'q, 'a> {
    scan: &'s Scan<'q, 'a>,
    dir: Dir<'s>,
    shared: &'s Arc<DirPath>,
    /// What the directory's path binds, first in each row's captures.
    dir_captures: &'s [(String, ElemKind<'static>)],
    /// How many more rows the read may hand on.
    left: &'s mut Option<usize>,
    folds: Folds,
    /// What a row binds, taken by the statements it feeds: empty when
    /// the statement feeds none.
    captures: Captures,
}

impl Rows<'_, '_, '_> {
    /// Handles one batch of the range; `tx` is there for a clear. Each
    /// row's key decodes into `elems`, borrowing the batch: a row costs no
    /// allocation unless it is kept. Rows of scalars gather in `pending`
    /// and go out together.
    fn batch(
        &mut self,
        batch: &Fetched,
        mut tx: Option<&mut (dyn Transaction + '_)>,
        emit: Emit<'_>,
    ) -> Result<ControlFlow<()>, Error> {
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
        let scan = self.scan;
        let Dir { prefix, .. } = self.dir;
        let mut elems = Vec::new();
        let mut pending = Pending::default();
        for stored in batch {
            if *self.left == Some(0) {
                break;
            }
            let read = scan.matched(prefix, stored, &mut elems, &mut pending);
            let read = read.filter(|read| !scan.repeats || self.agrees(&elems, read));
            let Some(read) = read else {
                if scan.step.options.strict {
                    pending.flush(self.shared, emit)?;
                    let (key, value) = (&stored.key, &stored.value);
                    return Err(mismatch(self.shared, prefix, key, value, scan.step));
                }
                continue;
            };
            if let Some(n) = self.left.as_mut() {
                *n -= 1;
            }
            match read {
                Read::Scalars if pending.full() => pending.flush(self.shared, emit)?,
                Read::Scalars => {}
                Read::Decoded(value) => {
                    let tx = tx.as_deref_mut();
                    self.decoded(&stored.key, &elems, &value, tx, &mut pending, emit)?
                }
                Read::Raw(value) => {
                    pending.flush(self.shared, emit)?;
                    emit(Hit::One {
                        found: Output::Raw(raw_row(&stored.key, &value)).into(),
                        captures: &mut Vec::new(),
                    })?
                }
            }
        }
        pending.flush(self.shared, emit)?;
        Ok(match self.left {
            Some(0) => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        })
    }

    /// Whether the places a name is bound in hold the same value in a
    /// row, as a pattern that names one thing twice means.
    fn agrees(&mut self, elems: &[Elem<'_>], read: &Read<'_>) -> bool {
        let Read::Decoded(value) = read else {
            return true;
        };
        let bound = &mut self.captures;
        bound.clear();
        bound.extend_from_slice(self.dir_captures);
        self.scan.keys.captures(elems, bound);
        self.scan.values.captures(value, bound);
        agree(bound)
    }

    /// A decoded row that matches: cleared, folded, or handed on with
    /// what it binds, after the rows of scalars before it.
    fn decoded(
        &mut self,
        key: &[u8],
        elems: &[Elem<'_>],
        value: &ReadValue<'_>,
        tx: Option<&mut (dyn Transaction + '_)>,
        pending: &mut Pending<'_>,
        emit: Emit<'_>,
    ) -> Result<(), Error> {
        if let Some(tx) = tx {
            tx.clear(key)?;
        } else if self.scan.folding {
            self.folds.push(elems, value);
        } else {
            pending.flush(self.shared, emit)?;
            self.captures.clear();
            if self.scan.step.feeds {
                self.captures.extend_from_slice(self.dir_captures);
                self.scan.keys.captures(elems, &mut self.captures);
                self.scan.values.captures(value, &mut self.captures);
            }
            emit(Hit::One {
                found: Found::row(self.shared, elems, value),
                captures: &mut self.captures,
            })?;
        }
        Ok(())
    }
}

/// How a range read read a row that matches.
enum Read<'r> {
    /// Its scalars straight from its bytes (see [`scalar_row`]).
    Scalars,
    /// Its key decoded, and its value.
    Decoded(ReadValue<'r>),
    /// Its key is no tuple, so no pattern can match it or rule it out:
    /// it is shown as its bytes, with its value.
    Raw(ReadValue<'r>),
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
    keys: Vec<(usize, Fold, Option<String>)>,
    value: Option<(Fold, Option<String>)>,
    /// The value every row had so far: `None` before the first row,
    /// `Some(None)` once two differed.
    common: Option<Option<(Part, Option<Arc<str>>)>>,
}

impl Folds {
    fn new(keys: &[(usize, AggHole<'_>)], value: Option<&AggHole<'_>>) -> Folds {
        let name = |n: Option<&str>| n.map(str::to_string);
        Folds {
            keys: keys
                .iter()
                .map(|(n, (agg, opts, named))| (*n, Fold::new(*agg, opts), name(*named)))
                .collect(),
            value: value.map(|(agg, opts, named)| (Fold::new(*agg, opts), name(*named))),
            common: None,
        }
    }

    fn push(&mut self, elems: &[Elem<'_>], value: &ReadValue<'_>) {
        for (n, fold, _) in &mut self.keys {
            fold.push(&elems[*n].kind);
        }
        match &mut self.value {
            Some((fold, _)) => {
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
    /// the value every row shared, or the query's value as written. Each
    /// named aggregate's result goes onto `captures`, for the statements
    /// that reference it.
    fn finish(
        self,
        path: &Arc<DirPath>,
        kv: &KeyValue<'_>,
        captures: &mut Captures,
    ) -> Option<Output> {
        let mut bind = |name: Option<String>, result: &ElemKind<'static>| {
            if let Some(name) = name {
                captures.push((name, result.clone()));
            }
        };
        let mut key: Vec<Part> = kv
            .key
            .tuple
            .elems
            .iter()
            .map(|e| Part::Written(e.to_string().into()))
            .collect();
        for (n, fold, name) in self.keys {
            let result = fold.finish()?;
            bind(name, &result);
            key[n] = Part::Data(result);
        }
        let value = match (self.value, self.common) {
            (Some((fold, name)), _) => {
                let result = fold.finish()?;
                bind(name, &result);
                Some((Part::Data(result), None))
            }
            (None, Some(Some(common))) => Some(common),
            (None, _) => match &kv.value {
                Value::Data(e, o) => Some((Part::Written(format!("{e}{o}").into()), None)),
                Value::Omitted | Value::Clear(_) | Value::Mutate(_) => None,
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
