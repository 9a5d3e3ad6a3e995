//! Running plans: each transaction of a plan in the database's retry loop,
//! each statement against FDB directories, results handed out as they come.
//!
//! A transaction that writes hands out its results only after it commits,
//! so a retried transaction never reports twice. A read-only transaction
//! streams its results as it reads them, in constant memory whatever the
//! size of the range; if it fails after handing some out, it stops with
//! [`Error::Interrupted`] rather than start again and repeat them.
//!
//! ```
//! use std::sync::Arc;
//! use fql::exec::{Each, Engine, Found, Output};
//! use fql::kv::embedded::Embedded;
//!
//! let engine = Engine::new(Arc::new(Embedded::memory()));
//! let script = fql::check::load("/app/users(42)=\"ann\"\n@commit\n/app/users(<int>)=<str>").unwrap();
//! let plan = fql::plan::plan(&script, &Default::default()).unwrap();
//!
//! // Results printed as found, with no copy of what was read.
//! let mut text = Vec::new();
//! engine.run(&plan, &mut Each(|found: Found<'_>| {
//!     found.write_to(&mut text);
//!     text.push(b'\n');
//!     Ok(())
//! })).unwrap();
//! assert_eq!(text, b"/app/users(42)=\"ann\"\n");
//!
//! // Results kept, as owned values.
//! let mut kept = Vec::new();
//! engine.run(&plan, &mut |row: Output| Ok(kept.push(row))).unwrap();
//! assert_eq!(kept[0].to_string(), r#"/app/users(42)="ann""#);
//! ```

mod aggregate;
mod bindings;
mod cost;
mod dirs;
mod error;
mod found;
#[cfg(feature = "serde")]
pub mod json;
mod matching;
mod output;
mod step;
mod stream;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::directory::DirectoryLayer;
use crate::kv::{AsKvError, Committed, Database, DatabaseExt, Metered, RetryOptions, Transaction};
use crate::plan::{Guard, Plan, Step};

pub use bindings::Bindings;
use bindings::Fed;
pub use cost::{Conflict, Costs, DataReads, SPANS, StatementCost, Timed, TransactionCost};
pub use error::Error;
pub use found::{Batch, Each, Found, Sink};
pub use output::{DirPath, Output, Part, RawRow, Row};
use step::Hit;
pub use stream::{QueryError, Results};

/// Every existing directory that `pattern` names, as the engine finds
/// those a statement reads: its names in order, `<>` (with its types'
/// filter) for any one name, a trailing `...` for everything under; parent
/// before children, children in name order. For callers that walk the
/// same directories a script would (a schema check), in their own
/// transaction. A pattern still holding a reference (`/:dir`) matches
/// nothing: a planned step's [`query`](crate::plan::Step::query) has its
/// parameters substituted.
pub fn matching_directories(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    pattern: &crate::syntax::ast::Directory<'_>,
) -> Result<Vec<Vec<String>>, Error> {
    dirs::matching(tx, layer, pattern)
}

/// Every existing space the key pattern `key` reads, as a statement
/// reads them: the root of the keyspace (`/(...)`, and first for
/// `/...(...)`), the keys after raw bytes (`0x02(...)`), or the
/// directories of [`matching_directories`].
pub fn matching_spaces(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    key: &crate::syntax::ast::Key<'_>,
) -> Result<Vec<crate::directory::Space>, Error> {
    dirs::matching_spaces(tx, layer, key)
}

/// How a transaction's statements read.
#[derive(Clone, Copy)]
enum Reads {
    /// The transaction may write (or the caller's may, later): reads add
    /// read conflicts as their options say.
    Write,
    /// The transaction writes nothing: reads add no read conflicts, and,
    /// with `split`, a range read that outlives the transaction goes on
    /// in a new one.
    ReadOnly { split: bool },
}

impl Reads {
    /// Whether every read is a snapshot read, which adds no read conflict:
    /// a transaction that writes nothing has no commit to check them
    /// against.
    fn snapshot(self) -> bool {
        matches!(self, Reads::ReadOnly { .. })
    }

    /// Whether a range read that outlives its transaction goes on in a
    /// new one.
    fn split(self) -> bool {
        matches!(self, Reads::ReadOnly { split: true })
    }
}

/// A sink that counts the results it passes on.
struct Counted<'s> {
    sink: &'s mut dyn Sink,
    passed: usize,
}

