//! `fql validate` and `fql infer` reports.

use super::{fql_db, on_db, outputs, stderr, stdout};

fn corrupted() -> (tempfile::TempDir, impl Fn() -> assert_cmd::Command) {
    let (dir, cmd) = on_db();
    cmd()
        .args(["-w", "-q"])
        .arg(
            "/shop/users(1,\"ann\")=42\n/shop/users(2,\"bob\")=7\n/shop/users(3,4)=1\n\
             /shop/users(5)=1\n/shop/users(6,\"eve\")=\"x\"\n/shop/orders(1)=(\"ann\",2.5)\n\
             /shop/orders(2)=0xff",
        )
        .assert()
        .success();
    (dir, cmd)
}

const SCHEMA: &str = "% The shop.\n/shop/users(<id:int>,<name:str>)=<int>\n/shop/orders(<int>)=(<str>,<num>)\n/shop/users(99,\"x\")=0 % a write: ignored\n";

#[test]
fn validate_reports_each_violation_and_a_summary() {
    let (dir, db) = corrupted();
    let schema = dir.path().join("shop.fql");
    std::fs::write(&schema, SCHEMA).unwrap();
    let validate = |args: &[&str]| outputs(db().arg("validate").arg(&schema).args(args), 1);
    let (out, err) = validate(&[]);
    insta::assert_snapshot!("validate_text", format!("{out}---\n{err}"));
    // One violation of a kind is counted in the singular.
    assert!(err.contains("           1  violation: element 2:"), "{err}");
    let (out, _) = validate(&["--format", "jsonl"]);
    for line in out.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("JSON lines");
    }
    insta::assert_snapshot!("validate_jsonl", out);
    let (out, _) = validate(&["--format", "json"]);
    insta::assert_snapshot!("validate_json", out);
    let (out, err) = validate(&["--max-violations", "1"]);
    assert_eq!(out.lines().count(), 1);
    assert!(err.contains("stopped at --max-violations"));
}

#[test]
fn conforming_data_exits_0_and_a_bad_schema_3() {
    let (dir, db) = corrupted();
    let inferred = stdout(db().args(["infer", "/shop", "--depth", "1"]));
    insta::assert_snapshot!("infer", inferred);
    let schema = dir.path().join("inferred.fql");
    std::fs::write(&schema, &inferred).unwrap();
    assert_eq!(stdout(db().arg("validate").arg(&schema)), "");
    let bad = dir.path().join("bad.fql");
    std::fs::write(&bad, "/shop/users(<string>)\n").unwrap();
    db().arg("validate").arg(&bad).assert().code(3);
    db().args(["validate", "mutex/schema"]).assert().code(3);
    db().args(["validate", "no-such-file.fql"]).assert().code(2);
}

/// Standard output as one JSON document, as `--format json` promises.
fn document(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("one JSON document: {e}: {out}"))
}

#[test]
fn validate_json_is_one_document_with_the_violations_and_the_summary() {
    let (dir, db) = corrupted();
    let schema = dir.path().join("shop.fql");
    std::fs::write(&schema, SCHEMA).unwrap();
    let (out, _) = outputs(
        db().arg("validate").arg(&schema).args(["--format", "json"]),
        1,
    );
    let doc = document(&out);
    let violations = doc["violations"]
        .as_array()
        .expect("an array of violations");
    assert_eq!(violations.len(), 4, "{out}");
    assert_eq!(violations[0]["key"], "/shop/orders(2)=0xff");
    assert_eq!(doc["summary"]["violations"], 4);
    assert_eq!(doc["summary"]["keys"], 7);
    // `--format` before the command means the same.
    let (before, _) = outputs(db().args(["--format", "json", "validate"]).arg(&schema), 1);
    assert_eq!(before, out);
    // Stopped at the limit, still one document.
    let (out, _) = outputs(
        db().arg("validate")
            .arg(&schema)
            .args(["--format", "json", "--max-violations", "1"]),
        1,
    );
    let doc = document(&out);
    assert_eq!(doc["violations"].as_array().map(Vec::len), Some(1));
    assert_eq!(doc["summary"]["stopped"], true);
    // With nothing to report, an empty array.
    let inferred = stdout(db().args(["infer", "/shop", "--depth", "1"]));
    let conforming = dir.path().join("inferred.fql");
    std::fs::write(&conforming, inferred).unwrap();
    let out = stdout(
        db().arg("validate")
            .arg(&conforming)
            .args(["--format", "json"]),
    );
    assert_eq!(document(&out)["violations"], serde_json::json!([]));
}

#[test]
fn a_validation_that_read_no_key_says_so_and_exits_1() {
    let (dir, db) = corrupted();
    // A mistyped directory, and a right one under a mistyped root.
    let typo = dir.path().join("typo.fql");
    std::fs::write(&typo, "/shopp/users(<int>,<str>)=<int>\n").unwrap();
    let relative = dir.path().join("relative.fql");
    std::fs::write(&relative, "./users(<int>,<str>)=<int>\n").unwrap();
    // The database is named as the backend names it (embedded or cluster).
    let message = "no keys matched the schema's patterns in ";
    for (schema, root) in [(&typo, "/"), (&relative, "/shopp")] {
        let (out, err) = outputs(db().arg("validate").arg(schema).args(["--root", root]), 1);
        assert_eq!(out, "");
        assert!(err.contains(message), "{err}");
        assert!(err.contains("so nothing was checked"), "{err}");
        assert!(err.contains("--allow-empty"), "{err}");
        // Asked for, it succeeds, and says nothing of it.
        let (out, err) = outputs(
            db().arg("validate").arg(schema).args([
                "--root",
                root,
                "--allow-empty",
                "--format",
                "json",
            ]),
            0,
        );
        assert_eq!(document(&out)["summary"]["keys"], 0);
        assert!(!err.contains(message), "{err}");
    }
    // The same schema where the data is finds it.
    let (out, err) = outputs(
        db().arg("validate")
            .arg(&relative)
            .args(["--root", "/shop"]),
        1,
    );
    assert!(out.contains("/shop/users(3,4)=1 %"), "{out}");
    assert!(!err.contains(message), "{err}");
}

#[test]
fn commands_that_only_read_do_not_create_a_missing_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/typo.db");
    let schema = dir.path().join("schema.fql");
    std::fs::write(&schema, "/a(<int>)=<int>\n").unwrap();
    let commands: [&[&str]; 5] = [
        &["validate", schema.to_str().unwrap()],
        &["infer", "/a"],
        &["status"],
        &["status", "--format", "json"],
        &["mutex", "show", "/locks/a"],
    ];
    for args in commands {
        let err = stderr(fql_db().arg("--db").arg(&path).args(args), 2);
        let message = format!(
            "fql: there is no database at {}: the file does not exist",
            path.display()
        );
        assert!(err.starts_with(&message), "{args:?}: {err}");
        assert!(!path.exists() && !path.with_file_name("typo.db-wal").exists());
        assert!(
            !dir.path().join("sub").exists(),
            "{args:?} made the directory"
        );
    }
    // A command that may write creates it, and then they read it.
    stdout(
        fql_db()
            .arg("--db")
            .arg(&path)
            .args(["-q", "/a(<int>)=<int>"]),
    );
    assert!(path.is_file());
    stdout(fql_db().arg("--db").arg(&path).arg("status"));
}
