//! Results as the engine finds them, and the sinks that take them.
//!
//! A range read decodes each row into elements that borrow the bytes it
//! read. A [`Found`] hands the row over as it is: a sink that prints it
//! ([`Found::write_to`]) copies nothing, and one that keeps it makes it an
//! owned [`Output`] ([`Found::into_output`]). A million-row read then
//! costs about what decoding and printing cost, not a million owned rows
//! made and dropped.

use std::fmt::{self, Display, Formatter};
use std::sync::Arc;

use crate::codec::{self, Scalar};
use crate::syntax::ast::Elem;

use super::matching::ReadValue;
use super::output::{Bytes, print_row};
use super::{DirPath, Error, Output, Part, Row};

/// One result, as a [`Sink`] receives it: borrowed from the read that
/// found it, or owned.
#[derive(Debug)]
pub struct Found<'a>(Inner<'a>);

#[derive(Debug)]
enum Inner<'a> {
    /// A key-value a read found: the directory, the decoded key, the value.
    Row(&'a Arc<DirPath>, &'a [Elem<'a>], &'a ReadValue<'a>),
    /// A key-value of scalars, read straight from its bytes: the key's
    /// elements, then the value.
    Scalars(&'a Arc<DirPath>, &'a [Scalar<'a>]),
    /// Boxed, so that dropping a borrowed result costs a test, not a call.
    Owned(Box<Output>),
}

// Results are handed down a few layers, by value: they are kept small.
const _: () = assert!(std::mem::size_of::<Found>() <= 40);

impl<'a> Found<'a> {
    /// A key-value as a read decoded it.
    pub(super) fn row(
        path: &'a Arc<DirPath>,
        key: &'a [Elem<'a>],
        value: &'a ReadValue<'a>,
    ) -> Self {
        Found(Inner::Row(path, key, value))
    }

    /// A key-value of scalars as a read found them: the key's elements,
    /// then the value.
    pub(super) fn scalars(path: &'a Arc<DirPath>, key_value: &'a [Scalar<'a>]) -> Self {
        debug_assert!(!key_value.is_empty());
        Found(Inner::Scalars(path, key_value))
    }

    /// Appends the result's canonical FQL to `out`, with no line break:
    /// the same text as `Display` and [`Output::write_to`], written
    /// straight from the decoded row.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let _ = self.print(&mut Bytes(out));
    }

    /// The result as an owned [`Output`], to keep or send elsewhere.
    pub fn into_output(self) -> Output {
        match self.0 {
            Inner::Row(path, key, value) => Output::KeyValue(Row {
                path: Arc::clone(path),
                key: key
                    .iter()
                    .map(|e| Part::Data(codec::to_owned(&e.kind)))
                    .collect(),
                rest: false,
                value: Some(value.to_owned()),
            }),
            Inner::Scalars(path, key_value) => {
                let owned = |s: &Scalar<'_>| Part::Data(codec::to_owned(&s.kind()));
                let (value, key) = key_value.split_last().expect("a value");
                Output::KeyValue(Row {
                    path: Arc::clone(path),
                    key: key.iter().map(owned).collect(),
                    rest: false,
                    value: Some((owned(value), None)),
                })
            }
            Inner::Owned(output) => *output,
        }
    }

    /// Whether this marks a read going on in a new transaction.
    pub(super) fn is_new_snapshot(&self) -> bool {
        matches!(&self.0, Inner::Owned(o) if matches!(**o, Output::NewSnapshot))
    }

    fn print(&self, w: &mut impl fmt::Write) -> fmt::Result {
        match &self.0 {
            Inner::Row(path, key, value) => {
                print_row(w, path, key, false, Some((*value, value.options())))
            }
            Inner::Scalars(path, key_value) => {
                let (value, key) = key_value.split_last().expect("a value");
                print_row(w, path, key, false, Some((value, None)))
            }
            Inner::Owned(output) => output.print(w),
        }
    }
}

impl From<Output> for Found<'_> {
    fn from(output: Output) -> Self {
        Found(Inner::Owned(Box::new(output)))
    }
}

impl Display for Found<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.print(f)
    }
}

/// Rows of scalars a range read found in one batch of its range, in key
/// order: each the key's elements, then the value.
///
/// A sink takes them together ([`Sink::take_batch`]), so that a read of a
/// million rows makes a call through each layer between the read and the
/// sink per batch, not per row.
pub struct Batch<'a> {
    path: &'a Arc<DirPath>,
    scalars: &'a [Scalar<'a>],
    /// Where each row ends in `scalars`.
    ends: std::slice::Iter<'a, u32>,
    start: usize,
}

impl<'a> Batch<'a> {
    pub(super) fn new(path: &'a Arc<DirPath>, scalars: &'a [Scalar<'a>], ends: &'a [u32]) -> Self {
        debug_assert_eq!(ends.last().map(|&e| e as usize), Some(scalars.len()));
        Batch {
            path,
            scalars,
            ends: ends.iter(),
            start: 0,
        }
    }
}

impl<'a> Iterator for Batch<'a> {
    type Item = Found<'a>;

    #[inline]
    fn next(&mut self) -> Option<Found<'a>> {
        let end = *self.ends.next()? as usize;
        let row = &self.scalars[self.start..end];
        self.start = end;
        Some(Found::scalars(self.path, row))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ends.size_hint()
    }
}

impl ExactSizeIterator for Batch<'_> {}

/// Where the engine hands its results, one at a time and in order.
///
/// A closure that takes an owned [`Output`] is a sink; a sink that prints
/// implements the trait itself, or wraps its closure in [`Each`], and
/// takes each result as found.
pub trait Sink {
    /// Takes one result. An error stops the run.
    fn take(&mut self, found: Found<'_>) -> Result<(), Error>;

    /// Takes several results, in order: the same as taking each, which is
    /// what it does. A sink that passes results on overrides it to pass
    /// the batch on whole.
    fn take_batch(&mut self, batch: Batch<'_>) -> Result<(), Error> {
        for found in batch {
            self.take(found)?;
        }
        Ok(())
    }
}

impl<F: FnMut(Output) -> Result<(), Error>> Sink for F {
    fn take(&mut self, found: Found<'_>) -> Result<(), Error> {
        self(found.into_output())
    }
}

/// A closure that takes results as found, as a [`Sink`]:
/// `Each(|found: Found<'_>| ...)`.
pub struct Each<F>(pub F);

impl<F: FnMut(Found<'_>) -> Result<(), Error>> Sink for Each<F> {
    fn take(&mut self, found: Found<'_>) -> Result<(), Error> {
        (self.0)(found)
    }
}
