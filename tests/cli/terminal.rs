//! Nothing a user stored, and nothing in a script, reaches a terminal as
//! raw control characters: results in every format, the messages that
//! quote stored data, and the reports that quote a script show them as
//! escapes, and what is printed reads back as the same bytes.

use super::{fql, on_db, outputs, stderr, stdout};

/// A directory and a key-value whose strings hold what a terminal acts
/// on: ESC sequences (a colour, clearing the screen, a window title), a
/// carriage return that overwrites the line, BEL, DEL, and the 8-bit CSI.
const WRITE: &str = r#"/t/"d\x1b[31m"("k\x1b[2J",1)="\x1b]0;owned\x07\x0d\x7f\xc2\x9bq""#;

/// The strings of [`WRITE`] as stored.
const DIR: &str = "d\u{1b}[31m";
const KEY: &str = "k\u{1b}[2J";
const VALUE: &str = "\u{1b}]0;owned\u{7}\r\u{7f}\u{9b}q";

/// `fql --db DB` on a fresh file holding [`WRITE`].
fn stored() -> (tempfile::TempDir, impl Fn() -> assert_cmd::Command) {
    let (dir, cmd) = on_db();
    cmd().args(["-w", "-q", WRITE]).assert().success();
    (dir, cmd)
}

/// The control characters in `out` but line feeds, as escapes.
fn controls(out: &str) -> Vec<String> {
    out.chars()
        .filter(|&c| c.is_control() && c != '\n')
        .map(|c| format!("{:?}", c))
        .collect()
}

/// Runs `cmd` and returns its standard output and error, checking that
/// neither holds a control character.
fn clean(cmd: &mut assert_cmd::Command, code: i32) -> (String, String) {
    let (out, err) = outputs(cmd, code);
    assert_eq!(controls(&out), [""; 0], "stdout {out:?}");
    assert_eq!(controls(&err), [""; 0], "stderr {err:?}");
    (out, err)
}

