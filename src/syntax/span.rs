//! Byte ranges into the source text.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Range;

/// A byte range `start..end` into the text a node was parsed from.
///
/// Spans compare equal whatever their positions: two ASTs are equal when they
/// mean the same thing, so `parse(print(ast)) == ast` holds although printing
/// moves every node. Compare [`Span::range`] when positions matter.
#[derive(Clone, Copy, Default)]
pub struct Span {
    /// Offset of the first byte.
    pub start: u32,
    /// Offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// The span covering `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        debug_assert!(start <= end);
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// An empty span at `at`, for something that is missing there.
    pub fn at(at: usize) -> Span {
        Span::new(at, at)
    }

    /// The byte range, for slicing the source.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// Length in bytes.
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    /// Whether the span covers no byte.
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

impl Eq for Span {}

impl Hash for Span {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(span: Span) -> miette::SourceSpan {
        (span.start as usize, span.len()).into()
    }
}
