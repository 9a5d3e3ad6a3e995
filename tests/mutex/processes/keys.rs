//! Who may join a mutex, through real processes: names are unique among
//! live clients, every client shares the timing and mode the mutex
//! stores (and so does the reaper), enqueues do not conflict, and a
//! compatible release leaves Go's free marker.

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};

use super::{fql, signal, until_shown};
use crate::support::eventually::eventually;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `fql --db DB ARGS` to its end.
fn run(db: &Path, args: &[&str]) -> Output {
    fql(db).args(args).output().unwrap()
}

/// A holder that keeps the mutex until the file `go` appears.
fn holder(db: &Path, dir: &str, name: &str, flags: &[&str], go: &Path) -> Child {
    fql(db)
        .args(["mutex", "run", dir, "--name", name])
        .args(flags)
        .args(["--", "sh", "-c"])
        .arg(format!(
            "while [ ! -e {} ]; do sleep 0.05; done",
            go.display()
        ))
        .spawn()
        .unwrap()
}

fn db_in(tmp: &tempfile::TempDir) -> PathBuf {
    tmp.path().join("fql.db")
}

/// A second `run` with the name of a live holder is refused (exit 1)
/// without running its command, as is an `acquire` with the name of a
/// waiter; `heartbeat` and `release` by a holder's name, from other
/// processes, act for it.
#[test]
fn a_second_client_with_a_live_name_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let go = tmp.path().join("go");
    let mut first = holder(&db, "/locks/names", "host1", &[], &go);
    until_shown(&db, "/locks/names", "owner: host1 ");
    let token = |db: &Path| text(&run(db, &["mutex", "show", "/locks/names"]).stdout);
    let before = token(&db);
    let ran = tmp.path().join("ran");
    let second = fql(&db)
        .args([
            "mutex",
            "run",
            "/locks/names",
            "--name",
            "host1",
            "--",
            "touch",
        ])
        .arg(&ran)
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(1), "{second:?}");
    let err = text(&second.stderr);
    assert!(
        err.contains(
            "another client named host1 holds /locks/names: names must be unique among the clients of a mutex"
        ),
        "{err}"
    );
    assert!(err.contains("--name host1-$$"), "{err}");
    assert!(!ran.exists(), "the command did not run");
    let again = run(
        &db,
        &["mutex", "try-acquire", "/locks/names", "--name", "host1"],
    );
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    assert!(again.stdout.is_empty(), "no token: {again:?}");
    assert_eq!(
        token(&db).lines().nth(1),
        before.lines().nth(1),
        "the same grant"
    );

    // A waiter's name.
    let waiter = fql(&db)
        .args(["mutex", "acquire", "/locks/names", "--name", "w1"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    until_shown(&db, "/locks/names", "1. w1 ");
    let twin = run(
        &db,
        &[
            "mutex",
            "acquire",
            "/locks/names",
            "--name",
            "w1",
            "--wait",
            "5",
        ],
    );
    assert_eq!(twin.status.code(), Some(1), "{twin:?}");
    assert!(
        text(&twin.stderr).contains("another client named w1 waits for /locks/names"),
        "{twin:?}"
    );
    let shown = token(&db);
    assert!(shown.contains("queue: 1 waiting"), "{shown}");

    // The holder's own heartbeat, by name from another process, and the
    // hand-over to the waiter.
    let beat = run(
        &db,
        &["mutex", "heartbeat", "/locks/names", "--name", "host1"],
    );
    assert!(beat.status.success(), "{beat:?}");
    std::fs::write(&go, "").unwrap();
    assert!(first.wait().unwrap().success());
    let granted = waiter.wait_with_output().unwrap();
    assert!(granted.status.success(), "{granted:?}");
    let release = run(&db, &["mutex", "release", "/locks/names", "--name", "w1"]);
    assert!(release.status.success(), "{release:?}");
    assert!(token(&db).starts_with("owner: none (free)"));
}

/// The first client stores its timing and mode; a client with others is
/// refused (exit 2) with the flags to use, and writes nothing; once the
/// mutex is free with nobody waiting, other settings may be used.
#[test]
fn a_client_with_other_timing_or_mode_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let slow = ["--heartbeat", "8", "--stale", "30"];
    let taken = run(
        &db,
        &[
            &["mutex", "try-acquire", "/locks/t", "--name", "a"][..],
            &slow,
        ]
        .concat(),
    );
    assert!(taken.status.success(), "{taken:?}");
    let dump = |db: &Path| text(&run(db, &["-q", "/locks/t(...)"]).stdout);
    let before = dump(&db);
    assert!(
        before.contains("/locks/t(\"config\")=(8000,30000,\"default\")"),
        "{before}"
    );
    for (flags, advice) in [
        (&[][..], "run it with --heartbeat 8 --stale 30;"),
        (
            &["--compat", "--heartbeat", "8", "--stale", "30"][..],
            "run it with --heartbeat 8 --stale 30 and without --compat;",
        ),
    ] {
        for op in ["acquire", "try-acquire"] {
            let out = run(
                &db,
                &[&["mutex", op, "/locks/t", "--name", "b"][..], flags].concat(),
            );
            assert_eq!(out.status.code(), Some(2), "{op} {flags:?}: {out:?}");
            let err = text(&out.stderr);
            assert!(
                err.contains("/locks/t is in use with heartbeat 8 s, staleness 30 s, default mode, stored in the mutex"),
                "{err}"
            );
            assert!(err.contains(advice), "{err}");
        }
    }
    assert_eq!(dump(&db), before, "refused clients wrote nothing");
    // The same settings queue (and give up after --wait).
    let waits = run(
        &db,
        &[
            &[
                "mutex", "acquire", "/locks/t", "--name", "b", "--wait", "0.3",
            ][..],
            &slow,
        ]
        .concat(),
    );
    assert_eq!(waits.status.code(), Some(1), "{waits:?}");
    assert!(text(&waits.stderr).contains("not acquired"), "{waits:?}");
    // The holder releases without giving its timing: only its mode counts.
    let released = run(&db, &["mutex", "release", "/locks/t", "--name", "a"]);
    assert!(released.status.success(), "{released:?}");
    assert!(!dump(&db).contains("config"), "{}", dump(&db));
    let fresh = run(&db, &["mutex", "try-acquire", "/locks/t", "--name", "b"]);
    assert!(fresh.status.success(), "{fresh:?}");
    assert!(dump(&db).contains("/locks/t(\"config\")=(1000,5000,\"default\")"));
}

