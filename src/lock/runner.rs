//! The one way a lock's client runs its scripts.
//!
//! Each operation of a lock is a shipped script (`src/scripts/`), whose
//! guards refuse what the operation must not do: a release by a client
//! that does not hold the lock, a takeover of a heartbeat that moved. So
//! a run has three outcomes: it ran, a guard refused it, or a commit whose
//! outcome the database could not tell was followed by a run its guards
//! refused. Every script's guards refuse what it has already done, so
//! running it again after an unknown result never does it twice, and
//! that refusal says the first run most likely landed.
//!
//! A script is loaded and checked once per process, the first time a
//! client runs it: waiters run theirs at every look. It is planned at
//! each run, with that run's parameters.

use std::sync::OnceLock;
use std::time::Instant;

use crate::exec::{Bindings, Engine, Error as ExecError, Output};
use crate::kv::{AsKvError, Committed, Transaction};
use crate::plan::Params;
use crate::scripts::ALL;
use crate::syntax::ast::{Elem, ElemKind, Script, Span, Tuple};

/// What a run of a script found.
pub(crate) enum Outcome {
    /// It ran: the rows its reads returned, and what its last
    /// transaction's commit reported.
    Ran(Vec<Output>, Committed),
    /// One of its guards stopped it; its transaction wrote nothing.
    Refused,
    /// A commit whose outcome the database could not tell, then a run
    /// that its guards stopped: the first run most likely landed.
    Settled,
}

impl Outcome {
    /// Whether it ran now.
    pub fn ran(&self) -> bool {
        matches!(self, Outcome::Ran(..))
    }

    /// Whether what it does is done: it ran now, or had landed before.
    pub fn landed(&self) -> bool {
        matches!(self, Outcome::Ran(..) | Outcome::Settled)
    }
}

