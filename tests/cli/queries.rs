//! `fql -q`, `fql -f`, scripts on standard input: order, transactions,
//! writes, errors and exit codes.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Output};

use super::{fql, interrupt_when_blocked, on_db, outputs, spawn_piped, stderr, stdout, text};
use crate::support::eventually::eventually_some;

/// `fql --db DIR/fql.db ARGS` with its output piped, for the tests that stop it mid-way.
fn spawn(dir: &Path, args: &[&str]) -> Child {
    spawn_piped(|cmd| cmd.arg("--db").arg(dir.join("fql.db")).args(args))
}

/// Runs `fql --db DIR/fql.db ARGS`, closes its output after the first row and returns how it ended.
fn closed_after_the_first_row(dir: &Path, args: &[&str]) -> Output {
    let mut child = spawn(dir, args);
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // Dropping the pipe closes it.
    let out = child.wait_with_output().unwrap();
    assert_eq!(&first, b"/p(0)=\"0\"\n");
    out
}

#[test]
fn queries_and_files_run_in_the_order_given() {
    let (dir, db) = on_db();
    let file = dir.path().join("two.fql");
    std::fs::write(&file, "/log(2)=\"file\"\n").unwrap();
    db().args(["-w", "-q", "/log(1)=\"first\"", "-f"])
        .arg(&file)
        .args(["-q", "/log(3)=\"last\""])
        .assert()
        .success()
        .stdout("");
    // Reads print in the order of their queries, each one per line.
    let out = stdout(db().args(["-q", "/log(3)=<str>", "-q", "/log(<int>)=<str>"]));
    assert_eq!(
        out,
        "/log(3)=\"last\"\n/log(1)=\"first\"\n/log(2)=\"file\"\n/log(3)=\"last\"\n"
    );
}

#[test]
fn each_query_commits_on_its_own_unless_single_transaction() {
    let (_dir, db) = on_db();
    // The second query fails: without -1 the first one stays.
    let err = stderr(
        db().args(["-w", "-q", "/a(1)=1", "-q", "[strict] /a(<str>)"]),
        4,
    );
    assert!(err.contains("fql::strict_mismatch"), "{err}");
    assert_eq!(stdout(db().args(["-q", "/a(<>)=<>"])), "/a(1)=1\n");

    // With -1 all run in one transaction: the failure leaves nothing.
    db().args(["-w", "-1", "-q", "/b(1)=1", "-q", "[strict] /b(<str>)"])
        .assert()
        .code(4);
    assert_eq!(stdout(db().args(["-q", "/b(<>)=<>"])), "");
    // ... and a later query sees an earlier one's write before the commit.
    let out = stdout(db().args(["-w", "-1", "-q", "/c(1)=1", "-q", "/c(<int>)=<int>"]));
    assert_eq!(out, "/c(1)=1\n");
}

#[test]
fn single_transaction_refuses_a_script_that_commits() {
    let (dir, db) = on_db();
    let file = dir.path().join("commits.fql");
    std::fs::write(&file, "/a(1)=1\n@commit\n/a(2)=2\n").unwrap();
    let err = stderr(db().args(["-w", "-1", "-f"]).arg(&file), 2);
    assert!(err.contains("commits.fql commits at line 2"), "{err}");
    assert_eq!(stdout(db().args(["-q", "/a(<>)=<>"])), "");
}

#[test]
fn on_error_continue_runs_the_rest_and_still_fails() {
    let (_dir, db) = on_db();
    // The second of three queries fails. Stop is the default: the third
    // query never runs.
    for (flags, d, kept) in [
        (&["--on-error", "continue"][..], "x", "/x(1)=1\n/x(2)=2\n"),
        (&[][..], "y", "/y(1)=1\n"),
    ] {
        let queries = [
            format!("/{d}(1)=1"),
            format!("[strict] /{d}(<str>)"),
            format!("/{d}(2)=2"),
        ];
        let queries = queries.iter().flat_map(|query| ["-q", query]);
        let err = stderr(db().arg("-w").args(flags).args(queries), 4);
        assert!(err.contains("does not match the query"), "{flags:?}: {err}");
        assert_eq!(stdout(db().args(["-q", &format!("/{d}(<>)=<>")])), kept);
    }
}

#[test]
fn writes_are_refused_without_the_flag_and_nothing_is_written() {
    let (_dir, db) = on_db();
    let err = stderr(db().args(["-q", "/r(1)", "-q", "/r(1)=1"]), 2);
    assert!(err.contains("<query 2>"), "{err}");
    assert!(err.contains("-w/--write"), "{err}");
    for query in ["/r(1)=clear", "/r(...)=clear", "/r=remove"] {
        db().args(["-q", query]).assert().code(2);
    }
    assert_eq!(stdout(db().args(["-q", "/<>"])), "");
}