impl Sink for Counted<'_> {
    fn take(&mut self, found: Found<'_>) -> Result<(), Error> {
        self.passed += 1;
        self.sink.take(found)
    }

    fn take_batch(&mut self, batch: Batch<'_>) -> Result<(), Error> {
        self.passed += batch.len();
        self.sink.take_batch(batch)
    }
}

/// Why an attempt of [`Engine::run_transaction_with`] stopped: the
/// caller's check, or the statements (or the database under them).
enum Stop<E> {
    Check(E),
    Run(Error),
}

impl<E> Stop<E> {
    /// The caller's error, with `run` applied to the engine's own.
    fn into_error(self, run: impl FnOnce(Error) -> Error) -> E
    where
        E: From<Error>,
    {
        match self {
            Stop::Check(e) => e,
            Stop::Run(e) => run(e).into(),
        }
    }
}

impl<E: AsKvError> AsKvError for Stop<E> {
    fn as_kv(&self) -> Option<&crate::kv::Error> {
        match self {
            Stop::Check(e) => e.as_kv(),
            Stop::Run(e) => e.as_kv(),
        }
    }
}

impl<E> From<crate::kv::Error> for Stop<E> {
    fn from(e: crate::kv::Error) -> Stop<E> {
        Stop::Run(Error::Kv(e))
    }
}

/// Runs plans against one database.
pub struct Engine {
    db: Arc<dyn Database>,
    layer: DirectoryLayer,
    split_reads: bool,
    retry: RetryOptions,
    /// Where the relative paths of the texts [`Engine::run_text`] plans
    /// start.
    root: crate::plan::Root,
    /// Where the statements' costs go, when they are measured.
    costs: Option<Arc<Costs>>,
}

impl Engine {
    /// An engine over `db`, with FDB's standard directory layer.
    pub fn new(db: Arc<dyn Database>) -> Engine {
        Engine {
            db,
            layer: DirectoryLayer::new(),
            split_reads: false,
            retry: RetryOptions::default(),
            root: crate::plan::Root::default(),
            costs: None,
        }
    }

    /// This engine with what its statements cost measured into `costs`:
    /// its database wrapped in a [`Metered`] one, and each statement
    /// announced as it runs, so that each read counts for the statement
    /// that made it. An engine not made so measures nothing and pays
    /// nothing for it.
    pub fn metered(&self, costs: Arc<Costs>) -> Engine {
        Engine {
            db: Arc::new(Metered::new(self.db.clone(), costs.clone())),
            layer: self.layer.clone(),
            split_reads: self.split_reads,
            retry: self.retry,
            root: self.root.clone(),
            costs: Some(costs),
        }
    }

    /// Puts the relative paths (`./users`) of the scripts given as text
    /// under `root` rather than `/`, so one script can run against
    /// separate data (a test's own directory, a tenant's). A [`Plan`]
    /// made elsewhere was resolved by its planner.
    pub fn root(mut self, root: crate::plan::Root) -> Engine {
        self.root = root;
        self
    }

    /// Keeps the directory prefixes the engine resolves across its
    /// transactions (on by default; see `docs/directories.md`), or, when
    /// off, resolves every path from the database in every transaction.
    pub fn directory_cache(mut self, on: bool) -> Engine {
        self.layer = if on {
            DirectoryLayer::new()
        } else {
            DirectoryLayer::new().uncached()
        };
        self
    }

    /// The database the engine runs on.
    pub fn database(&self) -> &Arc<dyn Database> {
        &self.db
    }

    /// Lets a range read of a read-only transaction that outlives FDB's
    /// five-second limit go on in new transactions from the last key it
    /// read, marking each break with [`Output::NewSnapshot`]. Off by
    /// default: then such a read fails, and what it returned is one
    /// consistent snapshot.
    pub fn split_reads(mut self, on: bool) -> Engine {
        self.split_reads = on;
        self
    }

    /// Gives up on a transaction, retries included, after `timeout`
    /// (with `transaction_timed_out`); [`kv::DEFAULT_TIMEOUT`](crate::kv::DEFAULT_TIMEOUT)
    /// unless set. A read split by [`Engine::split_reads`] goes on past
    /// it: the transactions it goes on in are fresh ones.
    pub fn timeout(mut self, timeout: Duration) -> Engine {
        self.retry = self.retry.with_timeout(timeout);
        self
    }

    /// The bounds of the engine's retry loops, for callers that run their
    /// own transactions beside the engine's.
    pub fn retry_options(&self) -> RetryOptions {
        self.retry
    }