/// Runs the shipped script `script` on the lock in `dir`, with `dir` and
/// `params` as its parameters, `check` first in every transaction (the
/// lock's layout, its stored settings).
///
/// A run whose commit the database could not tell about (it reports
/// `commit_unknown_result` and keeps no record of commits) is run
/// again, until its outcome is known or the engine's timeout has passed
/// since the first: a refusal then is [`Outcome::Settled`].
pub(crate) fn run<E>(
    engine: &Engine,
    script: &str,
    dir: &[String],
    params: &[(&str, ElemKind<'static>)],
    mut check: impl FnMut(&mut dyn Transaction) -> Result<(), E>,
) -> Result<Outcome, E>
where
    E: From<ExecError> + AsKvError,
{
    let began = Instant::now();
    let mut unknown = false;
    loop {
        match attempt(engine, script, dir, params, &mut check) {
            Ok(Outcome::Refused) if unknown => return Ok(Outcome::Settled),
            Err(e) if e.unknown() => {
                let timeout = engine.retry_options().timeout;
                if timeout.is_some_and(|t| began.elapsed() >= t) {
                    return Err(e.into_error());
                }
                unknown = true;
            }
            other => return other.map_err(Failed::into_error),
        }
    }
}

/// [`run`] without running the script again after an unknown result,
/// which is returned: for a script with no guard that would refuse a
/// second run.
pub(crate) fn run_once<E>(
    engine: &Engine,
    script: &str,
    dir: &[String],
    params: &[(&str, ElemKind<'static>)],
    mut check: impl FnMut(&mut dyn Transaction) -> Result<(), E>,
) -> Result<Outcome, E>
where
    E: From<ExecError> + AsKvError,
{
    attempt(engine, script, dir, params, &mut check).map_err(Failed::into_error)
}

/// Runs the read-only shipped script `script` on the lock in `dir`
/// inside `tx`, a transaction the caller runs: its rows.
pub(crate) fn read_in(
    engine: &Engine,
    tx: &mut dyn Transaction,
    script: &str,
    dir: &[String],
) -> Result<Vec<Output>, ExecError> {
    let plan = crate::plan::plan(checked(script), &params(dir, &[])).expect("shipped scripts plan");
    let mut rows = Vec::new();
    let mut bindings = Bindings::default();
    for steps in plan.transactions() {
        engine.run_in(tx, steps, &mut bindings, &mut |row| {
            rows.push(row);
            Ok(())
        })?;
    }
    Ok(rows)
}

/// The shipped script `name`, loaded and checked the first time it is
/// asked for, and kept for the process's life.
pub(crate) fn checked(name: &str) -> &'static Script<'static> {
    static CHECKED: [OnceLock<Script<'static>>; ALL.len()] = [const { OnceLock::new() }; ALL.len()];
    let at = ALL
        .iter()
        .position(|s| s.name == name)
        .unwrap_or_else(|| panic!("{name} ships with fql"));
    CHECKED[at].get_or_init(|| crate::check::load(ALL[at].source).expect("shipped scripts load"))
}

/// Why one run failed: the engine's error, which tells a refusal and an
/// unknown result, or the caller's check's.
enum Failed<E> {
    Exec(ExecError),
    Check(E),
}

impl<E: From<ExecError>> Failed<E> {
    /// Whether the run failed without knowing whether its commit landed.
    fn unknown(&self) -> bool
    where
        E: AsKvError,
    {
        matches!(self, Failed::Exec(ExecError::UnknownResult))
            || self
                .as_kv()
                .is_some_and(crate::kv::Error::is_maybe_committed)
    }

    fn into_error(self) -> E {
        match self {
            Failed::Exec(e) => e.into(),
            Failed::Check(e) => e,
        }
    }
}

impl<E> From<ExecError> for Failed<E> {
    fn from(e: ExecError) -> Failed<E> {
        Failed::Exec(e)
    }
}

impl<E: AsKvError> AsKvError for Failed<E> {
    fn as_kv(&self) -> Option<&crate::kv::Error> {
        match self {
            Failed::Exec(e) => e.as_kv(),
            Failed::Check(e) => e.as_kv(),
        }
    }
}

/// One run of a script: each of its transactions in the engine's retry
/// loop, `check` first in each.
fn attempt<E: AsKvError>(
    engine: &Engine,
    script: &str,
    dir: &[String],
    params: &[(&str, ElemKind<'static>)],
    check: &mut impl FnMut(&mut dyn Transaction) -> Result<(), E>,
) -> Result<Outcome, Failed<E>> {
    let plan = crate::plan::plan(checked(script), &self::params(dir, params))
        .expect("shipped scripts plan");
    let mut rows = Vec::new();
    let mut committed = Committed::default();
    let mut bindings = Bindings::default();
    for steps in plan.transactions() {
        let mut sink = |row: Output| {
            rows.push(row);
            Ok(())
        };
        let ran = engine.run_transaction_with(steps, &mut bindings, &mut sink, |tx| {
            check(tx).map_err(Failed::Check)
        });
        match ran {
            Ok(c) => committed = c,
            Err(Failed::Exec(ExecError::Guard { .. })) => return Ok(Outcome::Refused),
            Err(e) => return Err(e),
        }
    }
    Ok(Outcome::Ran(rows, committed))
}

/// A script's parameters: `dir`, then `params`.
fn params(dir: &[String], params: &[(&str, ElemKind<'static>)]) -> Params {
    let mut all = Params::new();
    all.insert("dir".into(), elem(dir_param(dir)).into());
    for (k, v) in params {
        all.insert(k.to_string(), v.clone().into());
    }
    all
}

/// The FQL value of a directory path: a tuple of names.
pub fn dir_param(dir: &[String]) -> ElemKind<'static> {
    ElemKind::Tuple(Box::new(Tuple {
        elems: dir
            .iter()
            .map(|n| elem(ElemKind::Str(n.clone().into())))
            .collect(),
        rest: None,
        span: Span::default(),
    }))
}

/// An element with no place in any text.
pub(crate) fn elem(kind: ElemKind<'static>) -> Elem<'static> {
    Elem {
        kind,
        span: Span::default(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::kv::Database;
    use crate::kv::embedded::Embedded;
    use crate::kv::faults::{FaultPlan, Faulty};
    use crate::syntax::ast::Int;

    /// `task/slot` for slot 1 of `/jobs`, as `name`: its guard refuses
    /// every client but the first.
    fn slot(db: Arc<dyn Database>, name: &str) -> Outcome {
        let params = [
            ("slot", ElemKind::Int(Int::Small(1))),
            ("name", ElemKind::Str(name.to_string().into())),
        ];
        let unchecked = |_: &mut dyn Transaction| Ok::<_, ExecError>(());
        run(
            &Engine::new(db),
            "task/slot",
            &["jobs".into()],
            &params,
            unchecked,
        )
        .unwrap()
    }

    #[test]
    fn a_guard_refuses_and_an_unknown_commit_is_settled() {
        let db: Arc<dyn Database> = Arc::new(Embedded::memory());
        assert!(matches!(slot(db.clone(), "ann"), Outcome::Ran(_, c) if c.versionstamp.is_some()));
        assert!(matches!(slot(db, "bob"), Outcome::Refused));
        // Every commit lands and is reported unknown, with no record to
        // look it up by: the second run is refused by what the first did.
        let plan = FaultPlan::parse("1021-applied:1;ids=off").unwrap();
        let faulty: Arc<dyn Database> = Arc::new(Faulty::new(Embedded::memory(), plan));
        assert!(matches!(slot(faulty, "ann"), Outcome::Settled));
    }

    #[test]
    fn each_script_is_checked_once() {
        assert!(std::ptr::eq(checked("mutex/show"), checked("mutex/show")));
        assert!(!std::ptr::eq(checked("mutex/show"), checked("rwlock/show")));
    }
}