#[test]
fn stored_control_characters_print_as_escapes_that_read_back() {
    let (_dir, db) = stored();
    let read = r#"/t/<>(<>,<>)=<>"#;
    let (out, _) = clean(db().args(["-q", read]), 0);
    assert_eq!(out, format!("{WRITE}\n"));
    // Pasted back as a write, the text stores the same bytes.
    let again = stdout(fql().args([
        "--memory", "-w", "-q", &out, "-q", read, "--format", "jsonl",
    ]));
    let row: serde_json::Value = serde_json::from_str(&again).expect("a JSON line");
    assert_eq!(row["path"], serde_json::json!(["t", DIR]));
    assert_eq!(row["key"], serde_json::json!([KEY, 1]));
    assert_eq!(row["value"], serde_json::json!(VALUE));
    // Directories, JSON, JSON lines, lengths of bytes.
    let (dirs, _) = clean(db().args(["-q", "/t/<>"]), 0);
    assert_eq!(dirs, "/t/\"d\\x1b[31m\"\n");
    for format in ["json", "jsonl"] {
        let (out, _) = clean(db().args(["-q", read, "--format", format]), 0);
        assert!(
            out.contains(r#""\u001b]0;owned\u0007\r\u007f\u009bq""#),
            "{out}"
        );
        let value: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
        let row = if format == "json" { &value[0] } else { &value };
        assert_eq!(row["value"], serde_json::json!(VALUE));
    }
    clean(db().args(["-q", read, "--bytes", "len"]), 0);
    // In colour, the only escape sequences are the colours' own.
    let out = stdout(db().args(["-q", read, "--color", "always"]));
    for raw in ["\u{1b}[2J", "\u{1b}]0", "\u{7}", "\r", "\u{7f}", "\u{9b}"] {
        assert!(!out.contains(raw), "{raw:?} in {out:?}");
    }
    assert!(out.contains("\\x1b[2J"), "{out:?}");
}

#[test]
fn messages_that_quote_stored_data_escape_it() {
    let (dir, db) = stored();
    // A guard that finds the key-value.
    let (_, err) = clean(
        db().args(["-w", "-q", r#"[absent] /t/"d\x1b[31m"(<>,...)"#]),
        1,
    );
    assert!(err.contains("the guard found /t/\"d\\x1b[31m\""), "{err}");
    // A strict read that meets it.
    let (_, err) = clean(
        db().args(["-q", r#"[strict] /t/"d\x1b[31m"(<str>,<int>)=<int>"#]),
        4,
    );
    assert!(err.contains("\\x1b]0;owned"), "{err}");
    // A schema it does not match, in text and JSON, and an inferred one.
    let schema = dir.path().join("schema.fql");
    std::fs::write(&schema, "/t/<>(<str>,<int>)=<int>\n").unwrap();
    let (out, _) = clean(db().arg("validate").arg(&schema), 1);
    assert!(out.contains("\\x1b]0;owned"), "{out}");
    let (out, _) = clean(
        db().arg("validate").arg(&schema).args(["--format", "json"]),
        1,
    );
    // The key is FQL text, its escapes escaped again as JSON.
    assert!(out.contains(r#"\\x1b]0;owned"#), "{out}");
    let (out, _) = clean(db().args(["infer", "/t", "--depth", "1"]), 0);
    assert!(
        out.starts_with(r#"/t/"d\x1b[31m"("k\x1b[2J",<int>)=<str> % 1 key"#),
        "{out}"
    );
    // A mutex whose owner and waiter are named with escape sequences.
    db().args(["mutex", "try-acquire", "/m", "--name", "a\u{1b}[31m"])
        .assert()
        .success();
    let (out, _) = clean(db().args(["mutex", "show", "/m"]), 0);
    assert!(out.starts_with("owner: \"a\\x1b[31m\" ("), "{out}");
}

#[test]
fn reports_escape_control_characters_of_the_script() {
    let script = "/a(1)\n/b(\"x\u{1b}[2Jy\",\u{9b}1) % \u{7}\n";
    let (_, err) = clean(fql().args(["--memory", "-q", script]), 3);
    assert!(err.contains("│ /b(\"x\\x1b[2Jy\",\\xc2\\x9b1)"), "{err}");
    assert!(err.contains("write it as the escape `\\x1b`"), "{err}");
    let (_, err) = clean(fql().arg("fmt").write_stdin(script), 3);
    assert!(
        err.contains("control character U+001B (ESC) in a string"),
        "{err}"
    );
}

/// A key, a value or a transaction over the database's limits is reported
/// at the statement that wrote it.
#[test]
fn size_limits_point_at_the_statement() {
    let key = format!("/a(1)=1\n/big(\"{}\")=1\n/c(1)=2", "k".repeat(10_001));
    let value = format!("/a(1)=1\n/v(1)=0x{}", "ab".repeat(100_001));
    for (script, code, line) in [
        (key, "key_too_large (2102)", "2 │ /big(\"kkkk"),
        (value, "value_too_large (2103)", "2 │ /v(1)=0xabab"),
    ] {
        let (_, err) = clean(
            fql()
                .args(["--memory", "-w", "-f", "-"])
                .write_stdin(script),
            4,
        );
        assert!(err.contains("fql::database"), "{err}");
        assert!(err.contains(code), "{err}");
        assert!(err.contains(line), "{err}");
        assert!(err.contains("this statement"), "{err}");
        assert!(err.len() < 2000, "{err}");
    }
}

/// A byte-order mark at the start of a file or of standard input is no
/// part of the script.
#[test]
fn a_byte_order_mark_starts_a_script_as_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bom.fql");
    std::fs::write(&file, "\u{feff}/a(1)=2 % set\n/a(<>)=<>\n").unwrap();
    let memory = || {
        let mut cmd = fql();
        cmd.args(["--memory", "-w"]);
        cmd
    };
    for args in [&["-f"][..], &["-q", "/x(1)=1", "-f"][..]] {
        assert_eq!(stdout(memory().args(args).arg(&file)), "/a(1)=2\n");
    }
    let piped = "\u{feff}/a(1)=2\n/a(<>)=<>\n";
    assert_eq!(stdout(memory().write_stdin(piped)), "/a(1)=2\n");
    // `fmt` drops it; its columns count from after it.
    assert_eq!(
        stdout(fql().arg("fmt").arg(&file)),
        "/a(1)=2 % set\n/a(<>)=<>\n"
    );
    let err = stderr(fql().arg("fmt").write_stdin("\u{feff}/a(1,,2)\n"), 3);
    assert!(err.contains("[<stdin>:1:6]"), "{err}");
}

/// An input is named by its path, which whoever names a file chooses
/// (`fql -f *.fql`): every message that names an input shows the control
/// characters of its name as escapes.
#[test]
fn input_names_escape_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x\u{1b}]0;owned\u{7}.fql");
    let shown = format!("{}", dir.path().join("x\\x1b]0;owned\\x07.fql").display());
    let with = |script: &[u8]| {
        std::fs::write(&path, script).unwrap();
        path.clone()
    };
    let run = |args: &[&str]| {
        let mut cmd = fql();
        cmd.args(["--memory", "--color", "never"]).args(args);
        cmd
    };
    // A report's header and its count.
    let (_, err) = clean(run(&["-f"]).arg(with(b"/a(1)\n/b(<string>)\n")), 3);
    assert!(err.contains(&format!("[{shown}:2:5]")), "{err}");
    assert!(err.ends_with(&format!("1 error in {shown}\n")), "{err}");
    // A write refused, a byte that is not UTF-8, a file that is gone; the
    // script read whole by `fmt` and `explain` too.
    let (_, err) = clean(run(&["-f"]).arg(with(b"/a(1)=2\n")), 2);
    assert!(
        err.contains(&format!("refusing to write: {shown} has")),
        "{err}"
    );
    for args in [&["-f"][..], &["fmt"], &["explain"]] {
        let (_, err) = clean(run(args).arg(with(b"/a(\"\xff\")\n")), 2);
        assert!(err.contains(&format!("fql: {shown} is not UTF-8")), "{err}");
    }
    std::fs::remove_file(&path).unwrap();
    for args in [&["-f"][..], &["fmt"]] {
        let (_, err) = clean(run(args).arg(&path), 2);
        assert!(
            err.contains(&format!("fql: cannot read {shown}: ")),
            "{err}"
        );
    }
}
