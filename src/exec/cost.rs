//! What running a plan cost, statement by statement: the figures of
//! `fql explain --analyze`.
//!
//! [`Costs`] is a [`Meter`]: it sees every operation a
//! [`Metered`](crate::kv::Metered) database sends, and the engine tells it
//! which statement runs (see [`Engine::metered`](super::Engine::metered)),
//! so each read lands on the statement that made it. Reads of the
//! directory layer's keys are told apart from the data's by their keys
//! ([`Levels`]), per level of the path they resolve.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::directory::{Levels, Lookup};
use crate::kv::{self, Meter, RangeOption, RangeResult};

/// A count of reads and the time they took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timed {
    /// How many reads.
    pub reads: u64,
    /// The time they took, together.
    pub time: Duration,
}

impl Timed {
    fn add(&mut self, took: Duration) {
        self.reads += 1;
        self.time += took;
    }
}

/// What the database did for reads outside the directory layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataReads {
    /// Point reads (`get`), each a round trip.
    pub point_reads: u64,
    /// Batches of range reads, each a round trip.
    pub range_batches: u64,
    /// Key-values read.
    pub keys: u64,
    /// Bytes of keys and values read.
    pub bytes: u64,
    /// The time the reads took.
    pub time: Duration,
}

/// What one statement cost, over every attempt of its transaction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatementCost {
    /// The statement's position in the script, from 0 ([`Step::id`](crate::plan::Step::id)).
    pub id: usize,
    /// How many times it ran: once per attempt of its transaction (a
    /// statement driven by another's rows runs once for all of them).
    pub runs: u64,
    /// The time it ran, reads included.
    pub time: Duration,
    /// Reads of the directory layer resolving each level of a path:
    /// `levels[0]` is the first name.
    pub levels: Vec<Timed>,
    /// Other reads of the directory layer: its version, its allocator.
    pub directory_other: Timed,
    /// Reads of the data.
    pub data: DataReads,
    /// Results it produced: printed, or kept for later statements.
    pub returned: u64,
    /// Whether it folds what it reads into aggregates, so that what it
    /// read and did not return was not filtered out.
    pub aggregate: bool,
    /// Sets, clears, range clears and atomic operations.
    pub writes: u64,
    /// Bytes of their keys and values.
    pub bytes_written: u64,
}

impl StatementCost {
    /// Adds what `s`, the same statement, cost elsewhere.
    fn absorb(&mut self, s: &StatementCost) {
        self.runs += s.runs;
        self.time += s.time;
        if self.levels.len() < s.levels.len() {
            self.levels.resize(s.levels.len(), Timed::default());
        }
        for (t, l) in self.levels.iter_mut().zip(&s.levels) {
            t.reads += l.reads;
            t.time += l.time;
        }
        self.directory_other.reads += s.directory_other.reads;
        self.directory_other.time += s.directory_other.time;
        let (d, o) = (&mut self.data, &s.data);
        d.point_reads += o.point_reads;
        d.range_batches += o.range_batches;
        d.keys += o.keys;
        d.bytes += o.bytes;
        d.time += o.time;
        self.returned += s.returned;
        self.writes += s.writes;
        self.bytes_written += s.bytes_written;
    }

    /// Round trips to the database: every directory read, point read and
    /// batch of a range read.
    pub fn round_trips(&self) -> u64 {
        self.directory_reads().reads + self.data.point_reads + self.data.range_batches
    }

    /// Every read of the directory layer, levels and others.
    pub fn directory_reads(&self) -> Timed {
        let mut all = self.directory_other;
        for level in &self.levels {
            all.reads += level.reads;
            all.time += level.time;
        }
        all
    }

    /// Key-values read that the statement did not return: left out by a
    /// filter on the client. `None` for an aggregate, which returns fewer
    /// than it reads without filtering them.
    pub fn filtered(&self) -> Option<u64> {
        (!self.aggregate).then(|| self.data.keys.saturating_sub(self.returned))
    }
}

/// What one transaction cost: its statements, its commit, its retries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransactionCost {
    /// Its statements, in the order they first ran.
    pub statements: Vec<StatementCost>,
    /// Reads outside any statement.
    pub outside: DataReads,
    /// Its commits, one per attempt that reached one.
    pub commits: u64,
    /// The time they took.
    pub commit_time: Duration,
    /// The error of each retry, in order.
    pub retries: Vec<kv::Error>,
    /// The ranges the failed commits' conflicts were on, as the backend
    /// reported them, each once, in the order they came.
    pub conflicting: Vec<Conflict>,
    /// Commits that failed with `not_committed` and whose conflicting
    /// ranges the backend did not report.
    pub unreported: usize,
}

