//! Every command-line example of the README and `docs/` runs against the
//! real `fql`, so the documentation cannot drift from what it prints.
//!
//! An example is a ```` ```console ```` block, in the form `trycmd` reads:
//! `$ COMMAND` (with `> ` lines going on with it), then `? STATUS` when it
//! does not succeed (`failed`, or the exit code), then what it prints,
//! standard output and standard error together as a terminal shows them.
//! In what it prints, `[..]` stands for any text within a line, `...` on a
//! line of its own for any lines, and `[ROOT]` for the example's directory.
//! The matching is `snapbox`'s, the library under `trycmd`; the commands
//! run here rather than through `trycmd` because the examples are command
//! lines a user types: they pipe (`printf ... | fql fmt`), redirect, and
//! make files, which `trycmd`, running the program directly, cannot do.
//!
//! Each command runs in `sh`, with the `fql` under test first on `PATH`,
//! standard input empty, and a directory of its own for each Markdown file
//! as its working directory and its home, so the default database is a new
//! one there and never the user's; the commands of one file run in order
//! and see each other's files. A command whose output holds shell prompts
//! (`fql> `) opens the shell: it runs in a pseudo-terminal
//! ([`super::transcript`]). `FQL_BLESS=1` rewrites the shown output and
//! status with what the commands print, keeping the wildcards that match.

use std::fs;
use std::io::Read;
use std::ops::Range;
use std::path::Path;
use std::process::{Command, Stdio};

use snapbox::filter::NormalizeToExpected;
use snapbox::{Data, Redactions};

use super::transcript;
use crate::support::repo::{self, Block};

/// The exit status an example expects.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    Success,
    /// Any failure: `? failed`.
    Failed,
    /// `? N`.
    Code(i32),
}

impl Status {
    fn parse(text: &str) -> Option<Status> {
        match text.trim() {
            "success" => Some(Status::Success),
            "failed" => Some(Status::Failed),
            n => n.parse().ok().map(Status::Code),
        }
    }

    /// Whether a process that ended with `code` (`None`: by a signal) has it.
    fn matches(self, code: Option<i32>) -> bool {
        match self {
            Status::Success => code == Some(0),
            Status::Failed => code.is_some_and(|c| c != 0),
            Status::Code(n) => code == Some(n),
        }
    }
}

/// One `$ COMMAND` of a block and what follows it.
#[derive(Debug, PartialEq)]
pub struct Step {
    /// The line of its `$` in the file, from 1.
    pub line: usize,
    /// The command, its `> ` lines joined by line breaks, as `sh` reads it.
    pub command: String,
    pub status: Status,
    /// The output shown, each line with its line break.
    pub shown: String,
    /// Where the status line and the output are in the block's text.
    pub tail: Range<usize>,
}

/// The steps of a `console` block whose text starts on line `first`.
pub fn steps(text: &str, first: usize) -> Result<Vec<Step>, String> {
    let mut out: Vec<Step> = Vec::new();
    let mut offset = 0;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let start = offset;
        offset += raw.len();
        if let Some(command) = line.strip_prefix("$ ") {
            out.push(Step {
                line: first + n,
                command: command.to_string(),
                status: Status::Success,
                shown: String::new(),
                tail: offset..offset,
            });
            continue;
        }
        let Some(step) = out.last_mut() else {
            return Err(format!(
                "line {}: a console block starts with `$ `",
                first + n
            ));
        };
        let fresh = step.tail.start == start && step.shown.is_empty();
        if let (true, Some(more)) = (fresh, line.strip_prefix("> ")) {
            step.command.push('\n');
            step.command.push_str(more);
            step.tail = offset..offset;
        } else if let (true, Some(status)) = (fresh, line.strip_prefix("? ")) {
            step.status = Status::parse(status)
                .ok_or_else(|| format!("line {}: unknown status `{status}`", first + n))?;
            step.tail.end = offset;
        } else {
            step.shown.push_str(raw);
            step.tail.end = offset;
        }
    }
    Ok(out)
}

/// What a command did.
pub struct Ran {
    /// Its exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    pub printed: String,
}

/// `sh -c command` in `dir`, its home, with the `fql` under test on `PATH`.
pub fn command(dir: &Path, command: &str) -> Command {
    let fql = Path::new(env!("CARGO_BIN_EXE_fql"));
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        fql.parent().expect("the binary's directory").display()
    );
    let mut cmd = Command::new("sh");
    cmd.args(["-c", command])
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", dir)
        .env("TMPDIR", dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "80");
    cmd
}

