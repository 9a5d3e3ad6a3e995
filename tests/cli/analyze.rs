//! `fql explain --analyze`: a script run, and its plan printed with what
//! each statement cost.

use serde_json::Value;

use super::{fql_db, on_db, outputs, stderr, stdout, text};

/// A database holding `/shop/eu/items` (three levels) with two string
/// values and a number.
fn shop() -> (tempfile::TempDir, impl Fn() -> assert_cmd::Command) {
    let (dir, fql) = on_db();
    stdout(fql().args([
        "-w",
        "-q",
        r#"/shop/eu/items(1)="a""#,
        "-q",
        r#"/shop/eu/items(2)="b""#,
        "-q",
        "/shop/eu/items(3)=3",
    ]));
    (dir, fql)
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The plan's lines, as `fql explain` prints them, come in the same
/// order in the analysis, each statement's figures after it; no result
/// is printed.
#[test]
fn annotates_the_plan_with_what_each_statement_read() {
    let (_dir, fql) = shop();
    let script = "/shop/eu/items(<int>)=<str>\n/shop/eu/items(2)=<>\n";
    let plan = stdout(fql().arg("explain").write_stdin(script));
    let analyzed = stdout(fql().args(["explain", "--analyze"]).write_stdin(script));
    let mut lines = analyzed.lines();
    for line in plan.lines() {
        assert!(lines.any(|l| l == line), "{line:?} missing in:\n{analyzed}");
    }
    assert!(!analyzed.contains("\"a\""), "no results:\n{analyzed}");
    let range = &analyzed[..analyzed.find("read one key").unwrap()];
    for (level, reads) in [(1, "2 reads"), (2, "2 reads"), (3, "2 reads")] {
        assert!(
            range.contains(&format!("    directory level {level}: {reads} in ")),
            "{range}"
        );
    }
    assert!(!range.contains("directory level 4"), "{range}");
    assert!(range.contains("    read: 3 keys, "), "{range}");
    assert!(
        range.contains("    rows: 2 returned, 1 filtered on the client\n"),
        "{range}"
    );
    assert!(
        range.contains(", 0 point reads, 1 range batch)\n"),
        "{range}"
    );
    let point = &analyzed[analyzed.find("read one key").unwrap()..];
    // The directory was looked up by the statement before, in the same
    // transaction.
    assert!(
        point.contains("    round trips: 1 (0 of directories, 1 point read, 0 range batches)\n"),
        "{point}"
    );
    assert!(
        point.contains("    rows: 1 returned, 0 filtered"),
        "{point}"
    );
    assert!(point.contains("  retries: 0\n  conflicts: 0\n"), "{point}");
}

#[test]
fn json_is_one_document_with_the_same_figures() {
    let (_dir, fql) = shop();
    let out = stdout(
        fql()
            .args(["explain", "--analyze", "--format", "json"])
            .write_stdin("/shop/eu/items(<int>)=<str>\n"),
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    let doc = json(&out);
    let tx = &doc["transactions"][0];
    assert_eq!(tx["outcome"], "committed");
    assert_eq!(tx["retries"], Value::Array(vec![]));
    let s = &tx["statements"][0];
    assert_eq!(s["query"], "/shop/eu/items(<int>)=<str>");
    assert_eq!(s["plan"][0], "range read: /shop/eu/items(<int>)=<str>");
    let levels = s["directory_levels"].as_array().unwrap();
    assert_eq!(levels.len(), 3, "one entry per level of the path: {s}");
    for (n, level) in levels.iter().enumerate() {
        assert_eq!(level["level"], n + 1);
        assert_eq!(level["reads"], 2, "{s}");
    }
    assert_eq!(s["keys_read"], 3);
    assert_eq!(s["rows_returned"], 2);
    assert_eq!(s["rows_filtered"], 1);
    assert_eq!(s["range_batches"], 1);
    let dir_reads: u64 = levels.iter().map(|l| l["reads"].as_u64().unwrap()).sum();
    let other = s["directory_other"]["reads"].as_u64().unwrap();
    assert_eq!(s["round_trips"], dir_reads + other + 1);
}

/// An aggregate returns fewer rows than it reads without filtering any.
#[test]
fn an_aggregate_folds_what_it_reads() {
    let (_dir, fql) = shop();
    let out = stdout(
        fql()
            .args(["explain", "--analyze"])
            .write_stdin("/shop/eu/items(<>)=<count>\n"),
    );
    assert!(
        out.contains("    rows: 3 read, folded into 1 result\n"),
        "{out}"
    );
}

/// A write runs only with -w, and then lands, with its figures.
#[test]
fn a_write_needs_w_and_reports_what_it_wrote() {
    let (_dir, fql) = shop();
    let write = "/shop/eu/items(4)=\"d\"\n";
    let err = stderr(fql().args(["explain", "--analyze"]).write_stdin(write), 2);
    assert!(err.contains("refusing to write"), "{err}");
    let read = || stdout(fql().args(["-q", "/shop/eu/items(4)=<>"]));
    assert_eq!(read(), "", "nothing written");

    let out = stdout(
        fql()
            .args(["explain", "--analyze", "-w"])
            .write_stdin(write),
    );
    assert!(
        out.starts_with("transaction 1 (read-write)\n  set: "),
        "{out}"
    );
    assert!(out.contains("    written: 1 write, "), "{out}");
    for level in 1..=3 {
        assert!(
            out.contains(&format!("    directory level {level}: ")),
            "{out}"
        );
    }
    assert!(out.contains("  committed in "), "{out}");
    assert_eq!(read(), "/shop/eu/items(4)=\"d\"\n");
}

/// A commit that fails with a conflict once is retried, and the retry
/// counted with its error; the statement ran once per attempt. The
/// directory exists first: the faults repeat with their seed only while
/// each attempt makes the same reads, and creating a directory allocates
/// its prefix at random, which may take more reads.
#[test]
fn a_retry_is_counted_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    stdout(
        fql_db()
            .arg("--db")
            .arg(&db)
            .args(["-w", "-q", "/r/s(0)=1"]),
    );
    let out = stdout(
        fql_db()
            .env("FQL_FAULTS", "1020:0.5;seed=6")
            .arg("--db")
            .arg(&db)
            .args(["explain", "--analyze", "-w"])
            .write_stdin("/r/s(1)=2\n"),
    );
    assert!(out.contains("    time: "), "{out}");
    assert!(out.contains(" (2 runs)\n"), "{out}");
    assert!(
        out.contains("  retries: 1, after not_committed (1020)\n"),
        "{out}"
    );
    assert!(
        out.contains("  conflicts: 1; the conflicting range: not reported by this backend\n"),
        "{out}"
    );
    let out = stdout(
        fql_db()
            .env("FQL_FAULTS", "1020:0.5;seed=6")
            .arg("--db")
            .arg(&db)
            .args(["explain", "--analyze", "-w", "--format", "json"])
            .write_stdin("/r/s(1)=2\n"),
    );
    let tx = &json(&out)["transactions"][0];
    assert_eq!(tx["retries"][0]["code"], 1020, "{tx}");
    assert_eq!(tx["retries"][0]["name"], "not_committed");
    assert_eq!(tx["conflicts"], 1);
    assert_eq!(tx["conflicting_ranges_reported"], false);
    assert_eq!(tx["statements"][0]["runs"], 2);
}

/// A real conflict (`1020-real`: another transaction writes the key the
/// first statement read, just before the commit) is shown with the range
/// the store reports, in hex, and the statement that read it; the JSON
/// lists it as a pair of hex keys.
#[test]
fn a_conflict_shows_its_range_and_the_statement_that_read_it() {
    // On the embedded store, where the draws of the seed are known.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let fql = || {
        let mut cmd = fql_db();
        cmd.arg("--db").arg(&db);
        cmd
    };
    stdout(fql().args(["-w", "-q", "/r/s(1)=2"]));
    let script = "/r/s(1)=<>\n/r/s(2)=3\n";
    let analyze = |format: &str| {
        stdout(
            fql()
                .env("FQL_FAULTS", "1020-real:0.5;seed=3")
                .args(["explain", "--analyze", "-w", "--format", format])
                .write_stdin(script),
        )
    };
    let doc = json(&analyze("json"));
    let tx = &doc["transactions"][0];
    assert_eq!(tx["conflicts"], 1, "{tx}");
    assert_eq!(tx["conflicting_ranges_reported"], true);
    let ranges = tx["conflicting_ranges"].as_array().expect("a list");
    assert_eq!(ranges.len(), 1, "{tx}");
    let (begin, end) = (
        ranges[0][0].as_str().unwrap(),
        ranges[0][1].as_str().unwrap(),
    );
    // The key `(1)` of the directory, and the end of its range.
    assert!(begin.ends_with("1501"), "{begin}");
    assert_eq!(end, format!("{begin}00"));
    assert_eq!(tx["conflicting_ranges_read_by"], serde_json::json!([[1]]));
    let out = analyze("text");
    let line = format!(
        "  conflicts: 1; the conflicting range: 0x{begin}..0x{end} (read by statement 1)\n"
    );
    assert!(out.contains(&line), "{line:?} missing in:\n{out}");
}