/// Runs a reaper with `flags` beside a holder that beats with
/// `holder_flags` for a few seconds: the holder keeps the mutex (its
/// command ends well) and the reaper reaps nothing.
fn live_holder_kept(holder_flags: &[&str], reaper_flags: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let started = tmp.path().join("started");
    let mut holder = fql(&db)
        .args(["mutex", "run", "/locks/r", "--name", "live"])
        .args(holder_flags)
        .args(["--", "sh", "-c"])
        .arg(format!("touch {}; sleep 4", started.display()))
        .spawn()
        .unwrap();
    eventually("the command's start", || started.exists());
    let reaper = fql(&db)
        .args(["mutex", "reap", "/locks/r"])
        .args(reaper_flags)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let status = holder.wait().unwrap();
    signal(&reaper, "-TERM");
    let reaped = reaper.wait_with_output().unwrap();
    assert_eq!(text(&reaped.stdout), "", "the reaper reaped");
    assert!(status.success(), "the holder lost the mutex: {status:?}");
}

/// A reaper with the default staleness (here shortened) does not reap a
/// live client that beats more slowly, by the timing the mutex stores.
#[test]
fn a_reaper_does_not_reap_a_live_client_with_a_longer_timing() {
    live_holder_kept(
        &["--heartbeat", "0.5", "--stale", "3"],
        &["--heartbeat", "0.1", "--stale", "0.4"],
    );
}

/// `reap --compat` judges the owner key's value, which a default-mode
/// holder never changes; the mutex says its mode is the default, so the
/// reaper judges the holder's heartbeats instead.
#[test]
fn a_compat_reaper_does_not_reap_a_live_default_holder() {
    live_holder_kept(
        &["--heartbeat", "0.25", "--stale", "2"],
        &["--compat", "--heartbeat", "0.1", "--stale", "0.4"],
    );
}

