//! Rendering errors for people: miette's graphical reports, with the source
//! text they point into.

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};

use super::sources::Sources;
use super::view::View;
use super::words::printable;

/// How many errors are rendered in full. Each report locates its lines from
/// the start of the source, so rendering all of a huge broken file would
/// take time quadratic in its size; past this many the rest are counted.
pub const SHOWN: usize = 50;

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
    let labels: Vec<LabeledSpan> = diagnostic
        .labels()
        .map(Iterator::collect)
        .unwrap_or_default();
    let (view, labels) = View::new(sources, &labels);
    let with_source = WithSource {
        inner: diagnostic,
        view,
        labels,
        cause: Cause::chain(diagnostic.source()),
    };
    handler
        .render_report(out, &with_source)
        .expect("writing to a String");
}

/// A diagnostic shown with the part of the script it points into (see
/// [`View`]), its texts without control characters.
struct WithSource<'a> {
    inner: &'a dyn Diagnostic,
    view: View,
    /// The inner diagnostic's labels, moved into the view.
    labels: Vec<LabeledSpan>,
    /// Its chain of causes, made printable.
    cause: Option<Box<Cause>>,
}

impl fmt::Debug for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.inner, f)
    }
}

impl fmt::Display for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&printable(&self.inner.to_string()))
    }
}

impl std::error::Error for WithSource<'_> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_deref().map(|c| c as _)
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
        let help = self.inner.help()?.to_string();
        Some(Box::new(printable(&help).into_owned()))
    }
    fn url<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.inner.url()
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.view)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            return None;
        }
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// One cause of an error, as printable text.
#[derive(Debug)]
struct Cause {
    text: String,
    next: Option<Box<Cause>>,
}

impl Cause {
    fn chain(source: Option<&(dyn std::error::Error + 'static)>) -> Option<Box<Cause>> {
        let source = source?;
        Some(Box::new(Cause {
            text: printable(&source.to_string()).into_owned(),
            next: Cause::chain(source.source()),
        }))
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.next.as_deref().map(|c| c as _)
    }
}

/// The errors of one source text, ready to render: syntax errors, or the
/// errors of any later stage that point into the text.
#[derive(Clone, Debug)]
pub struct Diagnostics<E> {
    sources: Sources,
    errors: Vec<E>,
}

impl<E: Diagnostic> Diagnostics<E> {
    /// The errors of `source`, which messages call `name` (a file path, or
    /// `<stdin>`).
    pub fn new(
        name: impl Into<String>,
        source: impl Into<Arc<str>>,
        errors: Vec<E>,
    ) -> Diagnostics<E> {
        Diagnostics::of(Sources::single(name, source), errors)
    }

    /// The errors of a script made of several inputs.
    pub fn of(sources: Sources, errors: Vec<E>) -> Diagnostics<E> {
        Diagnostics { sources, errors }
    }

    /// The errors, in source order.
    pub fn errors(&self) -> &[E] {
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

impl<E: Diagnostic> fmt::Display for Diagnostics<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false, 80))
    }
}

