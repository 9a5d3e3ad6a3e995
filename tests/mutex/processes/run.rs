//! `fql mutex acquire` and `run` as processes: signals to a waiter, a
//! `kill -9` of the holder, a command that reads the terminal, a store
//! that stalls under a holder.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use assert_cmd::cargo::cargo_bin;
use nix::sys::signal::Signal;
use nix::unistd::Pid;

use super::super::reach::reach_shell;
use super::{fql, line_in, show};
use crate::support::eventually::{eventually, within};

/// Timing for every client here: short, with room for a loaded machine.
const TIMING: [&str; 4] = ["--heartbeat", "0.2", "--stale", "2"];

fn send(child: &Child, signal: Signal) {
    let _ = nix::sys::signal::kill(Pid::from_raw(child.id() as i32), signal);
}

/// A pid written to `file` by a shell, once it is whole.
fn pid_in(file: &Path) -> i32 {
    line_in(file).parse().unwrap()
}

/// A holder that beats until `release` exists, then hands the mutex on.
fn holder(db: &Path, dir: &str, release: &Path) -> Child {
    let child = fql(db)
        .args(["mutex", "run", dir, "--name", "holder"])
        .args(TIMING)
        .args(["--", "sh", "-c"])
        .arg(format!(
            "until [ -e '{}' ]; do sleep 0.05; done",
            release.display()
        ))
        .spawn()
        .unwrap();
    eventually("the holder's grant", || {
        show(db, dir).starts_with("owner: holder ")
    });
    child
}

/// SIGINT, SIGTERM or SIGHUP to a waiting `acquire` or `run`: it leaves
/// the queue before it ends, and ends by that signal (a shell shows
/// 128 + N). Left in the queue, a dead waiter would be granted the mutex
/// and hold it. The live waiter behind them is the next to be granted.
#[test]
fn a_waiter_ended_by_a_signal_leaves_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let release = dir.path().join("release");
    let mut holder = holder(&db, "/locks/sig", &release);
    let ran = dir.path().join("ran");
    let mut waiters = Vec::new();
    let signals = [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP];
    for (signal, op) in signals.iter().flat_map(|s| [(*s, "acquire"), (*s, "run")]) {
        let name = format!("{op}-{}", signal.as_str().to_lowercase());
        let mut cmd = fql(&db);
        cmd.args(["mutex", op, "/locks/sig", "--name", &name])
            .args(TIMING)
            .stdout(Stdio::null());
        if op == "run" {
            cmd.arg("--").arg("touch").arg(&ran);
        }
        let mut child = cmd.spawn().unwrap();
        eventually(&format!("{name} queued"), || {
            let exited = child.try_wait().unwrap();
            assert!(
                exited.is_none(),
                "{name} ended before it queued: {exited:?}"
            );
            show(&db, "/locks/sig").contains(&format!(". {name} "))
        });
        waiters.push((child, signal, name));
    }
    let live = fql(&db)
        .args(["mutex", "acquire", "/locks/sig", "--name", "live"])
        .args(TIMING)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    eventually("live queued", || {
        show(&db, "/locks/sig").contains(". live ")
    });
    for (child, signal, _) in &waiters {
        send(child, *signal);
    }
    for (mut child, signal, name) in waiters {
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(signal as i32), "{name}: {status:?}");
    }
    let state = show(&db, "/locks/sig");
    assert!(state.contains("queue: 1 waiting\n  1. live "), "{state}");

    std::fs::write(&release, "").unwrap();
    assert!(holder.wait().unwrap().success());
    let out = live.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let state = show(&db, "/locks/sig");
    assert!(state.starts_with("owner: live "), "{state}");
    assert!(!ran.exists(), "a waiter's command ran");
}

/// `kill -9` of `fql mutex run`: neither its command nor what the command
/// started in its group outlives it. `FQL_MUTEX_KILLS=N` kills N holders
/// (3 by default).
#[test]
fn a_killed_run_leaves_no_process_of_its_command() {
    let rounds: usize = std::env::var("FQL_MUTEX_KILLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    for round in 0..rounds {
        let (command, started) = (
            dir.path().join(format!("command-{round}")),
            dir.path().join(format!("started-{round}")),
        );
        let mut run = fql(&db)
            .args([
                "mutex",
                "run",
                &format!("/locks/kill{round}"),
                "--name",
                "k",
            ])
            .args(TIMING)
            .args(["--", "sh", "-c"])
            .arg(format!(
                "sleep 60 & echo $! > '{}'; echo $$ > '{}'; wait",
                started.display(),
                command.display()
            ))
            .spawn()
            .unwrap();
        let (command, started) = (pid_in(&command), pid_in(&started));
        send(&run, Signal::SIGKILL);
        run.wait().unwrap();
        eventually(&format!("round {round}: the end of the command"), || {
            !super::alive(command) && !super::alive(started)
        });
    }
}