/// A transaction that fails is reported as a run reports it, its figures
/// shown up to there, and the transactions after it do not run.
#[test]
fn a_failed_transaction_stops_the_run() {
    let (_dir, fql) = shop();
    let (out, err) = outputs(
        fql()
            .args(["explain", "--analyze"])
            .write_stdin("[exists] /shop/none(<>)=<>\n@commit\n/shop/eu/items(<>)=<>\n"),
        1,
    );
    assert!(err.contains("exists"), "{err}");
    assert!(out.contains("  failed after "), "{out}");
    let second = &out[out
        .find("transaction 2 (read-only)\n")
        .expect("the plan goes on")..];
    assert!(
        second.ends_with("    client filter: key (<>)\n  not run\n"),
        "{out}"
    );
    assert!(!second.contains("    time: "), "{out}");
}

#[test]
fn flags_that_need_analyze_are_usage_errors() {
    for args in [&["--format", "json"][..], &["-w"][..]] {
        let out = fql_db()
            .args(["--memory", "explain"])
            .args(args)
            .write_stdin("/a(1)=<>\n")
            .assert()
            .code(2);
        let err = text(&out.get_output().stderr);
        assert!(err.contains("--analyze"), "{args:?}: {err}");
    }
}

/// A statement driven by another's rows reads one key per row: each is a
/// round trip, and the rows it keeps for the next count as returned.
#[test]
fn a_join_reads_a_key_per_row_of_its_driver() {
    let (_dir, fql) = shop();
    let out = stdout(
        fql()
            .args(["explain", "--analyze", "--format", "json"])
            .write_stdin("/shop/eu/items(<id:int>)=<>\n/shop/eu/items(:id)=<str>\n"),
    );
    let statements = &json(&out)["transactions"][0]["statements"];
    let (driver, driven) = (&statements[0], &statements[1]);
    assert_eq!(driver["rows_returned"], 3, "kept for the join: {driver}");
    assert_eq!(driven["point_reads"], 3, "{driven}");
    assert_eq!(driven["keys_read"], 3);
    assert_eq!(driven["rows_returned"], 2);
    assert_eq!(driven["rows_filtered"], 1, "the number is not a string");
    assert_eq!(driven["runs"], 1);
}

