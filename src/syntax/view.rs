//! What a report shows of its source: the lines its labels point into,
//! made safe and short for a terminal.
//!
//! miette prints the lines around each label as they are. Two kinds of
//! line must not reach a terminal that way: one holding a control
//! character (the error may be about that very character, or it quotes
//! stored data), which a terminal would act on, and a very long line,
//! which would print whole once per error (a one-megabyte line with many
//! errors printed fifty megabytes). A [`View`] is the text miette is
//! given instead: only the lines the labels need, each control character
//! written as its `\xNN` escapes, and a long line cut to a window around
//! each place a label starts or ends, with `…` for what is left out. The
//! labels are moved to the same characters in the view, so they still
//! point at the right text, and the line and column in each report's
//! header are those of the source.

use std::ops::Range;

use miette::{LabeledSpan, MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use super::sources::Sources;
use super::words::{control_len, hex_escapes, printable};

/// Lines of up to this many characters are shown whole.
const WHOLE_LINE: usize = 120;
/// How many characters a long line shows on each side of a place a label
/// starts or ends.
const MARGIN: usize = 40;
/// A label over more lines than this is shown on its first line only.
const LABEL_LINES: usize = 8;
/// What stands for the text a long line leaves out.
const ELLIPSIS: &str = "…";

/// The text a report shows, and how it maps to the source.
pub(super) struct View {
    text: String,
    /// Runs of consecutive source lines, in source order.
    blocks: Vec<Block>,
}

/// Consecutive lines of one input.
struct Block {
    /// The input, by its place in the sources.
    piece: usize,
    name: String,
    /// Its bytes in the view's text.
    range: Range<usize>,
    /// The number, from 0, of its first line in its input.
    first_line: usize,
    lines: Vec<Line>,
}

/// One line: where it starts in the source and in the view, and the
/// pieces it is shown as, its line break last.
struct Line {
    orig_start: usize,
    view_start: usize,
    segs: Vec<Seg>,
}

/// A piece of a line: text shown as it is, or text shown as something
/// else (an escape, `…`, a line break).
struct Seg {
    orig: Range<usize>,
    view: Range<usize>,
    verbatim: bool,
}

impl View {
    /// The view of `sources` for `labels`, and the labels moved into it.
    pub(super) fn new(sources: &Sources, labels: &[LabeledSpan]) -> (View, Vec<LabeledSpan>) {
        let mut wanted = Vec::new();
        let mut points = Vec::new();
        let clipped: Vec<(&LabeledSpan, usize, usize)> = labels
            .iter()
            .map(|label| {
                let (start, end) = label_lines(sources, label, &mut wanted);
                points.extend([start, end]);
                (label, start, end)
            })
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        points.sort_unstable();
        let mut view = View {
            text: String::new(),
            blocks: Vec::new(),
        };
        for &wanted in &wanted {
            view.add_line(sources, wanted, &points);
        }
        let moved = clipped
            .into_iter()
            .map(|(label, start, end)| view.move_label(label, start, end))
            .collect();
        (view, moved)
    }

    /// Appends a wanted line, in a new block unless it follows the last
    /// block's last line.
    fn add_line(&mut self, sources: &Sources, wanted: Wanted, points: &[usize]) {
        let (start, number, piece) = wanted;
        let (name, input, _) = sources.piece_at(piece);
        let follows = self
            .blocks
            .last()
            .is_some_and(|b| b.piece == piece && b.first_line + b.lines.len() == number);
        if !follows {
            // A line feed of no block's keeps the end of one block
            // apart from the start of the next.
            if !self.blocks.is_empty() {
                self.text.push('\n');
            }
            let at = self.text.len();
            self.blocks.push(Block {
                piece,
                name: name.to_string(),
                range: at..at,
                first_line: number,
                lines: Vec::new(),
            });
        }
        let text = sources.text();
        let line = line_at(text, &input, start);
        let shown = self.line(text, &input, line, points);
        let block = self.blocks.last_mut().expect("a block");
        block.lines.push(shown);
        block.range.end = self.text.len();
    }

    /// A label over the source bytes `start..end`, over the same text in
    /// the view, its message made printable.
    fn move_label(&self, label: &LabeledSpan, start: usize, end: usize) -> LabeledSpan {
        let start_v = self.to_view(start, false);
        let end_v = self.to_view(end, true).max(start_v);
        let span = SourceSpan::new(start_v.into(), end_v - start_v);
        let text = label.label().map(|l| printable(l).into_owned());
        if label.primary() {
            LabeledSpan::new_primary_with_span(text, span)
        } else {
            LabeledSpan::new_with_span(text, span)
        }
    }

    /// Appends the line `line` of `input`, cut around `points` if it is
    /// long, with its line break.
    fn line(
        &mut self,
        text: &str,
        input: &Range<usize>,
        line: Range<usize>,
        points: &[usize],
    ) -> Line {
        let view_start = self.text.len();
        let mut shown = Line {
            orig_start: line.start,
            view_start,
            segs: Vec::new(),
        };
        // A byte-order mark that starts the input is not shown, and
        // columns count from after it.
        let mut line = line;
        if line.start == input.start && text[line.clone()].starts_with('\u{feff}') {
            let bom = line.start..line.start + '\u{feff}'.len_utf8();
            self.push(&mut shown, bom.clone(), "", false);
            line.start = bom.end;
            shown.orig_start = bom.end;
        }
        let body = &text[line.clone()];
        let windows = if body.len() <= WHOLE_LINE || body.chars().nth(WHOLE_LINE).is_none() {
            vec![line.clone()]
        } else {
            windows(text, &line, points)
        };
        let mut at = line.start;
        for w in windows {
            if w.start > at {
                self.push(&mut shown, at..w.start, ELLIPSIS, false);
            }
            self.shown(&mut shown, text, w.clone(), points);
            at = w.end;
        }
        if at < line.end {
            self.push(&mut shown, at..line.end, ELLIPSIS, false);
        }
        if shown.segs.is_empty() {
            self.push(&mut shown, line.start..line.start, "", true);
        }
        // The line break, if there is one, as a plain line feed.
        let rest = &text.as_bytes()[line.end..input.end];
        let brk = match rest {
            [b'\n', ..] => 1,
            [b'\r', b'\n', ..] => 2,
            _ => 0,
        };
        if brk > 0 {
            self.push(&mut shown, line.end..line.end + brk, "\n", false);
        }
        shown
    }

    /// Appends `range` of the source, each control character as its
    /// escapes; a tab only where a label starts or ends, since a tab
    /// shows as spaces.
    fn shown(&mut self, line: &mut Line, text: &str, range: Range<usize>, points: &[usize]) {
        let bytes = text.as_bytes();
        let mut start = range.start;
        let mut n = range.start;
        while n < range.end {
            match control_len(&bytes[n..range.end]) {
                Some(len) if bytes[n] != b'\t' || points.binary_search(&n).is_ok() => {
                    if start < n {
                        self.push(line, start..n, &text[start..n], true);
                    }
                    self.push(line, n..n + len, &hex_escapes(&bytes[n..n + len]), false);
                    n += len;
                    start = n;
                }
                _ => n += 1,
            }
        }
        if start < range.end {
            self.push(line, start..range.end, &text[start..range.end], true);
        }
    }

    fn push(&mut self, line: &mut Line, orig: Range<usize>, shown: &str, verbatim: bool) {
        let at = self.text.len();
        self.text.push_str(shown);
        line.segs.push(Seg {
            orig,
            view: at..self.text.len(),
            verbatim,
        });
    }

    /// Where source offset `o` is in the view: in text left out, at the
    /// start of what stands for it, or at its end for the end of a span.
    fn to_view(&self, o: usize, is_end: bool) -> usize {
        let lines = self.blocks.iter().flat_map(|b| &b.lines);
        let Some(line) = lines.take_while(|l| l.orig_start <= o).last() else {
            return 0;
        };
        let n = line
            .segs
            .partition_point(|s| s.orig.end <= o && !s.orig.is_empty());
        let seg = match line.segs.get(n) {
            Some(seg) => seg,
            None => return line.segs.last().map_or(line.view_start, |s| s.view.end),
        };
        if o < seg.orig.start {
            seg.view.start
        } else if seg.verbatim {
            seg.view.start + (o - seg.orig.start)
        } else if is_end && o > seg.orig.start {
            seg.view.end
        } else {
            seg.view.start
        }
    }

    /// The column, in bytes from 0, in the source of what view offset `v`
    /// shows.
    fn column(&self, v: usize) -> usize {
        let lines = self.blocks.iter().flat_map(|b| &b.lines);
        let Some(line) = lines.take_while(|l| l.view_start <= v).last() else {
            return 0;
        };
        let orig = line.segs.iter().find(|s| v < s.view.end).map_or(
            line.segs.last().map_or(line.orig_start, |s| s.orig.end),
            |s| {
                if s.verbatim {
                    s.orig.start + (v - s.view.start)
                } else {
                    s.orig.start
                }
            },
        );
        orig - line.orig_start
    }
}

/// A line a report shows: its start in the source, its number in its
/// input (from 0), and the input's place in the sources.
type Wanted = (usize, usize, usize);

/// The lines `label` needs, added to `wanted`: its own lines and one on
/// each side. Returns the label's bytes, clipped to its input and to whole
/// characters, and to its first line if it covers more than
/// [`LABEL_LINES`].
fn label_lines(sources: &Sources, label: &LabeledSpan, wanted: &mut Vec<Wanted>) -> (usize, usize) {
    let text = sources.text();
    let (n, input) = sources.piece_index(label.offset());
    let (start, mut end) = clip(text, &input, label);
    let first = line_at(text, &input, start);
    let mut last = line_at(text, &input, if end > start { end - 1 } else { start });
    if memchr::memchr_iter(b'\n', &text.as_bytes()[first.start..last.start]).count() >= LABEL_LINES
    {
        end = first.end;
        last = first.clone();
    }
    let mut number = sources.piece_at(n).2 + line_number(text, &input, first.start);
    // The line before, the label's lines, the line after.
    let mut line = first;
    if line.start > input.start {
        let before = line_at(text, &input, line.start - 1);
        wanted.push((before.start, number - 1, n));
    }
    loop {
        wanted.push((line.start, number, n));
        let done = line.start >= last.start;
        match next_line(text, &input, &line) {
            Some(next) => {
                line = next;
                number += 1;
            }
            None => break,
        }
        if done {
            wanted.push((line.start, number, n));
            break;
        }
    }
    (start, end)
}

/// A label's bytes within its input, on character boundaries.
fn clip(text: &str, input: &Range<usize>, label: &LabeledSpan) -> (usize, usize) {
    let mut start = floor(text, label.offset().clamp(input.start, input.end));
    // The end of an input after its last line break has no line
    // to show: point at that line break instead.
    if start == input.end && text[input.clone()].ends_with('\n') {
        start -= if text[input.clone()].ends_with("\r\n") {
            2
        } else {
            1
        };
    }
    let end = if label.is_empty() {
        start
    } else {
        floor(text, (label.offset() + label.len()).clamp(start, input.end))
    };
    (start, end)
}

/// The parts of a long line to show: a window around each point on it,
/// or its start if none is; overlapping windows are joined.
fn windows(text: &str, line: &Range<usize>, points: &[usize]) -> Vec<Range<usize>> {
    let on_line: Vec<usize> = points
        .iter()
        .copied()
        .filter(|p| line.contains(p) || *p == line.end)
        .collect();
    let anchors = if on_line.is_empty() {
        vec![line.start]
    } else {
        on_line
    };
    let mut out: Vec<Range<usize>> = Vec::new();
    for p in anchors {
        let back = text[line.start..p]
            .char_indices()
            .rev()
            .nth(MARGIN - 1)
            .map_or(line.start, |(k, _)| line.start + k);
        let ahead = text[p..line.end]
            .char_indices()
            .nth(MARGIN)
            .map_or(line.end, |(k, _)| p + k);
        match out.last_mut() {
            Some(last) if back <= last.end => last.end = last.end.max(ahead),
            _ => out.push(back..ahead),
        }
    }
    out
}

/// `o`, or the start of the character it falls inside: a label from
/// another text must not split a character.
fn floor(text: &str, mut o: usize) -> usize {
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    o
}

/// The line of `input` holding offset `o`, without its line break.
fn line_at(text: &str, input: &Range<usize>, o: usize) -> Range<usize> {
    let bytes = &text.as_bytes()[input.clone()];
    let local = o - input.start;
    let start = memchr::memrchr(b'\n', &bytes[..local]).map_or(0, |n| n + 1);
    let end = memchr::memchr(b'\n', &bytes[local..]).map_or(bytes.len(), |n| local + n);
    let end = if end > start && bytes[end - 1] == b'\r' && end < bytes.len() {
        end - 1
    } else {
        end
    };
    input.start + start..input.start + end
}

/// The line after `line`, if there is one.
fn next_line(text: &str, input: &Range<usize>, line: &Range<usize>) -> Option<Range<usize>> {
    let after = memchr::memchr(b'\n', &text.as_bytes()[line.end..input.end])?;
    Some(line_at(text, input, line.end + after + 1))
}

/// The number, from 0, of the line starting at `start`.
fn line_number(text: &str, input: &Range<usize>, start: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[input.start..start]).count()
}

impl SourceCode for View {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let offset = span.offset();
        let block = self
            .blocks
            .iter()
            .find(|b| b.range.start <= offset && offset <= b.range.end)
            .ok_or(MietteError::OutOfBounds)?;
        // A span across two blocks would join lines that are not
        // neighbours; miette then shows the labels apart.
        if offset + span.len() > block.range.end {
            return Err(MietteError::OutOfBounds);
        }
        let text = &self.text[block.range.clone()];
        let local = SourceSpan::new((offset - block.range.start).into(), span.len());
        let contents = text.read_span(&local, context_lines_before, context_lines_after)?;
        let at = contents.span();
        let data = contents.data();
        let start = at.offset() + block.range.start;
        let column = if context_lines_before == 0 {
            self.column(start)
        } else {
            0
        };
        Ok(Box::new(MietteSpanContents::new_named(
            block.name.clone(),
            data,
            SourceSpan::new(start.into(), at.len()),
            block.first_line + contents.line(),
            column,
            memchr::memchr_iter(b'\n', data).count(),
        )))
    }
}
