//! The FQL written down in the repository: the scripts in `examples/`,
//! `grammar/` and `tests/syntax/`, and the `fql` blocks of the Markdown in
//! `docs/`, `grammar/` and the README. Whatever is added there later is
//! judged too.

use std::fs;
use std::path::{Path, PathBuf};

pub struct Snippet {
    /// Where it was found: a path, and for a Markdown block its line.
    pub origin: String,
    pub text: String,
}

/// Every snippet, in a fixed order.
pub fn all() -> Vec<Snippet> {
    let root = super::repo();
    let mut out = Vec::new();
    for dir in ["examples", "grammar", "tests/syntax"] {
        for path in files(&root.join(dir), "fql") {
            let text = fs::read_to_string(&path).expect("a readable script");
            out.push(Snippet {
                origin: relative(&path),
                text,
            });
        }
    }
    let mut markdown = files(&root.join("docs"), "md");
    markdown.extend(files(&root.join("grammar"), "md"));
    markdown.push(root.join("README.md"));
    for path in markdown.into_iter().filter(|p| p.exists()) {
        let md = fs::read_to_string(&path).expect("a readable Markdown file");
        for (line, text) in fql_blocks(&md) {
            out.push(Snippet {
                origin: format!("{}:{line}", relative(&path)),
                text,
            });
        }
    }
    out
}

fn relative(path: &Path) -> String {
    let root = super::repo();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Files ending in `.ext` under `dir`, recursively, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
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
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The fenced code blocks whose info string starts with `fql` (```` ```fql
/// ````, ```` ```fql-error ````, ...), with the line of the opening fence.
///
/// Fences follow CommonMark: three or more backticks or tildes, indented at
/// most three spaces, closed by a fence of the same character at least as
/// long; the opening indentation is removed from the lines inside; an
/// unclosed block runs to the end of the file.
pub fn fql_blocks(md: &str) -> Vec<(usize, String)> {
    /// A block being read.
    struct Open {
        fence: char,
        len: usize,
        indent: usize,
        fql: bool,
        line: usize,
        text: String,
    }
    let mut out = Vec::new();
    let mut open: Option<Open> = None;
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
                open = Some(Open {
                    fence: c,
                    len: run,
                    indent,
                    fql: info.starts_with("fql"),
                    line: n + 1,
                    text: String::new(),
                });
            }
            (None, _) => {}
            (Some(b), Some(c))
                if c == b.fence && indent <= 3 && run >= b.len && info.is_empty() =>
            {
                out.extend(open.take().filter(|b| b.fql).map(|b| (b.line, b.text)));
            }
            (Some(b), _) => {
                let spaces = raw.len() - raw.trim_start_matches(' ').len();
                b.text.push_str(&raw[spaces.min(b.indent)..]);
            }
        }
    }
    out.extend(open.filter(|b| b.fql).map(|b| (b.line, b.text)));
    out
}

#[cfg(test)]
mod tests {
    use super::fql_blocks;

    #[test]
    fn finds_fql_blocks() {
        let md = "\
# Title

```fql
/a(1)
```

```text
/not(fql)
```

  ````fql-error
  /b(
  ```
  )
  ````

~~~ fql
/c
~~~
```fql
/unclosed
";
        let blocks = fql_blocks(md);
        let found: Vec<(usize, &str)> = blocks.iter().map(|(l, t)| (*l, t.as_str())).collect();
        assert_eq!(
            found,
            [
                (3, "/a(1)\n"),
                (11, "/b(\n```\n)\n"),
                (17, "/c\n"),
                (20, "/unclosed\n"),
            ]
        );
    }
}
