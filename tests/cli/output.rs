//! What fql prints: text, JSON and JSON lines for every element type,
//! bytes in full or by length, colour, completions and the manual.

use super::{fql, text};

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
    text(
        &fql()
            .args(&args)
            .write_stdin(EVERY_TYPE)
            .assert()
            .success()
            .get_output()
            .stdout,
    )
}

#[test]
fn text_results_are_canonical_fql_that_writes_them_back() {
    let out = read_every_type(&[]);
    insta::assert_snapshot!(out);
    // Every line, pasted back as a write into a fresh database, reads back
    // the same.
    let again = text(
        &fql()
            .args(["--memory", "-w", "-f", "-", "-q", "/types(...)=<>"])
            .write_stdin(out.clone())
            .assert()
            .success()
            .get_output()
            .stdout,
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
    let empty = fql()
        .args(["--memory", "--format", "json", "-q", "/nothing(<>)"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(text(&empty), "[]\n");
    let dirs = fql()
        .args([
            "--memory",
            "-w",
            "--format",
            "jsonl",
            "-q",
            "/a/b(1)=1",
            "-q",
            "/a/<>",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(text(&dirs), "{\"type\":\"dir\",\"path\":[\"a\",\"b\"]}\n");
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

#[test]
fn results_are_coloured_only_when_asked_or_on_a_terminal() {
    let run = |color: &str| {
        text(
            &fql()
                .args([
                    "--memory",
                    "-w",
                    "--color",
                    color,
                    "-q",
                    "/c(1)=\"x\"",
                    "-q",
                    "/c(<>)=<>",
                ])
                .assert()
                .success()
                .get_output()
                .stdout,
        )
    };
    assert_eq!(run("auto"), "/c(1)=\"x\"\n", "a pipe is not a terminal");
    assert_eq!(run("never"), "/c(1)=\"x\"\n");
    let coloured = run("always");
    assert!(coloured.contains("\x1b["), "{coloured:?}");
}

#[test]
fn completions_and_the_manual_come_from_the_command_definition() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = fql()
            .args(["completions", shell])
            .assert()
            .success()
            .get_output()
            .clone();
        let script = text(&out.stdout);
        assert!(script.contains("single-transaction"), "{shell}");
    }
    fql().args(["completions", "tcsh"]).assert().code(2);
    let man = fql().arg("man").assert().success().get_output().clone();
    let man = text(&man.stdout);
    assert!(man.starts_with(".ie") || man.contains(".TH fql"), "{man}");
    assert!(man.contains("single\\-transaction"), "{man}");
}

#[test]
fn help_shows_the_real_default_paths() {
    let out = fql()
        .arg("--help")
        .env("XDG_DATA_HOME", "/data/home")
        .env("FQL_HISTORY", "/hist/file")
        .assert()
        .success()
        .get_output()
        .clone();
    let help = text(&out.stdout);
    assert!(help.contains("/data/home/fql/fql.db"), "{help}");
    assert!(help.contains("/hist/file"), "{help}");
}
