//! Dumps of directory subtrees as FQL scripts, and loads of them back.
//!
//! A dump is FQL text: each key-value a statement that writes it
//! (`/app/users(42)="ann"`), one to a line, so `fql -w -f` replays it. What
//! FQL statements cannot say is written as comment lines that start with a
//! word the loader reads, and that any other reader skips:
//!
//! ```text
//! % fql dump 1                     the format, always the first line
//! % root /app                      a directory dumped, one line each
//! % read version 4711              the snapshot the lines below were read at
//! % directory /app                 a directory, created where it is met
//! % layer "mylayer" /app/tagged    a directory with a layer
//! /app/users(42)="ann"             a key-value
//! % raw 0x01ff=0x02                a key under the last directory that is no tuple
//! @commit                          every 10,000 key-values or 1 MB, for `fql -w -f`
//! % end 2                          the key-values written; a dump cut short has none
//! ```
//!
//! Keys and values are written so that the loader writes back the same
//! bytes: a key whose rest is no tuple, or a tuple that packs to other
//! bytes (the long form of ±(2^64−1)), is a raw line relative to its
//! directory's prefix, so it lands under the prefix the target has; a
//! value that does not pack back to itself is written as its bytes.
//!
//! [`dump`] reads every directory in one transaction where it can; when a
//! read outlives the transaction's five seconds, it goes on in a new one
//! and says so with another `% read version` line. [`load`] writes in
//! transactions of a bounded size, and reports each commit with the last
//! line it holds, the point a later load resumes after. Writes are sets,
//! so a transaction written again writes the same bytes.

mod error;
mod format;
mod load;
mod write;

pub use error::Error;
pub use format::MAGIC;
pub use load::{Checked, LoadOptions, Loaded, check, load};
pub use write::{Dumped, dump, dump_all};
