//! Rendering errors for people: miette's graphical reports, with the source
//! text they point into.

use std::fmt;
use std::sync::Arc;

use miette::{GraphicalReportHandler, GraphicalTheme, NamedSource};

use super::error::Error;

/// How many errors are rendered in full. Each report locates its lines from
/// the start of the source, so rendering all of a huge broken file would
/// take time quadratic in its size; past this many the rest are counted.
pub const SHOWN: usize = 50;

/// The errors of one source text, ready to render.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    name: String,
    source: Arc<str>,
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
        Diagnostics {
            name: name.into(),
            source: source.into(),
            errors,
        }
    }

    /// The errors, in source order.
    pub fn errors(&self) -> &[Error] {
        &self.errors
    }

    /// Renders every error as a report with the source lines it points at,
    /// and a last line counting them. `width` is the terminal width.
    pub fn render(&self, color: bool, width: usize) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_width(width);
        let mut out = String::new();
        for (n, error) in self.errors.iter().take(SHOWN).enumerate() {
            if n > 0 {
                out.push('\n');
            }
            let report = miette::Report::new(error.clone())
                .with_source_code(NamedSource::new(&self.name, Arc::clone(&self.source)));
            handler
                .render_report(&mut out, report.as_ref())
                .expect("writing to a String");
        }
        let n = self.errors.len();
        if n > SHOWN {
            out.push_str(&format!("\n... and {} more\n", n - SHOWN));
        }
        let plural = if n == 1 { "" } else { "s" };
        out.push_str(&format!("{n} error{plural} in {}\n", self.name));
        out
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false, 80))
    }
}

impl std::error::Error for Diagnostics {}
