//! Read-write locks and semaphores, through real `fql` processes on one
//! database file.

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin;

use super::reach_shell;
use super::{Rng, TIMING, ends, fql, show, signal, soak_size, until_shown};
use crate::support::eventually::eventually;

/// A timing for holders that do not beat (`try-acquire` from the test):
/// long enough that no waiter takes the lock from them meanwhile.
const SLOW: [&str; 4] = ["--heartbeat", "1", "--stale", "60"];

/// Runs `fql mutex ARGS` and returns its output.
fn mutex(db: &Path, args: &[&str]) -> Output {
    fql(db).arg("mutex").args(args).output().unwrap()
}

/// Starts `fql mutex acquire DIR --name NAME FLAGS`, in the background.
fn acquirer(db: &Path, dir: &str, name: &str, flags: &[&str], timing: [&str; 4]) -> Child {
    fql(db)
        .args(["mutex", "acquire", dir, "--name", name])
        .args(flags)
        .args(timing)
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

fn try_acquire(db: &Path, dir: &str, name: &str, flag: &[&str]) -> bool {
    let mut args = vec!["try-acquire", dir, "--name", name];
    args.extend(flag);
    args.extend(SLOW);
    mutex(db, &args).status.success()
}

fn release(db: &Path, dir: &str, name: &str, flag: &str) {
    let mut args = vec!["release", dir, "--name", name, flag];
    args.extend(SLOW);
    let out = mutex(db, &args);
    assert!(out.status.success(), "{name} released: {out:?}");
}

/// Whether `child` is still running after a moment.
fn still_waiting(child: &mut Child) -> bool {
    std::thread::sleep(Duration::from_millis(300));
    child.try_wait().unwrap().is_none()
}

fn wait_ok(mut child: Child) {
    assert!(ends(&mut child, "a waiter granted").success());
}

#[test]
fn readers_share_a_writer_excludes_and_a_reader_behind_a_waiting_writer_waits() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let lock = "/locks/rw";
    assert!(try_acquire(&db, lock, "r1", &["--read"]));
    assert!(try_acquire(&db, lock, "r2", &["--read"]), "readers share");
    assert!(
        !try_acquire(&db, lock, "w0", &["--write"]),
        "a writer waits"
    );
    let mut writer = acquirer(&db, lock, "w1", &["--write"], SLOW);
    until_shown(&db, lock, "1. w1 write");
    // A reader behind the waiting writer waits, though readers hold.
    assert!(!try_acquire(&db, lock, "r0", &["--read"]));
    let mut reader = acquirer(&db, lock, "r3", &["--read"], SLOW);
    until_shown(&db, lock, "2. r3 read");
    release(&db, lock, "r1", "--read");
    assert!(still_waiting(&mut writer), "one reader still holds");
    release(&db, lock, "r2", "--read");
    wait_ok(writer);
    assert!(still_waiting(&mut reader), "the writer holds alone");
    let shown = show(&db, lock);
    assert!(shown.contains("holders: 1\n  w1 write"), "{shown}");
    release(&db, lock, "w1", "--write");
    wait_ok(reader);
    let shown = show(&db, lock);
    assert!(shown.contains("  r3 read"), "{shown}");
    assert!(shown.contains("queue: 0 waiting"), "{shown}");
}

#[test]
fn a_semaphore_grants_its_permits_and_no_more_and_refuses_another_count() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let lock = "/locks/sem";
    let two = ["--permits", "2"];
    assert!(try_acquire(&db, lock, "a", &two));
    assert!(try_acquire(&db, lock, "b", &two));
    assert!(!try_acquire(&db, lock, "c", &two), "two permits only");
    let mut waiter = acquirer(&db, lock, "c", &two, SLOW);
    until_shown(&db, lock, "1. c permit");
    assert!(still_waiting(&mut waiter));
    // Another count, another kind, or another timing is refused, and
    // changes nothing.
    for (flags, says) in [
        (vec!["--permits", "3"], "a semaphore of 3 permits"),
        (vec!["--write"], "a read-write lock"),
    ] {
        let mut args = vec!["try-acquire", lock, "--name", "d"];
        args.extend(&flags);
        args.extend(SLOW);
        let out = mutex(&db, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("is a semaphore of 2 permits") && stderr.contains(says),
            "{stderr}"
        );
    }
    let out = mutex(&db, &["try-acquire", lock, "--name", "d", "--permits", "2"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("(heartbeat 1000 ms, stale 5000 ms)"),
        "{stderr}"
    );
    release(&db, lock, "a", "--permits=2");
    wait_ok(waiter);
    let shown = show(&db, lock);
    assert!(shown.starts_with("kind: semaphore of 2 permits"), "{shown}");
    assert!(shown.contains("holders: 2\n"), "{shown}");
    assert!(!shown.contains(" d "), "{shown}");
}

