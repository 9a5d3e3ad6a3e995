//! The `fql` binary, run as users run it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use assert_cmd::cargo::cargo_bin;

mod faults;
mod mutex;
mod output;
mod queries;
mod retry;
mod schema;
mod scripts;
mod store;
mod streaming;
mod terminal;

fn fql() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(cargo_bin("fql"));
    cmd.env_remove("NO_COLOR").env("COLUMNS", "100");
    cmd
}

fn temp_file(name: &str, contents: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fql-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("a writable temporary file");
    path
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

#[test]
fn fmt_prints_a_file_in_canonical_form() {
    let path = temp_file(
        "messy.fql",
        b"/a( 1 ,\n  \"x\" )  % trailing\n\n\n/b(<int>)\n",
    );
    let out = fql()
        .arg("fmt")
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(text(&out.stdout), "/a(1,\"x\") % trailing\n\n/b(<int>)\n");
    assert!(out.stderr.is_empty());
}

#[test]
fn fmt_reads_standard_input_with_no_file_or_dash() {
    for args in [&["fmt"][..], &["fmt", "-"][..]] {
        let out = fql()
            .args(args)
            .write_stdin("/a(1)=2\n")
            .assert()
            .success()
            .get_output()
            .clone();
        assert_eq!(text(&out.stdout), "/a(1)=2\n");
    }
}

#[test]
fn fmt_reports_every_error_and_exits_3() {
    let out = fql()
        .args(["fmt", "--color", "never"])
        .write_stdin("/a(1,2\n/b(<string>)\n/c(1)=3548[u8]\n")
        .assert()
        .code(3)
        .get_output()
        .clone();
    assert!(out.stdout.is_empty(), "nothing half-way on stdout");
    insta::assert_snapshot!(text(&out.stderr));
}

#[test]
fn fmt_check_exits_1_when_not_canonical() {
    let canonical = temp_file("canonical.fql", b"/a(1)=2\n");
    fql()
        .args(["fmt", "--check"])
        .arg(&canonical)
        .assert()
        .success()
        .stdout("");
    let messy = temp_file("messy-check.fql", b"/a( 1 )=2\n");
    let out = fql()
        .args(["fmt", "--check"])
        .arg(&messy)
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("not in canonical form"));
}

#[test]
fn unreadable_input_exits_2() {
    let missing = std::env::temp_dir().join("fql-no-such-file.fql");
    let out = fql()
        .arg("fmt")
        .arg(&missing)
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert_eq!(
        text(&out.stderr),
        format!(
            "fql: cannot read {}: No such file or directory\n",
            missing.display()
        )
    );
    let binary = temp_file("binary.fql", b"/a(\"\xff\")\n");
    let out = fql()
        .arg("fmt")
        .arg(&binary)
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(text(&out.stderr).contains("is not UTF-8: invalid byte at offset 4 (line 1)"));
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
    let out = fql().arg("--help").assert().success().get_output().clone();
    assert!(text(&out.stdout).contains("fmt"));
    let out = fql()
        .arg("--version")
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(
        text(&out.stdout),
        format!("fql {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn color_follows_the_flag_and_no_color() {
    let bad = "/a(<string>)\n";
    let colored = fql()
        .args(["--color", "always", "fmt"])
        .write_stdin(bad)
        .assert()
        .code(3)
        .get_output()
        .clone();
    assert!(text(&colored.stderr).contains("\x1b["));
    let plain = fql()
        .args(["--color", "never", "fmt"])
        .write_stdin(bad)
        .assert()
        .code(3)
        .get_output()
        .clone();
    assert!(!text(&plain.stderr).contains("\x1b["));
    // Not a terminal, so `auto` has no color either, NO_COLOR or not.
    let auto = fql()
        .args(["fmt"])
        .env("NO_COLOR", "1")
        .write_stdin(bad)
        .assert()
        .code(3)
        .get_output()
        .clone();
    assert!(!text(&auto.stderr).contains("\x1b["));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let mut script = Vec::new();
    for n in 0..20_000 {
        writeln!(script, "/big({n},\"some text to fill the pipe\")=nil").expect("writing to a Vec");
    }
    let path = temp_file("big.fql", &script);
    let mut child = Command::new(cargo_bin("fql"))
        .arg("fmt")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fql starts");
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
    let out = fql()
        .args(["fmt", "--color", "never"])
        .write_stdin(script)
        .assert()
        .code(3)
        .get_output()
        .clone();
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches("fql::expected_statement").count(), 50);
    assert!(
        stderr.ends_with("\n... and 10 more\n60 errors in <stdin>\n"),
        "{stderr}"
    );
}

/// Errors found when the script is planned are capped the same way.
#[test]
fn only_the_first_plan_errors_are_shown_in_full() {
    let script: String = (0..60).map(|n| format!("/a(:x{n})\n")).collect();
    let out = fql()
        .args(["--memory", "--color", "never", "-f", "-"])
        .write_stdin(script)
        .assert()
        .code(3)
        .get_output()
        .clone();
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches("fql::unbound").count(), 50, "{stderr}");
    assert!(stderr.ends_with("\n... and 10 more\n"), "{stderr}");
}