#[test]
fn a_script_on_standard_input_runs_when_it_is_not_a_terminal() {
    let (_dir, db) = on_db();
    db().arg("-w")
        .write_stdin("/s(1)=\"one\"\n@commit\n/s(<int>)=<str>\n")
        .assert()
        .success()
        .stdout("/s(1)=\"one\"\n");
    // `-f -` is standard input too, and `run` takes files.
    db().args(["-f", "-"])
        .write_stdin("/s(<int>)=<str>\n")
        .assert()
        .stdout("/s(1)=\"one\"\n");
}

#[test]
fn parameters_reach_queries_and_files() {
    let (_dir, db) = on_db();
    db().args(["-w", "-p", "id=7", "-p", "name=ann", "-q", "/u(:id)=:name"])
        .assert()
        .success();
    assert_eq!(stdout(db().args(["-q", "/u(7)=<str>"])), "/u(7)=\"ann\"\n");
    let err = stderr(db().args(["-q", "/u(:id)"]), 3);
    assert!(err.contains("id"), "{err}");
    db().args(["-p", "novalue", "-q", "/u"]).assert().code(2);
}

#[test]
fn timing_goes_to_standard_error_per_transaction() {
    let (out, err) = outputs(
        fql().args([
            "--memory", "-w", "--timing", "-q", "/t(1)=1", "-q", "/t(<>)",
        ]),
        0,
    );
    assert_eq!(out, "/t(1)=1\n");
    let lines: Vec<_> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("Time: ") && lines[0].ends_with(" ms, 0 results"));
    assert!(lines[1].ends_with(" ms, 1 result"), "{err}");
}