impl<E: Diagnostic> std::error::Error for Diagnostics<E> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report of `src` with its errors, without colour.
    fn report(src: &str) -> String {
        let errors = crate::syntax::parse(src).unwrap_err();
        Diagnostics::new("t.fql", src, errors).render(false, 100)
    }

    /// The column, in characters, where the first label's mark starts
    /// under the source line, and that source line, of the first report.
    fn marked(report: &str) -> (usize, String) {
        let lines: Vec<&str> = report.lines().collect();
        let n = lines
            .iter()
            .position(|l| l.trim_start().starts_with('·'))
            .expect("a line of marks");
        let (source, marks) = (lines[n - 1], lines[n]);
        let text_at = source.find("│ ").expect("a gutter") + "│ ".len();
        let prefix = source[..text_at].chars().count();
        let col = marks
            .chars()
            .position(|c| c == '─' || c == '┬' || c == '▲')
            .expect("a mark");
        (col - prefix, source[text_at..].to_string())
    }

    /// No control character but a line feed.
    fn printable(text: &str) -> bool {
        !text.chars().any(|c| c.is_control() && c != '\n')
    }

    #[test]
    fn control_characters_in_the_source_show_as_escapes() {
        let src = "/a(1)\n/b(\"x\u{1b}[2J\u{9b}y\r\",\u{7}) % \u{7f}\n";
        let text = report(src);
        assert!(printable(&text), "{text:?}");
        assert!(
            text.contains("│ /b(\"x\\x1b[2J\\xc2\\x9by\\x0d\",\\x07) % \\x7f"),
            "{text}"
        );
        // The first error is at the escape character, column 6.
        assert!(text.contains("[t.fql:2:6]"), "{text}");
        let (col, line) = marked(&text);
        assert_eq!(line.chars().skip(col).take(4).collect::<String>(), "\\x1b");
        assert_eq!(text.matches("not allowed as it is").count(), 3, "{text}");
        assert!(
            text.contains("found the control character U+0007 (BEL)"),
            "{text}"
        );
    }

    #[test]
    fn a_long_line_shows_a_window_around_the_error() {
        let mut src = "/a(".to_string();
        for n in 0..100_000 {
            src.push_str(&format!("{n},"));
        }
        let bad = src.len();
        src.push_str("1x,");
        for n in 0..100_000 {
            src.push_str(&format!("{n},"));
        }
        src.push_str(")\n/b(1)\n");
        let text = report(&src);
        assert!(text.len() < 1000, "{} bytes:\n{text}", text.len());
        assert!(text.contains(&format!("[t.fql:1:{}]", bad + 1)), "{text}");
        let (col, line) = marked(&text);
        assert!(line.starts_with('…') && line.ends_with('…'), "{line}");
        assert_eq!(line.chars().skip(col).take(3).collect::<String>(), "1x,");
    }

    /// A report shows at most a window of each line it quotes, so a long
    /// line with many errors prints a bounded amount per error, and only
    /// the first errors in full.
    #[test]
    fn many_errors_on_a_long_line_print_a_bounded_report() {
        let src = format!("/a({})\n", "1x,".repeat(200_000));
        let text = report(&src);
        assert!(text.len() < 50 * 1000, "{} bytes", text.len());
        assert_eq!(text.matches("fql::invalid_number").count(), SHOWN);
        assert!(text.ends_with("... and 199950 more\n200000 errors in t.fql\n"));
        // The last shown error is the 50th `1x`, at column 3 + 49 * 3 + 1.
        let last = text.rsplit("fql::invalid_number").next().expect("a report");
        assert!(
            last.contains(&format!("[t.fql:1:{}]", 4 + 49 * 3)),
            "{last}"
        );
        let (col, line) = marked(last);
        assert_eq!(line.chars().skip(col).take(3).collect::<String>(), "1x,");
    }

    /// A label over a few lines shows them all; over many, its first only.
    #[test]
    fn a_label_over_many_lines_shows_its_first() {
        for (lines, shown) in [(5, true), (40, false)] {
            let src: String = (1..=lines).map(|n| format!("/a({n},\n")).collect();
            let label = miette::LabeledSpan::at(0..src.len() - 1, "this statement");
            let d = miette::MietteDiagnostic::new("x").with_label(label);
            let text = render(&d, &Sources::single("t.fql", src.as_str()), false, 100);
            assert!(text.contains("/a(1,"), "{text}");
            assert_eq!(text.contains(&format!("/a({lines},")), shown, "{text}");
            assert!(text.contains("this statement"), "{text}");
            assert!(text.lines().count() < 20, "{text}");
        }
    }

    /// A label over many lines shows on its first; labels far apart show
    /// apart, each with its own lines.
    #[test]
    fn labels_far_apart_show_their_own_lines() {
        let src = format!("/a(1,\n{}", "2,\n".repeat(30));
        let text = report(&src);
        assert!(text.contains("1 │ /a(1,"), "{text}");
        assert!(text.contains("31 │ 2,"), "{text}");
        assert!(!text.contains("15 │"), "{text}");
    }

    #[test]
    fn spans_point_into_their_own_input() {
        let sources = Sources::joined(
            [("<query 1>", "/a(1)"), ("b.fql", "/b(2)\n/c(")],
            "\n@commit\n",
        );
        let errors = crate::syntax::parse(sources.text()).unwrap_err();
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
        let errors = crate::syntax::parse(sources.text()).unwrap_err();
        let text = Diagnostics::of(sources.clone(), errors).render(false, 80);
        assert!(text.contains("[big.fql:1001:3]"), "{text}");
        assert!(text.contains("1001 │ /b("), "{text}");
        assert_eq!(sources.locate(6), ("big.fql", 1001));
    }
}