/// A megabyte line with an error every few bytes prints a window of the
/// line per error, for the first 50 errors: tens of kilobytes, not the
/// line fifty times over.
#[test]
fn a_long_line_with_many_errors_prints_a_bounded_report() {
    let script = format!("/a({})\n", "1x,".repeat(350_000));
    let out = fql()
        .args(["fmt", "--color", "never"])
        .write_stdin(script)
        .assert()
        .code(3)
        .get_output()
        .clone();
    let stderr = text(&out.stderr);
    assert!(stderr.len() < 50_000, "{} bytes", stderr.len());
    assert_eq!(stderr.matches("fql::invalid_number").count(), 50);
    assert!(stderr.ends_with("\n... and 349950 more\n350000 errors in <stdin>\n"));
    assert!(stderr.contains("[<stdin>:1:151]"), "{stderr}");
}

/// `fql` with a clean environment for database selection.
fn fql_db() -> assert_cmd::Command {
    let mut cmd = fql();
    cmd.env_remove("FDB_CLUSTER_FILE");
    cmd
}

#[test]
fn status_names_the_embedded_database_it_opens() {
    let out = fql_db().args(["--memory", "status"]).assert().success();
    assert_eq!(
        text(&out.get_output().stdout),
        "database: embedded in-memory database\nread version: 0\n"
    );
    // A file in a directory that does not exist yet is created.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new/dir/data.db");
    let out = fql_db()
        .args(["status", "--db"])
        .arg(&path)
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    assert!(stdout.starts_with(&format!("database: embedded database {}\n", path.display())));
    assert!(path.is_file());
    // With no flag, the file in the user's data directory.
    let out = fql_db()
        .env("XDG_DATA_HOME", dir.path())
        .arg("status")
        .assert()
        .success();
    let default = dir.path().join("fql/fql.db");
    assert!(text(&out.get_output().stdout).contains(&default.display().to_string()));
    assert!(default.is_file());
}

#[test]
fn a_file_that_is_not_a_database_is_refused() {
    let path = temp_file(
        "not-a-db.db",
        b"hello, this is not SQLite at all, not even close\n",
    );
    let out = fql_db()
        .arg("--db")
        .arg(&path)
        .arg("status")
        .assert()
        .code(2);
    let stderr = text(&out.get_output().stderr);
    assert!(stderr.contains("cannot open the database"), "{stderr}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"hello, this is not SQLite at all, not even close\n"
    );
}

#[test]
fn database_flags_conflict() {
    let out = fql_db()
        .args(["--memory", "--db", "x.db", "status"])
        .assert()
        .code(2);
    assert!(text(&out.get_output().stderr).contains("cannot be used with"));
}

