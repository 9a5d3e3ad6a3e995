//! The command as a daily tool: its help and manual page, `fql explain`
//! of a named script, `fql fmt` on many files, in place, and as a check,
//! `fql scripts`' columns, and the mutex's `--wait` apart from `--timeout`.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use super::{fql, outputs, spawn_piped, stderr, stdout};
use crate::support::eventually::eventually;

/// `fql ARGS` with a home of its own, distinctive enough that any trace
/// of it in the output is a path made from it.
fn with_home(home: &Path) -> assert_cmd::Command {
    let mut cmd = fql();
    cmd.env("HOME", home)
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("FQL_HISTORY");
    cmd
}

#[test]
fn help_and_the_manual_page_print_no_home_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home-of-q7ZxW3");
    std::fs::create_dir(&home).unwrap();
    let home_text = home.to_str().unwrap();
    for args in [
        &["--help"][..],
        &["-h"],
        &["man"],
        &["run", "--help"],
        &["mutex", "acquire", "--help"],
        &["completions", "bash"],
    ] {
        let out = stdout(with_home(&home).args(args));
        assert!(
            !out.contains(home_text),
            "{args:?} shows {home_text}: {out}"
        );
        assert!(!out.contains("q7ZxW3"), "{args:?}: {out}");
    }
    let help = stdout(with_home(&home).arg("--help"));
    assert!(help.contains("$XDG_DATA_HOME/fql/fql.db"), "{help}");
    assert!(help.contains("~/.local/share/fql/fql.db"), "{help}");
    assert!(help.contains("$XDG_STATE_HOME/fql/history"), "{help}");
}

/// The manual page as plain text: roff's escaped hyphens as hyphens,
/// section titles unquoted.
fn manual() -> String {
    let page = stdout(fql().arg("man")).replace("\\-", "-");
    let unquoted = |line: &str| match line.strip_prefix(".SH \"") {
        Some(title) => format!(".SH {}", title.trim_end_matches('"')),
        None => line.to_string(),
    };
    page.lines().map(|l| unquoted(l) + "\n").collect()
}

#[test]
fn the_manual_page_has_exit_status_environment_and_files() {
    let man = manual();
    for section in [
        ".SH COMMANDS",
        ".SH EXIT STATUS",
        ".SH ENVIRONMENT",
        ".SH FILES",
    ] {
        assert!(man.contains(section), "{section}: {man}");
    }
    let section = |title: &str| {
        let start = man.find(&format!(".SH {title}\n")).unwrap();
        let rest = &man[start + 4..];
        rest[..rest.find("\n.SH ").unwrap_or(rest.len())].to_string()
    };
    let exit = section("EXIT STATUS");
    for code in ["0", "1", "2", "3", "4", "5", "130"] {
        assert!(exit.contains(&format!("\\fB{code}\\fR")), "{code}: {exit}");
    }
    let environment = section("ENVIRONMENT");
    for name in [
        "FDB_CLUSTER_FILE",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "HOME",
        "FQL_HISTORY",
        "PAGER",
        "EDITOR",
        "VISUAL",
        "NO_COLOR",
    ] {
        assert!(environment.contains(name), "{name}: {environment}");
    }
    let files = section("FILES");
    assert!(files.contains("$XDG_DATA_HOME/fql/fql.db"), "{files}");
    assert!(files.contains("$XDG_STATE_HOME/fql/history"), "{files}");
}

/// No `fql-run(1)` and the like: fql has one manual page, and the
/// commands are in it as they are typed.
#[test]
fn the_manual_page_refers_to_no_page_that_does_not_exist() {
    let man = manual();
    let mut rest = man.as_str();
    while let Some(at) = rest.find("fql-") {
        let after = &rest[at + 4..];
        let word = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(after.len());
        assert!(
            !after[word..].starts_with('('),
            "a reference to {}: {man}",
            &rest[at..at + 4 + word + 3.min(after.len() - word)]
        );
        rest = after;
    }
    let commands = stdout(fql().arg("--help"));
    for name in [
        "run", "scripts", "mutex", "validate", "fmt", "explain", "man",
    ] {
        assert!(commands.contains(name));
        assert!(
            man.contains(&format!("\\fBfql {name}\\fR")),
            "{name}: {man}"
        );
    }
    assert!(man.contains("\\fBfql mutex acquire\\fR"), "{man}");
}

