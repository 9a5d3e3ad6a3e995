//! The documentation is executable: every FQL example in `docs/`,
//! `grammar/`, `examples/` and the README must be valid, and every error in
//! `docs/errors.md` must be triggered by its example and print as shown;
//! every command-line example runs and prints as shown ([`examples`]).

use std::fs;

use fql::check::{self, load};
use fql::syntax::Diagnostics;

use crate::support::repo;

#[path = "docs/examples.rs"]
mod examples;
#[path = "docs/library.rs"]
mod library;
#[path = "docs/transcript.rs"]
mod transcript;

use repo::{Block, blocks, files, markdown_files, root};

/// The blocks of a Markdown file.
fn blocks_of(path: &std::path::Path) -> Vec<Block> {
    blocks(&fs::read_to_string(path).expect("a readable Markdown file"))
}

fn render(src: &str, errors: Vec<check::Error>) -> String {
    Diagnostics::new("example.fql", src, errors).render(false, 80)
}

#[test]
fn fql_blocks_in_markdown_are_valid() {
    let mut checked = 0;
    for path in markdown_files() {
        for block in blocks_of(&path)
            .into_iter()
            .filter(|b| b.info.split_whitespace().next() == Some("fql"))
        {
            if let Err(errors) = load(&block.text) {
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
        if let Err(errors) = load(&src) {
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
    /// Under `## Static errors` or before: the text of a script shows it.
    in_text: bool,
    blocks: Vec<Block>,
}

/// The `### \`fql::code\`` sections of `docs/errors.md` and their blocks.
fn error_sections() -> Vec<Section> {
    let src = fs::read_to_string(root().join("docs/errors.md")).expect("docs/errors.md");
    let mut sections: Vec<Section> = Vec::new();
    let mut offset = 0;
    let mut in_text = true;
    for line in src.split_inclusive('\n') {
        if let Some(title) = line.trim().strip_prefix("## ") {
            in_text = matches!(title, "Syntax errors" | "Static errors");
        }
        if let Some(code) = line
            .trim()
            .strip_prefix("### `")
            .and_then(|l| l.strip_suffix('`'))
        {
            sections.push(Section {
                code: code.to_string(),
                offset,
                in_text,
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

/// What an example printed, and the codes of the errors in it.
struct Shown {
    printed: String,
    codes: Vec<String>,
}

/// Loads an `fql-error` example, which must fail.
fn load_example(code: &str, example: &Block) -> Shown {
    let errors = match load(&example.text) {
        Ok(_) => panic!(
            "docs/errors.md:{}: the example for {code} loads",
            example.line
        ),
        Err(errors) => errors,
    };
    let codes = errors.iter().map(|e| e.code()).collect();
    Shown {
        printed: render(&example.text, errors),
        codes,
    }
}

/// The examples of `section`, each an input block and the `text` block
/// after it that shows what it prints. An input is a script whose text
/// shows the error (`fql-error`), a command line (`sh`), or calls of the
/// library (`library`).
fn examples(section: &Section) -> Vec<(&Block, &Block)> {
    let code = &section.code;
    let mut pairs = Vec::new();
    let mut input = None;
    for block in &section.blocks {
        match block.info.as_str() {
            "fql-error" | "sh" | "library" => input = Some(block),
            "text" => pairs.extend(input.take().map(|i| (i, block))),
            _ => {}
        }
    }
    if let Some(input) = input {
        panic!(
            "docs/errors.md:{}: the example for {code} has no printed output block",
            input.line
        );
    }
    pairs
}

/// Runs one example of `section`.
fn run_example(section: &Section, example: &Block) -> Shown {
    let code = &section.code;
    match example.info.as_str() {
        "fql-error" => {
            assert!(
                section.in_text,
                "{code} is a run-time error with a static example"
            );
            load_example(code, example)
        }
        "sh" => run_shell(code, example),
        _ => library::run(code, example),
    }
}

/// Runs a command line with the `fql` under test first on `PATH`, in an
/// empty directory that is also its home, so the default database is a
/// new one; it must fail. Prints what it wrote to standard output, then
/// what it wrote to standard error.
fn run_shell(code: &str, example: &Block) -> Shown {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = examples::command(dir.path(), &example.text)
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .expect("sh runs");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !out.status.success(),
        "docs/errors.md:{}: the example for {code} succeeds:\n{printed}",
        example.line
    );
    let codes = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("fql::") && !l.contains(' '))
        .map(str::to_string)
        .collect();
    Shown { printed, codes }
}

#[test]
fn every_error_example_triggers_its_error_and_prints_as_shown() {
    let bless = std::env::var_os("FQL_BLESS").is_some();
    let path = root().join("docs/errors.md");
    let mut doc = fs::read_to_string(&path).expect("docs/errors.md");
    let mut rewrites = Vec::new();
    let mut failures = Vec::new();
    for section in error_sections() {
        let code = &section.code;
        let examples = examples(&section);
        // A script past 4 GiB would not fit in the page.
        assert!(
            !examples.is_empty() || code == "fql::too_large",
            "{code} has no example"
        );
        for (example, shown) in examples {
            let Shown { printed, codes } = run_example(&section, example);
            assert!(
                !codes.is_empty() && codes.iter().all(|c| c == code),
                "docs/errors.md:{}: the example for {code} gives {codes:?}:\n{printed}",
                example.line
            );
            if shown.text == printed {
                continue;
            }
            if bless {
                rewrites.push((shown.range.clone(), printed));
            } else {
                failures.push(format!(
                    "docs/errors.md:{}: {code}: docs show\n{}\nbut fql prints\n{printed}",
                    shown.line, shown.text
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

/// Every code the source gives an error, the binary's included, has its
/// section; the example test above makes each section show its code.
#[test]
fn every_error_code_is_documented() {
    let mut in_source: Vec<String> = Vec::new();
    for file in files(&root().join("src"), &["rs"]) {
        let source = fs::read_to_string(&file).expect("a readable source file");
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
    assert!(
        documented.len() >= 60,
        "only {} codes found",
        documented.len()
    );
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
