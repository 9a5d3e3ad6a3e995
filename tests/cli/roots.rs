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
    // Before the command, `--root` means the same.
    let before = stdout(
        fql()
            .args(["--root", "/app/tests/run1", "explain"])
            .write_stdin(text),
    );
    assert_eq!(before, plan);
    let formatted = stdout(fql().arg("fmt").write_stdin("./users( 1 )\n.. % up\n"));
    assert_eq!(formatted, "./users(1)\n.. % up\n");
    fql()
        .args(["fmt", "--check"])
        .write_stdin(formatted)
        .assert()
        .success();
}

/// Two tenants: `acme`'s users are keyed by ints, `beta` has one keyed by
/// a string, and both share `/tenants/config`.
fn tenants() -> (tempfile::TempDir, impl Fn() -> assert_cmd::Command) {
    let (dir, db) = on_db();
    db().args(["-w", "-q"])
        .arg(
            "/tenants/acme/users(1)=\"ann\"\n/tenants/acme/users(2)=\"bob\"\n\
             /tenants/beta/users(1)=\"cy\"\n/tenants/beta/users(\"two\")=\"dee\"\n\
             /tenants/config(\"version\")=3",
        )
        .assert()
        .success();
    (dir, db)
}

#[test]
fn one_relative_schema_validates_each_root_given() {
    let (dir, db) = tenants();
    let schema = dir.path().join("tenant.fql");
    std::fs::write(
        &schema,
        "./users(<id:int>)=<str>\n../config(\"version\")=<int>\n",
    )
    .unwrap();
    let (out, err) = outputs(
        db().arg("validate")
            .arg(&schema)
            .args(["--root", "/tenants/acme"]),
        0,
    );
    assert_eq!(out, "");
    assert!(
        err.starts_with("3 keys in 2 directories, 0 violations"),
        "{err}"
    );
    // The summary names the patterns as they resolved.
    assert!(
        err.contains("2  /tenants/acme/users(<id:int>)=<str>"),
        "{err}"
    );
    assert!(
        err.contains("1  /tenants/config(\"version\")=<int>"),
        "{err}"
    );
    // The same file under the other tenant, `--root` before the command.
    let (out, err) = outputs(
        db().args(["--root", "/tenants/beta", "validate"])
            .arg(&schema),
        1,
    );
    assert_eq!(
        out,
        "/tenants/beta/users(\"two\")=\"dee\" % element 1: expected int, found str \"two\"\n"
    );
    assert!(err.contains("1 violation"), "{err}");
    // `..` above the root is the planner's error, before any read; without
    // `--root` the root is `/`.
    for root in [&["--root", "/"][..], &[]] {
        let err = stderr(db().arg("validate").arg(&schema).args(root), 3);
        assert!(err.contains("fql::above_root"), "{err}");
    }
}

#[test]
fn validate_and_infer_refuse_a_bad_root_as_run_does() {
    let (dir, db) = tenants();
    let schema = dir.path().join("s.fql");
    std::fs::write(&schema, "./users(<int>)=<str>\n").unwrap();
    for root in ["/tenants/<>", "tenants", ".."] {
        let err = stderr(db().arg("validate").arg(&schema).args(["--root", root]), 2);
        assert!(err.contains("--root:1:"), "{root}: {err}");
        let err = stderr(db().args(["infer", "./users", "--root", root]), 2);
        assert!(err.contains("--root:1:"), "{root}: {err}");
    }
    let err = stderr(
        db().arg("validate").arg(&schema).args(["--root", "/a(1)"]),
        2,
    );
    assert!(err.contains("fql::bad_root"), "{err}");
    // DIR is read by the same rule, and must name a directory.
    for (arg, code) in [
        ("users", "fql::bad_root"),
        ("/tenants/<>", "fql::bad_root"),
        ("../..", "fql::above_root"),
        ("..", "fql::top_path"),
    ] {
        let err = stderr(db().args(["infer", arg, "--root", "/tenants"]), 2);
        assert!(err.contains("DIR:1:"), "{arg}: {err}");
        assert!(err.contains(code), "{arg}: {err}");
    }
}

#[test]
fn infer_under_a_root_writes_a_schema_for_validate_under_it() {
    let (dir, db) = tenants();
    // Absolute DIR and no root: absolute patterns, as before.
    let absolute = stdout(db().args(["infer", "/tenants/acme/users"]));
    assert_eq!(absolute, "/tenants/acme/users(<int>)=<str> % 2 keys\n");
    // With a root, or a relative DIR, the patterns are relative to it.
    let inferred = stdout(db().args(["infer", ".", "--root", "/tenants/acme", "--depth", "1"]));
    assert_eq!(inferred, "./users(<int>)=<str> % 2 keys\n");
    let beside = stdout(db().args(["--root", "/tenants/acme", "infer", "../config"]));
    assert_eq!(beside, "../config(\"version\")=<int> % 1 key\n");
    let under = stdout(db().args(["infer", "/tenants/beta/users", "--root", "/tenants"]));
    assert_eq!(
        under,
        "./beta/users(<int>)=<str> % 1 key\n./beta/users(\"two\")=<str> % 1 key\n"
    );
    // The inferred schema checks its own root, and another.
    let schema = dir.path().join("inferred.fql");
    std::fs::write(&schema, &inferred).unwrap();
    let (out, err) = outputs(
        db().arg("validate")
            .arg(&schema)
            .args(["--root", "/tenants/acme"]),
        0,
    );
    assert_eq!(out, "");
    assert!(
        err.starts_with("2 keys in 1 directory, 0 violations"),
        "{err}"
    );
    let out = stdout_of(
        db().arg("validate")
            .arg(&schema)
            .args(["--root", "/tenants/beta"]),
        1,
    );
    assert!(
        out.starts_with("/tenants/beta/users(\"two\")=\"dee\" % "),
        "{out}"
    );
}

fn stdout_of(cmd: &mut assert_cmd::Command, code: i32) -> String {
    outputs(cmd, code).0
}
