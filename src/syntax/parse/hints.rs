//! Help lines for common mistakes: where one can be made, the help shows
//! the input written the way FQL reads it (`/a/(1)` is `/a(1)`, `<int:x>`
//! is `<x:int>`), so that a user can copy the fix rather than work it out
//! from a rule.

use super::Parser;
use super::lex::{excerpt, hspace, junk, peek, word};
use crate::syntax::ast::OptName;
use crate::syntax::error::ParseError;
use crate::syntax::names::{is_name_byte, is_name_start};

/// A help, `why`, and the corrected input if there is one.
pub(super) fn with_fix(why: &str, fixed: Option<String>) -> String {
    match fixed {
        Some(fixed) => format!("{why}: write `{fixed}`"),
        None => why.to_string(),
    }
}

/// Whether the int at `i` has more digits than an int can have: as an
/// element it would be refused as too large to store, which says nothing
/// to an option's argument.
pub(super) fn long_int(i: &str) -> bool {
    let unsigned = i.strip_prefix('-').unwrap_or(i);
    let digits = unsigned.trim_start_matches('0');
    digits.bytes().take_while(u8::is_ascii_digit).count() > super::literal::MAX_INT_DIGITS
}

/// Where a type stands in a variable, for the help when it names no type.
#[derive(Clone, Copy)]
pub(super) enum TypeRole<'a> {
    /// First, with no name before it: `<x>` may be a name without a type.
    MayBeName,
    /// First, after a name that is a type: `<int:x>` is likely `<x:int>`.
    AfterTypeName(&'a str),
    /// Anywhere else.
    Later,
}

