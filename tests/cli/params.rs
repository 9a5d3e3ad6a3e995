//! `-p` parameters mean what the user typed: a path is a directory where
//! a directory path starts, data must be data, `NAME:str=TEXT` is a
//! string, and a flag given twice, a bad name or a parameter no statement
//! uses is an error that names the flag.

use super::{on_db, outputs, stderr, stdout, temp_file};

/// A script's `-p dir=/locks/s` and `fql mutex ... /locks/s` are one
/// mutex: a client holding it through one keeps the other out.
#[test]
fn a_path_parameter_is_the_directory_fql_mutex_names() {
    let (_dir, db) = on_db();
    stdout(db().args(["mutex", "try-acquire", "/locks/s", "--name", "web-1"]));
    let try_acquire = ["run", "mutex/try-acquire", "-w", "-p", "name=web-2", "-p"];
    for dir in ["dir=/locks/s", "dir=(\"locks\",\"s\")"] {
        let err = stderr(db().args(try_acquire).arg(dir), 1);
        assert!(err.contains("fql::guard_failed"), "{dir}: {err}");
    }
    // Relative to --root, as the script's own relative paths are.
    let show = stdout(db().args(["--root", "/locks", "run", "mutex/show", "-p", "dir=./s"]));
    assert!(show.contains("/locks/s(\"owner\",\"web-1\")"), "{show}");
    // The script releases what `fql mutex` took, and `fql mutex` sees it
    // through either form of the directory.
    let release = ["run", "mutex/release", "-w", "-p", "dir=/locks/s"];
    stdout(db().args(release).args(["-p", "name=web-1"]));
    for dir in ["/locks/s", "(\"locks\",\"s\")"] {
        let show = stdout(db().args(["mutex", "show", dir]));
        assert!(show.starts_with("owner: none (free)\n"), "{dir}: {show}");
    }
    stdout(db().args([
        "mutex",
        "try-acquire",
        "(\"locks\",\"s\")",
        "--name",
        "web-2",
    ]));
    let show = stdout(db().args(["mutex", "show", "/locks/s"]));
    assert!(show.starts_with("owner: web-2 "), "{show}");
    // Nothing went to a directory named by the path's text.
    assert_eq!(stdout(db().args(["-q", "/<>"])), "/locks\n");
}

/// A path stands only where a directory path starts; elsewhere it is an
/// error, not some spelling of the path stored as data.
#[test]
fn a_path_parameter_elsewhere_is_an_error() {
    let (_dir, db) = on_db();
    let run =
        |query: &str, code: i32| stderr(db().args(["-w", "-p", "dir=/locks/s", "-q", query]), code);
    let err = run("/x(:dir)=1", 3);
    assert!(err.contains("fql::path_as_data"), "{err}");
    assert!(err.contains("-p dir:str=/locks/s"), "{err}");
    assert!(run("/x(1)=:dir", 3).contains("fql::path_as_data"));
    assert!(run("/app/:dir(1)=1", 3).contains("fql::path_not_first"));
    assert!(run("./:dir(1)=1", 3).contains("fql::path_not_first"));
    // A tuple of names goes anywhere in a path.
    let names = ["-w", "-p", "dir=(\"a\",\"b\")", "-q", "/app/:dir(1)=1"];
    stdout(db().args(names));
    assert_eq!(
        stdout(db().args(["-q", "/app/a/b(...)"])),
        "/app/a/b(1)=1\n"
    );
    // `/` is no directory, and a path is one directory's.
    let err = stderr(db().args(["-p", "dir=/", "-q", "/:dir(1)"]), 2);
    assert!(
        err.contains("fql::top_path") && err.contains("-p dir=/"),
        "{err}"
    );
    let err = stderr(db().args(["-p", "dir=/a(1)", "-q", "/:dir(1)"]), 2);
    assert!(err.contains("fql::bad_root"), "{err}");
    assert!(err.contains("not a directory path"), "{err}");
    // `fql mutex` takes the same two forms, and nothing else.
    for dir in ["locks", "\"locks\"", "./s", "(1,2)", "/"] {
        let err = stderr(db().args(["mutex", "show", dir]), 2);
        assert!(!err.is_empty(), "{dir}");
    }
}

/// Text that starts like FQL data must be FQL data; each mistake names the
/// flag and says how to pass the text as a string.
#[test]
fn malformed_data_is_an_error_not_a_string() {
    let (_dir, db) = on_db();
    for (flag, code, string) in [
        ("zip=02134", "fql::leading_zero", "-p zip:str=02134"),
        ("n=-007", "fql::leading_zero", "-p n:str=-007"),
        ("x=0xABC", "fql::odd_hex", "-p x:str=0xABC"),
        ("x=(1,", "fql::unclosed", "-p x:str=(1,"),
        ("x=(1,<int>)", "fql::not_data", "-p x:str=(1,<int>)"),
        (
            "day=2026-11-22",
            "fql::invalid_number",
            "-p day:str=2026-11-22",
        ),
        ("x=\"ann", "fql::unclosed", "-p x:str=\"ann"),
        ("x=deadbeef-1", "fql::invalid_uuid", "-p x:str=deadbeef-1"),
    ] {
        let err = stderr(db().args(["-p", flag, "-q", "/a(:x)"]), 2);
        assert!(err.contains(code), "{flag}: {err}");
        assert!(
            err.contains(&format!("fql: -p {flag}: not FQL data")),
            "{flag}: {err}"
        );
        assert!(err.contains(string), "{flag}: {err}");
    }
    let err = stderr(db().args(["-p", "zip=02134", "-q", "/a(:zip)"]), 2);
    assert!(err.contains("for the number write `2134`"), "{err}");
    let err = stderr(db().args(["-p", "x=", "-q", "/a(:x)"]), 2);
    assert!(
        err.contains("-p x=: the value is empty") && err.contains("-p x:str="),
        "{err}"
    );
    let err = stderr(db().args(["-p", "x:int=1", "-q", "/a(:x)"]), 2);
    assert!(err.contains("-p x:int=1: `:int` is no form of -p"), "{err}");
    // Nothing ran.
    assert_eq!(stdout(db().args(["-q", "/<>"])), "");
}

