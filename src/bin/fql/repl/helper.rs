//! What rustyline asks of the shell while a line is typed: colours,
//! completions, and the key that starts a new line of the entry; and
//! whether Enter ends the entry.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use fql::kv::{Database, RetryOptions};
use fql::syntax::ast::{AtomicOp, OptName, Type};
use fql::syntax::{Class, is_open};
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Cmd, ConditionalEventHandler, Context, Event, EventContext, Helper, RepeatCount};

use super::lister::Lister;
use super::meta::{COMMANDS, TOPICS};
use crate::paint::paint;

pub struct FqlHelper {
    lister: Lister,
    /// The shell's current directory, for relative paths.
    pub cwd: Arc<Mutex<Vec<String>>>,
    color: bool,
}

impl FqlHelper {
    pub fn new(db: Arc<dyn Database>, retry: RetryOptions, color: bool) -> FqlHelper {
        FqlHelper {
            lister: Lister::new(db, retry),
            cwd: Arc::default(),
            color,
        }
    }
}

impl Helper for FqlHelper {}

impl Hinter for FqlHelper {
    type Hint = String;
}

impl Highlighter for FqlHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if self.color && !line.trim_start().starts_with('\\') {
            Cow::Owned(paint(line))
        } else {
            Cow::Borrowed(line)
        }
    }

    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        _default: bool,
    ) -> Cow<'b, str> {
        if self.color {
            use owo_colors::OwoColorize;
            Cow::Owned(prompt.bold().to_string())
        } else {
            Cow::Borrowed(prompt)
        }
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _kind: CmdKind) -> bool {
        self.color
    }
}

/// Enter always ends the line: whether the entry goes on to another is
/// [`continues`]'s to say, so that each line gets its own prompt.
impl Validator for FqlHelper {}

/// Whether an entry goes on to another line after Enter: while a tuple
/// is open in it (nothing else may span lines: an unclosed string or
/// variable ends the entry, to show its error at once), or after a line
/// of query options alone, which stand on the line above their query.
/// A command (`\name`) is always one line.
pub fn continues(entry: &str) -> bool {
    if entry.trim_start().starts_with('\\') {
        return false;
    }
    if fql::syntax::continues(entry) {
        return true;
    }
    let last = entry.rsplit('\n').next().unwrap_or(entry);
    let tokens = fql::syntax::highlight(last);
    !is_open(last)
        && tokens.iter().any(|t| t.class == Class::Options)
        && tokens
            .iter()
            .all(|t| matches!(t.class, Class::Options | Class::Comment))
}

/// Alt-Enter: ends the line but not the entry, whatever is open.
pub struct NewLine(pub Arc<AtomicBool>);

impl ConditionalEventHandler for NewLine {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, _: &EventContext<'_>) -> Option<Cmd> {
        self.0.store(true, Ordering::Relaxed);
        Some(Cmd::AcceptLine)
    }
}

impl Completer for FqlHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let cwd = self.cwd.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Ok(match before.trim_start().strip_prefix('\\') {
            Some(command) => self.command(before, command, &cwd),
            None => self.query(before, &cwd),
        })
    }
}

impl FqlHelper {
    /// A command name, or its argument.
    fn command(&self, before: &str, command: &str, cwd: &[String]) -> (usize, Vec<Pair>) {
        let Some((name, arg)) = command.split_once(char::is_whitespace) else {
            let names = COMMANDS.iter().map(|(n, _)| *n).chain(["q"]);
            return (pos_of(before, command), matching(command, names));
        };
        let arg = arg.trim_start();
        let start = before.len() - arg.len();
        let words: &[&str] = match name {
            "writemode" | "timing" => &["on", "off"],
            "format" => &["text", "json", "jsonl"],
            "bytes" => &["full", "len", "escaped"],
            "pager" => &["on", "off"],
            "help" => &[],
            "ls" | "cd" | "tree" => return self.path(before, arg, cwd, false),
            _ => return (start, Vec::new()),
        };
        if name == "help" {
            return (start, matching(arg, TOPICS.iter().map(|(n, _)| *n)));
        }
        (start, matching(arg, words.iter().copied()))
    }

    /// Completion inside FQL text.
    fn query(&self, before: &str, cwd: &[String]) -> (usize, Vec<Pair>) {
        let word_start = before
            .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .map_or(0, |n| {
                n + before[n..].chars().next().map_or(1, char::len_utf8)
            });
        let word = &before[word_start..];
        let opener = before[..word_start].chars().next_back();
        // The innermost open group decides: `<` types, `[` options.
        let open_angle = before.rfind('<').filter(|&n| !before[n..].contains('>'));
        let open_square = before.rfind('[').filter(|&n| !before[n..].contains(']'));
        if open_angle.is_some() && matches!(opener, Some('<' | '|' | ':')) {
            let types = Type::ALL.iter().map(|t| t.name());
            return (word_start, matching(word, types));
        }
        if open_square.is_some() && matches!(opener, Some('[' | ',')) {
            let names = OptName::ALL.iter().map(|o| o.name());
            return (word_start, matching(word, names));
        }
        if opener == Some('=') {
            let words = ["clear", "remove", "nil", "true", "false"].into_iter();
            let operations = AtomicOp::ALL.iter().map(|o| o.name());
            return (word_start, matching(word, words.chain(operations)));
        }
        // A directory path: the statement's start up to here has no tuple
        // or value yet.
        let statement = before.rsplit('\n').next().unwrap_or(before);
        let statement = statement.trim_start();
        let statement = match statement.strip_prefix('[') {
            Some(rest) => rest.split_once(']').map_or("", |(_, s)| s.trim_start()),
            None => statement,
        };
        if !statement.contains(['(', '=', '"', '<', ':', ' ']) {
            return self.path(before, statement, cwd, true);
        }
        (pos_of(before, word), Vec::new())
    }

    /// The last name of a path being typed, from the live directory list.
    fn path(&self, before: &str, typed: &str, cwd: &[String], query: bool) -> (usize, Vec<Pair>) {
        let (parent, prefix) = match typed.rfind('/') {
            Some(n) => (&typed[..n], &typed[n + 1..]),
            None => ("", typed),
        };
        let parent = if parent.is_empty() && typed.starts_with('/') {
            Some(Vec::new())
        } else {
            let root = fql::plan::Root::new(cwd.to_vec());
            super::path::directory(parent, &root)
                .ok()
                .map(|r| r.names().to_vec())
        };
        let Some(parent) = parent else {
            return (before.len(), Vec::new());
        };
        let names = self.lister.children(&parent);
        let start = before.len() - prefix.len();
        let pairs = names
            .iter()
            .filter(|n| n.starts_with(prefix))
            .map(|name| {
                // The name as FQL writes it: bare, or quoted.
                let shown = fql::directory::show(std::slice::from_ref(name));
                let shown = shown.trim_start_matches('/').to_string();
                let replacement = if query {
                    shown.clone()
                } else {
                    format!("{shown}/")
                };
                Pair {
                    display: shown,
                    replacement,
                }
            })
            .collect();
        (start, pairs)
    }
}

/// Where `word`, a suffix of `before`, starts.
fn pos_of(before: &str, word: &str) -> usize {
    before.len() - word.len()
}

fn matching<'a>(prefix: &str, words: impl Iterator<Item = &'a str>) -> Vec<Pair> {
    words
        .filter(|w| w.starts_with(prefix))
        .map(|w| Pair {
            display: w.to_string(),
            replacement: w.to_string(),
        })
        .collect()
}
