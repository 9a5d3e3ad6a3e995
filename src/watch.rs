//! Watching a query's key-values as they change: what `fql watch` runs.
//!
//! FoundationDB watches one key at a time and has no watch on a range, so
//! a watch works in two ways, by what the query names:
//!
//! - **One key** (no hole in the directory or the tuple): a database watch
//!   on that key, armed in the transaction that reads it, present or not.
//!   Nothing is read again until the watch fires; then the key alone is
//!   read again, in the transaction that arms the next watch.
//! - **A range or a pattern**: the first read finds the matching keys and
//!   arms a watch on each (up to [`Options::max_watches`]). A change to a
//!   watched key reads that key alone again. A key that was not there has
//!   no watch to fire, so the query is read again in full, on a timer that
//!   starts at [`Options::poll`] and doubles while nothing changes, up to
//!   [`Options::poll_max`]; any change sets it back. That re-read also
//!   catches what a watch cannot see: keys past the bound on watches, a
//!   change and its undoing between two reads.
//!
//! A watch fires when the key's value differs from the one its
//! transaction read; it may also fire with the value unchanged (FDB
//! allows it): the read that follows then finds nothing new and reports
//! nothing. Between the watch firing and that read, the key may change
//! more than once; only the value the read finds is reported.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::{Duration, Instant};
//! use fql::exec::Engine;
//! use fql::kv::embedded::Embedded;
//! use fql::watch::{Ended, Event, Options, watch};
//!
//! let engine = Engine::new(Arc::new(Embedded::memory()));
//! engine.run_text("/app/k(1)=\"a\"", &Default::default(), &mut |_| Ok(())).unwrap();
//! let options = Options {
//!     until: Some(Instant::now() + Duration::from_millis(50)),
//!     ..Options::default()
//! };
//! let mut seen = Vec::new();
//! let ended = watch(&engine, "/app/k(<int>)", &Default::default(), &Default::default(),
//!     options, &|| false, &mut |e: Event| Ok::<_, fql::watch::Error>(seen.push(e.to_string())));
//! assert_eq!(ended.unwrap(), Ended::Time);
//! assert_eq!(seen, ["/app/k(1)=\"a\""]);
//! ```

mod state;
pub(crate) mod wait;

use std::fmt::{self, Display, Formatter};
use std::time::{Duration, Instant};

use crate::exec::{self, Engine, Output};
use crate::plan::{Params, Root};

use state::State;

/// What a watch reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A key-value the first read found.
    Found(Output),
    /// A key-value written since: a new key, or a new value.
    Set(Output),
    /// A key cleared since: the key alone, with no value.
    Clear(Output),
}

impl Event {
    /// The key-value, or for a clear the key.
    pub fn output(&self) -> &Output {
        match self {
            Event::Found(o) | Event::Set(o) | Event::Clear(o) => o,
        }
    }

    /// `found`, `set` or `clear`: how JSON lines name the event.
    pub fn name(&self) -> &'static str {
        match self {
            Event::Found(_) => "found",
            Event::Set(_) => "set",
            Event::Clear(_) => "clear",
        }
    }
}

/// Canonical FQL that does what happened: a clear prints as the statement
/// that clears the key, `/app/k(1)=clear`.
impl Display for Event {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Event::Found(o) | Event::Set(o) => o.fmt(f),
            Event::Clear(o) => write!(f, "{o}=clear"),
        }
    }
}

/// How long a watch runs and how it looks for new keys.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Stop after this many changes (the first read's key-values are not
    /// changes).
    pub count: Option<u64>,
    /// Stop at this instant.
    pub until: Option<Instant>,
    /// The first wait before a range is read again for new keys.
    pub poll: Duration,
    /// The longest wait between two such reads.
    pub poll_max: Duration,
    /// The most keys watched at once; FDB allows 10,000 outstanding
    /// watches per database (`too_many_watches`), shared by everything
    /// the process watches.
    pub max_watches: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            count: None,
            until: None,
            poll: Duration::from_millis(100),
            poll_max: Duration::from_secs(2),
            max_watches: 1000,
        }
    }
}

/// Why a watch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// It reported the changes [`Options::count`] asked for.
    Count,
    /// [`Options::until`] came.
    Time,
    /// The caller's `stop` said so.
    Stopped,
}

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The text is not one query that reads key-values.
    #[error("{0}")]
    Invalid(String),
    /// A read failed.
    #[error(transparent)]
    Exec(#[from] exec::Error),
}

impl From<crate::kv::Error> for Error {
    fn from(e: crate::kv::Error) -> Error {
        Error::Exec(e.into())
    }
}

impl crate::kv::AsKvError for Error {
    fn as_kv(&self) -> Option<&crate::kv::Error> {
        match self {
            Error::Exec(e) => e.as_kv(),
            Error::Invalid(_) => None,
        }
    }
}

/// Watches the key-values `text` reads: hands `sink` each one the first
/// read finds, then each change, until `options` or `stop` ends it.
/// `stop` is asked at least every 100 ms, so no wait outlives it by more.
pub fn watch<E: From<Error>>(
    engine: &Engine,
    text: &str,
    params: &Params,
    root: &Root,
    options: Options,
    stop: &dyn Fn() -> bool,
    sink: &mut dyn FnMut(Event) -> Result<(), E>,
) -> Result<Ended, E> {
    let mut state = State::new(engine, text, params, root, options)?;
    for event in state.first_read()? {
        sink(Event::Found(event))?;
    }
    let mut changes = 0;
    loop {
        if let Some(ended) = ended(&options, changes, stop) {
            return Ok(ended);
        }
        for event in state.next_changes(stop)? {
            changes += 1;
            sink(event)?;
            if options.count.is_some_and(|c| changes >= c) {
                return Ok(Ended::Count);
            }
        }
    }
}

/// Whether the watch is over before its next wait.
fn ended(options: &Options, changes: u64, stop: &dyn Fn() -> bool) -> Option<Ended> {
    if options.count.is_some_and(|c| changes >= c) {
        Some(Ended::Count)
    } else if stop() {
        Some(Ended::Stopped)
    } else if options.until.is_some_and(|u| Instant::now() >= u) {
        Some(Ended::Time)
    } else {
        None
    }
}
