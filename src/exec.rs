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
//! let script = fql::syntax::load("/app/users(42)=\"ann\"\n@commit\n/app/users(<int>)=<str>").unwrap();
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
pub(crate) mod dirs;
mod error;
mod found;
mod matching;
mod output;
mod step;
mod stream;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::directory::DirectoryLayer;
use crate::kv::{Committed, Database, DatabaseExt, RetryOptions, Transaction};
use crate::plan::{Guard, Plan, Step, replace_refs};
use crate::syntax::ast::ElemKind;

pub use error::Error;
pub use found::{Batch, Each, Found, Sink};
pub use output::{DirPath, Output, Part, Row};
use step::Hit;
pub use stream::{QueryError, Results};

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

/// Runs plans against one database.
pub struct Engine {
    db: Arc<dyn Database>,
    layer: DirectoryLayer,
    split_reads: bool,
    retry: RetryOptions,
}

impl Engine {
    /// An engine over `db`, with FDB's standard directory layer.
    pub fn new(db: Arc<dyn Database>) -> Engine {
        Engine {
            db,
            layer: DirectoryLayer::new(),
            split_reads: false,
            retry: RetryOptions::default(),
        }
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
        let rows = &bindings.0;
        let (fed, committed) = if steps.iter().any(|s| s.kind.writes()) {
            let ((out, fed), committed) = self
                .db
                .run_with(self.retry, |tx, _| {
                    let mut out = Vec::new();
                    let fed = self.attempt(tx, steps, false, rows, &mut |row: Output| {
                        out.push(row);
                        Ok(())
                    })?;
                    Ok::<_, Error>((out, fed))
                })
                .map_err(Error::too_old)?;
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
            let (fed, _) = self.db.run_with(self.retry, |tx, _| {
                match self.attempt(tx, steps, self.split_reads, rows, &mut emit) {
                    // Started again, it would print the same results twice;
                    // or, if it outlived its transaction, outlive the next
                    // one too, for ever.
                    Err(Error::Kv(source))
                        if emit.passed > 0 || source == crate::kv::Error::TransactionTooOld =>
                    {
                        Err(Error::Interrupted {
                            printed: emit.passed,
                            source,
                        })
                    }
                    other => other,
                }
            })?;
            (fed, Committed::default())
        };
        bindings.0 = fed;
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
        bindings.0 = self.attempt(tx, steps, false, &bindings.0, sink)?;
        Ok(())
    }

    /// One attempt at a transaction's statements, starting from the rows
    /// earlier transactions fed; returns the rows with this one's added.
    fn attempt(
        &self,
        tx: &mut dyn Transaction,
        steps: &[Step<'_>],
        split: bool,
        rows: &Rows,
        emit: &mut dyn Sink,
    ) -> Result<Rows, Error> {
        let mut fed = rows.clone();
        let mut attempt = step::Attempt::new(&self.layer);
        for step in steps {
            self.step(tx, &mut attempt, step, split, &mut fed, emit)?;
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
        split: bool,
        rows: &mut Rows,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        // Statements without a driver run once, with no names: the common
        // case costs no allocation.
        const ALONE: &[Env] = &[Vec::new()];
        let envs: &[Env] = match step.driver {
            Some(d) => rows.get(&d).map_or(&[], Vec::as_slice),
            None => ALONE,
        };
        let mut kept = Vec::new();
        for env in envs {
            let query = if env.is_empty() {
                Cow::Borrowed(step.query())
            } else {
                let mut query = step.query().clone();
                replace_refs(&mut query, &mut |r| {
                    let name = r.name.name;
                    let bound = env.iter().rev().find(|(n, _)| n == name);
                    bound.map(|(_, v)| v.clone())
                });
                Cow::Owned(query)
            };
            let mut matched = false;
            let mut count = 0usize;
            let guard = step.options.guard;
            let mut one = |found: Found<'_>,
                           captures: &mut Vec<_>,
                           count: &mut usize,
                           sink: &mut dyn Sink| {
                let snapshot = found.is_new_snapshot();
                if !snapshot {
                    *count += 1;
                }
                if guard.is_some() && !snapshot {
                    if guard == Some(Guard::Absent) {
                        // No need to read on: the guard has failed.
                        return Err(Error::Guard {
                            found: Some(found.to_string()),
                            at: step.span,
                        });
                    }
                    matched = true;
                    if !step.feeds {
                        return Ok(());
                    }
                }
                if !step.feeds {
                    return sink.take(found);
                }
                if !snapshot {
                    let mut row = env.clone();
                    row.append(captures);
                    kept.push(row);
                }
                Ok(())
            };
            step::run(tx, attempt, step, &query, split, &mut |hit| match hit {
                Hit::One { found, captures } => one(found, captures, &mut count, sink),
                // Rows that only print go on to the sink together.
                Hit::Batch(batch) if guard.is_none() && !step.feeds => {
                    count += batch.len();
                    sink.take_batch(batch)
                }
                Hit::Batch(mut batch) => {
                    batch.try_for_each(|found| one(found, &mut Vec::new(), &mut count, sink))
                }
            })?;
            if guard == Some(Guard::Exists) && !matched {
                return Err(Error::Guard {
                    found: None,
                    at: step.span,
                });
            }
            let (min, max) = (step.options.min, step.options.max);
            if min.is_some_and(|m| count < m) || max.is_some_and(|m| count > m) {
                return Err(Error::Cardinality {
                    found: count,
                    min,
                    max,
                    at: step.span,
                });
            }
        }
        if step.feeds {
            rows.insert(step.id, kept);
        }
        Ok(())
    }
}

/// One row of a feeding statement: each name with its value, the names of
/// the rows it ran for included.
type Env = Vec<(String, ElemKind<'static>)>;

/// The rows of feeding statements, by statement.
type Rows = HashMap<usize, Vec<Env>>;

/// What the statements of a plan that feed later ones have bound so far:
/// carried from one transaction of the plan to the next.
#[derive(Clone, Debug, Default)]
pub struct Bindings(Rows);