#[test]
fn explain_takes_a_named_script_as_run_does() {
    let source = stdout(fql().args(["scripts", "show", "mutex/try-acquire"]));
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("try-acquire.fql");
    std::fs::write(&file, &source).unwrap();
    let params = ["-p", "dir=(\"locks\",\"nightly\")", "-p", "name=web-1"];
    let named = stdout(fql().args(["explain", "mutex/try-acquire"]).args(params));
    let from_file = stdout(fql().arg("explain").arg(&file).args(params));
    assert_eq!(named, from_file);
    assert!(named.contains("/locks/nightly"), "{named}");
    // A missing parameter is reported as for a file.
    let err = stderr(fql().args(["explain", "mutex/try-acquire"]), 3);
    assert!(err.contains("mutex/try-acquire"), "{err}");
    // Neither a file nor a script.
    let err = stderr(fql().args(["explain", "no/such-script"]), 2);
    assert!(err.contains("no/such-script"), "{err}");
}

/// A directory of scripts: `messy` not in canonical form, `clean` in it,
/// `broken` that does not parse.
fn scripts_dir() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(tmp.path().join(name), text).unwrap();
    write("messy.fql", "/a( 1 ,  \"x\" )  % why\n\n\n/b(<int>)\n");
    write("clean.fql", "/a(1)=2\n");
    write("broken.fql", "/a(1,2\n");
    tmp
}

const MESSY_FORMATTED: &str = "/a(1,\"x\") % why\n\n/b(<int>)\n";

#[test]
fn fmt_check_prints_nothing_and_only_sets_the_exit_status() {
    let tmp = scripts_dir();
    let dir = tmp.path();
    let (out, err) = outputs(fql().args(["fmt", "--check"]).arg(dir.join("clean.fql")), 0);
    assert_eq!((out.as_str(), err.as_str()), ("", ""));
    let several = [dir.join("clean.fql"), dir.join("messy.fql")];
    let (out, err) = outputs(fql().args(["fmt", "--check"]).args(&several), 1);
    assert_eq!((out.as_str(), err.as_str()), ("", ""));
    let (out, err) = outputs(
        fql()
            .args(["fmt", "--check", "--color", "never"])
            .arg(dir.join("messy.fql"))
            .arg(dir.join("broken.fql")),
        3,
    );
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("broken.fql") && err.contains("unclosed"),
        "{err}"
    );
}

#[test]
fn fmt_prints_several_files_in_turn() {
    let tmp = scripts_dir();
    let dir = tmp.path();
    let out = stdout(
        fql()
            .arg("fmt")
            .arg(dir.join("messy.fql"))
            .arg(dir.join("clean.fql")),
    );
    assert_eq!(out, format!("{MESSY_FORMATTED}/a(1)=2\n"));
}

#[test]
fn fmt_write_rewrites_what_parses_and_leaves_the_rest() {
    let tmp = scripts_dir();
    let dir = tmp.path();
    let path = |name: &str| dir.join(name);
    std::fs::set_permissions(path("messy.fql"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let clean_inode = std::fs::metadata(path("clean.fql")).unwrap().ino();
    let (out, err) = outputs(
        fql().args(["fmt", "--write", "--color", "never"]).args([
            path("broken.fql"),
            path("messy.fql"),
            path("clean.fql"),
        ]),
        3,
    );
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("broken.fql") && err.contains("unclosed"),
        "{err}"
    );
    let read = |name: &str| std::fs::read_to_string(path(name)).unwrap();
    assert_eq!(read("messy.fql"), MESSY_FORMATTED);
    let mode = std::fs::metadata(path("messy.fql"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o640, "the file keeps its permissions");
    assert_eq!(read("broken.fql"), "/a(1,2\n", "left as it was");
    assert_eq!(read("clean.fql"), "/a(1)=2\n");
    assert_eq!(
        std::fs::metadata(path("clean.fql")).unwrap().ino(),
        clean_inode,
        "a file in canonical form is not rewritten"
    );
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["broken.fql", "clean.fql", "messy.fql"],
        "no temporary file left"
    );
    // Done: a second run finds everything that parses canonical.
    let again = [path("messy.fql"), path("clean.fql")];
    fql()
        .args(["fmt", "--check"])
        .args(&again)
        .assert()
        .success();
}

#[test]
fn fmt_write_follows_a_symbolic_link() {
    let tmp = scripts_dir();
    let dir = tmp.path();
    let link = dir.join("link.fql");
    std::os::unix::fs::symlink("messy.fql", &link).unwrap();
    fql().args(["fmt", "--write"]).arg(&link).assert().success();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("messy.fql")).unwrap(),
        MESSY_FORMATTED
    );
}

