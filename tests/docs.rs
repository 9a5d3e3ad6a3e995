//! The documentation is executable: every FQL example in `docs/`,
//! `grammar/`, `examples/` and the README must be valid, and every error in
//! `docs/errors.md` must be triggered by its example and print as shown.

use std::fs;
use std::path::{Path, PathBuf};

use fql::syntax::{self, Diagnostics};

/// A fenced code block of a Markdown file.
struct Block {
    path: PathBuf,
    /// 1-based line of the opening fence.
    line: usize,
    info: String,
    text: String,
    /// Byte range of the text inside the fences, for rewriting it.
    range: std::ops::Range<usize>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Files with one of `exts` under `dir`, recursively, sorted.
fn files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
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

fn blocks(path: &Path) -> Vec<Block> {
    let src = fs::read_to_string(path).expect("a readable Markdown file");
    let mut out = Vec::new();
    let mut open: Option<(usize, String, usize)> = None;
    let mut offset = 0;
    for (n, line) in src.split_inclusive('\n').enumerate() {
        let fence = line.trim_end().strip_prefix("```");
        match (&open, fence) {
            (None, Some(info)) => {
                open = Some((n + 1, info.trim().to_string(), offset + line.len()))
            }
            (Some((line_no, info, start)), Some("")) => {
                out.push(Block {
                    path: path.to_path_buf(),
                    line: *line_no,
                    info: info.clone(),
                    text: src[*start..offset].to_string(),
                    range: *start..offset,
                });
                open = None;
            }
            _ => {}
        }
        offset += line.len();
    }
    out
}

fn markdown_files() -> Vec<PathBuf> {
    let mut md = files(&root().join("docs"), &["md"]);
    md.extend(files(&root().join("grammar"), &["md"]));
    md.push(root().join("README.md"));
    md
}

fn render(src: &str, errors: Vec<syntax::Error>) -> String {
    Diagnostics::new("example.fql", src, errors).render(false, 80)
}

#[test]
fn fql_blocks_in_markdown_are_valid() {
    let mut checked = 0;
    for path in markdown_files() {
        for block in blocks(&path).into_iter().filter(|b| b.info == "fql") {
            if let Err(errors) = syntax::load(&block.text) {
                panic!(
                    "{}:{}: example does not load:\n{}",
                    block.path.display(),
                    block.line,
                    render(&block.text, errors)
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} examples found");
}

#[test]
fn example_scripts_are_valid() {
    let mut scripts = files(&root().join("examples"), &["fql"]);
    scripts.extend(files(&root().join("grammar"), &["fql"]));
    assert!(scripts.len() >= 8, "only {} scripts found", scripts.len());
    for path in scripts {
        let src = fs::read_to_string(&path).expect("a readable script");
        if let Err(errors) = syntax::load(&src) {
            panic!(
                "{} does not load:\n{}",
                path.display(),
                render(&src, errors)
            );
        }
    }
}

/// The `### \`fql::code\`` sections of `docs/errors.md` and their blocks.
fn error_sections() -> Vec<(String, Vec<Block>)> {
    let path = root().join("docs/errors.md");
    let src = fs::read_to_string(&path).expect("docs/errors.md");
    let all = blocks(&path);
    let mut sections: Vec<(String, usize)> = Vec::new();
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        if let Some(code) = line
            .trim()
            .strip_prefix("### `")
            .and_then(|l| l.strip_suffix('`'))
        {
            sections.push((code.to_string(), offset));
        }
        offset += line.len();
    }
    let mut out = Vec::new();
    for (n, (code, start)) in sections.iter().enumerate() {
        let end = sections.get(n + 1).map_or(usize::MAX, |s| s.1);
        let inside = all
            .iter()
            .filter(|b| b.range.start > *start && b.range.start < end);
        out.push((code.clone(), inside.map(clone_block).collect()));
    }
    out
}

fn clone_block(b: &Block) -> Block {
    Block {
        path: b.path.clone(),
        line: b.line,
        info: b.info.clone(),
        text: b.text.clone(),
        range: b.range.clone(),
    }
}

#[test]
fn every_error_example_triggers_its_error_and_prints_as_shown() {
    let bless = std::env::var_os("FQL_BLESS").is_some();
    let path = root().join("docs/errors.md");
    let mut doc = fs::read_to_string(&path).expect("docs/errors.md");
    let mut rewrites = Vec::new();
    let mut failures = Vec::new();
    for (code, blocks) in error_sections() {
        let Some(example) = blocks.iter().find(|b| b.info == "fql-error") else {
            assert_eq!(code, "fql::too_large", "{code} has no example");
            continue;
        };
        let errors = match syntax::load(&example.text) {
            Ok(_) => panic!(
                "{}:{}: the example for {code} loads",
                example.path.display(),
                example.line
            ),
            Err(errors) => errors,
        };
        let codes: Vec<String> = errors.iter().map(|e| e.code()).collect();
        assert!(
            codes.iter().all(|c| *c == code),
            "{}:{}: the example for {code} gives {codes:?}",
            example.path.display(),
            example.line
        );
        let printed = render(&example.text, errors);
        let shown = blocks
            .iter()
            .find(|b| b.info == "text" && b.range.start > example.range.start)
            .unwrap_or_else(|| panic!("{code} has no printed output block"));
        if shown.text != printed {
            if bless {
                rewrites.push((shown.range.clone(), printed));
            } else {
                failures.push(format!(
                    "{code}: docs show\n{}\nbut fql prints\n{printed}",
                    shown.text
                ));
            }
        }
    }
    if bless {
        rewrites.sort_by_key(|r| std::cmp::Reverse(r.0.start));
        for (range, text) in rewrites {
            doc.replace_range(range, &text);
        }
        fs::write(&path, doc).expect("docs/errors.md is writable");
    }
    assert!(
        failures.is_empty(),
        "outdated output in docs/errors.md (FQL_BLESS=1 rewrites it):\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_error_code_is_documented() {
    let source =
        fs::read_to_string(root().join("src/syntax/error.rs")).expect("src/syntax/error.rs");
    let mut in_source: Vec<String> = source
        .match_indices("code(fql::")
        .map(|(n, _)| {
            let rest = &source[n + 5..];
            rest[..rest.find(')').expect("a closed code(...)")].to_string()
        })
        .collect();
    let mut documented: Vec<String> = error_sections().into_iter().map(|(code, _)| code).collect();
    in_source.sort();
    documented.sort();
    assert_eq!(in_source, documented);
}
