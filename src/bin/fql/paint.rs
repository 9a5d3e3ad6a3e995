//! Colours for FQL text on a terminal: the shell's input as it is typed,
//! and results.

use std::fmt::Write;

use fql::syntax::{Class, highlight};
use owo_colors::OwoColorize;

/// `src` with ANSI colours by token; the text itself is unchanged, so
/// cursor positions stay right.
pub fn paint(src: &str) -> String {
    let mut out = String::with_capacity(src.len() * 2);
    let mut at = 0;
    for token in highlight(src) {
        out.push_str(&src[at..token.range.start]);
        let text = &src[token.range.clone()];
        let _ = match token.class {
            Class::Punct => write!(out, "{}", text.dimmed()),
            Class::Name => write!(out, "{}", text.blue()),
            Class::Keyword => write!(out, "{}", text.magenta()),
            Class::Str => write!(out, "{}", text.green()),
            Class::Number => write!(out, "{}", text.cyan()),
            Class::Hole => write!(out, "{}", text.yellow()),
            Class::Reference => write!(out, "{}", text.yellow().bold()),
            Class::Options => write!(out, "{}", text.magenta()),
            Class::Comment => write!(out, "{}", text.bright_black()),
            Class::Meta => write!(out, "{}", text.magenta().bold()),
            _ => write!(out, "{text}"),
        };
        at = token.range.end;
    }
    out.push_str(&src[at..]);
    out
}