    /// Runs every transaction of `plan` in order, handing each result to
    /// `sink`. Stops at the first error; transactions before it stay
    /// committed.
    pub fn run(&self, plan: &Plan<'_>, sink: &mut dyn Sink) -> Result<(), Error> {
        let mut bindings = Bindings::default();
        for steps in plan.transactions() {
            self.run_transaction(steps, &mut bindings, sink)?;
        }
        Ok(())
    }

    /// Runs one transaction of a plan (an item of
    /// [`Plan::transactions`]) in the database's retry loop, starting from
    /// what earlier transactions bound and adding what this one binds. A
    /// caller that goes on after a failed transaction keeps the bindings
    /// as they were before it. Returns what the commit reports: its
    /// versionstamp is the one every `#:NNNN` of the transaction took.
    pub fn run_transaction(
        &self,
        steps: &[Step<'_>],
        bindings: &mut Bindings,
        sink: &mut dyn Sink,
    ) -> Result<Committed, Error> {
        self.run_transaction_with(steps, bindings, sink, |_| Ok::<_, Error>(()))
    }

    /// [`Engine::run_transaction`] with `check` run first in every
    /// attempt, in the same transaction as the statements: for a caller
    /// that must know something of the database before the statements
    /// change it (that a directory holds only what the caller expects),
    /// with the commit guarding what `check` read as it guards the
    /// statements' reads. An error of `check` ends the transaction, with
    /// nothing written, and is returned as it is (retried first if the
    /// database says retrying may help).
    pub fn run_transaction_with<E>(
        &self,
        steps: &[Step<'_>],
        bindings: &mut Bindings,
        sink: &mut dyn Sink,
        mut check: impl FnMut(&mut dyn Transaction) -> Result<(), E>,
    ) -> Result<Committed, E>
    where
        E: From<Error> + AsKvError,
    {
        let base = &*bindings;
        let (fed, committed) = if steps.iter().any(|s| s.kind.writes()) {
            let ((out, fed), committed) = self
                .db
                .run_with(self.retry, |tx, maybe| {
                    // An earlier attempt may have committed, and the
                    // database cannot tell: running the statements again
                    // could apply their writes twice.
                    if maybe.0 {
                        return Err(Stop::Run(Error::UnknownResult));
                    }
                    check(tx).map_err(Stop::Check)?;
                    let mut out = Vec::new();
                    let fed = self
                        .attempt(tx, steps, Reads::Write, base, &mut |row: Output| {
                            out.push(row);
                            Ok(())
                        })
                        .map_err(Stop::Run)?;
                    Ok((out, fed))
                })
                .map_err(|stop: Stop<E>| stop.into_error(Error::too_old))?;
            for row in out {
                sink.take(row.into())?;
            }
            (fed, committed)
        } else {
            // Read-only: results go out as they are read.
            let mut emit = Counted {
                sink: &mut *sink,
                passed: 0,
            };
            let (fed, _) = self
                .db
                .run_with(self.retry, |tx, _| {
                    let began = Instant::now();
                    check(tx).map_err(Stop::Check)?;
                    let reads = Reads::ReadOnly {
                        split: self.split_reads,
                    };
                    match self.attempt(tx, steps, reads, base, &mut emit) {
                        // Started again, it would print the same results
                        // twice; or, if it outlived its transaction,
                        // outlive the next one too, for ever. (Too old
                        // sooner, it found a cluster's read version gone:
                        // the next attempt may do better.)
                        Err(Error::Kv(source))
                            if emit.passed > 0
                                || (source == crate::kv::Error::TransactionTooOld
                                    && began.elapsed() >= self.db.window()) =>
                        {
                            Err(Stop::Run(Error::Interrupted {
                                printed: emit.passed,
                                source,
                            }))
                        }
                        other => other.map_err(Stop::Run),
                    }
                })
                .map_err(|stop: Stop<E>| stop.into_error(|e| e))?;
            (fed, Committed::default())
        };
        bindings.absorb(fed.into_sets());
        Ok(committed)
    }

    /// Runs statements once in `tx`, a transaction the caller opened and
    /// will commit or drop (an interactive `\begin` ... `\commit`):
    /// no retries, and results go out at once, before any commit.
    pub fn run_in(
        &self,
        tx: &mut dyn Transaction,
        steps: &[Step<'_>],
        bindings: &mut Bindings,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        let added = self
            .attempt(tx, steps, Reads::Write, bindings, sink)
            .map_err(|e| e.too_old_in(true))?
            .into_sets();
        bindings.absorb(added);
        Ok(())
    }

    /// One attempt at a transaction's statements, starting from the rows
    /// earlier transactions fed; returns the rows this one adds.
    fn attempt<'b>(
        &self,
        tx: &mut dyn Transaction,
        steps: &[Step<'_>],
        reads: Reads,
        base: &'b Bindings,
        emit: &mut dyn Sink,
    ) -> Result<Fed<'b>, Error> {
        let mut fed = Fed::new(base);
        let mut attempt = step::Attempt::new(&self.layer, reads);
        for step in steps {
            self.step(tx, &mut attempt, step, &mut fed, emit)?;
        }
        Ok(fed)
    }

    /// Runs one statement: once, or once per row of the statement that
    /// drives it with that row's values; keeps its rows if it feeds a
    /// later statement, else hands its results out.
    fn step(
        &self,
        tx: &mut dyn Transaction,
        attempt: &mut step::Attempt<'_>,
        step: &Step<'_>,
        fed: &mut Fed<'_>,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        let driver = step.driver.and_then(|d| fed.get(d));
        let mut kept = step.feeds.then(|| fed.builder(driver));
        let mut filled = driver.map(|set| step::Filled::new(step.query(), set));
        if let Some(costs) = &self.costs {
            costs.begin(step.id, step::aggregates(step.query()));
        }
        let mut returned = 0;
        let mut run = |row: &[u8]| -> Result<(), Error> {
            let query = match &mut filled {
                Some(filled) => filled.fill(row)?,
                None => step.query(),
            };
            let mut seen = Seen {
                step,
                row,
                kept: kept.as_mut(),
                count: 0,
                matched: false,
            };
            let guard = step.options.guard;
            let ran = step::run(tx, attempt, step, query, &mut |hit| match hit {
                Hit::One { found, captures } => seen.one(found, captures, sink),
                // Rows that only print go on to the sink together.
                Hit::Batch(batch) if guard.is_none() && !step.feeds => {
                    seen.count += batch.len();
                    sink.take_batch(batch)
                }
                Hit::Batch(mut batch) => {
                    batch.try_for_each(|found| seen.one(found, &mut Vec::new(), sink))
                }
            });
            returned += seen.count;
            ran?;
            seen.verdict()
        };
        let ran = match (step.driver, driver) {
            (None, _) => run(&[]),
            (Some(_), Some(set)) => set.try_for_each(&mut run),
            // Its driver did not run (its transaction failed): no times.
            (Some(_), None) => Ok(()),
        };
        if let Some(costs) = &self.costs {
            costs.end(returned);
        }
        ran?;
        if let Some(kept) = kept {
            fed.insert(step.id, kept)?;
        }
        Ok(())
    }
}

/// What one run of a statement found: how many key-values, whether its
/// guard saw a match, and where its rows go when it feeds others.
struct Seen<'s, 'b> {
    step: &'s Step<'s>,
    /// The row of the driver it runs for; empty without one.
    row: &'s [u8],
    kept: Option<&'b mut bindings::Builder>,
    count: usize,
    matched: bool,
}

impl Seen<'_, '_> {
    /// Takes one result: counted, checked by the guard, then kept for the
    /// statements it feeds or handed to `sink`.
    fn one(
        &mut self,
        found: Found<'_>,
        captures: &mut matching::Captures,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        let snapshot = found.is_new_snapshot();
        if !snapshot {
            self.count += 1;
        }
        let guard = self.step.options.guard;
        if guard.is_some() && !snapshot {
            if guard == Some(Guard::Absent) {
                // No need to read on: the guard has failed.
                return Err(Error::Guard {
                    found: Some(found.to_string()),
                    at: self.step.span,
                });
            }
            self.matched = true;
            if !self.step.feeds {
                return Ok(());
            }
        }
        match self.kept.as_mut() {
            None => sink.take(found),
            Some(kept) if !snapshot => kept.push(self.row, captures),
            Some(_) => Ok(()),
        }
    }

    /// Whether the run found what its `[exists]` guard and its
    /// `[min:N]`/`[max:N]` bounds ask.
    fn verdict(&self) -> Result<(), Error> {
        let step = self.step;
        if step.options.guard == Some(Guard::Exists) && !self.matched {
            return Err(Error::Guard {
                found: None,
                at: step.span,
            });
        }
        let (min, max) = (step.options.min, step.options.max);
        let count = self.count;
        if min.is_some_and(|m| count < m) || max.is_some_and(|m| count > m) {
            return Err(Error::Cardinality {
                found: count,
                min,
                max,
                at: step.span,
            });
        }
        Ok(())
    }
}