/// Runs a command that does not open the shell: standard output and
/// standard error share one pipe, so they interleave as on a terminal.
fn run_plain(dir: &Path, line: &str) -> Ran {
    let (mut reader, writer) = std::io::pipe().expect("a pipe");
    let mut cmd = command(dir, line);
    cmd.stdin(Stdio::null())
        .stdout(writer.try_clone().expect("a pipe"))
        .stderr(writer);
    let mut child = cmd.spawn().expect("sh runs");
    // The command holds the pipe's other ends until it goes.
    drop(cmd);
    let mut printed = Vec::new();
    reader.read_to_end(&mut printed).expect("the output");
    let status = child.wait().expect("an exit status");
    Ran {
        code: status.code(),
        printed: String::from_utf8_lossy(&printed).into_owned(),
    }
}

/// Runs a step, in the shell's pseudo-terminal when its output shows one.
pub fn run(dir: &Path, step: &Step) -> Ran {
    if transcript::is_transcript(&step.shown) {
        transcript::run(command(dir, &step.command), &step.shown)
    } else {
        run_plain(dir, &step.command)
    }
}

/// `printed` as the example would show it: `[ROOT]` for `dir`, and the
/// wildcards of `shown` kept where they match.
pub fn normalize(dir: &Path, printed: &str, shown: &str) -> String {
    let mut redactions = Redactions::new();
    redactions
        .insert("[ROOT]", dir.to_path_buf())
        .expect("a valid placeholder");
    let trim = |s: &str| s.strip_suffix('\n').unwrap_or(s).to_string();
    NormalizeToExpected::new()
        .redact_with(&redactions)
        .normalize(Data::text(trim(printed)), &Data::text(trim(shown)))
        .render()
        .expect("text")
}

/// The status line and output that show what `ran` did.
fn tail(step: &Step, ran: &Ran, output: &str) -> String {
    let status = match ran.code {
        Some(0) => String::new(),
        _ if step.status == Status::Failed && step.status.matches(ran.code) => "? failed\n".into(),
        Some(n) => format!("? {n}\n"),
        None => "? failed\n".into(),
    };
    let output = if output.is_empty() {
        String::new()
    } else {
        format!("{output}\n")
    };
    format!("{status}{output}")
}

/// The outcome of checking one Markdown file.
#[derive(Default)]
pub struct Checked {
    pub steps: usize,
    pub failures: Vec<String>,
    /// Edits that make the file show what ran: (range in the file, text).
    pub rewrites: Vec<(Range<usize>, String)>,
}

/// Runs the console blocks of one Markdown file, in order, in one
/// directory.
pub fn check_file(path: &Path) -> Checked {
    let md = fs::read_to_string(path).expect("a readable Markdown file");
    let name = repo::relative(path);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut checked = Checked::default();
    for block in repo::blocks(&md) {
        if let Some(file) = file_name(&block) {
            fs::write(dir.path().join(file), &block.text).expect("the example's file");
            continue;
        }
        if !runs(&block) {
            continue;
        }
        let steps = steps(&block.text, block.line + 1)
            .unwrap_or_else(|e| panic!("{name}:{}: {e}", block.line));
        for step in steps {
            checked.steps += 1;
            let ran = run(dir.path(), &step);
            let output = normalize(dir.path(), &ran.printed, &step.shown);
            let shown = step.shown.strip_suffix('\n').unwrap_or(&step.shown);
            if output == shown && step.status.matches(ran.code) {
                continue;
            }
            let code = ran.code.map_or("a signal".into(), |c| c.to_string());
            checked.failures.push(format!(
                "{name}:{}: $ {}\nthe docs show ({:?}):\n{shown}\nbut it exits with {code} and prints:\n{output}\n",
                step.line, step.command, step.status
            ));
            // An indented block's text is not the file's: it is left alone.
            if md[block.range.clone()] != block.text {
                continue;
            }
            let at = block.range.start;
            checked.rewrites.push((
                at + step.tail.start..at + step.tail.end,
                tail(&step, &ran, &output),
            ));
        }
    }
    checked
}

/// Whether a block runs: `console`, and `trycmd` as `trycmd` names it;
/// not `console,ignore`.
pub fn runs(block: &Block) -> bool {
    matches!(block.info.as_str(), "console" | "trycmd")
}

/// The file an FQL block is, for the examples after it: ```` ```fql
/// shop.fql ```` is written to `shop.fql` before the next example runs.
pub fn file_name(block: &Block) -> Option<&str> {
    match block.info.split_whitespace().collect::<Vec<_>>()[..] {
        ["fql", name] => Some(name),
        _ => None,
    }
}

