//! The `fql` binary, run as users run it.

use std::ffi::OsStr;
use std::fmt::Debug;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

use assert_cmd::cargo::cargo_bin;

mod analyze;
mod atomics;
mod command;
mod dirs;
mod dump;
mod escaped;
mod faults;
mod mutex;
use crate::support::mutex_show;
mod output;
mod outside;
mod params;
mod partitions;
mod queries;
mod raw;
use crate::support::reach;
mod retry;
mod roots;
mod schema;
mod scripts;
mod store;
mod streaming;
mod terminal;
mod watch;

fn fql() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(cargo_bin("fql"));
    cmd.env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR")
        .env("COLUMNS", "100");
    cmd
}

/// `fql` with a clean environment for database selection.
fn fql_db() -> assert_cmd::Command {
    let mut cmd = fql();
    cmd.env_remove("FDB_CLUSTER_FILE");
    cmd
}

fn temp_file(name: &str, contents: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fql-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("a writable temporary file");
    path
}

/// Sends SIGINT to `child` once it has written to its piped standard
/// output, which nothing reads until then: a child still busy, blocked on
/// a full pipe. Returns how it ended and what it wrote after the signal.
fn interrupt_when_blocked(mut child: Child) -> (std::process::Output, Vec<u8>) {
    use std::io::Read;
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    out.read_exact(&mut first).unwrap();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let mut rest = Vec::new();
    out.read_to_end(&mut rest).unwrap();
    (child.wait_with_output().unwrap(), rest)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// Runs `cmd`, checks it succeeds and returns its standard output: what most runs are checked by.
fn stdout(cmd: &mut assert_cmd::Command) -> String {
    text(&cmd.assert().success().get_output().stdout)
}

/// Runs `cmd`, checks it exits with `code` and returns its standard error: where failures are told.
fn stderr(cmd: &mut assert_cmd::Command, code: i32) -> String {
    text(&cmd.assert().code(code).get_output().stderr)
}

/// Runs `cmd`, checks it exits with `code` and returns its standard output and error: both told.
fn outputs(cmd: &mut assert_cmd::Command, code: i32) -> (String, String) {
    let assert = cmd.assert().code(code);
    let out = assert.get_output();
    (text(&out.stdout), text(&out.stderr))
}

/// Like [`stderr`], for `fql ARGS` with standard output on `to`: for output that cannot be written.
fn stderr_writing_to<S: AsRef<OsStr> + Debug>(to: Stdio, args: &[S], code: i32) -> String {
    let out = Command::new(cargo_bin("fql"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(to)
        .output()
        .expect("fql runs");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    err
}

/// Starts `fql` as `with` sets it up, its output piped: for tests that act on it while it runs.
fn spawn_piped(with: impl FnOnce(&mut Command) -> &mut Command) -> Child {
    let mut cmd = Command::new(cargo_bin("fql"));
    with(&mut cmd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fql starts")
}

/// `fql --db DB` on a fresh file in its own directory, so that no two tests share a database;
/// through FoundationDB's client and fql's libfdb_c when tests/client asks (`support/reach.rs`).
fn on_db() -> (tempfile::TempDir, impl Fn() -> assert_cmd::Command) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("fql.db");
    (dir, move || {
        let mut cmd = fql_db();
        cmd.args(reach::reach(&db));
        cmd
    })
}

/// Checks `fql mutex show` finds mutex `dir` of `db` free: a grant nobody can use is handed back.
fn assert_free(db: &str, dir: &str, context: &str) {
    let show = stdout(fql().args(["--db", db, "mutex", "show", dir]));
    assert!(
        show.starts_with("owner: none (free)\n"),
        "{context}: {show}"
    );
}

#[test]
fn fmt_prints_a_file_in_canonical_form() {
    let path = temp_file(
        "messy.fql",
        b"/a( 1 ,\n  \"x\" )  % trailing\n\n\n/b(<int>)\n",
    );
    let (out, err) = outputs(fql().arg("fmt").arg(&path), 0);
    assert_eq!(out, "/a(1,\"x\") % trailing\n\n/b(<int>)\n");
    assert!(err.is_empty());
}

#[test]
fn fmt_reads_standard_input_with_no_file_or_dash() {
    for args in [&["fmt"][..], &["fmt", "-"][..]] {
        assert_eq!(
            stdout(fql().args(args).write_stdin("/a(1)=2\n")),
            "/a(1)=2\n"
        );
    }
}

#[test]
fn fmt_reports_every_error_and_exits_3() {
    let (out, err) = outputs(
        fql()
            .args(["fmt", "--color", "never"])
            .write_stdin("/a(1,2\n/b(<string>)\n/c(1)=3548[u8]\n"),
        3,
    );
    assert!(out.is_empty(), "nothing half-way on stdout");
    insta::assert_snapshot!(err);
}

#[test]
fn fmt_check_exits_1_when_not_canonical() {
    let canonical = temp_file("canonical.fql", b"/a(1)=2\n");
    assert_eq!(stdout(fql().args(["fmt", "--check"]).arg(&canonical)), "");
    let messy = temp_file("messy-check.fql", b"/a( 1 )=2\n");
    let (out, err) = outputs(fql().args(["fmt", "--check"]).arg(&messy), 1);
    assert!(out.is_empty());
    assert!(err.is_empty(), "--check only sets the exit status: {err}");
}

#[test]
fn unreadable_input_exits_2() {
    let missing = std::env::temp_dir().join("fql-no-such-file.fql");
    assert_eq!(
        stderr(fql().arg("fmt").arg(&missing), 2),
        format!(
            "fql: cannot read {}: No such file or directory\n",
            missing.display()
        )
    );
    let binary = temp_file("binary.fql", b"/a(\"\xff\")\n");
    let err = stderr(fql().arg("fmt").arg(&binary), 2);
    assert!(err.contains("is not UTF-8: invalid byte at offset 4 (line 1)"));
}

#[test]
fn usage_errors_exit_2() {
    fql().args(["fmt", "--bogus"]).assert().code(2);
    fql().args(["bogus"]).assert().code(2);
    fql().args(["-1"]).assert().code(2);
    fql()
        .args(["--format", "yaml", "-q", "/a"])
        .assert()
        .code(2);
}

#[test]
fn help_and_version() {
    assert!(stdout(fql().arg("--help")).contains("fmt"));
    let version = stdout(fql().arg("--version"));
    let first = version.lines().next();
    assert_eq!(
        first,
        Some(format!("fql {}", env!("CARGO_PKG_VERSION")).as_str())
    );
    assert!(version.contains("\nFoundationDB client: "), "{version}");
}

#[test]
fn color_follows_the_flag_and_no_color() {
    let report = |cmd: &mut assert_cmd::Command| stderr(cmd.write_stdin("/a(<string>)\n"), 3);
    assert!(report(fql().args(["--color", "always", "fmt"])).contains("\x1b["));
    assert!(!report(fql().args(["--color", "never", "fmt"])).contains("\x1b["));
    // Not a terminal, so `auto` has no color either, NO_COLOR or not.
    assert!(!report(fql().args(["fmt"])).contains("\x1b["));
    assert!(!report(fql().args(["fmt"]).env("NO_COLOR", "1")).contains("\x1b["));
    // CLICOLOR_FORCE colors even a pipe, unless NO_COLOR says no.
    let forced = || {
        let mut cmd = fql();
        cmd.arg("fmt").env("CLICOLOR_FORCE", "1");
        cmd
    };
    assert!(report(&mut forced()).contains("\x1b["));
    assert!(!report(forced().env("NO_COLOR", "1")).contains("\x1b["));
    assert!(!report(forced().args(["--color", "never"])).contains("\x1b["));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let mut script = Vec::new();
    for n in 0..20_000 {
        writeln!(script, "/big({n},\"some text to fill the pipe\")=nil").expect("writing to a Vec");
    }
    let path = temp_file("big.fql", &script);
    let mut child = spawn_piped(|cmd| cmd.arg("fmt").arg(&path));
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("a stdout pipe"))
        .read_line(&mut first)
        .expect("one line");
    assert_eq!(first, "/big(0,\"some text to fill the pipe\")=nil\n");
    let out = child.wait_with_output().expect("fql ends");
    assert!(out.status.success(), "status {:?}", out.status);
    assert!(out.stderr.is_empty(), "stderr: {}", text(&out.stderr));
}

#[test]
fn only_the_first_errors_are_shown_in_full() {
    let script = "x\n".repeat(60);
    let err = stderr(
        fql().args(["fmt", "--color", "never"]).write_stdin(script),
        3,
    );
    assert_eq!(err.matches("fql::expected_statement").count(), 50);
    assert!(
        err.ends_with("\n... and 10 more\n60 errors in <stdin>\n"),
        "{err}"
    );
}

/// Errors found when the script is planned are capped the same way.
#[test]
fn only_the_first_plan_errors_are_shown_in_full() {
    let script: String = (0..60).map(|n| format!("/a(:x{n})\n")).collect();
    let err = stderr(
        fql()
            .args(["--memory", "--color", "never", "-f", "-"])
            .write_stdin(script),
        3,
    );
    assert_eq!(err.matches("fql::unbound").count(), 50, "{err}");
    assert!(err.ends_with("\n... and 10 more\n"), "{err}");
}

/// A megabyte line with an error every few bytes prints a window of the
/// line per error, for the first 50 errors: tens of kilobytes, not the
/// line fifty times over.
#[test]
fn a_long_line_with_many_errors_prints_a_bounded_report() {
    let script = format!("/a({})\n", "1x,".repeat(350_000));
    let err = stderr(
        fql().args(["fmt", "--color", "never"]).write_stdin(script),
        3,
    );
    assert!(err.len() < 50_000, "{} bytes", err.len());
    assert_eq!(err.matches("fql::invalid_number").count(), 50);
    assert!(err.ends_with("\n... and 349950 more\n350000 errors in <stdin>\n"));
    assert!(err.contains("[<stdin>:1:151]"), "{err}");
}

#[test]
fn status_names_the_embedded_database_it_opens() {
    assert_eq!(
        stdout(fql_db().args(["--memory", "status"])),
        "database: embedded in-memory database\nread version: 0\n"
    );
    // A file in a directory that does not exist yet is created by a
    // command that may write; status names it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new/dir/data.db");
    stdout(fql_db().args(["-q", "/a(1)", "--db"]).arg(&path));
    assert!(path.is_file());
    let out = stdout(fql_db().args(["status", "--db"]).arg(&path));
    assert!(out.starts_with(&format!("database: embedded database {}\n", path.display())));
    // With no flag, the file in the user's data directory, which status
    // names but does not create.
    let default = dir.path().join("fql/fql.db");
    let err = stderr(fql_db().env("XDG_DATA_HOME", dir.path()).arg("status"), 2);
    assert!(err.contains(&default.display().to_string()), "{err}");
    assert!(!default.exists());
    stdout(
        fql_db()
            .env("XDG_DATA_HOME", dir.path())
            .args(["-q", "/a(1)"]),
    );
    let out = stdout(fql_db().env("XDG_DATA_HOME", dir.path()).arg("status"));
    assert!(out.contains(&default.display().to_string()));
}

#[test]
fn status_prints_one_json_object() {
    let json = |out: &str| -> serde_json::Value {
        serde_json::from_str(out).unwrap_or_else(|e| panic!("one JSON object: {e}: {out}"))
    };
    let out = stdout(fql_db().args(["--memory", "status", "--format", "json"]));
    assert_eq!(
        json(&out),
        serde_json::json!({"database": "embedded in-memory database", "read_version": 0})
    );
    assert_eq!(out.lines().count(), 1);
    // A file says whether it takes writes; its name, with a control
    // character in it, comes back whole from the JSON.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a\u{1b}b.db");
    stdout(
        fql_db()
            .arg("--db")
            .arg(&path)
            .args(["-w", "-q", "/a(1)=2"]),
    );
    for args in [
        &["status", "--format", "json"][..],
        &["--format", "jsonl", "status"],
    ] {
        let out = stdout(fql_db().arg("--db").arg(&path).args(args));
        assert!(!out.contains('\u{1b}'), "{out}");
        let status = json(&out);
        assert_eq!(status["access"], "read-write", "{out}");
        assert_eq!(
            status["database"],
            format!("embedded database {}", path.display()).as_str()
        );
        assert!(
            status["read_version"].as_u64().is_some_and(|v| v > 0),
            "{out}"
        );
    }
    // Read-only, with why.
    let out =
        stdout(
            fql_db()
                .arg("--db")
                .arg(&path)
                .args(["--read-only", "status", "--format", "json"]),
        );
    let status = json(&out);
    assert_eq!(status["access"], "read-only", "{out}");
    assert!(
        status["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "{out}"
    );
}

#[test]
fn a_file_that_is_not_a_database_is_refused() {
    let path = temp_file(
        "not-a-db.db",
        b"hello, this is not SQLite at all, not even close\n",
    );
    let err = stderr(fql_db().arg("--db").arg(&path).arg("status"), 2);
    assert!(err.contains("cannot open the database"), "{err}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"hello, this is not SQLite at all, not even close\n"
    );
}

#[test]
fn database_flags_conflict() {
    let err = stderr(fql_db().args(["--memory", "--db", "x.db", "status"]), 2);
    assert!(err.contains("cannot be used with"));
}

/// A database file, and a cluster file naming it that only fql's
/// `libfdb_c` opens: a cluster whose data a test can read without the
/// client library.
fn embedded_cluster() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("fql.db");
    let line = stdout(fql_db().arg("--db").arg(&db).arg("cluster-file"));
    let cluster = dir.path().join("fdb.cluster");
    std::fs::write(&cluster, line).expect("a writable cluster file");
    (dir, db, cluster)
}

/// Where the client library is not: a missing file, a missing file in a
/// directory, and a file that is not a library. Each refusal names the
/// place and what is wrong with it.
fn no_library(dir: &std::path::Path) -> Vec<(std::path::PathBuf, &'static str)> {
    let text = dir.join("text.so");
    std::fs::write(&text, "not a library\n").expect("a writable file");
    let empty = dir.join("empty-dir");
    std::fs::create_dir(&empty).expect("a directory");
    vec![
        (dir.join("none/libfdb_c.so"), "no such file"),
        (empty.clone(), "no such file"),
        (text, "not a loadable library"),
    ]
}

/// A cluster asked for, with no client library to load: exit 2 with what
/// was searched and what to install, and nothing written; whichever way
/// the cluster is named.
#[test]
fn a_cluster_without_the_client_library_exits_2_writing_nothing() {
    let (dir, db, cluster) = embedded_cluster();
    for (lib, why) in no_library(dir.path()) {
        let cluster_flag = ["-C".as_ref(), cluster.as_os_str()];
        for (args, env) in [
            (&cluster_flag[..], None),
            (&["--fdb".as_ref()][..], Some(&cluster)),
            (&[][..], Some(&cluster)),
        ] {
            let mut cmd = fql_db();
            cmd.env("FDB_CLIENT_LIB_PATH", &lib)
                .args(args)
                .args(["-w", "-q", "/a(1)=1"]);
            if let Some(file) = env {
                cmd.env("FDB_CLUSTER_FILE", file);
            }
            let (out, err) = outputs(&mut cmd, 2);
            assert!(out.is_empty(), "{out}");
            assert!(
                err.starts_with("fql: cannot load the FoundationDB client library"),
                "{err}"
            );
            let shown = if lib.is_dir() {
                lib.join("libfdb_c.so")
            } else {
                lib.clone()
            };
            let place = format!("FDB_CLIENT_LIB_PATH={}: {why}", shown.display());
            assert!(err.contains(&place), "{err}");
            assert!(
                err.contains("install the FoundationDB client package"),
                "{err}"
            );
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let rows = stdout(fql_db().arg("--db").arg(&db).args(["-q", "/a(<>)=<>"]));
    assert_eq!(rows, "", "a write landed");
}

/// The embedded store never loads the library: a broken
/// `FDB_CLIENT_LIB_PATH` changes nothing for it.
#[test]
fn the_embedded_store_never_loads_the_library() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let text = dir.path().join("text.so");
    std::fs::write(&text, "not a library\n").unwrap();
    let db = dir.path().join("fql.db");
    let run = |args: &[&str]| {
        let mut cmd = fql_db();
        cmd.env("FDB_CLIENT_LIB_PATH", &text)
            .arg("--db")
            .arg(&db)
            .args(args);
        stdout(&mut cmd)
    };
    run(&["-w", "-q", "/a(1)=1"]);
    assert_eq!(run(&["-q", "/a(<>)=<>"]), "/a(1)=1\n");
    assert!(run(&["status"]).starts_with("database: "));
    assert!(!run(&["status"]).contains("client library"));
}

/// `--version` names the library it would load, or says why there is
/// none, and succeeds either way.
#[test]
fn version_says_when_no_client_library_is_found() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let missing = dir.path().join("libfdb_c.so");
    for flag in ["--version", "-V"] {
        let shown = stdout(fql().env("FDB_CLIENT_LIB_PATH", &missing).arg(flag));
        assert_eq!(
            shown,
            format!(
                "fql {}\nFoundationDB client: not found (FDB_CLIENT_LIB_PATH={}: no such file)\n",
                env!("CARGO_PKG_VERSION"),
                missing.display()
            )
        );
    }
    let text = dir.path().join("text.so");
    std::fs::write(&text, "not a library\n").unwrap();
    let shown = stdout(fql().env("FDB_CLIENT_LIB_PATH", &text).arg("--version"));
    assert!(
        shown.contains("FoundationDB client: none usable (FDB_CLIENT_LIB_PATH="),
        "{shown}"
    );
}

/// A client library older than 7.3 is refused with its API version: a
/// library exporting only `fdb_get_max_api_version`, answering 710, built
/// with the C compiler when there is one.
#[test]
fn a_client_library_older_than_7_3_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let source = dir.path().join("old.c");
    std::fs::write(
        &source,
        "int fdb_get_max_api_version(void) { return 710; }\n",
    )
    .unwrap();
    let lib = dir.path().join("libfdb_c.so");
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&source)
        .output();
    match built {
        Ok(out) if out.status.success() => {}
        other => {
            eprintln!("skipped: no C compiler built the old library: {other:?}");
            return;
        }
    }
    let (_keep, db, cluster) = embedded_cluster();
    let mut cmd = fql_db();
    cmd.env("FDB_CLIENT_LIB_PATH", dir.path())
        .arg("-C")
        .arg(&cluster)
        .args(["-w", "-q", "/a(1)=1"]);
    let (out, err) = outputs(&mut cmd, 2);
    assert!(out.is_empty(), "{out}");
    let place = format!(
        "FDB_CLIENT_LIB_PATH={}: a client of API version 710, older than FoundationDB 7.3 (730)",
        lib.display()
    );
    assert!(err.contains(&place), "{err}");
    assert!(err.contains("7.3 or later"), "{err}");
    let shown = stdout(fql().env("FDB_CLIENT_LIB_PATH", &lib).arg("--version"));
    assert!(
        shown.contains("none usable") && shown.contains("710"),
        "{shown}"
    );
    let rows = stdout(fql_db().arg("--db").arg(&db).args(["-q", "/a(<>)=<>"]));
    assert_eq!(rows, "");
}

