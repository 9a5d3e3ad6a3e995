//! No reaper process: the head of the queue takes over a dead owner,
//! dead waiters ahead of it are dropped, and a free mutex with waiters
//! (what an operator or a crash leaves) is granted to its head, with no
//! process spinning meanwhile.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::{ends, fql, signal, until_shown};

/// A staleness well above the time a loaded machine may take to commit a
/// heartbeat, so that a live owner is never taken over here: these tests
/// are about dead ones.
const TIMING: [&str; 4] = ["--heartbeat", "0.2", "--stale", "2"];

/// CPU seconds (user + system) a live process has used, from
/// /proc/PID/stat, which counts in USER_HZ = 100 ticks per second.
fn cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    // After the name: state is field 3, utime 14 and stime 15.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

/// Asserts that a waiting process uses well under a core for a second.
fn not_spinning(child: &Child, what: &str) {
    let before = cpu(child.id());
    std::thread::sleep(Duration::from_secs(1));
    let used = cpu(child.id()) - before;
    assert!(
        used < Duration::from_millis(500),
        "{what} used {used:?} of CPU in one second while it waited"
    );
}

/// The command of a holder: writes its pid to `pidfile` and runs until
/// `pidfile` with `.stop` added exists.
fn command(pidfile: &Path) -> String {
    format!(
        "echo $$ > {p}; while [ ! -e {p}.stop ]; do sleep 0.05; done",
        p = pidfile.display()
    )
}

/// A holder beating for `fql mutex run`, running [`command`].
fn holder(db: &Path, dir: &str, name: &str, pidfile: &Path, extra: &[&str]) -> Child {
    let child = fql(db)
        .args(["mutex", "run", dir, "--name", name])
        .args(extra)
        .args(["--", "sh", "-c"])
        .arg(command(pidfile))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    until_shown(db, dir, &format!("owner: {name} "));
    child
}

/// Ends the command a killed `run` left behind.
fn end_command(pidfile: &Path) {
    if let Ok(pid) = std::fs::read_to_string(pidfile)
        && let Ok(pid) = pid.trim().parse::<i32>()
    {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

fn waiter(db: &Path, dir: &str, name: &str, extra: &[&str]) -> Child {
    fql(db)
        .args(["mutex", "acquire", dir, "--name", name])
        .args(extra)
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn the_head_waiter_takes_over_a_killed_owner_with_no_reaper() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let pidfile = dir.path().join("command.pid");
    let mut owner = holder(&db, "/locks/t", "a", &pidfile, &TIMING);
    let mut next = waiter(&db, "/locks/t", "b", &TIMING);
    until_shown(&db, "/locks/t", "1. b ");
    // While the owner beats, the waiter waits.
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        next.try_wait().unwrap().is_none(),
        "b took a live owner's mutex"
    );
    signal(&owner, "-KILL");
    let _ = owner.wait();
    end_command(&pidfile);
    assert!(ends(&mut next, "the waiter").success());
    until_shown(&db, "/locks/t", "owner: b ");
    // The takeover is counted where `show` finds it.
    let out = fql(&db)
        .args(["mutex", "show", "/locks/t", "--format", "json"])
        .output()
        .unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["stats"]["takeovers"], 1, "{shown}");
}

#[test]
fn killed_waiters_ahead_are_dropped_and_the_live_one_gets_the_mutex() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let pidfile = dir.path().join("command.pid");
    let mut owner = holder(&db, "/locks/w", "a", &pidfile, &TIMING);
    let mut dead = Vec::new();
    for n in 0..5 {
        dead.push(waiter(&db, "/locks/w", &format!("d{n}"), &TIMING));
        until_shown(&db, "/locks/w", &format!("{}. d{n} ", n + 1));
    }
    let mut live = waiter(&db, "/locks/w", "live", &TIMING);
    until_shown(&db, "/locks/w", "6. live ");
    for d in &mut dead {
        signal(d, "-KILL");
        let _ = d.wait();
    }
    // The owner dies too, and no reaper runs.
    signal(&owner, "-KILL");
    let _ = owner.wait();
    end_command(&pidfile);
    assert!(ends(&mut live, "the live waiter").success());
    let show = until_shown(&db, "/locks/w", "owner: live ");
    assert!(show.contains("queue: 0 waiting"), "{show}");
}