#[test]
fn every_console_example_prints_what_the_docs_show() {
    let bless = std::env::var_os("FQL_BLESS").is_some();
    let mut steps = 0;
    let mut failures = Vec::new();
    for path in repo::markdown_files() {
        let mut checked = check_file(&path);
        steps += checked.steps;
        failures.append(&mut checked.failures);
        if bless && !checked.rewrites.is_empty() {
            let mut md = fs::read_to_string(&path).expect("a readable Markdown file");
            checked
                .rewrites
                .sort_by_key(|r| std::cmp::Reverse(r.0.start));
            for (range, text) in checked.rewrites {
                md.replace_range(range, &text);
            }
            fs::write(&path, md).expect("the Markdown file is writable");
        }
    }
    assert!(steps >= 20, "only {steps} console examples found");
    assert!(
        bless || failures.is_empty(),
        "console examples that print something else (FQL_BLESS=1 rewrites them):\n\n{}",
        failures.join("\n")
    );
}

/// A command with its output outside a `console` block would not run:
/// every `$ ` line of the README and `docs/` is in one (`console,ignore`
/// for the few that cannot run here), but in `docs/errors.md`, whose `sh`
/// examples run by its own test.
#[test]
fn every_command_with_output_is_in_a_console_block() {
    for path in repo::markdown_files() {
        if path.ends_with("docs/errors.md") {
            continue;
        }
        let md = fs::read_to_string(&path).expect("a readable Markdown file");
        // A `markdown` block shows how to write an example.
        for block in repo::blocks(&md)
            .into_iter()
            .filter(|b| b.info != "markdown")
        {
            let shown = block.info.starts_with("console");
            if shown && let Err(e) = steps(&block.text, block.line + 1) {
                panic!("{}:{}: {e}", repo::relative(&path), block.line);
            }
            let command = block.text.lines().any(|l| l.starts_with("$ "));
            assert!(
                shown || !command,
                "{}:{}: a `{}` block shows a `$ ` command, which does not run: make it `console`",
                repo::relative(&path),
                block.line,
                block.info
            );
        }
    }
}

#[test]
fn reads_steps() {
    let text = "$ fql fmt a.fql\n? 3\nerror\n...\n$ printf 'x\n> y' | fql\n$ fql -q '/a'\n/a(1)\n";
    let steps = steps(text, 10).expect("steps");
    let found: Vec<(usize, &str, Status, &str)> = steps
        .iter()
        .map(|s| (s.line, s.command.as_str(), s.status, s.shown.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (10, "fql fmt a.fql", Status::Code(3), "error\n...\n"),
            (14, "printf 'x\ny' | fql", Status::Success, ""),
            (16, "fql -q '/a'", Status::Success, "/a(1)\n"),
        ]
    );
    assert_eq!(&text[steps[0].tail.clone()], "? 3\nerror\n...\n");
    assert_eq!(&text[steps[1].tail.clone()], "");
    assert!(super::examples::steps("/a(1)\n$ fql\n", 1).is_err());
}

/// The check fails on output the docs do not show, and the wildcards
/// match only what they stand for.
#[test]
fn a_wrong_example_fails_and_wildcards_match() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let step = |text: &str| steps(text, 1).expect("steps").remove(0);
    let ok = step("$ fql --memory -w -q '/a(1)=2' -q '/a(<int>)=<>'\n/a(1)=2\n");
    let wrong = step("$ fql --memory -w -q '/a(1)=2' -q '/a(<int>)=<>'\n/a(1)=3\n");
    for (s, good) in [(&ok, true), (&wrong, false)] {
        let ran = run(dir.path(), s);
        let shown = s.shown.trim_end();
        assert_eq!(normalize(dir.path(), &ran.printed, &s.shown) == shown, good);
    }
    let printed = "fql 0.1.0 on [x]\nline\nmore\nend\n";
    assert_eq!(
        normalize(dir.path(), printed, "fql [..] on [x]\n...\nend\n"),
        "fql [..] on [x]\n...\nend"
    );
    assert_ne!(
        normalize(dir.path(), printed, "fql [..] on [y]\n...\nend\n"),
        "fql [..] on [y]\n...\nend"
    );
    let ran = run(dir.path(), &step("$ fql --memory -q '/a(1)=2'\n? 2\n"));
    assert_eq!(ran.code, Some(2));
}
