//! Reports against what the user typed, when the text that ran is the
//! shell's rewriting of it.
//!
//! The shell reads `users(1)` as `./users(1)`: it adds the `./` before
//! parsing, so every span the parser, the planner and the engine report
//! is an offset into the rewritten text. A report that showed that text
//! would quote a `./` the user never typed, and point one or two columns
//! off. [`Typed`] keeps the typed text and where the rewriting added
//! text; [`render`] and [`add`] move each label back onto the typed text
//! and show that instead.

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, SourceCode};

use fql::syntax::{Report, Sources};

/// The typed text and where its rewriting added text.
#[derive(Debug)]
pub struct Typed {
    typed: Arc<str>,
    rewritten: Arc<str>,
    /// Each added run of text: its offset in the rewritten text, and its
    /// length, in order.
    added: Vec<(usize, usize)>,
}

impl Typed {
    /// `typed` rewritten as `rewritten` by adding the runs `added` (each
    /// its offset in `rewritten` and its length, in order).
    pub fn new(typed: &str, rewritten: &str, added: Vec<(usize, usize)>) -> Typed {
        Typed {
            typed: typed.into(),
            rewritten: rewritten.into(),
            added,
        }
    }

    /// The offset in the typed text of offset `r` of the rewritten text;
    /// added text maps to where it was added.
    fn typed_offset(&self, r: usize) -> usize {
        let mut shift = 0;
        for &(at, len) in &self.added {
            if r < at {
                break;
            }
            if r < at + len {
                return at - shift;
            }
            shift += len;
        }
        r - shift
    }

    /// The typed counterpart of `piece`, a piece of the rewritten text
    /// (which starts at the start of a line), and the offset of its start
    /// in the rewritten text.
    fn piece(&self, piece: &Sources) -> (Sources, usize) {
        let (name, line) = piece.locate(0);
        let start = match line {
            1 => 0,
            n => self
                .rewritten
                .match_indices('\n')
                .nth(n - 2)
                .map_or(self.rewritten.len(), |(at, _)| at + 1),
        };
        let end = start + piece.text().len();
        let (from, to) = (self.typed_offset(start), self.typed_offset(end));
        let text = self.typed.get(from..to).unwrap_or_default();
        (Sources::part(name, text, line), start)
    }
}

/// Renders `error`, found in `piece`, against what was typed when
/// `typed` says the piece is a rewriting.
pub fn render(
    typed: Option<&Typed>,
    error: &dyn Diagnostic,
    piece: &Sources,
    color: bool,
    width: usize,
) -> String {
    match typed {
        None => fql::syntax::render(error, piece, color, width),
        Some(typed) => {
            let (shown, start) = typed.piece(piece);
            let moved = Moved::new(error, typed, start);
            fql::syntax::render(&moved, &shown, color, width)
        }
    }
}

/// [`Report::add`], against what was typed when `typed` says the piece
/// is a rewriting.
pub fn add<E: Diagnostic>(
    typed: Option<&Typed>,
    report: &mut Report,
    errors: &[E],
    piece: &Sources,
    color: bool,
    width: usize,
) -> String {
    match typed {
        None => report.add(errors, piece, color, width),
        Some(typed) => {
            let (shown, start) = typed.piece(piece);
            let moved: Vec<Moved<'_>> =
                errors.iter().map(|e| Moved::new(e, typed, start)).collect();
            report.add(&moved, &shown, color, width)
        }
    }
}

/// A diagnostic with its labels moved onto the typed text.
struct Moved<'a> {
    inner: &'a dyn Diagnostic,
    labels: Vec<LabeledSpan>,
}

impl<'a> Moved<'a> {
    /// `inner`, whose labels point into the piece of the rewritten text
    /// that starts at `start`.
    fn new(inner: &'a dyn Diagnostic, typed: &Typed, start: usize) -> Moved<'a> {
        let base = typed.typed_offset(start);
        let labels = inner
            .labels()
            .map(|labels| {
                labels
                    .map(|label| {
                        let from = typed.typed_offset(start + label.offset()) - base;
                        let to = typed.typed_offset(start + label.offset() + label.len()) - base;
                        let span = (from, to.saturating_sub(from));
                        let text = label.label().map(str::to_string);
                        match label.primary() {
                            true => LabeledSpan::new_primary_with_span(text, span),
                            false => LabeledSpan::new_with_span(text, span),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        Moved { inner, labels }
    }
}

impl fmt::Debug for Moved<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.inner, f)
    }
}

impl fmt::Display for Moved<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.inner, f)
    }
}

impl std::error::Error for Moved<'_> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source()
    }
}

impl Diagnostic for Moved<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.inner.code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.inner.severity()
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.inner.help()
    }
    fn url<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.inner.url()
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        None
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            return None;
        }
        Some(Box::new(self.labels.iter().cloned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_move_back_over_the_added_text() {
        // `users(1)\n(2)` rewritten as `./users(1)\n.(2)`.
        let typed = Typed::new("users(1)\n(2)", "./users(1)\n.(2)", vec![(0, 2), (11, 1)]);
        assert_eq!(typed.typed_offset(0), 0, "added text maps to where it went");
        assert_eq!(typed.typed_offset(1), 0);
        assert_eq!(typed.typed_offset(2), 0);
        assert_eq!(typed.typed_offset(8), 6);
        assert_eq!(typed.typed_offset(11), 9);
        assert_eq!(typed.typed_offset(12), 9);
        assert_eq!(typed.typed_offset(15), 12);
    }
}
