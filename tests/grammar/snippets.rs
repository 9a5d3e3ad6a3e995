//! The FQL written down in the repository: the scripts in `examples/`,
//! `grammar/` and `tests/syntax/`, and the `fql` blocks of the Markdown in
//! `docs/`, `grammar/` and the README. Whatever is added there later is
//! judged too.

use std::fs;

use crate::support::repo;

pub struct Snippet {
    /// Where it was found: a path, and for a Markdown block its line.
    pub origin: String,
    pub text: String,
}

/// Every snippet, in a fixed order.
pub fn all() -> Vec<Snippet> {
    let mut out = Vec::new();
    for dir in ["examples", "grammar", "tests/syntax"] {
        for path in repo::files(&repo::root().join(dir), &["fql"]) {
            let text = fs::read_to_string(&path).expect("a readable script");
            out.push(Snippet {
                origin: repo::relative(&path),
                text,
            });
        }
    }
    for path in repo::markdown_files() {
        let md = fs::read_to_string(&path).expect("a readable Markdown file");
        for block in repo::blocks(&md)
            .into_iter()
            .filter(|b| b.info.starts_with("fql"))
        {
            out.push(Snippet {
                origin: format!("{}:{}", repo::relative(&path), block.line),
                text: block.text,
            });
        }
    }
    out
}
