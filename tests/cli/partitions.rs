//! A database holding partitions, through the binary: patterns with holes
//! read, count and clear the directories inside a partition; a query
//! naming the partition itself fails with nothing written or printed;
//! `count`, `tree`, `infer`, `validate`, `dump` and `load` go through
//! partitions as through any directory.

use std::path::{Path, PathBuf};

use super::{fql_db, outputs, stdout};

/// `fql --db DB ARGS...`.
fn on(db: &Path, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = fql_db();
    cmd.env_remove("FQL_FAULTS").arg("--db").arg(db).args(args);
    cmd
}

/// The partition `/p` holding `/p/q`, `/p/q/r` and the partition `/p/n`
/// with `/p/n/in`; beside it, the plain `/a`.
fn filled(dir: &tempfile::TempDir) -> PathBuf {
    let db = dir.path().join("p.db");
    stdout(&mut on(&db, &["-w", "dir", "mkdir", "--partition", "/p"]));
    stdout(&mut on(&db, &["-w", "dir", "mkdir", "--partition", "/p/n"]));
    stdout(&mut on(
        &db,
        &[
            "-w",
            "-q",
            "/a(1)=\"a\"\n/p/q(1)=2\n/p/q(2)=3\n/p/q/r(\"z\")=3\n/p/n/in(1)=\"deep\"",
        ],
    ));
    db
}

const EVERYTHING: &str =
    "/a(1)=\"a\"\n/p/n/in(1)=\"deep\"\n/p/q(1)=2\n/p/q(2)=3\n/p/q/r(\"z\")=3\n";

#[test]
fn patterns_read_count_and_clear_inside_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let db = filled(&dir);
    let read = |q: &str| stdout(&mut on(&db, &["-q", q]));
    assert_eq!(read("/...(...)"), EVERYTHING);
    assert_eq!(read("/<>(...)"), "/a(1)=\"a\"\n");
    assert_eq!(read("/<>/q(<int>)"), "/p/q(1)=2\n/p/q(2)=3\n");
    assert_eq!(
        read("/...(...)=<count>"),
        "/(...)=0\n/a(...)=1\n/p/n/in(...)=1\n/p/q(...)=2\n/p/q/r(...)=1\n"
    );
    assert_eq!(read("/..."), "/a\n/p\n/p/n\n/p/n/in\n/p/q\n/p/q/r\n");
    let json = read_json(&db, "/p/...(...)=<count>");
    assert_eq!(json.len(), 3, "{json:?}");
    stdout(&mut on(&db, &["-w", "-q", "/p/...(...)=clear"]));
    assert_eq!(read("/...(...)"), "/a(1)=\"a\"\n");
    stdout(&mut on(&db, &["-w", "-q", "/...(...)=clear"]));
    assert_eq!(read("/...(...)"), "");
    assert_eq!(read("/..."), "/a\n/p\n/p/n\n/p/n/in\n/p/q\n/p/q/r\n");
}

/// Each result of `query` as JSON lines.
fn read_json(db: &Path, query: &str) -> Vec<serde_json::Value> {
    stdout(&mut on(db, &["--format", "jsonl", "-q", query]))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_query_naming_a_partition_fails_with_nothing_written_or_printed() {
    let dir = tempfile::tempdir().unwrap();
    let db = filled(&dir);
    for script in [
        "/a(2)=\"b\"\n/new(1)=1\n/p(1)=2\n",
        "/...(...)\n/p(...)\n/p/q(1)=clear\n",
        "/p/q(...)=clear\n/p(<int>)=clear\n",
    ] {
        let (out, err) = outputs(on(&db, &["-w"]).write_stdin(script), 4);
        assert_eq!(out, "", "{script}");
        assert!(err.contains("fql::partition_keys"), "{err}");
        assert!(
            err.contains("directory /p is a partition: it holds directories, not keys"),
            "{err}"
        );
    }
    assert_eq!(stdout(&mut on(&db, &["-q", "/...(...)"])), EVERYTHING);
    assert_eq!(
        stdout(&mut on(&db, &["-q", "/..."])),
        "/a\n/p\n/p/n\n/p/n/in\n/p/q\n/p/q/r\n"
    );
}

#[test]
fn count_tree_infer_and_validate_go_through_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let db = filled(&dir);
    let keys = |path: &str| {
        let out = stdout(&mut on(&db, &["count", path, "--format", "json"]));
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        (
            json["keys"].as_u64().unwrap(),
            json["bytes"].as_u64().unwrap(),
        )
    };
    let (q, r, inner) = (keys("/p/q"), keys("/p/q/r"), keys("/p/n/in"));
    assert_eq!((q.0, r.0, inner.0), (2, 1, 1));
    assert_eq!(keys("/p"), (4, q.1 + r.1 + inner.1));
    assert_eq!(keys("/p/n"), inner);
    let tree = stdout(&mut on(&db, &["tree", "/p", "--format", "jsonl"]));
    let lines: Vec<serde_json::Value> = tree
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let shown: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| (l["path"].as_str().unwrap(), l["layer"].as_str().unwrap()))
        .collect();
    assert_eq!(
        shown,
        [
            ("/p", "partition"),
            ("/p/n", "partition"),
            ("/p/n/in", ""),
            ("/p/q", ""),
            ("/p/q/r", "")
        ]
    );
    assert_eq!(
        stdout(&mut on(&db, &["infer", "/p", "--depth", "2"])),
        "/p/n/in(<int>)=<str> % 1 key\n/p/q(<int>)=<int> % 2 keys\n/p/q/r(\"z\")=<int> % 1 key\n"
    );
    let schema = dir.path().join("schema.fql");
    std::fs::write(
        &schema,
        "/...(<int>)=<int>\n/<>/<>/in(<int>)=<str>\n/a(<int>)=<str>\n",
    )
    .unwrap();
    let (out, err) = outputs(&mut on(&db, &["validate", schema.to_str().unwrap()]), 1);
    assert_eq!(
        out, "/p/q/r(\"z\")=3 % element 1: expected int, found str \"z\"\n",
        "{err}"
    );
    assert!(
        err.starts_with("5 keys in 4 directories, 1 violation\n"),
        "{err}"
    );
    std::fs::write(&schema, "/p(<int>)=<int>\n").unwrap();
    let (out, err) = outputs(&mut on(&db, &["validate", schema.to_str().unwrap()]), 4);
    assert_eq!(out, "");
    assert!(err.contains("directory /p is a partition"), "{err}");
}

#[test]
fn a_dump_with_partitions_loads_back_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = filled(&dir);
    let dump = stdout(&mut on(&db, &["dump", "/p", "/a"]));
    assert!(
        dump.contains(
            "\n% layer \"partition\" /p\n% layer \"partition\" /p/n\n% directory /p/n/in\n"
        ),
        "{dump}"
    );
    let file = dir.path().join("p.dump");
    std::fs::write(&file, &dump).unwrap();
    let copy = dir.path().join("copy.db");
    stdout(&mut on(&copy, &["load", file.to_str().unwrap()]));
    assert_eq!(stdout(&mut on(&copy, &["-q", "/...(...)"])), EVERYTHING);
    let tree = stdout(&mut on(&copy, &["tree", "--format", "jsonl"]));
    let partitions: Vec<String> = tree
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["layer"] == "partition")
        .map(|l| l["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(partitions, ["/p", "/p/n"]);
    let again = stdout(&mut on(&copy, &["dump", "/p", "/a"]));
    let body = |d: &str| -> Vec<String> {
        d.lines()
            .filter(|l| !l.starts_with("% read version"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(body(&again), body(&dump));
}
