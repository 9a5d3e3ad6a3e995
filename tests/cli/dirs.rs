//! `fql count`, `fql tree` and `fql dir`: directories looked over and
//! administered through the binary.

use super::*;

fn fresh_db() -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("t.db").to_str().unwrap().to_owned();
    (tmp, db)
}

/// `fql --db DB ARGS...`.
fn on(db: &str, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = fql_db();
    cmd.args(["--db", db]).args(args);
    cmd
}

/// Writes `n` pairs of 1,000 bytes into `/big` through a script.
fn big(dir: &tempfile::TempDir, db: &str, n: usize) {
    let value = "x".repeat(1000);
    let script: String = (0..n).map(|i| format!("/big({i})=\"{value}\"\n")).collect();
    let file = dir.path().join("big.fql");
    std::fs::write(&file, script).unwrap();
    stdout(&mut on(db, &["-w", "-f", file.to_str().unwrap()]));
}

/// Prefixes are drawn at random, and with them which keys the size
/// estimate samples: each prefix is shown as `0x…`, each size as `~…`,
/// for a snapshot.
fn stable(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("0x") {
        out.push_str(&rest[..at]);
        out.push_str("0x…");
        rest = rest[at + 2..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
    }
    out.push_str(rest);
    out.lines()
        .map(|line| match line.rfind("  ~") {
            Some(at) => format!("{}  ~…\n", &line[..at]),
            None => format!("{line}\n"),
        })
        .collect()
}

/// The megabytes a line of the tree ends with.
fn megabytes(line: &str) -> f64 {
    let at = line.rfind('~').expect("a size");
    line[at + 1..]
        .trim_end_matches(" MB")
        .parse()
        .expect("a size in MB")
}

#[test]
fn tree_draws_layers_prefixes_and_estimated_sizes() {
    let (dir, db) = fresh_db();
    stdout(&mut on(
        &db,
        &[
            "-w",
            "-q",
            "/app/users/archive(1)=nil",
            "-q",
            "/app/\"we\\x09ird\"(1)=nil",
        ],
    ));
    stdout(&mut on(
        &db,
        &["-w", "dir", "mkdir", "--layer", "mine", "/tagged"],
    ));
    stdout(&mut on(&db, &["-w", "dir", "mkdir", "--partition", "/p"]));
    stdout(&mut on(&db, &["-w", "-q", "/p/inner(1)=\"x\""]));
    big(&dir, &db, 3000);
    let drawn = stdout(&mut on(&db, &["tree"]));
    insta::assert_snapshot!("tree", stable(&drawn));
    // No control character reaches the terminal: the name is escaped.
    assert!(
        !drawn.contains('\t') && drawn.contains(r#""we\x09ird""#),
        "{drawn}"
    );
    // The estimate of 3 MB is the sample's, within a factor of two.
    let line = drawn.lines().find(|l| l.contains("big")).unwrap();
    assert!((1.5..6.0).contains(&megabytes(line)), "{line}");
    let shallow = stdout(&mut on(&db, &["tree", "/app", "--depth", "1"]));
    insta::assert_snapshot!("tree_depth", stable(&shallow));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&mut on(&db, &["tree", "--format", "json"]))).unwrap();
    assert_eq!(json["path"], "/");
    let p = &json["children"][2];
    assert_eq!(
        (&p["path"], &p["layer"]),
        (&"/p".into(), &"partition".into())
    );
    assert_eq!(p["children"][0]["path"], "/p/inner");
    let lines = stdout(&mut on(&db, &["tree", "/p", "--format", "jsonl"]));
    assert_eq!(lines.lines().count(), 2, "{lines}");
    let err = stderr(&mut on(&db, &["tree", "/nope"]), 4);
    assert!(err.contains("directory /nope does not exist"), "{err}");
}

