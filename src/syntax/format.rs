//! `fql fmt`: whole scripts in canonical form, keeping their comments.
//!
//! Statements print as the canonical printer prints them, one per line, with
//! query options on the line above. Comments stay where they were: a comment
//! on a line of its own stays on a line of its own, one after code stays
//! after the same code. A tuple that holds comments cannot be one line, so it
//! prints one element per line, indented by two spaces per level, each
//! followed by a comma. Runs of blank lines between statements become one.

use std::fmt::Write;

use super::ast::*;

/// Formats a script with its comments and blank lines. The output ends with
/// a line break unless it is empty.
pub fn format(script: &Script) -> String {
    let mut f = Fmt {
        out: String::new(),
        comments: &script.trivia.comments,
        next: 0,
        blanks: &script.trivia.blank_lines,
        prev_end: None,
        comment_end: None,
    };
    for item in &script.items {
        let span = item.span();
        f.comments_before(span.start);
        f.separate(span.start);
        match item {
            Item::Meta(m) => write!(f.out, "{m}").expect("writing to a String"),
            Item::Statement(s) => f.statement(s),
        }
        f.prev_end = Some(span.end);
    }
    f.comments_before(u32::MAX);
    if !f.out.is_empty() {
        f.out.push('\n');
    }
    f.out
}

struct Fmt<'a> {
    out: String,
    comments: &'a [Comment<'a>],
    /// The first comment not yet printed.
    next: usize,
    blanks: &'a [u32],
    /// The end of the last item printed.
    prev_end: Option<u32>,
    /// Where the last comment printed ends in `out`: nothing can follow it
    /// on its line.
    comment_end: Option<usize>,
}

impl Fmt<'_> {
    /// Starts a new line for something at `start`, with one blank line
    /// before it if the source had any since the previous item or comment.
    fn separate(&mut self, start: u32) {
        if let Some(end) = self.prev_end {
            let blank = self.blanks.iter().any(|&b| b > end && b < start);
            self.out.push('\n');
            if blank {
                self.out.push('\n');
            }
        }
    }

    /// Prints the top-level comments that come before `offset`.
    fn comments_before(&mut self, offset: u32) {
        while let Some(c) = self
            .comments
            .get(self.next)
            .filter(|c| c.span.start < offset)
        {
            if c.own_line || self.prev_end.is_none() {
                self.separate(c.span.start);
                self.comment(c, None, "");
            } else {
                self.comment(c, Some(false), "");
            }
            self.prev_end = Some(c.span.end);
            self.next += 1;
        }
    }

    /// Whether any comment lies inside `span`.
    fn has_comments(&self, span: Span) -> bool {
        self.comments[self.next..]
            .iter()
            .take_while(|c| c.span.start < span.end)
            .any(|c| c.span.start > span.start)
    }

    fn statement(&mut self, s: &Statement) {
        if !s.options.is_empty() {
            write!(self.out, "{}", s.options).expect("writing to a String");
            let query_start = match &s.query {
                Query::Directory(d) | Query::Remove { dir: d, .. } => d.span.start,
                Query::KeyValue(kv) => kv.key.dir.span.start,
                Query::Raw(raw) => raw.key.span.start,
            };
            self.inline_comments(query_start);
            self.out.push('\n');
        }
        match &s.query {
            Query::KeyValue(kv) if self.has_comments(s.span) => {
                write!(self.out, "{}", kv.key.place()).expect("writing to a String");
                self.tuple(&kv.key.tuple, 0);
                match &kv.value {
                    Value::Data(elem, opts) => {
                        self.out.push('=');
                        self.elem(elem, 0);
                        write!(self.out, "{opts}").expect("writing to a String");
                    }
                    Value::Mutate(m) => {
                        write!(self.out, "={}(", m.op).expect("writing to a String");
                        self.elem(&m.operand, 0);
                        write!(self.out, "{})", m.options).expect("writing to a String");
                    }
                    other => write!(self.out, "{other}").expect("writing to a String"),
                }
            }
            Query::Raw(raw) if self.has_comments(s.span) => {
                write!(self.out, "{}", raw.key).expect("writing to a String");
                match &raw.value {
                    Value::Data(elem, opts) => {
                        self.out.push('=');
                        self.elem(elem, 0);
                        write!(self.out, "{opts}").expect("writing to a String");
                    }
                    other => write!(self.out, "{other}").expect("writing to a String"),
                }
            }
            query => write!(self.out, "{query}").expect("writing to a String"),
        }
    }

    /// Appends the comments before `offset` to the current line; any after
    /// the first go on lines of their own at `indent`.
    fn inline_comments(&mut self, offset: u32) {
        let mut first = true;
        while let Some(c) = self
            .comments
            .get(self.next)
            .filter(|c| c.span.start < offset)
        {
            self.comment(c, Some(!first || c.own_line), "");
            first = false;
            self.next += 1;
        }
    }

    fn elem(&mut self, e: &Elem, depth: usize) {
        match &e.kind {
            ElemKind::Tuple(t) => self.tuple(t, depth),
            kind => write!(self.out, "{kind}").expect("writing to a String"),
        }
    }

    /// A tuple on one line, or one element per line if it holds comments.
    fn tuple(&mut self, t: &Tuple, depth: usize) {
        if !self.has_comments(t.span) {
            write!(self.out, "{t}").expect("writing to a String");
            return;
        }
        let indent = "  ".repeat(depth + 1);
        self.out.push('(');
        for e in &t.elems {
            self.tuple_comments(e.span.start, &indent);
            write!(self.out, "\n{indent}").expect("writing to a String");
            self.elem(e, depth + 1);
            self.out.push(',');
        }
        if let Some(rest) = t.rest {
            self.tuple_comments(rest.start, &indent);
            write!(self.out, "\n{indent}...,").expect("writing to a String");
        }
        self.tuple_comments(t.span.end, &indent);
        write!(self.out, "\n{})", "  ".repeat(depth)).expect("writing to a String");
    }

    /// The comments inside a tuple before `offset`: after the code on the
    /// current line if they were after code, else on lines of their own.
    fn tuple_comments(&mut self, offset: u32, indent: &str) {
        while let Some(c) = self
            .comments
            .get(self.next)
            .filter(|c| c.span.start < offset)
        {
            self.comment(c, Some(c.own_line), indent);
            self.next += 1;
        }
    }

    /// Writes a comment: at the current position (`None`, a fresh line), on
    /// a new line at `indent` (`Some(true)`), or after the code of the
    /// current line (`Some(false)`), unless that line already ends in a
    /// comment, which would swallow this one.
    fn comment(&mut self, c: &Comment, own_line: Option<bool>, indent: &str) {
        let line_commented = self
            .comment_end
            .is_some_and(|end| !self.out[end..].contains('\n'));
        match own_line {
            None => {}
            Some(false) if !line_commented => self.out.push(' '),
            Some(_) => write!(self.out, "\n{indent}").expect("writing to a String"),
        }
        write!(self.out, "%{}", c.text.trim_end()).expect("writing to a String");
        self.comment_end = Some(self.out.len());
    }
}