/// The parent-death signal alone, with the watchdog killed together with
/// fql: the command itself still dies with fql.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_run_kills_its_command_even_without_its_watchdog() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let pid = dir.path().join("command");
    let mut run = fql(&db)
        .args(["mutex", "run", "/locks/pdeath", "--name", "k"])
        .args(TIMING)
        .args(["--", "sh", "-c"])
        .arg(format!("echo $$ > '{}'; exec sleep 60", pid.display()))
        .spawn()
        .unwrap();
    let command = pid_in(&pid);
    // fql's children: the command and the watchdog.
    let children = || -> Vec<i32> {
        std::fs::read_dir(format!("/proc/{}/task", run.id()))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
            .flat_map(|c| {
                c.split_whitespace()
                    .filter_map(|p| p.parse().ok())
                    .collect::<Vec<i32>>()
            })
            .collect()
    };
    eventually("the watchdog started", || children().len() == 2);
    for watchdog in children().into_iter().filter(|&p| p != command) {
        let _ = nix::sys::signal::kill(Pid::from_raw(watchdog), Signal::SIGKILL);
    }
    send(&run, Signal::SIGKILL);
    run.wait().unwrap();
    eventually("the end of the command", || !super::alive(command));
}

/// A command that reads the terminal reads it: its group is the
/// terminal's foreground while it runs, and fql's again after, so that
/// the shell that ran fql reads the next line. Ctrl-C then reaches the
/// command's group, and fql exits with the command's status.
#[test]
fn the_command_gets_the_terminal_and_gives_it_back() {
    use rexpect::session::spawn_command;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let fql = format!("'{}' {}", cargo_bin("fql").display(), reach_shell(&db));
    let script = format!(
        "{fql} mutex run /locks/tty --name t -- sh -c 'read x; echo got $x'; \
         read y; echo after $y; \
         {fql} mutex run /locks/tty --name t -- sh -c 'echo sleeping; exec sleep 60'; \
         echo status $?"
    );
    let mut sh = Command::new("sh");
    sh.args(["-c", &script]);
    super::default_signals(&mut sh);
    let mut p = spawn_command(sh, Some(30_000)).expect("a terminal");
    p.send_line("hello").unwrap();
    p.exp_string("got hello").unwrap();
    p.send_line("again").unwrap();
    p.exp_string("after again").unwrap();
    p.exp_string("sleeping").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("status 130").unwrap();
    p.exp_eof().unwrap();
}

/// A store that stalls under a holder (another process holds the
/// database's write lock, so no heartbeat can commit): the holder stops
/// its command once the staleness less one heartbeat has passed since its
/// last heartbeat committed, on its own clock, while the store is still
/// stalled; and exits 75, the status of a lost lock.
#[test]
fn a_stalled_store_stops_the_command_on_the_holders_clock() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let (ready, stopped) = (dir.path().join("ready"), dir.path().join("stopped"));
    let run = fql(&db)
        .args([
            "--timeout",
            "60",
            "mutex",
            "run",
            "/locks/stall",
            "--name",
            "s",
        ])
        .args(["--heartbeat", "0.2", "--stale", "1", "--grace", "1"])
        .args(["--", "sh", "-c"])
        .arg(format!(
            "trap 'touch \"{}\"; exit 0' TERM; touch '{}'; while :; do sleep 0.05; done",
            stopped.display(),
            ready.display()
        ))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    eventually("the command's start", || ready.exists());
    let lock = rusqlite::Connection::open(&db).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE; UPDATE meta SET value = value WHERE name = 'format';")
        .unwrap();
    // Heartbeats cannot commit for a minute (--timeout 60); the command
    // is stopped long before.
    assert!(
        within(Duration::from_secs(15), || stopped.exists().then_some(())).is_some(),
        "the command still ran 15 s into the stall"
    );
    lock.execute_batch("ROLLBACK").unwrap();
    let out = run.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(75), "{err}");
    assert!(err.contains("no heartbeat committed"), "{err}");
}