/// A holder killed with SIGKILL holds the lock until the head waiter,
/// which sees its heartbeat stand still for the staleness on its own
/// clock, takes over; no reaper runs.
#[test]
fn a_killed_holder_is_taken_over_by_the_head_waiter() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    for (lock, holds, waits) in [
        ("/locks/rw", "--write", "--read"),
        ("/locks/rw2", "--read", "--write"),
        ("/locks/sem", "--permits=1", "--permits=1"),
    ] {
        let started = dir.path().join(format!("{}.started", &lock[7..]));
        let mut holder = fql(&db)
            .args(["mutex", "run", lock, "--name", "dead", holds])
            .args(TIMING)
            .args(["--", "sh", "-c"])
            .arg(format!("touch {}; sleep 3", started.display()))
            .spawn()
            .unwrap();
        eventually("the command's start", || started.exists());
        let waiter = acquirer(&db, lock, "next", &[waits], TIMING);
        until_shown(&db, lock, "1. next");
        signal(&holder, "-KILL");
        let _ = holder.wait();
        let killed = Instant::now();
        wait_ok(waiter);
        // L + h is 0.5 s; a loaded machine gets ten times that.
        assert!(killed.elapsed() < Duration::from_secs(10), "{lock}");
        let shown = show(&db, lock);
        assert!(shown.contains("holders: 1\n  next "), "{lock}: {shown}");
    }
}

/// The fenced critical section of a read-write lock's client: each write
/// commits only while this client holds the lock with this token (and,
/// for a writer, holds it for writing), and appends to the audit in
/// commit order.
fn rw_section(db: &Path, writer: bool) -> String {
    let guard = if writer {
        "[exists] /locks/rw(\"writer\",:name)\n"
    } else {
        ""
    };
    let kind = if writer { "w" } else { "r" };
    section(
        db,
        &format!(
            "[exists] /locks/rw(\"holder\",:name)=:token\n{guard}/audit(#:0000)=(:name,:token,\"{kind}\")"
        ),
    )
}

/// The same for a semaphore's client, which notes its permit's number
/// and how many clients hold the semaphore as its write commits.
fn sem_section(db: &Path) -> String {
    section(
        db,
        "[exists] /locks/sem(\"holder\",:name)=:token\n/locks/sem(\"holder\",<n:count>)\n/locks/sem(\"permit\",<slot:int>)=:name[raw]\n/audit(#:0000)=(:name,:token,:slot)\n/holders(#:0000,:name)=:n",
    )
}

fn section(db: &Path, query: &str) -> String {
    format!(
        "for i in 1 2; do {fql} {db} -w -p token=0x$FQL_MUTEX_TOKEN -p name=$FQL_MUTEX_NAME \
         -q '{query}' 2>/dev/null; sleep 0.03; done",
        fql = cargo_bin("fql").display(),
        db = reach_shell(db)
    )
}