/// Data is what it is written as; a plain word is a string, and
/// `NAME:str=` makes anything a string.
#[test]
fn values_are_data_words_or_forced_strings() {
    let (_dir, db) = on_db();
    let flags = [
        "n=42",
        "b=0xff",
        "t=true",
        "q=\"02134\"",
        "w=web-2",
        "z:str=02134",
        "d:str=2026-11-22",
        "e:str=",
        "p:str=/locks/s",
        "u=(1,\"x\")",
    ];
    let mut cmd = db();
    cmd.arg("-w");
    for flag in flags {
        cmd.args(["-p", flag]);
    }
    stdout(cmd.args(["-q", "/v(:n,:b,:t,:q,:w,:z,:d,:e,:p,:u)=nil"]));
    assert_eq!(
        stdout(db().args(["-q", "/v(...)"])),
        "/v(42,0xff,true,\"02134\",\"web-2\",\"02134\",\"2026-11-22\",\"\",\"/locks/s\",(1,\"x\"))=nil\n"
    );
}

/// A flag given twice, a name that no reference can have, and a parameter
/// no statement uses are errors, for every command that takes `-p`.
#[test]
fn duplicate_bad_and_unused_parameters_are_errors() {
    let (_dir, db) = on_db();
    let err = stderr(db().args(["-p", "a=1", "-p", "a=2", "-q", "/x(:a)"]), 2);
    assert!(
        err.contains("fql: -p a=2 gives `a` again after -p a=1"),
        "{err}"
    );
    let err = stderr(
        db().args(["run", "-p", "a=1", "-p", "a=2"])
            .write_stdin("/x(:a)"),
        2,
    );
    assert!(err.contains("-p a=2 gives `a` again"), "{err}");
    let err = stderr(db().args(["-p", "bad name=1", "-q", "/x(1)"]), 2);
    assert!(
        err.contains("fql: -p bad name=1: `bad name` is not a parameter's name"),
        "{err}"
    );

    // A misspelt name is reported with the names the script uses.
    let err = stderr(
        db().args(["run", "mutex/show", "-p", "dir=/l", "-p", "nmae=x"]),
        2,
    );
    assert!(
        err.contains("fql: -p nmae: no statement uses `:nmae`; the script's parameters are `:dir`"),
        "{err}"
    );
    let typo = [
        "run",
        "mutex/release",
        "-w",
        "-p",
        "dir=/l",
        "-p",
        "nmae=web-1",
    ];
    let (out, err) = outputs(db().args(typo), 3);
    assert_eq!(out, "");
    assert!(
        err.contains("no statement uses `:nmae`") && err.contains("`:dir`, `:name`"),
        "{err}"
    );
    assert!(err.contains("fql::unbound"), "{err}");
    let err = stderr(db().args(["-p", "x=1", "-q", "/a(1)"]), 2);
    assert!(err.contains("the script takes no parameters"), "{err}");
    // Across every -q and -f: a name used by any of them is used.
    stdout(db().args(["-p", "x=1", "-q", "/a(1)", "-q", "/b(:x)"]));

    let script = temp_file("params-explain.fql", b"/a(:x)\n");
    let explain = db()
        .arg("explain")
        .arg(&script)
        .args(["-p", "x=1", "-p", "y=2"])
        .assert();
    let err = super::text(&explain.code(2).get_output().stderr);
    assert!(err.contains("-p y: no statement uses `:y`"), "{err}");
    let validate = ["validate", "mutex/schema", "-p", "dir=/l", "-p", "extra=1"];
    let err = stderr(db().args(validate), 2);
    assert!(
        err.contains("-p extra: no statement uses `:extra`"),
        "{err}"
    );
    let err = stderr(
        db().args(["validate", "mutex/schema", "-p", "dir=0xABC"]),
        2,
    );
    assert!(err.contains("fql::odd_hex"), "{err}");
}

/// A schema that reads nothing would check nothing and pass.
#[test]
fn a_schema_without_read_patterns_is_an_error() {
    let (_dir, db) = on_db();
    for (name, text) in [
        ("empty.fql", ""),
        ("comments.fql", "% nothing yet\n"),
        ("writes.fql", "/app/users(1)=\"ann\"\n/app/<>\n"),
    ] {
        let schema = temp_file(name, text.as_bytes());
        let err = stderr(db().arg("validate").arg(&schema), 3);
        assert!(
            err.contains(name) && err.contains("the schema has no read patterns"),
            "{name}: {err}"
        );
    }
}