/// A default reaper reaps a dead compat owner, by the owner key's value
/// and the timing the mutex stores.
#[test]
fn a_default_reaper_reaps_a_dead_compat_owner() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let taken = run(
        &db,
        &[
            "mutex",
            "try-acquire",
            "/locks/g",
            "--name",
            "gone",
            "--compat",
        ]
        .iter()
        .chain(&["--heartbeat", "0.1", "--stale", "0.4"])
        .copied()
        .collect::<Vec<_>>(),
    );
    assert!(taken.status.success(), "{taken:?}");
    let reaper = fql(&db)
        .args(["mutex", "reap", "/locks/g"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    until_shown(&db, "/locks/g", "owner: none (free)");
    signal(&reaper, "-TERM");
    let reaped = reaper.wait_with_output().unwrap();
    assert_eq!(text(&reaped.stdout), "reaped owner gone\n");
    // Handed on as Go's release does: to the free marker.
    let keys = text(&run(&db, &["-q", "/locks/g(...)"]).stdout);
    assert_eq!(keys, "/locks/g(\"owner\",\"\")=nil\n");
}

/// A compatible release to an empty queue writes Go's free marker
/// `("owner","")`, which Go clients that found the mutex free watch; and
/// the mutex's settings go with it.
#[test]
fn a_compat_release_to_an_empty_queue_marks_the_mutex_free() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    for op in ["try-acquire", "release"] {
        let out = run(&db, &["mutex", op, "/locks/c", "--name", "a", "--compat"]);
        assert!(out.status.success(), "{op}: {out:?}");
    }
    let keys = text(&run(&db, &["-q", "/locks/c(...)"]).stdout);
    assert_eq!(keys, "/locks/c(\"owner\",\"\")=nil\n");
    // The next client takes it, clearing the marker as Go's grant does.
    let out = run(
        &db,
        &[
            "mutex",
            "try-acquire",
            "/locks/c",
            "--name",
            "b",
            "--compat",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let keys = text(&run(&db, &["-q", "/locks/c(\"owner\",...)"]).stdout);
    assert_eq!(keys.lines().count(), 1, "{keys}");
    assert!(keys.starts_with("/locks/c(\"owner\",\"b\")="), "{keys}");
}

/// 24 processes queue at once behind a holder, each running the enqueue
/// script through `explain --analyze`, which reports its transaction's
/// retries and conflicts: none conflicts with another.
#[test]
fn simultaneous_enqueues_do_not_conflict() {
    const CLIENTS: usize = 24;
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let taken = run(
        &db,
        &["mutex", "try-acquire", "/locks/q", "--name", "holder"],
    );
    assert!(taken.status.success(), "{taken:?}");
    let go = tmp.path().join("go");
    let fql_bin = assert_cmd::cargo::cargo_bin("fql");
    let reach = super::reach_shell(&db);
    let clients: Vec<Child> = (0..CLIENTS)
        .map(|n| {
            std::process::Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "while [ ! -e {go} ]; do sleep 0.01; done; exec {fql} {reach} explain --analyze -w --format json mutex/enqueue -p dir=/locks/q -p name=w{n}",
                    go = go.display(),
                    fql = fql_bin.display(),
                ))
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    std::fs::write(&go, "").unwrap();
    let mut retried = Vec::new();
    for (n, client) in clients.into_iter().enumerate() {
        let out = client.wait_with_output().unwrap();
        assert!(out.status.success(), "w{n}: {out:?}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let tx = &report["transactions"][0];
        assert_eq!(tx["outcome"], "committed", "w{n}: {report}");
        let retries = tx["retries"].as_array().map_or(0, Vec::len);
        if retries > 0 {
            retried.push((n, retries, tx["conflicting_ranges"].clone()));
        }
    }
    assert!(retried.is_empty(), "enqueues that retried: {retried:?}");
    let shown = text(&run(&db, &["mutex", "show", "/locks/q"]).stdout);
    assert!(
        shown.contains(&format!("queue: {CLIENTS} waiting")),
        "{shown}"
    );
}