#[test]
fn explain_describes_each_statement_without_running_it() {
    let plan = stdout(fql_db().args(["--memory", "explain"]).write_stdin(
        "/app/users(42,\"x\")=\"y\"\n@commit\n[limit:5] /app/<>(1,<int>,...)=<str>\n/a/b(1,...)=clear\n",
    ));
    insta::assert_snapshot!(plan);
    let err = stderr(fql_db().arg("explain").write_stdin("/a(:who)\n"), 3);
    assert!(
        err.contains("fql::unbound") && err.contains("`:who` is not bound"),
        "{err}"
    );
}

#[test]
fn run_prints_results_and_takes_parameters() {
    let (_dir, db) = on_db();
    let write = "/users(:id)=:name\n/users(7)=\"bo\"\n";
    let args = ["run", "-w", "-p", "id=42", "-p", "name=ann"];
    assert_eq!(stdout(db().args(args).write_stdin(write)), "");
    let read = "/users(<int>)=<str>\n/users/<>\n";
    assert_eq!(
        stdout(db().arg("run").write_stdin(read)),
        "/users(7)=\"bo\"\n/users(42)=\"ann\"\n"
    );
}

#[test]
fn run_refuses_writes_without_the_flag_and_writes_nothing() {
    let (_dir, db) = on_db();
    let err = stderr(db().arg("run").write_stdin("/a(1)\n/a(1)=2\n"), 2);
    assert!(
        err.contains("-w/--write") && err.contains("line 2"),
        "{err}"
    );
    assert!(stdout(db().arg("run").write_stdin("/a(...)\n")).is_empty());
}

#[test]
fn run_exit_codes_name_what_failed() {
    let run = |args: &[&str], script: &'static str| {
        let mut cmd = fql_db();
        cmd.arg("--memory").args(args).write_stdin(script);
        cmd
    };
    // 3: does not parse, or a reference nothing supplies.
    run(&["run"], "/a(<string>)\n").assert().code(3);
    assert!(stderr(&mut run(&["run"], "/a(:x)\n"), 3).contains("fql::unbound"));
    // 4: fails while running, after what it printed.
    let script = "/s(1)=1\n/s(2)=\"x\"\n@commit\n[strict] /s(<int>)=<int>\n";
    let (out, err) = outputs(&mut run(&["run", "-w"], script), 4);
    assert_eq!(out, "/s(1)=1\n");
    assert!(err.contains("fql::strict_mismatch"));
    // 2: a malformed parameter.
    run(&["run", "-p", "oops"], "/a(1)\n").assert().code(2);
}
