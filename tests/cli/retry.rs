//! Transactions that cannot commit end in an error, never a hang: the
//! deadline of `--timeout` on the embedded store, `transaction_too_old`
//! as soon as retrying cannot help, long split reads that go on, and the
//! progress line while a transaction is retried; and many directories
//! created in one transaction.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin;

use super::{spawn_piped, text};
use crate::support::eventually::{eventually, within};

/// Runs `fql --db db ARGS`, killing it (and failing) if it has not ended
/// after `limit`: the old retry loop never ended. Its output is read as
/// it comes, so a long one does not stop it on a full pipe.
fn bounded(db: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = spawn_piped(|cmd| cmd.arg("--db").arg(db).args(args).stdin(Stdio::null()));
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).expect("fql's output");
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let Some(status) = within(limit, || child.try_wait().expect("a status")) else {
        let _ = child.kill();
        let _ = child.wait();
        let stderr = stderr.join().expect("stderr read");
        panic!(
            "fql {args:?} still ran after {limit:?}; stderr: {}",
            text(&stderr)
        );
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout read"),
        stderr: stderr.join().expect("stderr read"),
    }
}

/// A database file with `rows` key-values under `/p`, and a script file
/// of its own in `dir`.
fn filled(dir: &Path, rows: usize) -> std::path::PathBuf {
    let db = dir.join("retry.db");
    let fill: String = (0..rows).map(|i| format!("/p({i})=\"{i}\"\n")).collect();
    let script = dir.join("fill.fql");
    std::fs::write(&script, fill).unwrap();
    let out = bounded(
        &db,
        &["-w", "-f", script.to_str().unwrap()],
        Duration::from_secs(120),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    db
}

/// A script of `scans` reads of every row of `/p` that match nothing,
/// then `tail`.
fn scans(dir: &Path, name: &str, scans: usize, tail: &str) -> std::path::PathBuf {
    let mut script = "/p(<str>)\n".repeat(scans);
    script.push_str(tail);
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    path
}

/// Runs with `flags` a transaction that reads far past five seconds, then writes: tests share it.
fn too_long(dir: &Path, flags: &[&str]) -> (std::path::PathBuf, Output) {
    let db = filled(dir, 20_000);
    let script = scans(dir, "long.fql", 20_000, "/w(1)=1\n");
    let args = [flags, &["-w", "-f", script.to_str().unwrap()]].concat();
    let out = bounded(&db, &args, Duration::from_secs(300));
    (db, out)
}

#[test]
fn a_transaction_whose_work_outlives_its_window_fails_at_once_with_help() {
    let dir = tempfile::tempdir().unwrap();
    // The deadline is far off: failing on its own, the transaction says
    // it is too old, not that it timed out.
    let (db, out) = too_long(dir.path(), &["--timeout", "600", "--color", "never"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("fql::transaction_too_old"), "{stderr}");
    assert!(stderr.contains("transaction_too_old (1007)"), "{stderr}");
    assert!(
        stderr.contains("`@commit`") && stderr.contains("--split-reads"),
        "the help says how to split the work: {stderr}"
    );
    let w = bounded(&db, &["-q", "/w(<int>)=<int>"], Duration::from_secs(60));
    assert!(text(&w.stdout).is_empty(), "nothing was written");
}

/// Many directories created in one transaction are all there after its
/// commit. Whether a directory costs the same however many the
/// transaction created before it (they once took quadratic time) is a
/// matter of speed, measured by `cargo bench --bench engine --
/// directories`: a count large enough to show it here would make the test
/// depend on the machine's load, since the transaction must finish within
/// its five seconds.
#[test]
fn many_directories_in_one_transaction_are_all_created() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("dirs.db");
    let script: String = (0..2_500).map(|i| format!("/many/d{i}(1)=1\n")).collect();
    let path = dir.path().join("dirs.fql");
    std::fs::write(&path, script).unwrap();
    let out = bounded(
        &db,
        &["-w", "--color", "never", "-f", path.to_str().unwrap()],
        Duration::from_secs(300),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = bounded(&db, &["-q", "/many/<>"], Duration::from_secs(60));
    assert_eq!(text(&listed.stdout).lines().count(), 2_500);
}

#[test]
fn timeout_bounds_a_transaction_on_the_embedded_store() {
    let dir = tempfile::tempdir().unwrap();
    let (db, out) = too_long(dir.path(), &["--timeout", "1"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains("transaction_timed_out (1031)"), "{stderr}");
    // Not a number of seconds: refused before anything runs.
    for bad in ["0", "-1", "inf", "soon"] {
        let out = bounded(&db, &["--timeout", bad, "status"], Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(2), "--timeout {bad}");
    }
}

#[test]
fn a_split_read_goes_on_past_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let db = filled(dir.path(), 20_000);
    // Each new transaction of a split read has a deadline of its own, so a
    // read longer than --timeout in all still finishes. Read until a
    // split happened and the whole read took longer than the timeout
    // (how long that takes depends on the machine).
    let timeout = 5.5;
    let mut n = 300;
    loop {
        let script = scans(dir.path(), &format!("split{n}.fql"), n, "");
        let began = Instant::now();
        let out = bounded(
            &db,
            &[
                "--split-reads",
                "--timeout",
                &timeout.to_string(),
                "-f",
                script.to_str().unwrap(),
            ],
            Duration::from_secs(600),
        );
        let took = began.elapsed();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(stdout.lines().all(|l| l.starts_with('%')), "{stdout}");
        if !stdout.is_empty() && took.as_secs_f64() > timeout {
            break;
        }
        assert!(n < 20_000, "no read long enough to split");
        n *= 2;
    }
}

/// Commits to `/hot(1)` again and again, with a short read before each
/// commit (so another process waiting for the store's write lock gets it
/// in between), for as long as it lives.
fn hot_writer(db: &Path, dir: &Path) -> Child {
    let writes: String = (1..5_000)
        .map(|i| format!("/p(<str>)\n/hot(1)={i}\n@commit\n"))
        .collect();
    let path = dir.join("hot.fql");
    std::fs::write(&path, writes).unwrap();
    Command::new(cargo_bin("fql"))
        .arg("--db")
        .arg(db)
        .args(["-w", "-f"])
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the writer starts")
}

#[test]
fn retries_show_on_the_progress_line_and_the_timeout_says_why() {
    use rexpect::process::WaitStatus;
    use rexpect::reader::Regex;
    use rexpect::session::spawn_command;

    let dir = tempfile::tempdir().unwrap();
    let db = filled(dir.path(), 2_000);
    let ready = bounded(&db, &["-w", "-q", "/hot(1)=0"], Duration::from_secs(60));
    assert!(ready.status.success());
    let mut writer = hot_writer(&db, dir.path());
    // Once it writes.
    eventually("the writer's first write", || {
        let hot = bounded(&db, &["-q", "/hot(1)=<int>"], Duration::from_secs(60));
        text(&hot.stdout) != "/hot(1)=0\n"
    });
    // Reads the hot key, reads for a while, then writes: another commit
    // to the hot key lands in between every time.
    let script = scans(dir.path(), "conflict.fql", 50, "/w(1)=1\n");
    let script = format!(
        "/hot(1)=<int>\n{}",
        std::fs::read_to_string(script).unwrap()
    );
    let path = dir.path().join("reader.fql");
    std::fs::write(&path, script).unwrap();
    // A loaded machine may leave the writer without a commit during some
    // attempt, which then commits: run the reader again until it has
    // shown both the retry and the timeout's account of it.
    let retry = Regex::new(r"retrying: attempt [0-9]+, not_committed").unwrap();
    let account =
        Regex::new(r"--timeout ran out while retrying: attempt [0-9]+, not_committed").unwrap();
    let (mut seen, mut told) = (false, false);
    for _ in 0..8 {
        let mut cmd = Command::new(cargo_bin("fql"));
        cmd.arg("--db")
            .arg(&db)
            .args(["-w", "--timeout", "4", "--color", "never", "-f"])
            .arg(&path)
            .env("TERM", "xterm");
        let mut p = spawn_command(cmd, Some(60_000)).unwrap();
        let shown = p.exp_eof().expect("the reader ends");
        let status = p.process_mut().wait().unwrap();
        seen |= retry.is_match(&shown);
        if account.is_match(&shown) {
            told = true;
            assert!(matches!(status, WaitStatus::Exited(_, 5)), "{status:?}");
        } else {
            assert!(
                matches!(status, WaitStatus::Exited(_, 0)),
                "{status:?}: {shown}"
            );
        }
        if seen && told {
            break;
        }
    }
    let _ = writer.kill();
    let _ = writer.wait();
    assert!(seen, "the progress line names the retry");
    assert!(told, "the timeout says how often the transaction was tried");
}