#[test]
fn count_is_exact_and_estimate_reads_nothing() {
    let (dir, db) = fresh_db();
    big(&dir, &db, 3000);
    stdout(&mut on(&db, &["-w", "-q", "/big/sub(1)=2"]));
    let counted = stdout(&mut on(&db, &["count", "/big"]));
    // Each pair: the prefix, the packed integer and 1,000 bytes with the
    // string's type code and end.
    let keys: u64 = 3000;
    assert!(counted.starts_with("keys: 3000\nbytes: "), "{counted}");
    let bytes: u64 = counted.lines().nth(1).unwrap()["bytes: ".len()..]
        .parse()
        .unwrap();
    assert!(bytes > keys * 1002 && bytes < keys * 1010, "{bytes}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&mut on(
        &db,
        &["count", "/big", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(
        (json["keys"].as_u64(), json["bytes"].as_u64()),
        (Some(keys), Some(bytes))
    );
    let estimated = stdout(&mut on(&db, &["count", "--estimate", "/big"]));
    let estimate: u64 = estimated.trim()["estimated bytes: ".len()..]
        .parse()
        .unwrap();
    assert!(
        estimate >= bytes / 2 && estimate <= bytes * 2,
        "{estimate} for {bytes}"
    );
    stdout(&mut on(&db, &["-w", "dir", "mkdir", "--partition", "/p"]));
    // A partition counts the directories inside it: none yet.
    assert_eq!(
        stdout(&mut on(&db, &["count", "/p"])),
        "keys: 0\nbytes: 0\n"
    );
    let err = stderr(&mut on(&db, &["count", "/"]), 2);
    assert!(err.contains("DIR"), "{err}");
}

#[test]
fn mkdir_makes_partitions_that_queries_go_through() {
    let (_dir, db) = fresh_db();
    let err = stderr(&mut on(&db, &["dir", "mkdir", "/p"]), 2);
    assert!(err.contains("pass -w/--write"), "{err}");
    assert_eq!(
        stdout(&mut on(&db, &["dir", "mkdir", "-w", "--partition", "/p"])),
        "created /p\n"
    );
    stdout(&mut on(
        &db,
        &["-w", "-q", "/p/a/b(1)=\"in\"", "-q", "/out(1)=\"out\""],
    ));
    assert_eq!(
        stdout(&mut on(&db, &["-q", "/p/a/b(<>)"])),
        "/p/a/b(1)=\"in\"\n"
    );
    assert_eq!(stdout(&mut on(&db, &["-q", "/p/<>"])), "/p/a\n");
    let tree = stdout(&mut on(&db, &["tree", "--format", "json"]));
    let json: serde_json::Value = serde_json::from_str(&tree).unwrap();
    let (p, inner) = (&json["children"][1], &json["children"][1]["children"][0]);
    assert_eq!(p["layer"], "partition");
    let (pp, ip) = (
        p["prefix"].as_str().unwrap(),
        inner["prefix"].as_str().unwrap(),
    );
    assert!(ip.starts_with(pp) && ip.len() > pp.len(), "{pp} {ip}");
    let err = stderr(&mut on(&db, &["-w", "dir", "mkdir", "/p"]), 4);
    assert!(err.contains("/p already exists"), "{err}");
    let err = stderr(
        &mut on(
            &db,
            &["-w", "dir", "mkdir", "--layer", "x", "--partition", "/q"],
        ),
        2,
    );
    assert!(err.contains("--partition"), "{err}");
}

#[test]
fn mv_renames_and_keeps_the_keys() {
    let (_dir, db) = fresh_db();
    stdout(&mut on(
        &db,
        &["-w", "-q", "/a/b(1)=\"one\"", "-q", "/a/b/c(2)=nil"],
    ));
    stdout(&mut on(&db, &["-w", "dir", "mkdir", "--partition", "/p"]));
    assert_eq!(
        stdout(&mut on(&db, &["-w", "dir", "mv", "/a/b", "/a/renamed"])),
        "moved /a/b to /a/renamed\n"
    );
    assert_eq!(
        stdout(&mut on(&db, &["-q", "/a/renamed(<>)"])),
        "/a/renamed(1)=\"one\"\n"
    );
    assert_eq!(
        stdout(&mut on(&db, &["-q", "/a/renamed/c(<>)"])),
        "/a/renamed/c(2)=nil\n"
    );
    assert_eq!(stdout(&mut on(&db, &["-q", "/a/<>"])), "/a/renamed\n");
    let err = stderr(&mut on(&db, &["-w", "dir", "mv", "/a/renamed", "/a"]), 4);
    assert!(err.contains("already exists"), "{err}");
    let err = stderr(&mut on(&db, &["-w", "dir", "mv", "/a/renamed", "/p/x"]), 4);
    assert!(err.contains("between partitions"), "{err}");
    let err = stderr(
        &mut on(&db, &["-w", "dir", "mv", "/a/renamed", "/none/x"]),
        4,
    );
    assert!(err.contains("/none"), "{err}");
    let err = stderr(&mut on(&db, &["dir", "mv", "/a/renamed", "/b"]), 2);
    assert!(err.contains("pass -w/--write"), "{err}");
    assert_eq!(stdout(&mut on(&db, &["-q", "/a/<>"])), "/a/renamed\n");
}

#[test]
fn rm_refuses_a_directory_that_holds_anything_without_force() {
    let (_dir, db) = fresh_db();
    stdout(&mut on(
        &db,
        &["-w", "-q", "/a/b(1)=\"one\"", "-q", "/keys(1)=nil"],
    ));
    stdout(&mut on(&db, &["-w", "dir", "mkdir", "/empty"]));
    let err = stderr(&mut on(&db, &["-w", "dir", "rm", "/a"]), 1);
    assert!(
        err.contains("/a holds 1 subdirectory; pass --force"),
        "{err}"
    );
    let err = stderr(&mut on(&db, &["-w", "dir", "rm", "/keys"]), 1);
    assert!(err.contains("/keys holds key-values"), "{err}");
    // Nothing was removed.
    assert_eq!(
        stdout(&mut on(&db, &["-q", "/a/b(<>)"])),
        "/a/b(1)=\"one\"\n"
    );
    assert_eq!(
        stdout(&mut on(&db, &["-w", "dir", "rm", "/empty"])),
        "removed /empty\n"
    );
    assert_eq!(
        stdout(&mut on(&db, &["-w", "dir", "rm", "--force", "/a"])),
        "removed /a\n"
    );
    assert_eq!(stdout(&mut on(&db, &["-q", "/<>"])), "/keys\n");
    let err = stderr(&mut on(&db, &["-w", "dir", "rm", "/a"]), 4);
    assert!(err.contains("directory /a does not exist"), "{err}");
    let err = stderr(&mut on(&db, &["dir", "rm", "--force", "/keys"]), 2);
    assert!(err.contains("pass -w/--write"), "{err}");
}
