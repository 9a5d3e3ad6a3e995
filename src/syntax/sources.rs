//! The text of a script for reports: its inputs, each with its name and
//! its own line numbers.

use std::sync::Arc;

/// The text of a script made of several inputs (`fql -q ... -f ...`, a
/// REPL line), each with its own name, or of a piece of one input.
///
/// The script is parsed as one text, so spans are offsets into the whole;
/// a report shows the input a span falls in, under that input's name and
/// with its own line numbers. A piece of a larger input (one transaction
/// of a script read a transaction at a time) counts its lines from where
/// it starts in that input.
#[derive(Clone, Debug)]
pub struct Sources {
    text: Arc<str>,
    /// Each input's name and byte range in `text`, in order.
    pieces: Arc<[Piece]>,
}

#[derive(Clone, Debug)]
struct Piece {
    name: String,
    range: std::ops::Range<usize>,
    /// How many lines of the input come before the piece.
    lines_before: usize,
}

impl Sources {
    /// One input.
    pub fn single(name: impl Into<String>, text: impl Into<Arc<str>>) -> Sources {
        Sources::part(name, text, 1)
    }

    /// A piece of an input that starts at the start of its line `line`
    /// (from 1): reports give that input's lines.
    pub fn part(name: impl Into<String>, text: impl Into<Arc<str>>, line: usize) -> Sources {
        let text = text.into();
        let pieces = [Piece {
            name: name.into(),
            range: 0..text.len(),
            lines_before: line.saturating_sub(1),
        }]
        .into();
        Sources { text, pieces }
    }

    /// Several inputs joined by `separator`, which belongs to none of them.
    /// A byte-order mark that starts an input is left out: the parser
    /// allows one only at the start of the whole text.
    pub fn joined<N: Into<String>, T: AsRef<str>>(
        inputs: impl IntoIterator<Item = (N, T)>,
        separator: &str,
    ) -> Sources {
        let mut text = String::new();
        let mut pieces = Vec::new();
        for (n, (name, input)) in inputs.into_iter().enumerate() {
            if n > 0 {
                text.push_str(separator);
            }
            let start = text.len();
            let input = input.as_ref();
            text.push_str(input.strip_prefix('\u{feff}').unwrap_or(input));
            pieces.push(Piece {
                name: name.into(),
                range: start..text.len(),
                lines_before: 0,
            });
        }
        Sources {
            text: text.into(),
            pieces: pieces.into(),
        }
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The inputs' names and ranges in [`Sources::text`].
    pub fn pieces(&self) -> impl Iterator<Item = (&str, std::ops::Range<usize>)> {
        self.pieces
            .iter()
            .map(|p| (p.name.as_str(), p.range.clone()))
    }

    /// The input an offset falls in: the last that starts at or before it,
    /// so an offset just past an input's end (an unclosed `(` at the end
    /// of a query) stays with that input.
    fn piece(&self, offset: usize) -> &Piece {
        &self.pieces[self.piece_index(offset).0]
    }

    /// [`Sources::piece`] by its place, with its range.
    pub(super) fn piece_index(&self, offset: usize) -> (usize, std::ops::Range<usize>) {
        let n = self
            .pieces
            .partition_point(|p| p.range.start <= offset)
            .saturating_sub(1);
        (n, self.pieces[n].range.clone())
    }

    /// The input at place `n` of [`Sources::pieces`]: its name, its range,
    /// and how many of its lines come before its text here.
    pub(super) fn piece_at(&self, n: usize) -> (&str, std::ops::Range<usize>, usize) {
        let piece = &self.pieces[n];
        (&piece.name, piece.range.clone(), piece.lines_before)
    }

    /// The name of the input `offset` falls in, and its line there (from 1).
    pub fn locate(&self, offset: usize) -> (&str, usize) {
        let piece = self.piece(offset);
        let range = &piece.range;
        let end = offset.clamp(range.start, range.end);
        let line = self.text[range.start..end].matches('\n').count() + 1;
        (&piece.name, piece.lines_before + line)
    }

    /// A name for all the inputs: the one name, or how many there are.
    pub fn name(&self) -> String {
        match &*self.pieces {
            [piece] => piece.name.clone(),
            pieces => format!("{} inputs", pieces.len()),
        }
    }
}