impl Parser<'_> {
    /// The help for what stands after a statement at `i`, where its line
    /// should end: a space inside a key or around `=` (`/a (1)`), a space
    /// inside a path (`/c /d`), a second statement on the line.
    pub(super) fn end_of_line_help(&self, i: &str) -> Option<String> {
        let space = self.pos(i) - self.src[..self.pos(i)].trim_end_matches([' ', '\t']).len();
        let before = self.src[..self.pos(i) - space].bytes().next_back();
        let unspaced = || self.line_edit(self.pos(i) - space, space, "");
        match peek(i) {
            Some(b'(') if space > 0 => Some(with_fix(
                "FQL allows no spaces inside a key or around `=`",
                unspaced(),
            )),
            // `/k(1) = 2`: without the spaces on both sides, if a key
            // stands before them.
            Some(b'=') if space > 0 => {
                let after = space + 1 + (i.len() - 1 - hspace(&i[1..]).len());
                let fixed = (before == Some(b')'))
                    .then(|| self.line_edit(self.pos(i) - space, after, "="))
                    .flatten();
                Some(with_fix(
                    "FQL allows no spaces inside a key or around `=`",
                    fixed,
                ))
            }
            // `/c /d`: a space inside a path, not a second statement.
            Some(b'/') if space > 0 && before.is_some_and(|b| is_name_byte(b) || b == b'"') => {
                Some(with_fix("a directory path holds no spaces", unspaced()))
            }
            Some(b'/') => Some("write one statement per line".into()),
            _ => None,
        }
    }

    /// [`Parser::expected`] where an element belongs: a bare word near
    /// `true`, `nil` or another data word is pointed at it.
    pub(super) fn expected_element(&self, i: &str, what: &str, help: Option<String>) -> ParseError {
        let text = junk(i);
        let word = text
            .starts_with(|c: char| c.is_ascii_alphabetic())
            .then_some(text);
        let help = help.or_else(|| {
            let meant = crate::syntax::keywords::data_word(word?)?;
            Some(format!(
                "did you mean `{meant}`? A string is written in double quotes: \"{}\"",
                excerpt(text)
            ))
        });
        self.expected(i, what, help)
    }
    /// The line of the script that holds offset `at`, as written from its
    /// first non-blank character, with the `remove` bytes at `at` replaced
    /// by `insert`: a help's corrected input. `None` for a line too long
    /// to show in a help line.
    pub(super) fn line_edit(&self, at: usize, remove: usize, insert: &str) -> Option<String> {
        let start = self.src[..at].rfind('\n').map_or(0, |n| n + 1);
        let end = self.src[at..].find('\n').map_or(self.src.len(), |n| at + n);
        let head = self.src[start..at].trim_start_matches([' ', '\t']);
        let tail = self.src[(at + remove).min(end)..end].trim_end();
        let line = format!("{head}{insert}{tail}");
        (line.chars().count() <= 60).then_some(line)
    }

    /// The error for bytes as the argument of the option `name`: the
    /// literal that starts at `at` and ends at `after`, which gave
    /// `bytes` (`None` for a malformed one, reported already). Bytes that
    /// are UTF-8 text are offered as a string.
    pub(super) fn bytes_argument(
        &self,
        name: &str,
        at: &str,
        after: &str,
        bytes: Option<Vec<u8>>,
    ) -> ParseError {
        let text = &at[..at.len() - after.len()];
        let help = match bytes.map(String::from_utf8) {
            None => "an option's argument cannot be bytes".to_string(),
            Some(Ok(s)) => format!(
                "an option's argument cannot be bytes; write them as a string: `{}:{}`",
                excerpt(name),
                excerpt(&crate::syntax::quote(&s))
            ),
            Some(Err(_)) => {
                "an option's argument cannot be bytes, and these are not UTF-8 text for a string"
                    .to_string()
            }
        };
        ParseError::Expected {
            expected: "a name, int or string".into(),
            found: format!("the bytes `{}`", excerpt(text)),
            at: self.span_of(text),
            help: Some(help),
        }
    }

    /// The help for what follows an option, `after`, that is neither `,`
    /// nor `]`, at `i` past any spaces: an argument without its `:`
    /// (`[limit=5]`, `[limit 5]`) or a missing comma (`[reverse limit:5]`).
    pub(super) fn option_gap_help(&self, after: &str, i: &str, bare: bool) -> Option<String> {
        let at = self.pos(after);
        let spaced = after.len() > i.len();
        let (w_rest, w) = word(i);
        let next_option = !w.is_empty() && OptName::from_name(w).is_some();
        match peek(i)? {
            b'=' if bare => {
                let fixed = self.line_edit(at, self.pos(i) + 1 - at, ":");
                Some(with_fix("an option's argument follows a `:`", fixed))
            }
            _ if spaced && next_option && !w_rest.starts_with('=') => {
                let fixed = self.line_edit(at, self.pos(i) - at, ", ");
                Some(with_fix("options are separated by `,`", fixed))
            }
            b'0'..=b'9' | b'-' | b'"' | b'a'..=b'z' | b'A'..=b'Z' | b'_' if spaced && bare => {
                let fixed = self.line_edit(at, self.pos(i) - at, ":");
                Some(with_fix("an option's argument follows a `:`", fixed))
            }
            _ => None,
        }
    }

    /// The error for an int argument of hundreds of digits.
    pub(super) fn long_argument(&self, at: &str) -> ParseError {
        let text = junk(at);
        let digits = text.trim_start_matches('-').len();
        ParseError::InvalidNumber {
            text: excerpt(text),
            at: self.span_of(text),
            help: Some(format!(
                "an option's int is at most {} (2^63 - 1); this one has {digits} digits",
                i64::MAX
            )),
        }
    }

    /// The help for a space inside the variable that opens at `open`, when
    /// `i` is at one: the variable without its spaces, if it closes on its
    /// line. Spaces stay inside options, which allow them.
    pub(super) fn var_spaces(&self, open: usize, i: &str) -> Option<String> {
        if !matches!(peek(i), Some(b' ' | b'\t')) {
            return None;
        }
        let mut fixed = String::new();
        let (mut depth, mut quoted, mut escaped) = (0u32, false, false);
        for c in self.src[open..].chars() {
            match c {
                '\n' | '\r' => return None,
                _ if quoted => {
                    quoted = c != '"' || escaped;
                    escaped = c == '\\' && !escaped;
                }
                '"' => quoted = true,
                '[' => depth += 1,
                ']' => depth = depth.saturating_sub(1),
                ' ' | '\t' if depth == 0 => continue,
                _ => {}
            }
            fixed.push(c);
            if c == '>' && depth == 0 && !quoted {
                return Some(format!(
                    "a variable holds no spaces outside its options: write `{}`",
                    excerpt(&fixed)
                ));
            }
        }
        None
    }

    /// The error for a second option list, at `i`, after the list `first`:
    /// one list holds all of a query's options.
    pub(super) fn second_list(&self, first: &str, i: &str) -> ParseError {
        let line = &i[..i.find('\n').unwrap_or(i.len())];
        let help = match line.find(']') {
            Some(n) => format!(
                "one list holds all of a query's options: write `{}, {}`",
                excerpt(first.strip_suffix(']').unwrap_or(first)),
                excerpt(&line[1..=n])
            ),
            None => "one list holds all of a query's options".to_string(),
        };
        self.expected(i, "a query", Some(help))
    }
    /// The help for a `/` with no name after it, `path` being the
    /// directory before it and `at` what follows it: a `/` before the
    /// key's tuple, a space inside the path, a doubled `/` or a trailing
    /// one, each with the statement written without it.
    pub(super) fn slash_help(&self, path: &str, at: &str) -> String {
        let line = |s: &str| {
            let end = s.find(['\n', '\r', '%']).unwrap_or(s.len());
            excerpt(s[..end].trim_end())
        };
        let spaced = hspace(at);
        let named = spaced.len() < at.len()
            && peek(spaced).is_some_and(|b| is_name_start(b) || matches!(b, b'"' | b'<' | b':'));
        match peek(at) {
            Some(b'(' | b'=') if !path.is_empty() => format!(
                "a directory path takes no `/` after its last name: write `{path}{}`",
                line(at)
            ),
            Some(b'(' | b'=') => {
                "a key lives in a directory: name one after `/`, as in `/dir(1)`".into()
            }
            Some(b' ' | b'\t') if named => format!(
                "a directory path holds no spaces: write `{path}/{}`; quote a name that holds one",
                line(spaced)
            ),
            Some(b'/') => format!(
                "names in a path are separated by one `/`: write `{path}{}`",
                line(at)
            ),
            _ if path.is_empty() => {
                "`/` must be followed by a directory name; to list the root directories, write `/<>`"
                    .into()
            }
            _ => format!(
                "a directory path does not end in `/`: write `{path}`, or `{path}/<>` to list the directories in it"
            ),
        }
    }
}
