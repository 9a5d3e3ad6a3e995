//! Named scripts and `fql mutex` from the command line.

use super::{fql, on_db, stderr, stdout};

#[test]
fn scripts_are_listed_shown_and_run_by_name() {
    let list = stdout(fql().arg("scripts"));
    for name in [
        "mutex/try-acquire",
        "mutex/release",
        "mutex/schema",
        "task/slot",
    ] {
        assert!(list.contains(name), "{list}");
    }
    assert!(list.contains("parameters: dir, name"), "{list}");
    assert_eq!(
        stdout(fql().args(["scripts", "show", "mutex/release"])),
        fql::scripts::find("mutex/release").unwrap().source
    );
    fql()
        .args(["scripts", "show", "mutex/nope"])
        .assert()
        .code(2);

    // A named script runs with parameters; a missing one is a static error.
    let (_dir, db) = on_db();
    let dir = "dir=(\"jobs\",\"hourly\")";
    let slot = ["run", "task/slot", "-w", "-p", dir, "-p", "slot=7", "-p"];
    db().args(slot).arg("name=ann").assert().success();
    let err = stderr(db().args(slot).arg("name=bob"), 1);
    assert!(err.contains("fql::guard_failed"));
    db().args(["run", "task/slot", "-w", "-p", dir])
        .assert()
        .code(3);
    assert_eq!(
        stdout(db().args(["-q", "/jobs/hourly(...)"])),
        "/jobs/hourly(\"slot\",7)=\"ann\"\n"
    );
    // Neither a file nor a script.
    db().args(["run", "no/such"]).assert().code(2);
}

#[test]
fn scripts_run_by_their_former_names_and_are_listed_by_their_own() {
    let list = stdout(fql().arg("scripts"));
    assert!(list.contains("task/take"), "{list}");
    assert!(list.lines().all(|l| !l.starts_with("lock/")), "{list}");
    assert_eq!(
        stdout(fql().args(["scripts", "show", "lock/take-task"])),
        fql::scripts::find("task/take").unwrap().source
    );
    // A command written with a former name runs the script.
    let (_dir, db) = on_db();
    let dir = "dir=(\"jobs\",)";
    db().args(["run", "lock/slot", "-w", "-p", dir, "-p", "slot=1", "-p"])
        .arg("name=ann")
        .assert()
        .success();
    assert_eq!(
        stdout(db().args(["-q", "/jobs(...)"])),
        "/jobs(\"slot\",1)=\"ann\"\n"
    );
}

#[test]
fn the_state_transition_lock_moves_tasks_only_from_allowed_states() {
    let (_dir, db) = on_db();
    let dir = "dir=(\"tasks\",)";
    db().args(["-w", "-q", "/tasks(\"task\",\"t1\")=\"waiting\""])
        .assert()
        .success();
    // The exit code of the task script `script` run by `who`.
    let run = |script: &str, who: &str, more: &[String]| {
        db().args(["run", script, "-w", "-p", dir, "-p", "task=t1", "-p"])
            .arg(format!("name={who}"))
            .args(more)
            .assert()
            .get_output()
            .status
            .code()
    };
    let take = |who: &str| run("task/take", who, &[]);
    // The take's token, as finish wants it.
    let token = || {
        let fence = stdout(db().args(["-q", "/tasks(\"fence\",\"t1\")=<bytes>"]));
        fence.trim().rsplit_once('=').unwrap().1.to_string()
    };
    assert_eq!(take("ann"), Some(0));
    let ann = token();
    assert_eq!(take("bob"), Some(1), "running: not takeable");
    let finish = |who: &str, token: &str, state: &str| {
        let more = [
            "-p".into(),
            format!("token={token}"),
            "-p".into(),
            format!("state={state}"),
        ];
        run("task/finish", who, &more)
    };
    assert_eq!(
        finish("bob", &ann, "done"),
        Some(1),
        "only the worker that took it"
    );
    assert_eq!(
        finish("ann", "0x00", "done"),
        Some(1),
        "only under its token"
    );
    for state in ["cancelled", "running", "waiting", "42"] {
        assert_eq!(
            finish("ann", &ann, state),
            Some(1),
            "not a final state: {state}"
        );
    }
    assert_eq!(finish("ann", &ann, "failed"), Some(0));
    assert_eq!(take("bob"), Some(0), "a failed task can be taken again");
    assert_eq!(finish("bob", &token(), "done"), Some(0));
    assert_eq!(take("carl"), Some(1), "done is final");
    // No other state, nor a value of another type, is taken.
    for value in ["\"cancelled\"", "42", "nil", "\"Waiting\""] {
        db().args(["-w", "-q"])
            .arg(format!("/tasks(\"task\",\"t1\")={value}"))
            .assert()
            .success();
        let before = stdout(db().args(["-q", "/tasks(...)"]));
        assert_eq!(take("dan"), Some(1), "{value}");
        assert_eq!(stdout(db().args(["-q", "/tasks(...)"])), before, "{value}");
    }
}

