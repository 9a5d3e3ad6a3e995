//! Locks built from named scripts: the mutex, read-write locks and
//! semaphores, leader election, and the task lock.
//!
//! Every operation of every kind is one of the shipped scripts of
//! `src/scripts/` (`mutex/`, `rwlock/`, `task/`), run as one transaction
//! that reads what it checks; the clients here only sequence them and
//! wait. So the pieces are:
//!
//! - `runner`: the one way a client runs its scripts: each loaded and
//!   checked once per process, run with its parameters in the engine's
//!   retry loop, a refused guard a typed outcome, and a commit of unknown
//!   outcome settled by running the script again;
//! - [`Token`], [`Timing`], `stillness` (how long a heartbeat has stood
//!   still, on the judge's own clock) and `layout` (the keys a kind of
//!   lock may hold, from its schema script, checked in every
//!   transaction): shared by the kinds;
//! - the clients: [`mutex`] (byte for byte the layout of the Go client
//!   janderland/fdb-mutex, with fql's state beside it), [`rwlock`]
//!   (read-write locks and semaphores), [`election`] (a mutex under
//!   another name) and [`task`] (a state-transition lock with a lease);
//! - [`list()`]: every lock of every kind under a directory.
//!
//! `docs/mutex.md` describes the protocols.

pub mod election;
mod layout;
pub mod list;
pub mod mutex;
mod runner;
pub mod rwlock;
mod stillness;
pub mod task;
mod timing;
mod token;

pub use list::{Listed, Survey, list};
pub use runner::dir_param;
pub use timing::{Timing, Verdict, age_of, version_of};
pub use token::Token;