/// A read range of a transaction that another commit wrote, failing the
/// transaction's commit with `not_committed`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conflict {
    /// Where the range begins.
    pub begin: Vec<u8>,
    /// Where it ends, past its last key.
    pub end: Vec<u8>,
    /// The statements ([`Step::id`](crate::plan::Step::id)) whose reads in
    /// the failed attempt overlap the range, in order; none known when
    /// the attempt read more than [`SPANS`] times.
    pub statements: Vec<usize>,
}

/// At most this many reads of an attempt are kept to tell which
/// statement read a conflicting range: a cap on what a long attempt
/// costs to analyze.
pub const SPANS: usize = 100_000;

impl TransactionCost {
    /// Several transactions' costs as one's: those of the transactions a
    /// read split over (see [`Engine::split_reads`](super::Engine::split_reads)).
    pub fn merged(all: Vec<TransactionCost>) -> TransactionCost {
        let mut all = all.into_iter();
        let mut one = all.next().unwrap_or_default();
        for more in all {
            one.commits += more.commits;
            one.commit_time += more.commit_time;
            one.retries.extend(more.retries);
            one.unreported += more.unreported;
            for c in more.conflicting {
                one.add_conflict(c);
            }
            for s in more.statements {
                match one.statements.iter_mut().find(|t| t.id == s.id) {
                    Some(t) => t.absorb(&s),
                    None => one.statements.push(s),
                }
            }
        }
        one
    }

    /// Whether the backend reported the range of every conflict: then
    /// [`conflicting`](Self::conflicting) is all of them.
    pub fn conflicts_reported(&self) -> bool {
        self.unreported == 0
    }

    /// Adds a conflicting range, merging the statements of one seen
    /// before.
    fn add_conflict(&mut self, c: Conflict) {
        let seen = self
            .conflicting
            .iter_mut()
            .find(|o| o.begin == c.begin && o.end == c.end);
        match seen {
            Some(o) => {
                o.statements.extend(c.statements);
                o.statements.sort_unstable();
                o.statements.dedup();
            }
            None => self.conflicting.push(c),
        }
    }

    /// The retries that were conflicts (`not_committed`).
    pub fn conflicts(&self) -> usize {
        self.retries
            .iter()
            .filter(|e| **e == kv::Error::NotCommitted)
            .count()
    }
}

/// The costs of a run, gathered as it goes.
#[derive(Debug, Default)]
pub struct Costs {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    levels: Levels,
    transactions: Vec<TransactionCost>,
    /// The statement running, by its index in the last transaction, and
    /// since when.
    current: Option<(usize, Instant)>,
    /// What the statements of the attempt running read: a statement's id
    /// and a range. At most [`SPANS`]; `None` once past.
    spans: Option<Vec<Span>>,
}

/// A statement's id and a range it read.
type Span = (usize, Vec<u8>, Vec<u8>);

impl State {
    fn transaction(&mut self) -> &mut TransactionCost {
        if self.transactions.is_empty() {
            self.transactions.push(TransactionCost::default());
        }
        let last = self.transactions.len() - 1;
        &mut self.transactions[last]
    }

    /// Keeps that the statement running read `[begin, end)`.
    fn read(&mut self, begin: &[u8], end: &[u8]) {
        let Some(id) = self.statement().map(|s| s.id) else {
            return;
        };
        match &mut self.spans {
            Some(spans) if spans.len() < SPANS => spans.push((id, begin.to_vec(), end.to_vec())),
            _ => self.spans = None,
        }
    }

    /// A new attempt: what the last one read is forgotten.
    fn attempt(&mut self) {
        self.current = None;
        self.spans = Some(Vec::new());
    }

