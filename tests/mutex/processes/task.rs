//! The task lock's lease through real `fql mutex task` processes: a
//! worker that dies loses its task to a taker that watched its heartbeat
//! stand still; a live worker keeps it.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use assert_cmd::cargo::cargo_bin;

use super::{fql, line_in, reach_shell};

fn run(db: &Path, args: &[&str]) -> Output {
    fql(db).args(args).output().unwrap()
}

fn take(db: &Path, name: &str, lease: &str) -> Output {
    let args = ["mutex", "task", "take", "/jobs", "t1", "--name", name];
    run(db, &[&args[..], &["--lease", lease]].concat())
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).trim().to_string()
}

/// Every key of /jobs, to show a refused command changed nothing.
fn jobs(db: &Path) -> String {
    text(&run(db, &["-q", "/jobs(...)"]).stdout)
}

#[test]
fn a_dead_workers_task_is_taken_over_and_a_live_workers_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let seeded = run(&db, &["-w", "-q", r#"/jobs("task","t1")="waiting""#]);
    assert!(seeded.status.success(), "{seeded:?}");
    // A worker: takes the task, then beats every 0.1 s until killed.
    let token_file = dir.path().join("token");
    let fql_bin = cargo_bin("fql");
    let fql_cmd = format!("{} {}", fql_bin.display(), reach_shell(&db));
    let worker = format!(
        "t=$({fql_cmd} mutex task take /jobs t1 --name ann) || exit 9; echo $t > {file}.new; \
         mv {file}.new {file}; \
         while {fql_cmd} mutex task beat /jobs t1 --name ann --token $t; do sleep 0.1; done",
        file = token_file.display()
    );
    let mut ann = Command::new("sh")
        .args(["-c", &worker])
        .process_group(0)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = line_in(&token_file);
    // While ann beats, bob is refused at her next beat, writing nothing.
    let refused = take(&db, "bob", "10");
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(
        text(&refused.stderr).contains("beat within the lease"),
        "{refused:?}"
    );
    assert!(
        jobs(&db).contains(r#"("worker","t1")="ann""#),
        "{}",
        jobs(&db)
    );

    // ann dies with her beating loop.
    let group = nix::unistd::Pid::from_raw(ann.id() as i32);
    let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    let _ = ann.wait();
    let took = take(&db, "bob", "0.5");
    assert!(took.status.success(), "{took:?}");
    let second = text(&took.stdout);
    assert_eq!(second.len(), first.len());
    assert!(second > first, "token {second} after {first}");

    // ann's finish and beat are refused, and change nothing.
    let after_take = jobs(&db);
    for op in [
        &["finish", "/jobs", "t1", "--name", "ann", "--state", "done"][..],
        &["beat", "/jobs", "t1", "--name", "ann"][..],
    ] {
        let args = [&["mutex", "task"][..], op, &["--token", &first]].concat();
        let out = run(&db, &args);
        assert_eq!(out.status.code(), Some(1), "{op:?}: {out:?}");
        assert_eq!(jobs(&db), after_take, "{op:?}");
    }
    assert!(
        after_take.contains(r#"("worker","t1")="bob""#),
        "{after_take}"
    );
    let finished = run(
        &db,
        &[
            "mutex", "task", "finish", "/jobs", "t1", "--name", "bob", "--token", &second,
            "--state", "done",
        ],
    );
    assert!(finished.status.success(), "{finished:?}");
    assert_eq!(jobs(&db), r#"/jobs("task","t1")="done""#);
    let done = take(&db, "carl", "0.5");
    assert_eq!(done.status.code(), Some(1), "{done:?}");
    assert!(text(&done.stderr).contains("is done"), "{done:?}");
}
