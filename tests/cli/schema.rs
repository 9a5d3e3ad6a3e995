//! `fql validate` and `fql infer` reports.

use super::{on_db, outputs, stdout};

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
    let (out, _) = validate(&["--format", "json"]);
    for line in out.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("JSON lines");
    }
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
