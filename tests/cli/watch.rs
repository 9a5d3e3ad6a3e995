//! `fql watch`: the key-values first, then each change another process
//! commits, until --count, --for or Ctrl-C.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::Child;

use super::{fql_db, on_db, outputs, spawn_piped, stderr, text};

/// `fql watch ARGS` on the database at `path`, its output piped.
fn spawn_watch(path: &Path, args: &[&str]) -> Child {
    spawn_piped(|cmd| {
        cmd.env_remove("FDB_CLUSTER_FILE")
            .args(super::reach::reach(path))
            .arg("watch")
            .args(args)
    })
}

/// Reads the watch's lines: `found` of them, then one after each write
/// of `writes`, which another fql process commits; returns them all and
/// what was printed after them up to the end.
fn follow(child: &mut Child, path: &Path, found: usize, writes: &[&str]) -> (Vec<String>, String) {
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    let mut line = |lines: &mut Vec<String>| {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        lines.push(l.trim_end().to_string());
    };
    for _ in 0..found {
        line(&mut lines);
    }
    for w in writes {
        fql_db()
            .args(super::reach::reach(path))
            .args(["-w", "-q", w])
            .assert()
            .success();
        line(&mut lines);
    }
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    (lines, rest)
}

#[test]
fn watch_prints_the_range_then_each_change_and_stops_at_its_count() {
    let (dir, db) = on_db();
    db().args(["-w", "-q", "/app/k(1)=\"a\"", "-q", "/app/k(2)=\"b\""])
        .assert()
        .success();
    let path = dir.path().join("fql.db");
    let mut child = spawn_watch(
        &path,
        &["/app/k(<int>)=<str>", "--count", "3", "--for", "60"],
    );
    let writes = ["/app/k(1)=\"A\"", "/app/k(2)=clear", "/app/k(3)=\"new\""];
    let (lines, rest) = follow(&mut child, &path, 2, &writes);
    assert_eq!(
        lines,
        [
            r#"/app/k(1)="a""#,
            r#"/app/k(2)="b""#,
            r#"/app/k(1)="A""#,
            "/app/k(2)=clear",
            r#"/app/k(3)="new""#,
        ]
    );
    assert_eq!(rest, "", "nothing after the third change");
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0), "{done:?}");
}

#[test]
fn watch_of_one_key_in_json_lines_marks_each_change() {
    let (dir, db) = on_db();
    db().args(["-w", "-q", "/app/one(\"mode\")=\"on\""])
        .assert()
        .success();
    let path = dir.path().join("fql.db");
    let args = [
        "/app/one(\"mode\")",
        "--format",
        "jsonl",
        "--count",
        "2",
        "--for",
        "60",
    ];
    let mut child = spawn_watch(&path, &args);
    let writes = ["/app/one(\"mode\")=\"off\"", "/app/one(\"mode\")=clear"];
    let (lines, _) = follow(&mut child, &path, 1, &writes);
    let kv = r#""key":["mode"],"path":["app","one"],"type":"kv""#;
    assert_eq!(
        lines,
        [
            format!(r#"{{"change":"found",{kv},"value":"on"}}"#),
            format!(r#"{{"change":"set",{kv},"value":"off"}}"#),
            format!(r#"{{"change":"clear",{kv}}}"#),
        ]
    );
    assert!(child.wait().unwrap().success());
}

#[test]
fn watch_ends_at_its_time_or_at_ctrl_c_with_130() {
    let (dir, db) = on_db();
    db().args(["-w", "-q", "/app/t(1)=1"]).assert().success();
    let out = super::stdout(db().args(["watch", "/app/t(<>)", "--for", "0.2"]));
    assert_eq!(out, "/app/t(1)=1\n");
    let path = dir.path().join("fql.db");
    let mut child = spawn_watch(&path, &["/app/t(<>)"]);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert_eq!(first, "/app/t(1)=1\n");
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(130), "{done:?}");
    assert_eq!(text(&done.stderr), "");
}

#[test]
fn watch_refuses_what_it_cannot_follow() {
    let (_dir, db) = on_db();
    db().args(["-w", "-q", "/app/t(1)=1"]).assert().success();
    let e = stderr(db().args(["watch", "/app/t(1)=2"]), 3);
    assert!(e.contains("a watch only reads"), "{e}");
    let e = stderr(db().args(["watch", "/app/t(1)\n/app/t(2)"]), 3);
    assert!(e.contains("one query"), "{e}");
    let e = stderr(db().args(["watch", "/app/t(", "--for", "1"]), 3);
    assert!(e.contains("unclosed"), "{e}");
    let e = stderr(db().args(["watch", "/app/t(1)", "--format", "json"]), 2);
    assert!(e.contains("--format jsonl"), "{e}");
    let e = stderr(db().args(["watch", "/app/t(1)", "--count", "0"]), 2);
    assert!(e.contains("--count"), "{e}");
    let e = stderr(db().args(["watch", "/app/t(1)", "--for", "soon"]), 2);
    assert!(e.contains("--for"), "{e}");
    let (out, e) = outputs(
        fql_db().args(["--db", "/nonexistent/dir/x.db", "watch", "/app/t(1)"]),
        2,
    );
    assert_eq!(out, "");
    assert!(e.contains("x.db"), "{e}");
}