    /// The statements whose reads overlap `[begin, end)`.
    fn readers(&self, begin: &[u8], end: &[u8]) -> Vec<usize> {
        let mut ids: Vec<usize> = self
            .spans
            .iter()
            .flatten()
            .filter(|(_, b, e)| b.as_slice() < end && begin < e.as_slice())
            .map(|(id, ..)| *id)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    fn statement(&mut self) -> Option<&mut StatementCost> {
        let (index, _) = self.current?;
        self.transaction().statements.get_mut(index)
    }

    /// Where a read outside the directory layer counts.
    fn data(&mut self) -> &mut DataReads {
        match self.current {
            Some((index, _)) => &mut self.transaction().statements[index].data,
            None => &mut self.transaction().outside,
        }
    }

    fn directory(&mut self, lookup: Lookup, took: Duration) {
        let Some(statement) = self.statement() else {
            return self.transaction().outside.time += took;
        };
        match lookup {
            Lookup::Level(n) if n > 0 => {
                if statement.levels.len() < n {
                    statement.levels.resize(n, Timed::default());
                }
                statement.levels[n - 1].add(took)
            }
            _ => statement.directory_other.add(took),
        }
    }
}

impl Costs {
    /// What the transactions created since the last take cost, in the
    /// order they were created; the next take starts afresh. (What was
    /// learnt of the directories' levels stays.)
    pub fn take(&self) -> Vec<TransactionCost> {
        let mut state = kv::lock(&self.state);
        state.attempt();
        std::mem::take(&mut state.transactions)
    }

    /// Statement `id` starts a run; `aggregate` says it folds what it
    /// reads.
    pub(super) fn begin(&self, id: usize, aggregate: bool) {
        let mut state = kv::lock(&self.state);
        let tx = state.transaction();
        let index = match tx.statements.iter().position(|s| s.id == id) {
            Some(index) => index,
            None => {
                tx.statements.push(StatementCost {
                    id,
                    aggregate,
                    ..StatementCost::default()
                });
                tx.statements.len() - 1
            }
        };
        tx.statements[index].runs += 1;
        state.current = Some((index, Instant::now()));
    }

    /// The statement running ends a run, having produced `returned`
    /// results.
    pub(super) fn end(&self, returned: usize) {
        let mut state = kv::lock(&self.state);
        let Some((index, began)) = state.current.take() else {
            return;
        };
        if let Some(statement) = state.transaction().statements.get_mut(index) {
            statement.time += began.elapsed();
            statement.returned += returned as u64;
        }
    }
}

impl Meter for Costs {
    fn transaction(&self) {
        let mut state = kv::lock(&self.state);
        state.transactions.push(TransactionCost::default());
        state.attempt();
    }

    fn get(&self, key: &[u8], value: Option<&[u8]>, took: Duration) {
        let mut state = kv::lock(&self.state);
        state.read(key, &kv::key_after(key));
        if let Some(lookup) = state.levels.get(key, value) {
            return state.directory(lookup, took);
        }
        let data = state.data();
        data.point_reads += 1;
        data.time += took;
        if let Some(value) = value {
            data.keys += 1;
            data.bytes += (key.len() + value.len()) as u64;
        }
    }

    fn range(&self, range: &RangeOption, batch: &RangeResult, took: Duration) {
        let mut state = kv::lock(&self.state);
        state.read(&range.begin, &range.end);
        if let Some(lookup) = state.levels.range(&range.begin, &batch.kvs) {
            return state.directory(lookup, took);
        }
        let bytes: usize = batch
            .kvs
            .iter()
            .map(|kv| kv.key.len() + kv.value.len())
            .sum();
        let data = state.data();
        data.range_batches += 1;
        data.time += took;
        data.keys += batch.kvs.len() as u64;
        data.bytes += bytes as u64;
    }

    fn write(&self, bytes: usize) {
        let mut state = kv::lock(&self.state);
        if let Some(statement) = state.statement() {
            statement.writes += 1;
            statement.bytes_written += bytes as u64;
        }
    }

    fn commit(&self, took: Duration) {
        let mut state = kv::lock(&self.state);
        let tx = state.transaction();
        tx.commits += 1;
        tx.commit_time += took;
    }

    fn retry(&self, error: &kv::Error) {
        let mut state = kv::lock(&self.state);
        state.attempt();
        state.transaction().retries.push(error.clone());
    }

    fn conflict(&self, ranges: &[(Vec<u8>, Vec<u8>)]) {
        let mut state = kv::lock(&self.state);
        let conflicts: Vec<Conflict> = ranges
            .iter()
            .map(|(begin, end)| Conflict {
                statements: state.readers(begin, end),
                begin: begin.clone(),
                end: end.clone(),
            })
            .collect();
        let tx = state.transaction();
        if conflicts.is_empty() {
            tx.unreported += 1;
        }
        for c in conflicts {
            tx.add_conflict(c);
        }
    }
}
