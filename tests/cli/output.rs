//! What fql prints: text, JSON and JSON lines for every element type,
//! bytes in full, escaped or by length, colour, completions and the manual.

use super::{assert_free, fql, stderr_writing_to, stdout};

/// One key-value of every element type, and a directory.
const EVERY_TYPE: &str = r#"/types("nil",nil)=nil
/types("bool",true)=false
/types("int",-42,123456789012345678901234567890)=7
/types("num",2.5,1e300,-0.0)=nan
/types("inf")=-inf
/types("str","tab\x09quote\" é","\x1b[31m\x0d\x7f\xc2\x9b\x00")="line\nbreak"
/types("bytes",0x00ff)=0xdeadbeef
/types("uuid",5a5ebefd-2193-47e2-8def-f464fc698e31)=(1,"x",(0x01,nil))
/types("vstamp",#0102030405060708090a:0001)=37534[i64,be]
"#;

fn read_every_type(format: &[&str]) -> String {
    let query = "/types(...)=<>";
    let mut args = vec!["--memory", "-w", "-f", "-", "-q", query];
    args.extend_from_slice(format);
    stdout(fql().args(&args).write_stdin(EVERY_TYPE))
}

#[test]
fn text_results_are_canonical_fql_that_writes_them_back() {
    let out = read_every_type(&[]);
    insta::assert_snapshot!(out);
    // Every line, pasted back as a write into a fresh database, reads back
    // the same.
    let again = stdout(
        fql()
            .args(["--memory", "-w", "-f", "-", "-q", "/types(...)=<>"])
            .write_stdin(out.clone()),
    );
    assert_eq!(again, out);
}

#[test]
fn jsonl_prints_one_object_per_result() {
    let out = read_every_type(&["--format", "jsonl"]);
    for line in out.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("each line is JSON");
    }
    insta::assert_snapshot!(out);
}

#[test]
fn json_prints_one_array_even_when_empty() {
    let out = read_every_type(&["--format", "json"]);
    let value: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(value.as_array().map(Vec::len), Some(9));
    // Big ints keep every digit.
    assert!(out.contains("123456789012345678901234567890"));
    let empty = ["--memory", "--format", "json", "-q", "/nothing(<>)"];
    assert_eq!(stdout(fql().args(empty)), "[]\n");
    let dirs = ["-w", "-q", "/a/b(1)=1", "-q", "/a/<>"];
    assert_eq!(
        stdout(fql().args(["--memory", "--format", "jsonl"]).args(dirs)),
        "{\"type\":\"dir\",\"path\":[\"a\",\"b\"]}\n"
    );
}