/// A free mutex with a queue: the owner key cleared by an operator. The
/// waiter is granted, a newcomer neither spins nor barges, and waits its
/// turn behind it.
#[test]
fn a_free_mutex_with_waiters_is_granted_to_the_head_and_nobody_spins() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let pidfile = dir.path().join("command.pid");
    // Slow timing: the owner a is silent, and must not simply be taken
    // over before the operator's clearing is what heals.
    let slow = ["--heartbeat", "0.2", "--stale", "30"];
    let taken = fql(&db)
        .args(["mutex", "try-acquire", "/locks/f", "--name", "a"])
        .args(slow)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(taken.success());
    let mut head = fql(&db)
        .args(["mutex", "run", "/locks/f", "--name", "b"])
        .args(slow)
        .args(["--", "sh", "-c"])
        .arg(command(&pidfile))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    until_shown(&db, "/locks/f", "1. b ");
    let cleared = fql(&db)
        .args(["-w", "-q", "/locks/f(\"owner\",\"a\")=clear"])
        .status()
        .unwrap();
    assert!(cleared.success());
    let newcomer = fql(&db)
        .args(["mutex", "run", "/locks/f", "--name", "c"])
        .args(slow)
        .args(["--", "true"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut newcomer = newcomer;
    until_shown(&db, "/locks/f", "owner: b ");
    until_shown(&db, "/locks/f", "1. c ");
    not_spinning(&newcomer, "the newcomer");
    not_spinning(&head, "the holder");
    // b ends its command and releases: c's turn.
    std::fs::write(format!("{}.stop", pidfile.display()), "").unwrap();
    assert!(ends(&mut head, "the holder").success());
    assert!(ends(&mut newcomer, "the newcomer").success());
}

/// The same in `--compat`, with Go's free marker `("owner","")` in place
/// of the owner and a killed waiter at the head of the queue: newcomers
/// used to spin there and ignore their wait limit.
#[test]
fn a_compat_free_mutex_with_a_dead_head_heals_and_wait_limits_hold() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let compat = ["--compat", "--heartbeat", "0.2", "--stale", "3"];
    let taken = fql(&db)
        .args(["mutex", "try-acquire", "/locks/g", "--name", "a"])
        .args(compat)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(taken.success());
    let mut dead = waiter(&db, "/locks/g", "d", &compat);
    until_shown(&db, "/locks/g", "1. d ");
    signal(&dead, "-KILL");
    let _ = dead.wait();
    // What a Go client's release to an empty queue leaves, as a queue
    // forms: the owner gone, the free marker in its place.
    let freed = fql(&db)
        .args([
            "-w",
            "-q",
            "/locks/g(\"owner\",\"a\")=clear\n/locks/g(\"owner\",\"\")=nil",
        ])
        .status()
        .unwrap();
    assert!(freed.success());
    let started = Instant::now();
    let mut newcomer = waiter(
        &db,
        "/locks/g",
        "c",
        &[&compat[..], &["--wait", "1.5"]].concat(),
    );
    // The newcomer grants the head, which is dead, and waits behind it.
    until_shown(&db, "/locks/g", "owner: d ");
    not_spinning(&newcomer, "the newcomer");
    let status = ends(&mut newcomer, "the newcomer");
    assert_eq!(status.code(), Some(1), "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let show = until_shown(&db, "/locks/g", "owner: d ");
    assert!(!show.contains(" c "), "c left no trace: {show}");
    // The next waiter heads the queue, and takes over the dead owner,
    // with no reaper.
    let mut next = waiter(&db, "/locks/g", "e", &compat);
    assert!(ends(&mut next, "the next waiter").success());
    until_shown(&db, "/locks/g", "owner: e ");
}
