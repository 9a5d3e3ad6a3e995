//! Every lock under a directory, from one snapshot: `fql mutex list`.
//!
//! A directory is a lock of a kind when it passes that kind's layout
//! check (the one each of its operations makes) and holds at least one
//! key; [`KINDS`] lists the kinds tried, in order, so a new kind of lock
//! plugs in with its check and its state.

use crate::directory::DirectoryLayer;
use crate::exec::Engine;
use crate::kv::{DatabaseExt, Transaction};

use super::{Error, State, layout};

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
    Mutex(State),
}

impl Lock {
    /// The kind's name, as `list` prints it.
    pub fn kind(&self) -> &'static str {
        match self {
            Lock::Mutex(_) => "mutex",
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
}

const KINDS: &[Kind] = &[Kind::Mutex];

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
        match self {
            Kind::Mutex => match layout::layout().check(tx, layer, dir) {
                Ok(prefix) => {
                    let state = State::read_in(engine, tx, dir, prefix.is_some())?;
                    Ok((!state.is_empty()).then_some(Lock::Mutex(state)))
                }
                Err(Error::Foreign { .. }) => Ok(None),
                // A directory the layer cannot open as a mutex's (a
                // partition) is no lock; a database that fails is an error.
                Err(Error::Directory(e)) if crate::kv::AsKvError::as_kv(&e).is_none() => Ok(None),
                Err(e) => Err(e),
            },
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
                exists: layer.exists(tx, dir)?,
                ..Survey::default()
            };
            let now = tx.version_now()?;
            if survey.exists {
                walk(engine, tx, &layer, dir.to_vec(), &mut survey)?;
            }
            // One moment for every age, as one snapshot for every state.
            for listed in &mut survey.locks {
                let Lock::Mutex(state) = &mut listed.lock;
                state.version_now = now;
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
    let children = layer.list(tx, &dir)?;
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
