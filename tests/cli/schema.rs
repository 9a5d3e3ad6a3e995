//! `fql validate` and `fql infer` reports.

use super::{fql, text};

fn corrupted() -> (tempfile::TempDir, impl Fn() -> assert_cmd::Command) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let cmd = move || {
        let mut cmd = fql();
        cmd.arg("--db").arg(&db);
        cmd
    };
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
    let out = db()
        .arg("validate")
        .arg(&schema)
        .assert()
        .code(1)
        .get_output()
        .clone();
    insta::assert_snapshot!(
        "validate_text",
        format!("{}---\n{}", text(&out.stdout), text(&out.stderr))
    );
    let out = db()
        .arg("validate")
        .arg(&schema)
        .args(["--format", "json"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    for line in text(&out.stdout).lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("JSON lines");
    }
    insta::assert_snapshot!("validate_json", text(&out.stdout));
    let out = db()
        .arg("validate")
        .arg(&schema)
        .args(["--max-violations", "1"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(text(&out.stdout).lines().count(), 1);
    assert!(text(&out.stderr).contains("stopped at --max-violations"));
}

#[test]
fn conforming_data_exits_0_and_a_bad_schema_3() {
    let (dir, db) = corrupted();
    let inferred = db()
        .args(["infer", "/shop", "--depth", "1"])
        .assert()
        .success()
        .get_output()
        .clone();
    insta::assert_snapshot!("infer", text(&inferred.stdout));
    let schema = dir.path().join("inferred.fql");
    std::fs::write(&schema, &inferred.stdout).unwrap();
    db().arg("validate")
        .arg(&schema)
        .assert()
        .success()
        .stdout("");
    let bad = dir.path().join("bad.fql");
    std::fs::write(&bad, "/shop/users(<string>)\n").unwrap();
    db().arg("validate").arg(&bad).assert().code(3);
    db().args(["validate", "mutex/schema"]).assert().code(3);
    db().args(["validate", "no-such-file.fql"]).assert().code(2);
}
