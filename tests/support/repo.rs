//! The repository as test data: its files, and the fenced code blocks of
//! its Markdown. Shared by the test crates that read the documentation.

#![allow(dead_code)]

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `path` relative to the root, for messages.
pub fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Files ending in one of `exts` under `dir`, recursively, sorted.
pub fn files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path
                .extension()
                .is_some_and(|e| exts.iter().any(|x| e == *x))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The Markdown that holds FQL examples: `docs/`, `grammar/` and the README.
pub fn markdown_files() -> Vec<PathBuf> {
    let mut md = files(&root().join("docs"), &["md"]);
    md.extend(files(&root().join("grammar"), &["md"]));
    md.push(root().join("README.md"));
    md.retain(|p| p.exists());
    md
}

/// A fenced code block.
pub struct Block {
    /// The line of the opening fence, from 1.
    pub line: usize,
    /// The info string: `fql`, `fql-error`, `text`, ...
    pub info: String,
    /// The lines inside, with the fence's indentation removed.
    pub text: String,
    /// Where the lines inside are in the file, for rewriting them (exact
    /// only for an unindented fence).
    pub range: Range<usize>,
}

/// The fenced code blocks of a Markdown text.
///
/// Fences follow CommonMark: three or more backticks or tildes, indented at
/// most three spaces, closed by a fence of the same character at least as
/// long; the opening indentation is removed from the lines inside; an
/// unclosed block runs to the end of the file.
pub fn blocks(md: &str) -> Vec<Block> {
    /// A block being read.
    struct Open {
        fence: char,
        len: usize,
        indent: usize,
        block: Block,
    }
    let mut out = Vec::new();
    let mut open: Option<Open> = None;
    let mut offset = 0;
    for (n, raw) in md.split_inclusive('\n').enumerate() {
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = &line[indent..];
        let fence = body.chars().next().filter(|c| matches!(c, '`' | '~'));
        let run = fence.map_or(0, |c| body.len() - body.trim_start_matches(c).len());
        let info = body[run..].trim();
        match (&mut open, fence) {
            (None, Some(c)) if indent <= 3 && run >= 3 && !(c == '`' && info.contains('`')) => {
                let start = offset + raw.len();
                open = Some(Open {
                    fence: c,
                    len: run,
                    indent,
                    block: Block {
                        line: n + 1,
                        info: info.to_string(),
                        text: String::new(),
                        range: start..start,
                    },
                });
            }
            (None, _) => {}
            (Some(b), Some(c))
                if c == b.fence && indent <= 3 && run >= b.len && info.is_empty() =>
            {
                out.extend(open.take().map(|b| b.block));
            }
            (Some(b), _) => {
                let spaces = raw.len() - raw.trim_start_matches(' ').len();
                b.block.text.push_str(&raw[spaces.min(b.indent)..]);
                b.block.range.end = offset + raw.len();
            }
        }
        offset += raw.len();
    }
    out.extend(open.map(|b| b.block));
    out
}