#[test]
fn mutex_commands_exit_with_what_happened() {
    let (_dir, db) = on_db();
    let token = stdout(db().args(["mutex", "try-acquire", "/locks/a", "--name", "ann"]));
    assert_eq!(token.trim().len(), 24, "{token}");
    db().args(["mutex", "try-acquire", "/locks/a", "--name", "bob"])
        .assert()
        .code(1);
    db().args([
        "mutex", "acquire", "/locks/a", "--name", "bob", "--wait", "0.2",
    ])
    .assert()
    .code(1);
    db().args(["mutex", "heartbeat", "/locks/a", "--name", "ann"])
        .assert()
        .success();
    db().args(["mutex", "heartbeat", "/locks/a", "--name", "bob"])
        .assert()
        .code(1);
    db().args(["mutex", "cancel", "/locks/a", "--name", "bob"])
        .assert()
        .code(1);
    let show = stdout(db().args(["mutex", "show", "/locks/a"]));
    assert!(show.starts_with("owner: ann ("), "{show}");
    assert!(show.contains(&format!("token: {}", token.trim())), "{show}");
    assert!(show.contains("queue: 0 waiting"), "{show}");
    db().args(["mutex", "release", "/locks/a", "--name", "ann"])
        .assert()
        .success();
    db().args(["mutex", "release", "/locks/a", "--name", "ann"])
        .assert()
        .code(1);
    // Mistakes are usage errors.
    db().args(["mutex", "show", "locks/a"]).assert().code(2);
    db().args(["mutex", "try-acquire", "/locks/a", "--name", ""])
        .assert()
        .code(2);
    db().args([
        "mutex", "acquire", "/locks/a", "--name", "x", "--stale", "1",
    ])
    .assert()
    .code(2);
}

/// Mistakes with elections and tasks are usage errors (exit 2); a
/// directory that is not a mutex is refused (exit 4); a missing task or
/// a candidate that waited long enough exits 1.
#[test]
fn election_and_task_commands_refuse_mistakes() {
    let (dir, db) = on_db();
    // Observing only reads: no database file is made for it.
    let missing = dir.path().join("none.db");
    let missing = missing.to_str().unwrap();
    fql()
        .args(["--db", missing, "mutex", "observe", "/l"])
        .assert()
        .code(2);
    assert!(!std::path::Path::new(missing).exists());
    for args in [
        &["mutex", "observe", "l"][..],
        &["mutex", "observe", "/l", "--count", "0"],
        &["mutex", "elect", "/l", "--name", ""],
        &["mutex", "elect", "/l", "--name", "a", "--compat"],
        &["mutex", "elect", "/l", "--name", "a", "--permits", "2"],
        &[
            "mutex", "task", "take", "/j", "t", "--name", "a", "--lease", "0",
        ],
        &["mutex", "task", "take", "/j", "t", "--name", ""],
        &[
            "mutex", "task", "beat", "/j", "t", "--name", "a", "--token", "zz",
        ],
        &[
            "mutex", "task", "finish", "/j", "t", "--name", "a", "--token", "00", "--state", "done",
        ],
        &[
            "mutex",
            "task",
            "finish",
            "/j",
            "t",
            "--name",
            "a",
            "--state",
            "cancelled",
        ],
    ] {
        db().args(args).assert().code(2);
    }
    let err = stderr(
        db().args(["mutex", "task", "take", "/j", "t", "--name", "a"]),
        1,
    );
    assert!(err.contains("there is no task t"), "{err}");
    db().args(["-w", "-q", r#"/users("email","bob")="bob@example.com""#])
        .assert()
        .success();
    for args in [
        &["mutex", "observe", "/users", "--for", "1"][..],
        &["mutex", "elect", "/users", "--name", "a", "--wait", "1"],
    ] {
        let err = stderr(db().args(args), 4);
        assert!(err.contains("/users is not a mutex"), "{args:?}: {err}");
    }
}