#[test]
fn a_closed_pipe_after_some_results_exits_quietly() {
    let (dir, db) = on_db();
    let script = dir.path().join("fill.fql");
    let lines: String = (0..20_000).map(|i| format!("/p({i})=\"{i}\"\n")).collect();
    std::fs::write(&script, lines).unwrap();
    db().args(["-w", "-f"]).arg(&script).assert().success();
    let out = closed_after_the_first_row(dir.path(), &["-q", "/p(<int>)=<str>"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(text(&out.stderr), "");
}

/// A closed pipe ends the run quietly, but does not hide a failure
/// before it: with `--on-error continue`, a guard left unmet before the
/// read whose output is cut still exits 1.
#[test]
fn a_closed_pipe_keeps_the_status_of_an_earlier_failure() {
    let (dir, db) = on_db();
    let lines: String = (0..20_000).map(|i| format!("/p({i})=\"{i}\"\n")).collect();
    db().arg("-w").write_stdin(lines).assert().success();
    let args = ["--on-error", "continue", "--color", "never"];
    let reads = ["-q", "[exists] /none(1)", "-q", "/p(<int>)=<str>"];
    let out = closed_after_the_first_row(dir.path(), &[&args[..], &reads].concat());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(text(&out.stderr).contains("the guard found nothing"));
}

#[test]
fn interrupt_stops_a_run_with_status_130_and_rolls_back() {
    let (dir, db) = on_db();
    let script = dir.path().join("fill.fql");
    // Far more rows than the pipe, the output buffer and the batches read
    // ahead hold together, so the read is still going when it is stopped.
    let lines: String = (0..60_000).map(|i| format!("/i({i})=\"{i}\"\n")).collect();
    std::fs::write(&script, lines).unwrap();
    db().args(["-w", "-f"]).arg(&script).assert().success();
    let child = spawn(dir.path(), &["-q", "/i(<int>)=<str>"]);
    // The pipe is not read, so the read blocks with its buffer full; it is
    // still running when the signal comes.
    let (done, rest) = interrupt_when_blocked(child);
    assert_eq!(done.status.code(), Some(130), "{done:?}");
    assert!(text(&done.stderr).contains("interrupted"), "{done:?}");
    let printed = String::from_utf8_lossy(&rest);
    assert!(!printed.contains("/i(59999)="), "the read stopped early");
}

/// A second Ctrl-C, while the first has not stopped the run yet, ends fql
/// by the signal itself, as an uncaught SIGINT does: no exit handler runs,
/// none under the FoundationDB client's network thread either (tests/client
/// runs this through the client library).
#[test]
fn a_second_interrupt_ends_the_process_by_the_signal() {
    use std::os::unix::process::ExitStatusExt;

    let (dir, db) = on_db();
    let lines: String = (0..60_000).map(|i| format!("/i({i})=\"{i}\"\n")).collect();
    db().arg("-w").write_stdin(lines).assert().success();
    let path = dir.path().join("fql.db");
    let mut child = spawn_piped(|cmd| {
        cmd.env_remove("FDB_CLUSTER_FILE")
            .args(super::reach::reach(&path))
            .args(["-q", "/i(<int>)=<str>"])
    });
    // The pipe is not read past this, so the read blocks on a full pipe
    // and the first Ctrl-C cannot stop it: it waits for its next database
    // operation.
    let mut first = [0u8; 10];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    // Two signals sent at once may arrive as one: send until it ends.
    let status = eventually_some("fql ends after Ctrl-C", || {
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
        child.try_wait().unwrap()
    });
    assert_eq!(status.signal(), Some(2), "ended by SIGINT: {status:?}");
}

#[test]
fn a_failed_guard_exits_1_and_its_transaction_writes_nothing() {
    let (_dir, db) = on_db();
    db().args(["-w", "-q", "/lock(\"owner\",\"bob\")=nil"])
        .assert()
        .success();
    let script =
        "/log(1)=\"before\"\n[absent] /lock(\"owner\",<str>)\n/lock(\"owner\",\"ann\")=nil\n";
    let err = stderr(db().args(["-w", "-q", script]), 1);
    assert!(
        err.contains("the guard found /lock(\"owner\",\"bob\")=nil"),
        "{err}"
    );
    assert_eq!(stdout(db().args(["-q", "/log(<>)=<>"])), "");
    assert_eq!(
        stdout(db().args(["-q", "/lock(...)"])),
        "/lock(\"owner\",\"bob\")=nil\n"
    );
}

/// A read outside its `[min:N]`/`[max:N]` bounds fails with status 4
/// and the count it found, shown at the read, after the rows a read-only
/// transaction printed; in a transaction that writes, nothing is written.
#[test]
fn a_read_outside_its_bounds_exits_4_with_the_count() {
    let (_dir, db) = on_db();
    db().args([
        "-w",
        "-q",
        "/lock(\"owner\",\"ann\")=nil\n/lock(\"owner\",\"bob\")=nil",
    ])
    .assert()
    .success();
    let (out, err) = outputs(db().args(["-q", "[max:1] /lock(\"owner\",<str>)"]), 4);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        err.contains("2 key-values match, but at most 1 may"),
        "{err}"
    );
    assert!(err.contains("fql::cardinality"), "{err}");
    let script = "/log(1)=\"x\"\n[min:3] /lock(\"owner\",<str>)";
    let err = stderr(db().args(["-w", "-q", script]), 4);
    assert!(
        err.contains("2 key-values match, but at least 3 must"),
        "{err}"
    );
    assert_eq!(stdout(db().args(["-q", "/log(...)"])), "");
}

/// A transaction that writes a key with an incomplete vstamp cannot read
/// the directory it lands in: the read fails with FoundationDB's
/// `accessed_unreadable`, shown at the read, with status 4, and nothing of
/// the transaction is written. After `@commit` the key reads.
#[test]
fn reading_where_a_vstamped_key_lands_fails_and_writes_nothing() {
    let (dir, db) = on_db();
    let file = dir.path().join("stamp.fql");
    std::fs::write(&file, "/log(#:0001)=\"x\"\n/log(<>)=<>\n").unwrap();
    let out = db()
        .args(["-w", "-f"])
        .arg(&file)
        .assert()
        .code(4)
        .get_output()
        .clone();
    let err = text(&out.stderr);
    assert!(err.contains("accessed_unreadable (1036)"), "{err}");
    assert!(err.contains("│ /log(<>)=<>"), "{err}");
    assert!(err.contains("this read"), "{err}");
    assert!(err.contains("read after `@commit`"), "{err}");
    assert_eq!(stdout(db().args(["-q", "/log(<>)=<>"])), "");

    std::fs::write(&file, "/log(#:0001)=\"x\"\n@commit\n/log(<vstamp>)=<str>\n").unwrap();
    let read = stdout(db().args(["-w", "-f"]).arg(&file));
    assert!(
        read.starts_with("/log(#") && read.ends_with(":0001)=\"x\"\n"),
        "{read}"
    );
}

/// `mode:exact` reads the limit in one batch where every key-value read is
/// a result; elsewhere it is refused before anything runs, with status 3,
/// at the option and at what filters on the client.
#[test]
fn exact_mode_reads_its_limit_or_is_refused_before_running() {
    let (_dir, db) = on_db();
    db().args(["-w", "-q", "/p(1)=1\n/p(2)=2\n/p(3)=3"])
        .assert()
        .success();
    let out = stdout(db().args(["-q", "[mode:exact,limit:2] /p(...)"]));
    assert_eq!(out, "/p(1)=1\n/p(2)=2\n");
    let no_limit = stderr(
        db().args(["--color", "never", "-q", "[mode:exact] /p(...)"]),
        3,
    );
    insta::assert_snapshot!("exact_without_limit", no_limit);
    let filtered = stderr(
        db().args([
            "--color",
            "never",
            "-q",
            "[mode:exact,limit:2] /p(<int>)=<int>",
        ]),
        3,
    );
    insta::assert_snapshot!("exact_filtered", filtered);
}