/// Clients that take `lock` with the flags `pick` chooses for each
/// round, run `section(flags)`, and are killed, paused past the
/// staleness, or give up waiting at random. No reaper runs.
fn chaos(
    db: &Path,
    lock: &'static str,
    pick: fn(&mut Rng) -> &'static str,
    section: &dyn Fn(&str) -> String,
) {
    let (clients, rounds) = soak_size();
    fql(db).args(["-w", "-q", "/audit(0)=0"]).status().unwrap();
    let workers: Vec<_> = (0..clients)
        .map(|k| {
            let db: PathBuf = db.to_path_buf();
            let sections: Vec<(String, String)> = ["--read", "--write", "--permits=3"]
                .iter()
                .map(|f| (f.to_string(), section(f)))
                .collect();
            std::thread::spawn(move || {
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (k + 1));
                for round in 0..rounds {
                    let flag = pick(&mut rng);
                    let section = &sections.iter().find(|(f, _)| f == flag).unwrap().1;
                    if rng.next(10) == 0 {
                        let _ = fql(&db)
                            .args(["mutex", "acquire", lock, flag, "--wait", "0.05", "--name"])
                            .arg(format!("gave-up-{k}-{round}"))
                            .args(TIMING)
                            .stdout(Stdio::null())
                            .stderr(Stdio::null())
                            .status();
                    }
                    let mut child = fql(&db)
                        .args(["mutex", "run", lock, flag, "--name"])
                        .arg(format!("c{k}-{round}"))
                        .args(TIMING)
                        .args(["--grace", "0.2", "--", "sh", "-c", section])
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn()
                        .unwrap();
                    std::thread::sleep(Duration::from_millis(rng.next(200)));
                    match rng.next(10) {
                        0 => signal(&child, "-KILL"),
                        1 => {
                            signal(&child, "-STOP");
                            std::thread::sleep(Duration::from_millis(800));
                            signal(&child, "-CONT");
                        }
                        _ => {}
                    }
                    let _ = child.wait();
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    // Waiters that gave up left the queue (one granted before it gave up
    // may hold the lock, as a holder that died would).
    let shown = show(db, lock);
    let queue = shown.split_once("queue:").unwrap().1;
    assert!(!queue.contains("gave-up"), "{shown}");
}

/// The audit, in commit order: (name, token, what).
fn audit(db: &Path) -> Vec<(String, String, String)> {
    let out = fql(db)
        .args(["-q", "/audit(<vstamp>)=(<str>,<bytes>,<>)"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let value = l.split_once(")=(").unwrap().1.trim_end_matches(')');
            let mut parts = value.splitn(3, ',');
            let mut next = || parts.next().unwrap().to_string();
            (next(), next(), next())
        })
        .collect()
}

#[test]
fn never_a_writer_beside_anyone_with_kills_pauses_and_no_reaper() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let pick: fn(&mut Rng) -> &'static str = |rng| {
        if rng.next(3) == 0 {
            "--write"
        } else {
            "--read"
        }
    };
    chaos(&db, "/locks/rw", pick, &|flag| {
        rw_section(&db, flag == "--write")
    });
    let entries = audit(&db);
    let (clients, rounds) = soak_size();
    assert!(entries.len() as u64 >= clients * rounds / 2, "{entries:?}");
    assert!(entries.iter().any(|e| e.2 == "\"w\""), "{entries:?}");
    // Nothing comes between a writer's writes; no token is below the
    // last writer's before it (fenced writes never go back).
    let mut last_writer = String::new();
    for (n, (name, token, what)) in entries.iter().enumerate() {
        assert!(
            *token >= last_writer,
            "{name} wrote with {token} after a writer's {last_writer}"
        );
        if what == "\"w\"" {
            last_writer = token.clone();
            let last = entries.iter().rposition(|e| e.1 == *token).unwrap();
            assert!(
                entries[n..=last].iter().all(|e| e.1 == *token),
                "another client wrote while writer {name} held: {:?}",
                &entries[n..=last]
            );
        }
    }
}

#[test]
fn never_more_holders_than_permits_with_kills_pauses_and_no_reaper() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    chaos(&db, "/locks/sem", |_| "--permits=3", &|_| sem_section(&db));
    let entries = audit(&db);
    let (clients, rounds) = soak_size();
    assert!(entries.len() as u64 >= clients * rounds / 2, "{entries:?}");
    // Never more holders than permits, at any write's commit; and each
    // permit is a mutex of its own: on each, tokens never go back and one
    // holder's writes are never interleaved with another's.
    let out = fql(&db)
        .args(["-q", "/holders(<vstamp>,<str>)=<int>"])
        .output()
        .unwrap();
    let counts: Vec<u32> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.rsplit_once('=').unwrap().1.parse().unwrap())
        .collect();
    assert_eq!(counts.len(), entries.len());
    assert!(counts.iter().all(|n| (1..=3).contains(n)), "{counts:?}");
    assert!(counts.iter().any(|n| *n > 1), "never shared: {counts:?}");
    let mut slots = std::collections::BTreeMap::<String, Vec<String>>::new();
    for (_, token, slot) in &entries {
        slots.entry(slot.clone()).or_default().push(token.clone());
    }
    assert!(
        slots.keys().all(|s| ["0", "1", "2"].contains(&s.as_str())),
        "{slots:?}"
    );
    for (slot, tokens) in &slots {
        for (n, pair) in tokens.windows(2).enumerate() {
            assert!(
                pair[0] <= pair[1],
                "permit {slot}: token went back: {pair:?}"
            );
            let last = tokens.iter().rposition(|t| *t == pair[0]).unwrap();
            assert!(
                tokens[n..=last].iter().all(|t| *t == pair[0]),
                "permit {slot} had two holders at once: {tokens:?}"
            );
        }
    }
}

/// A waiter killed in the queue is dropped by the waiter behind it,
/// which then takes the lock when the holder releases it; no reaper runs.
/// The live holder beats every 0.5 s and stops its command if none
/// commits for `L - h` = 1.5 s, a margin a loaded machine keeps; 0.3 s
/// once was not, in the FoundationDB client run beside other tests.
#[test]
fn a_killed_waiter_is_dropped_by_the_one_behind_it() {
    const STEADY: [&str; 4] = ["--heartbeat", "0.5", "--stale", "2"];
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let lock = "/locks/dw";
    let holder = fql(&db)
        .args(["mutex", "run", lock, "--name", "h", "--write"])
        .args(STEADY)
        .args(["--", "sleep", "2"])
        .spawn()
        .unwrap();
    until_shown(&db, lock, "  h write");
    let mut dead = acquirer(&db, lock, "a", &["--read"], STEADY);
    until_shown(&db, lock, "1. a read");
    let next = acquirer(&db, lock, "b", &["--read"], STEADY);
    until_shown(&db, lock, "2. b read");
    signal(&dead, "-KILL");
    let _ = dead.wait();
    wait_ok(holder);
    wait_ok(next);
    let shown = show(&db, lock);
    assert!(shown.contains("holders: 1\n  b read"), "{shown}");
    assert!(shown.contains("queue: 0 waiting"), "{shown}");
}