#[test]
fn bytes_len_shows_lengths_in_text_and_json() {
    let out = read_every_type(&["--bytes", "len"]);
    assert!(
        out.contains(r#"/types("bytes",<2 bytes>)=<4 bytes>"#),
        "{out}"
    );
    assert!(out.contains(r#"=(1,"x",(<1 byte>,nil))"#), "{out}");
    let json = read_every_type(&["--bytes", "len", "--format", "jsonl"]);
    assert!(json.contains(r#"{"bytes_len":4}"#), "{json}");
}

/// Escaped bytes, nested ones too, are text that writes the same data
/// back; JSON names them `bytes_escaped`.
#[test]
fn bytes_escaped_text_writes_the_same_data_back() {
    let out = read_every_type(&["--bytes", "escaped"]);
    assert!(
        out.contains(r#"/types("bytes",b"\x00\xff")=b"\xde\xad\xbe\xef""#),
        "{out}"
    );
    assert!(out.contains(r#"=(1,"x",(b"\x01",nil))"#), "{out}");
    let again = stdout(
        fql()
            .args(["--memory", "-w", "-f", "-", "-q", "/types(...)=<>"])
            .write_stdin(out),
    );
    assert_eq!(again, read_every_type(&[]));
    let json = read_every_type(&["--bytes", "escaped", "--format", "jsonl"]);
    assert!(
        json.contains(r#"{"bytes_escaped":"\\xde\\xad\\xbe\\xef"}"#),
        "{json}"
    );
}

#[test]
fn results_are_coloured_only_when_asked_or_on_a_terminal() {
    let run = |color: &str| {
        let write = ["--memory", "-w", "-q", "/c(1)=\"x\"", "-q", "/c(<>)=<>"];
        stdout(fql().args(write).args(["--color", color]))
    };
    assert_eq!(run("auto"), "/c(1)=\"x\"\n", "a pipe is not a terminal");
    assert_eq!(run("never"), "/c(1)=\"x\"\n");
    let coloured = run("always");
    assert!(coloured.contains("\x1b["), "{coloured:?}");
}

#[test]
fn completions_and_the_manual_come_from_the_command_definition() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(fql().args(["completions", shell]));
        assert!(script.contains("single-transaction"), "{shell}");
    }
    fql().args(["completions", "tcsh"]).assert().code(2);
    let man = stdout(fql().arg("man"));
    assert!(man.starts_with(".ie") || man.contains(".TH fql"), "{man}");
    assert!(man.contains("single\\-transaction"), "{man}");
}

/// Every command that prints, with standard output on `/dev/full`: each
/// says it cannot write and exits 4, where a closed pipe would end quietly.
#[test]
fn output_that_cannot_be_written_fails_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("full.db");
    let script = dir.path().join("s.fql");
    std::fs::write(&script, "/a(<int>)=<int>\n").unwrap();
    let db_arg = db.to_str().unwrap();
    let script_arg = script.to_str().unwrap();
    fql()
        .args(["--db", db_arg, "-w", "-q", "/a(1)=2", "-q", "/m(\"x\")=1"])
        .assert()
        .success();
    let on_db = |args: &[_]| [&["--db", db_arg][..], args].concat();
    fql()
        .args(on_db(&["mutex", "try-acquire", "/held", "--name", "a"]))
        .assert()
        .success();
    let (read, m) = ("/a(<int>)=<int>", "dir=(\"m\")");
    let commands = [
        on_db(&["-q", read]),
        on_db(&["-q", read, "--format", "json"]),
        on_db(&["-w", "-q", "/b(1)=1", "-q", read]),
        on_db(&["run", script_arg]),
        vec!["scripts"],
        vec!["scripts", "show", "mutex/release"],
        vec!["fmt", script_arg],
        vec!["explain", script_arg],
        on_db(&["infer", "/a"]),
        on_db(&["validate", "mutex/schema", "-p", m]),
        on_db(&["validate", "mutex/schema", "-p", m, "--format", "json"]),
        on_db(&["status"]),
        vec!["completions", "bash"],
        vec!["man"],
        on_db(&["mutex", "show", "/held"]),
        on_db(&["mutex", "try-acquire", "/free", "--name", "b"]),
    ];
    for args in &commands {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let err = stderr_writing_to(full.into(), args, 4);
        assert!(
            err.contains("fql: cannot write to standard output: No space left on device"),
            "{args:?}: {err}"
        );
    }
    // A grant whose token could not be printed was handed back.
    assert_free(db_arg, "/free", "after /dev/full");
    // The write before the failed print was committed, and said so.
    let b = stdout(fql().args(on_db(&["-q", "/b(<int>)=<int>"])));
    assert_eq!(b, "/b(1)=1\n");
}

/// The shell with standard output on `/dev/full`, where its prompt goes:
/// it says so and ends with status 4, instead of ending as if all went
/// well.
#[test]
fn the_shell_ends_with_an_error_when_its_output_cannot_be_written() {
    use rexpect::process::WaitStatus;
    use rexpect::session::spawn_command;

    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(r#"exec "$0" --memory --no-history --color never >/dev/full"#)
        .arg(assert_cmd::cargo::cargo_bin("fql"))
        .env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(20_000)).unwrap();
    p.exp_string("fql: the shell cannot use the terminal: ENOSPC")
        .expect("the failure is reported");
    p.exp_eof().expect("the shell ends");
    let status = p.process_mut().wait().unwrap();
    assert!(matches!(status, WaitStatus::Exited(_, 4)), "{status:?}");
}

/// Errors, notes and results with standard error on `/dev/full`, and
/// standard output there too: nothing can be said, but each command
/// still ends with its documented status (3 a script that does not
/// parse, 2 a usage error, 1 a check not met, 4 results lost), never
/// with a panic's 101.
#[test]
fn errors_that_cannot_be_written_keep_their_exit_status() {
    use std::process::{Command, Stdio};

    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
    };
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.db");
    let missing = missing.to_str().unwrap();
    let write = "/a(1)=2";
    // The arguments, and the status with standard output on /dev/null
    // and on /dev/full.
    let cases: [(&[&str], i32, i32); 7] = [
        (&["--memory", "-q", "/a("], 3, 3),
        (&["scripts", "show", "nope"], 2, 2),
        (&["--memory", "-q", write], 2, 2),
        (&["--db", missing, "status"], 2, 2),
        (&["--memory", "mutex", "show", "/nowhere"], 1, 1),
        // A note on standard error that is no error.
        (&["--memory", "--timing", "-q", "/a(<int>)=<>"], 0, 0),
        (
            &["--memory", "-w", "-q", write, "-q", "/a(<int>)=<int>"],
            0,
            4,
        ),
    ];
    for (args, code, full_code) in cases {
        for (stdout, expected) in [(Stdio::null(), code), (full().into(), full_code)] {
            let out = Command::new(assert_cmd::cargo::cargo_bin("fql"))
                .args(args)
                .stdin(Stdio::null())
                .stdout(stdout)
                .stderr(full())
                .output()
                .expect("fql runs");
            assert_eq!(out.status.code(), Some(expected), "{args:?}");
        }
    }
}
