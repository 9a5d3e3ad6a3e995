//! The documentation is executable: every FQL example in `docs/`,
//! `grammar/`, `examples/` and the README must be valid, and every error in
//! `docs/errors.md` must be triggered by its example and print as shown.

use std::fs;

use fql::syntax::{self, Diagnostics};

use crate::support::repo;

use repo::{Block, blocks, files, markdown_files, root};

/// The blocks of a Markdown file.
fn blocks_of(path: &std::path::Path) -> Vec<Block> {
    blocks(&fs::read_to_string(path).expect("a readable Markdown file"))
}

fn render(src: &str, errors: Vec<syntax::Error>) -> String {
    Diagnostics::new("example.fql", src, errors).render(false, 80)
}

#[test]
fn fql_blocks_in_markdown_are_valid() {
    let mut checked = 0;
    for path in markdown_files() {
        for block in blocks_of(&path).into_iter().filter(|b| b.info == "fql") {
            if let Err(errors) = syntax::load(&block.text) {
                panic!(
                    "{}:{}: example does not load:\n{}",
                    path.display(),
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

/// One `### \`fql::code\`` section of `docs/errors.md`.
struct Section {
    code: String,
    offset: usize,
    /// Under `## Run-time errors`: no script shows it without a database.
    run_time: bool,
    blocks: Vec<Block>,
}

/// The `### \`fql::code\`` sections of `docs/errors.md` and their blocks.
fn error_sections() -> Vec<Section> {
    let src = fs::read_to_string(root().join("docs/errors.md")).expect("docs/errors.md");
    let mut sections: Vec<Section> = Vec::new();
    let mut offset = 0;
    let mut run_time = false;
    for line in src.split_inclusive('\n') {
        if let Some(title) = line.trim().strip_prefix("## ") {
            run_time = title == "Run-time errors";
        }
        if let Some(code) = line
            .trim()
            .strip_prefix("### `")
            .and_then(|l| l.strip_suffix('`'))
        {
            sections.push(Section {
                code: code.to_string(),
                offset,
                run_time,
                blocks: Vec::new(),
            });
        }
        offset += line.len();
    }
    for block in blocks(&src) {
        if let Some(section) = sections
            .iter_mut()
            .rev()
            .find(|s| s.offset < block.range.start)
        {
            section.blocks.push(block);
        }
    }
    sections
}

#[test]
fn every_error_example_triggers_its_error_and_prints_as_shown() {
    let bless = std::env::var_os("FQL_BLESS").is_some();
    let path = root().join("docs/errors.md");
    let mut doc = fs::read_to_string(&path).expect("docs/errors.md");
    let mut rewrites = Vec::new();
    let mut failures = Vec::new();
    for Section {
        code,
        run_time,
        blocks,
        ..
    } in error_sections()
    {
        let Some(example) = blocks.iter().find(|b| b.info == "fql-error") else {
            assert!(
                run_time || code == "fql::too_large",
                "{code} has no example"
            );
            continue;
        };
        assert!(
            !run_time,
            "{code} is a run-time error with a static example"
        );
        let errors = match syntax::load(&example.text) {
            Ok(_) => panic!(
                "docs/errors.md:{}: the example for {code} loads",
                example.line
            ),
            Err(errors) => errors,
        };
        let codes: Vec<String> = errors.iter().map(|e| e.code()).collect();
        assert!(
            codes.iter().all(|c| *c == code),
            "docs/errors.md:{}: the example for {code} gives {codes:?}",
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
    let mut in_source: Vec<String> = Vec::new();
    for file in [
        "src/syntax/error.rs",
        "src/codec/error.rs",
        "src/plan.rs",
        "src/exec/error.rs",
    ] {
        let source = fs::read_to_string(root().join(file)).expect(file);
        in_source.extend(source.match_indices("code(fql::").map(|(n, _)| {
            let rest = &source[n + 5..];
            rest[..rest.find(')').expect("a closed code(...)")].to_string()
        }));
    }
    let mut documented: Vec<String> = error_sections().into_iter().map(|s| s.code).collect();
    in_source.sort();
    // A code may stand for the same error found in two places, as
    // `fql::database` with and without a statement.
    in_source.dedup();
    documented.sort();
    assert_eq!(in_source, documented);
}

/// The Markdown reader the other tests rely on.
#[test]
fn finds_blocks() {
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
    let all = repo::blocks(md);
    let found: Vec<(usize, &str, &str)> = all
        .iter()
        .map(|b| (b.line, b.info.as_str(), b.text.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (3, "fql", "/a(1)\n"),
            (7, "text", "/not(fql)\n"),
            (11, "fql-error", "/b(\n```\n)\n"),
            (17, "fql", "/c\n"),
            (20, "fql", "/unclosed\n"),
        ]
    );
    assert_eq!(&md[all[0].range.clone()], "/a(1)\n");
}