/// Waiters killed in a row are dropped together by the first live waiter
/// behind them once they have been dead for `L`, not one `L` after
/// another (as when each was timed only once the waiter behind reached
/// it): once the nearest (the last queued) is gone, the farthest follows
/// well within `L`.
#[test]
fn killed_waiters_in_a_row_are_dropped_together() {
    const STALE: Duration = Duration::from_secs(3);
    let timing = ["--heartbeat", "0.5", "--stale", "3"];
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let lock = "/locks/row";
    let mut holder = fql(&db)
        .args(["mutex", "run", lock, "--name", "h", "--write"])
        .args(timing)
        .args(["--", "sleep", "60"])
        .spawn()
        .unwrap();
    until_shown(&db, lock, "  h write");
    let mut dead = Vec::new();
    for (n, name) in ["d1", "d2", "d3"].iter().enumerate() {
        dead.push(acquirer(&db, lock, name, &["--read"], timing));
        until_shown(&db, lock, &format!("{}. {name} read", n + 1));
    }
    let live = acquirer(&db, lock, "b", &["--read"], timing);
    until_shown(&db, lock, "4. b read");
    for d in &mut dead {
        signal(d, "-KILL");
        let _ = d.wait();
    }
    let gone = |name: &str| {
        eventually(&format!("{name} gone"), || {
            !show(&db, lock).contains(&format!(". {name} read"))
        });
        Instant::now()
    };
    // The nearest goes first, the farthest last.
    let first = gone("d3");
    let last = gone("d1");
    assert!(
        last - first < STALE,
        "d1 went {:?} after d3: the dead were judged one after another",
        last - first
    );
    assert!(show(&db, lock).contains("1. b read"));
    signal(&holder, "-TERM");
    let _ = holder.wait();
    wait_ok(live);
}

/// A directory of a user's data, or of a mutex, is no read-write lock or
/// semaphore: refused, and left as it was.
#[test]
fn a_directory_that_is_not_such_a_lock_is_refused_and_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let wrote = fql(&db)
        .args(["-w", "-q", "/users(\"email\",\"bob\")=\"bob@example.com\""])
        .status()
        .unwrap();
    assert!(wrote.success());
    assert!(
        mutex(&db, &["try-acquire", "/locks/m", "--name", "m"])
            .status
            .success()
    );
    for (path, flag) in [("/users", "--read"), ("/locks/m", "--permits=2")] {
        let before = fql(&db)
            .args(["-q", &format!("{path}(...)")])
            .output()
            .unwrap();
        let out = mutex(&db, &["acquire", path, "--name", "x", flag, "--wait", "1"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{stderr}");
        assert!(
            stderr.contains(&format!("{path} is not a read-write lock or a semaphore")),
            "{stderr}"
        );
        let after = fql(&db)
            .args(["-q", &format!("{path}(...)")])
            .output()
            .unwrap();
        assert_eq!(before.stdout, after.stdout, "{path} changed");
    }
}

/// A waiter of a read-write lock or a semaphore ended by SIGINT, SIGTERM
/// or SIGHUP leaves the queue before it ends, as a mutex's does: the
/// next release grants the live waiter behind it, not a dead client.
#[test]
fn a_waiter_ended_by_a_signal_leaves_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    for (lock, flag, mode) in [
        ("/locks/sig-rw", "--write", "write"),
        ("/locks/sig-sem", "--permits=1", "permit"),
    ] {
        assert!(try_acquire(&db, lock, "holder", &[flag]));
        let mut gone = Vec::new();
        for (n, sig) in ["-INT", "-TERM", "-HUP"].into_iter().enumerate() {
            let name = format!("s{n}");
            let child = acquirer(&db, lock, &name, &[flag], SLOW);
            until_shown(&db, lock, &format!("{}. {name} {mode}", n + 1));
            gone.push((child, sig));
        }
        let live = acquirer(&db, lock, "live", &[flag], SLOW);
        until_shown(&db, lock, &format!("4. live {mode}"));
        for (child, sig) in &mut gone {
            signal(child, sig);
            let status = child.wait().unwrap();
            assert!(!status.success(), "{sig}: {status:?}");
        }
        until_shown(&db, lock, &format!("1. live {mode}"));
        let shown = show(&db, lock);
        assert!(!shown.contains(". s"), "{shown}");
        release(&db, lock, "holder", flag);
        wait_ok(live);
    }
}