/// A path the session resolved in an earlier transaction costs its
/// check, not its lookup: the metadata version and the layout's version,
/// then its last name's entry in its parent, where the first transaction
/// read two entries a level.
#[test]
fn a_path_resolved_before_costs_three_reads_in_a_later_transaction() {
    let (_dir, fql) = shop();
    let script = "/shop/eu/items(1)=<>\n@commit\n/shop/eu/items(2)=<>\n";
    let out = stdout(fql().args(["explain", "--analyze"]).write_stdin(script));
    let (first, second) = out.split_once("transaction 2").unwrap();
    for level in 1..=3 {
        let line = format!("    directory level {level}: 2 reads in ");
        assert!(first.contains(&line), "{first}");
    }
    assert!(
        first.contains("    round trips: 9 (8 of directories, "),
        "{first}"
    );
    assert!(
        second.contains("    directory level 1: 0 reads in "),
        "{second}"
    );
    assert!(
        second.contains("    directory level 2: 0 reads in "),
        "{second}"
    );
    assert!(
        second.contains("    directory level 3: 1 read in "),
        "{second}"
    );
    assert!(
        second.contains("    directory layer, other: 2 reads in "),
        "{second}"
    );
    assert!(
        second.contains("    round trips: 4 (3 of directories, "),
        "{second}"
    );
}