/// Without the `fdb` feature, asking for a cluster explains how to get one.
#[cfg(not(feature = "fdb"))]
#[test]
fn a_cluster_needs_the_fdb_feature() {
    for (args, env) in [
        (&["-C", "/etc/foundationdb/fdb.cluster", "status"][..], None),
        (&["--fdb", "status"][..], None),
        (&["status"][..], Some("/tmp/fdb.cluster")),
    ] {
        let mut cmd = fql_db();
        cmd.args(args);
        if let Some(file) = env {
            cmd.env("FDB_CLUSTER_FILE", file);
        }
        let out = cmd.assert().code(2);
        let stderr = text(&out.get_output().stderr);
        assert!(
            stderr.contains("built without FoundationDB support"),
            "{stderr}"
        );
        assert!(stderr.contains("--features fdb"), "{stderr}");
        assert!(out.get_output().stdout.is_empty());
    }
    // An explicit embedded database wins over the environment.
    fql_db()
        .env("FDB_CLUSTER_FILE", "/tmp/fdb.cluster")
        .args(["--memory", "status"])
        .assert()
        .success();
}

#[test]
fn explain_describes_each_statement_without_running_it() {
    let out = fql_db()
        .args(["--memory", "explain"])
        .write_stdin("/app/users(42,\"x\")=\"y\"\n@commit\n[limit:5] /app/<>(1,<int>,...)=<str>\n/a/b(1,...)=clear\n")
        .assert()
        .success();
    insta::assert_snapshot!(text(&out.get_output().stdout));
    let out = fql_db()
        .arg("explain")
        .write_stdin("/a(:who)\n")
        .assert()
        .code(3);
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("fql::unbound") && stderr.contains("`:who` is not bound"),
        "{stderr}"
    );
}

#[test]
fn run_prints_results_and_takes_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("run.db");
    let write = "/users(:id)=:name\n/users(7)=\"bo\"\n";
    fql_db()
        .arg("--db")
        .arg(&db)
        .args(["run", "-w", "-p", "id=42", "-p", "name=ann"])
        .write_stdin(write)
        .assert()
        .success()
        .stdout("");
    let out = fql_db()
        .arg("--db")
        .arg(&db)
        .args(["run", "-p", "min=0"])
        .write_stdin("/users(<int>)=<str>\n/users/<>\n")
        .assert()
        .success();
    assert_eq!(
        text(&out.get_output().stdout),
        "/users(7)=\"bo\"\n/users(42)=\"ann\"\n"
    );
}

#[test]
fn run_refuses_writes_without_the_flag_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("refuse.db");
    let out = fql_db()
        .arg("--db")
        .arg(&db)
        .arg("run")
        .write_stdin("/a(1)\n/a(1)=2\n")
        .assert()
        .code(2);
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("-w/--write") && stderr.contains("line 2"),
        "{stderr}"
    );
    let out = fql_db()
        .arg("--db")
        .arg(&db)
        .arg("run")
        .write_stdin("/a(...)\n")
        .assert()
        .success();
    assert!(out.get_output().stdout.is_empty());
}

#[test]
fn run_exit_codes_name_what_failed() {
    // 3: does not parse, or a reference nothing supplies.
    fql_db()
        .args(["--memory", "run"])
        .write_stdin("/a(<string>)\n")
        .assert()
        .code(3);
    let out = fql_db()
        .args(["--memory", "run"])
        .write_stdin("/a(:x)\n")
        .assert()
        .code(3);
    assert!(text(&out.get_output().stderr).contains("fql::unbound"));
    // 4: fails while running, after what it printed.
    let out = fql_db()
        .args(["--memory", "run", "-w"])
        .write_stdin("/s(1)=1\n/s(2)=\"x\"\n@commit\n[strict] /s(<int>)=<int>\n")
        .assert()
        .code(4);
    assert_eq!(text(&out.get_output().stdout), "/s(1)=1\n");
    assert!(text(&out.get_output().stderr).contains("fql::strict_mismatch"));
    // 2: a malformed parameter.
    fql_db()
        .args(["--memory", "run", "-p", "oops"])
        .write_stdin("/a(1)\n")
        .assert()
        .code(2);
}