#[test]
fn fmt_write_refuses_standard_input_and_check_with_write() {
    let err = stderr(fql().args(["fmt", "--write"]).write_stdin("/a( 1 )\n"), 2);
    assert!(
        err.contains("--write") && err.contains("standard input"),
        "{err}"
    );
    let err = stderr(
        fql().args(["fmt", "--write", "-"]).write_stdin("/a( 1 )\n"),
        2,
    );
    assert!(err.contains("standard input"), "{err}");
    let tmp = scripts_dir();
    let messy = tmp.path().join("messy.fql");
    let err = stderr(fql().args(["fmt", "--check", "--write"]).arg(&messy), 2);
    assert!(err.contains("--check") && err.contains("--write"), "{err}");
    let before = std::fs::read_to_string(&messy).unwrap();
    assert_ne!(before, MESSY_FORMATTED, "nothing was rewritten");
}

#[test]
fn scripts_list_descriptions_in_one_column_past_the_longest_name() {
    let list = stdout(fql().arg("scripts"));
    let names: Vec<&str> = fql::scripts::ALL.iter().map(|s| s.name).collect();
    let longest = names.iter().map(|n| n.len()).max().unwrap();
    let mut described = 0;
    for line in list.lines().filter(|l| !l.starts_with(' ')) {
        let name = names
            .iter()
            .filter(|n| line.starts_with(**n))
            .max_by_key(|n| n.len())
            .unwrap_or_else(|| panic!("a line of no script: {line}"));
        let column = line.len() - line[name.len()..].trim_start().len();
        assert_eq!(column, longest + 2, "{line}\n{list}");
        described += 1;
    }
    assert_eq!(described, names.len(), "{list}");
    for line in list.lines().filter(|l| l.starts_with(' ')) {
        assert_eq!(line.find("parameters: "), Some(longest + 4), "{line}");
    }
}

/// `fql mutex acquire` with no `--wait` waits as long as it takes, however
/// short the transaction deadline `--timeout`, before the command or
/// after it; `--wait` gives up, leaving the queue, with exit 1.
#[test]
fn acquire_waits_as_long_as_it_takes_and_wait_bounds_it() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("fql.db");
    let db = db.to_str().unwrap();
    let mutex = |args: &[&str]| {
        let mut cmd = fql();
        cmd.args(["--db", db, "mutex"]).args(args);
        cmd
    };
    // The holder never beats: a staleness far above the test's length
    // keeps the head waiter from taking over from it.
    mutex(&[
        "try-acquire",
        "/locks/w",
        "--name",
        "holder",
        "--stale",
        "600",
    ])
    .assert()
    .success();
    let waiter = |global: bool, name: &str| {
        spawn_piped(|cmd| {
            cmd.args(["--db", db]).stdin(Stdio::null());
            if global {
                cmd.args(["--timeout", "1"]);
            }
            cmd.args([
                "mutex", "acquire", "/locks/w", "--stale", "600", "--name", name,
            ]);
            if !global {
                cmd.args(["--timeout", "1"]);
            }
            cmd
        })
    };
    let show = || stdout(&mut mutex(&["show", "/locks/w"]));
    let mut first = waiter(true, "first");
    eventually("first queued", || {
        let queued = show().contains("1. first ");
        assert!(
            queued || first.try_wait().unwrap().is_none(),
            "first gave up before it queued"
        );
        queued
    });
    let mut second = waiter(false, "second");
    eventually("second queued", || {
        let queued = show().contains("2. second ");
        assert!(
            queued || second.try_wait().unwrap().is_none(),
            "second gave up before it queued"
        );
        queued
    });
    // Three times the transaction deadline later, both still wait.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        first.try_wait().unwrap().is_none(),
        "first gave up: {}",
        show()
    );
    assert!(
        second.try_wait().unwrap().is_none(),
        "second gave up: {}",
        show()
    );

    // A client with --wait gives up, and leaves the queue; so does `run`,
    // without running its command.
    let err = stderr(
        &mut mutex(&[
            "acquire", "/locks/w", "--name", "late", "--wait", "0.5", "--stale", "600",
        ]),
        1,
    );
    assert!(err.contains("not acquired"), "{err}");
    let marker = tmp.path().join("ran");
    let err = stderr(
        mutex(&[
            "run", "/locks/w", "--name", "runner", "--wait", "0.5", "--stale", "600", "--",
        ])
        .arg("touch")
        .arg(&marker),
        1,
    );
    assert!(err.contains("did not run"), "{err}");
    assert!(!marker.exists(), "the command ran without the mutex");
    let state = show();
    assert!(
        !state.contains("late") && !state.contains("runner"),
        "{state}"
    );
    assert!(state.contains("queue: 2 waiting"), "{state}");

    // Each waiter gets the mutex in turn.
    for (releasing, waiter, name) in [("holder", first, "first"), ("first", second, "second")] {
        mutex(&["release", "/locks/w", "--name", releasing])
            .assert()
            .success();
        let out = waiter.wait_with_output().unwrap();
        let token = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(token.trim().len(), 24, "{name}'s token: {token}");
        assert!(show().starts_with(&format!("owner: {name} ")));
    }
}
