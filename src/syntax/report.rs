//! Rendering errors for people: miette's graphical reports, with the source
//! text they point into.

use std::fmt;
use std::sync::Arc;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};

use super::error::Error;

/// How many errors are rendered in full. Each report locates its lines from
/// the start of the source, so rendering all of a huge broken file would
/// take time quadratic in its size; past this many the rest are counted.
pub const SHOWN: usize = 50;

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
            text.push_str(input.as_ref());
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
        let n = self.pieces.partition_point(|p| p.range.start <= offset);
        &self.pieces[n.saturating_sub(1)]
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

impl SourceCode for Sources {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let Piece {
            name,
            range,
            lines_before,
        } = self.piece(span.offset());
        let input = &self.text[range.clone()];
        let start = span.offset().clamp(range.start, range.end) - range.start;
        let len = span.len().min(input.len() - start);
        let local = SourceSpan::new(start.into(), len);
        let contents = input.read_span(&local, context_lines_before, context_lines_after)?;
        let at = contents.span();
        Ok(Box::new(MietteSpanContents::new_named(
            name.clone(),
            contents.data(),
            SourceSpan::new((at.offset() + range.start).into(), at.len()),
            lines_before + contents.line(),
            contents.column(),
            contents.line_count(),
        )))
    }
}

/// Renders one report with the source it points into; `width` is the
/// terminal width.
pub fn render(diagnostic: &dyn Diagnostic, sources: &Sources, color: bool, width: usize) -> String {
    let mut out = String::new();
    render_into(&mut out, diagnostic, sources, color, width);
    out
}

fn render_into(
    out: &mut String,
    diagnostic: &dyn Diagnostic,
    sources: &Sources,
    color: bool,
    width: usize,
) {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(width);
    let with_source = WithSource {
        inner: diagnostic,
        sources,
    };
    handler
        .render_report(out, &with_source)
        .expect("writing to a String");
}

/// A diagnostic shown with the script it came from.
struct WithSource<'a> {
    inner: &'a dyn Diagnostic,
    sources: &'a Sources,
}

impl fmt::Debug for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.inner, f)
    }
}

impl fmt::Display for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.inner, f)
    }
}

impl std::error::Error for WithSource<'_> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source()
    }
}

impl Diagnostic for WithSource<'_> {
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
        Some(self.sources)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.inner.labels()
    }
    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn Diagnostic> + 'b>> {
        self.inner.related()
    }
    fn diagnostic_source(&self) -> Option<&dyn Diagnostic> {
        self.inner.diagnostic_source()
    }
}

/// The errors of one source text, ready to render.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    sources: Sources,
    errors: Vec<Error>,
}

impl Diagnostics {
    /// The errors of `source`, which messages call `name` (a file path, or
    /// `<stdin>`).
    pub fn new(
        name: impl Into<String>,
        source: impl Into<Arc<str>>,
        errors: Vec<Error>,
    ) -> Diagnostics {
        Diagnostics::of(Sources::single(name, source), errors)
    }

    /// The errors of a script made of several inputs.
    pub fn of(sources: Sources, errors: Vec<Error>) -> Diagnostics {
        Diagnostics { sources, errors }
    }

    /// The errors, in source order.
    pub fn errors(&self) -> &[Error] {
        &self.errors
    }

    /// Renders every error as a report with the source lines it points at,
    /// and a last line counting them. `width` is the terminal width.
    pub fn render(&self, color: bool, width: usize) -> String {
        let mut report = Report::default();
        let mut out = report.add(&self.errors, &self.sources, color, width);
        out.push_str(&report.summary(&self.sources.name()));
        out
    }
}

/// Errors rendered as they are found, in the pieces of a script read a
/// transaction at a time: the first [`SHOWN`] in full, the rest counted,
/// as [`Diagnostics::render`] renders the errors of a whole text.
#[derive(Debug, Default)]
pub struct Report {
    count: usize,
}

impl Report {
    /// Renders those of `errors`, errors in `sources`, still to be shown
    /// in full, and counts them all.
    pub fn add<E: Diagnostic>(
        &mut self,
        errors: &[E],
        sources: &Sources,
        color: bool,
        width: usize,
    ) -> String {
        let mut out = String::new();
        for error in errors {
            if self.count < SHOWN {
                if self.count > 0 {
                    out.push('\n');
                }
                render_into(&mut out, error, sources, color, width);
            }
            self.count += 1;
        }
        out
    }

    /// How many errors were added.
    pub fn count(&self) -> usize {
        self.count
    }

    /// A line counting the errors not shown, if any.
    pub fn more(&self) -> String {
        match self.count.checked_sub(SHOWN) {
            Some(n) if n > 0 => format!("\n... and {n} more\n"),
            _ => String::new(),
        }
    }

    /// [`Report::more`], and a last line counting all the errors of the
    /// script called `name`.
    pub fn summary(&self, name: &str) -> String {
        let n = self.count;
        let plural = if n == 1 { "" } else { "s" };
        format!("{}{n} error{plural} in {name}\n", self.more())
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false, 80))
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_into_their_own_input() {
        let sources = Sources::joined(
            [("<query 1>", "/a(1)"), ("b.fql", "/b(2)\n/c(")],
            "\n@commit\n",
        );
        let errors = crate::syntax::load(sources.text()).unwrap_err();
        let text = Diagnostics::of(sources.clone(), errors).render(false, 80);
        assert!(text.contains("[b.fql:2:3]"), "{text}");
        assert!(text.contains("1 error in 2 inputs"), "{text}");
        assert_eq!(sources.locate(sources.text().len()), ("b.fql", 2));
        assert_eq!(sources.locate(0), ("<query 1>", 1));
    }

    /// A piece of an input reports the input's lines, not its own.
    #[test]
    fn a_part_counts_lines_from_where_it_starts() {
        let sources = Sources::part("big.fql", "/a(1)\n/b(\n", 1000);
        let errors = crate::syntax::load(sources.text()).unwrap_err();
        let text = Diagnostics::of(sources.clone(), errors).render(false, 80);
        assert!(text.contains("[big.fql:1001:3]"), "{text}");
        assert!(text.contains("1001 │ /b("), "{text}");
        assert_eq!(sources.locate(6), ("big.fql", 1001));
    }
}
