//! Relative paths and `--root`: one script, run under different roots,
//! reads and writes separate data; `..` never leaves the directory layer.

use super::{fql, on_db, outputs, stderr, stdout};

/// A script written once, for whatever directory it is given.
const SCRIPT: &str = "./users(1)=\"ann\"\n../shared(<int>)=<str>\n./users(<int>)=<str>\n";

#[test]
fn one_script_under_two_roots_keeps_separate_data() {
    let (dir, db) = on_db();
    let file = dir.path().join("t.fql");
    std::fs::write(&file, SCRIPT).unwrap();
    db().args(["-w", "-q", "/tests/shared(7)=\"both\""])
        .assert()
        .success();
    // `--root` before the command and after it mean the same.
    let one = stdout(db().args(["-w", "--root", "/tests/one", "run"]).arg(&file));
    let two = stdout(
        db().args(["-w", "run"])
            .arg(&file)
            .args(["--root", "./tests/two"]),
    );
    assert_eq!(
        one,
        "/tests/shared(7)=\"both\"\n/tests/one/users(1)=\"ann\"\n"
    );
    assert_eq!(
        two,
        "/tests/shared(7)=\"both\"\n/tests/two/users(1)=\"ann\"\n"
    );
    db().args(["-w", "--root", "/tests/two", "-q", "./users(1)=\"bob\""])
        .assert()
        .success();
    let all = stdout(db().args(["-q", "/tests/<>/users(<int>)=<str>"]));
    assert_eq!(
        all,
        "/tests/one/users(1)=\"ann\"\n/tests/two/users(1)=\"bob\"\n"
    );
}

#[test]
fn without_a_root_relative_paths_start_at_the_top() {
    let (_dir, db) = on_db();
    db().args(["-w", "-q", "./a(1)=2", "-q", "./a/b(3)=4"])
        .assert()
        .success();
    let out = stdout(db().args(["-q", "/a(<int>)=<int>", "-q", "/a/b(<int>)=<int>"]));
    assert_eq!(out, "/a(1)=2\n/a/b(3)=4\n");
    // `.` is the root itself: at `/`, no directory.
    let err = stderr(db().args(["-q", ".(1)"]), 3);
    assert!(err.contains("fql::top_path"), "{err}");
    // A directory variable after the head: every directory under the root.
    let out = stdout(db().args(["--root", "/a", "-q", "./<d:str>(<int>)=<int>"]));
    assert_eq!(out, "/a/b(3)=4\n");
}

#[test]
fn climbing_above_the_top_is_refused_before_anything_runs() {
    let (_dir, db) = on_db();
    let (out, err) = outputs(
        db().args(["-w", "--root", "/a/b", "-q", "./x(1)=1\n../../../y(1)=1"]),
        3,
    );
    assert_eq!(out, "");
    assert!(err.contains("fql::above_root"), "{err}");
    assert!(err.contains("its root `/a/b` is 2 deep"), "{err}");
    // The third `..`, at column 7 of line 2, is the one pointed at.
    assert!(err.contains("<query 1>:2:7"), "{err}");
    // Nothing was written, not even the statement before.
    let listed = stdout(db().args(["-q", "/<>"]));
    assert_eq!(listed, "");
    // Two levels up from `/a/b` is `/` itself.
    let err = stderr(db().args(["--root", "/a/b", "-q", "../..(1)"]), 3);
    assert!(err.contains("fql::top_path"), "{err}");
}

#[test]
fn a_bad_root_is_a_usage_error_that_points_into_it() {
    for (root, shown) in [
        ("/app/<>", "not part of a directory path"),
        ("/app(1)", "not part of a directory path"),
        ("/app/...", "not part of a directory path"),
        ("app/tests", "a path starts with `/`, `./` or `../`"),
        ("/app/./x", "`.` and `..` may only begin a path"),
        ("..", "nothing is above `/`"),
    ] {
        let err = stderr(fql().args(["--memory", "--root", root, "-q", "./x"]), 2);
        assert!(err.contains("--root:1:"), "{root}: {err}");
        assert!(err.contains(shown), "{root}: {err}");
    }
}

#[test]
fn explain_shows_the_resolved_path_and_fmt_keeps_the_written_one() {
    let text = "./users(<id:int>)=<str>\n../../x/<>(1)=clear\n";
    let plan = stdout(
        fql()
            .args(["explain", "--root", "/app/tests/run1"])
            .write_stdin(text),
    );
    assert!(
        plan.contains("range read: /app/tests/run1/users(<id:int>)=<str>"),
        "{plan}"
    );
    assert!(
        plan.contains("clear matching keys: /app/x/<>(1)=clear"),
        "{plan}"
    );
    assert!(!plan.contains("./"), "{plan}");
    let formatted = stdout(fql().arg("fmt").write_stdin("./users( 1 )\n.. % up\n"));
    assert_eq!(formatted, "./users(1)\n.. % up\n");
    fql()
        .args(["fmt", "--check"])
        .write_stdin(formatted)
        .assert()
        .success();
}
