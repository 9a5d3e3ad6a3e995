//! Every lock under a directory, from one snapshot: `fql mutex list`.
//!
//! A directory is a lock of a kind when it passes that kind's layout
//! check (the one each of its operations makes) and holds at least one
//! key; `KINDS` lists the kinds tried, in order, so a new kind of lock
//! plugs in with its check and its state. It lives beside the kinds,
//! because it knows every kind: none of them knows the others.

use crate::directory::DirectoryLayer;
use crate::exec::Engine;
use crate::kv::{DatabaseExt, Transaction};

use super::layout::{self, Schema};
use super::mutex;
use super::rwlock::{self, Error, State};

/// A lock found under the directory listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// Its directory.
    pub path: Vec<String>,
    /// What it holds.
    pub lock: Lock,
}

/// A lock's state, by kind.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lock {
    /// A mutex.
    Mutex(mutex::State),
    /// A read-write lock.
    ReadWrite(State),
    /// A semaphore.
    Semaphore(State),
}

impl Lock {
    /// The kind's name, as `list` prints it (and `show --format json`).
    pub fn kind(&self) -> &'static str {
        match self {
            Lock::Mutex(_) => "mutex",
            Lock::ReadWrite(_) => "rwlock",
            Lock::Semaphore(_) => "semaphore",
        }
    }

    /// Measures its ages against `now`, the moment of the listing.
    fn at(&mut self, now: u64) {
        match self {
            Lock::Mutex(state) => state.version_now = now,
            Lock::ReadWrite(state) | Lock::Semaphore(state) => state.version_now = now,
        }
    }
}

/// What one snapshot of a subtree holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Survey {
    /// The locks, in directory order (a parent before its children).
    pub locks: Vec<Listed>,
    /// How many directories of the subtree are no lock.
    pub others: usize,
    /// The version the snapshot was read at.
    pub read_version: u64,
    /// Whether the directory listed exists.
    pub exists: bool,
}

/// The kinds of lock `list` recognises.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Mutex,
    /// A read-write lock or a semaphore: one layout, told apart by the
    /// kind it stores.
    Kinded,
}

const KINDS: &[Kind] = &[Kind::Mutex, Kind::Kinded];

impl Kind {
    /// The lock of this kind in `dir`, if `dir` is one: its layout check
    /// passes and it holds something.
    fn recognise(
        self,
        engine: &Engine,
        tx: &mut dyn Transaction,
        layer: &DirectoryLayer,
        dir: &[String],
    ) -> Result<Option<Lock>, Error> {
        let checked = match self {
            Kind::Mutex => match layout::of(Schema::Mutex).check(tx, layer, dir) {
                Ok(prefix) => mutex::State::read_in(engine, tx, dir, prefix.is_some())
                    .map(|state| (!state.is_empty()).then_some(Lock::Mutex(state)))
                    .map_err(Error::from),
                Err(e) => Err(Error::from(e)),
            },
            Kind::Kinded => rwlock::inspect_in(tx, layer, dir).map(|state| {
                state.map(|state| match state.kind {
                    rwlock::Kind::ReadWrite => Lock::ReadWrite(state),
                    rwlock::Kind::Semaphore(_) => Lock::Semaphore(state),
                })
            }),
        };
        match checked {
            Err(Error::Foreign { .. }) => Ok(None),
            // A directory the layer cannot open as a lock's (a partition)
            // is no lock; a database that fails is an error.
            Err(Error::Mutex(mutex::Error::Directory(e)))
                if crate::kv::AsKvError::as_kv(&e).is_none() =>
            {
                Ok(None)
            }
            checked => checked,
        }
    }
}

/// Every lock in `dir` and under it, in one transaction. A subtree too
/// large to read within a transaction's five seconds fails with
/// `transaction_too_old`.
pub fn list(engine: &Engine, dir: &[String]) -> Result<Survey, Error> {
    let layer = DirectoryLayer::new();
    let (survey, _) = engine
        .database()
        .run_with(engine.retry_options(), |tx, _| {
            let mut survey = Survey {
                read_version: tx.read_version()?,
                exists: layer.exists(tx, dir).map_err(mutex::Error::from)?,
                ..Survey::default()
            };
            let now = tx.version_now()?;
            if survey.exists {
                walk(engine, tx, &layer, dir.to_vec(), &mut survey)?;
            }
            // One moment for every age, as one snapshot for every state.
            for listed in &mut survey.locks {
                listed.lock.at(now);
            }
            Ok::<_, Error>(survey)
        })?;
    Ok(survey)
}

/// Looks at `dir` and then, depth first, at each directory under it.
fn walk(
    engine: &Engine,
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    dir: Vec<String>,
    survey: &mut Survey,
) -> Result<(), Error> {
    let mut lock = None;
    // The root is no lock: it holds every directory.
    for kind in KINDS.iter().filter(|_| !dir.is_empty()) {
        lock = kind.recognise(engine, tx, layer, &dir)?;
        if lock.is_some() {
            break;
        }
    }
    let children = layer.list(tx, &dir).map_err(mutex::Error::from)?;
    match lock {
        Some(lock) => survey.locks.push(Listed {
            path: dir.clone(),
            lock,
        }),
        None if !dir.is_empty() => survey.others += 1,
        None => {}
    }
    for child in children {
        let mut path = dir.clone();
        path.push(child);
        walk(engine, tx, layer, path, survey)?;
    }
    Ok(())
}
