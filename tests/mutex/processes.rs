//! Real processes contending through the `fql` binary on one database file.

mod keys;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use assert_cmd::cargo::cargo_bin;

use super::reach::{reach, reach_shell};
use crate::support::eventually::{PATIENCE, eventually, eventually_some, within};

mod elect;
mod kinds;
mod observe;
mod run;
mod takeover;
mod task;

const TIMING: [&str; 4] = ["--heartbeat", "0.1", "--stale", "0.4"];

/// The contention test's timing: a holder stops its command once no
/// heartbeat has committed for `L - h`, which a loaded machine's slow
/// commits must not reach in every other round.
const CHAOS: [&str; 4] = ["--heartbeat", "0.1", "--stale", "1"];

fn fql(db: &Path) -> Command {
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.args(reach(db));
    default_signals(&mut cmd);
    cmd
}

/// Starts `cmd` with SIGINT, SIGQUIT and SIGHUP at their defaults, as a
/// shell starts a foreground job: a test run from a background job of a
/// shell without job control inherits them ignored, and fql keeps a
/// signal ignored that it was started with.
fn default_signals(cmd: &mut Command) {
    use nix::sys::signal::{SigHandler, Signal, signal};
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only `signal`, which is
    // async-signal-safe, runs.
    unsafe {
        cmd.pre_exec(|| {
            for s in [Signal::SIGINT, Signal::SIGQUIT, Signal::SIGHUP] {
                signal(s, SigHandler::SigDfl).map_err(std::io::Error::from)?;
            }
            Ok(())
        });
    }
}

/// The critical section: a transaction that commits only while this
/// holder's token is the current one and it still owns the mutex, then
/// appends to the audit log in commit order.
fn critical_section(db: &Path) -> String {
    let fql = cargo_bin("fql");
    format!(
        "for i in 1 2; do {fql} {db} -w -p token=0x$FQL_MUTEX_TOKEN -p name=$FQL_MUTEX_NAME \
         -q '[exists] /locks/job(\"fence\")=:token\n[exists] /locks/job(\"owner\",:name)\n/audit(#:0000)=(:name,:token)' \
         2>/dev/null; sleep 0.03; done",
        fql = fql.display(),
        db = reach_shell(db)
    )
}

/// A small deterministic generator, so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn signal(child: &Child, sig: &str) {
    use nix::sys::signal::Signal;
    let sig = match sig {
        "-KILL" => Signal::SIGKILL,
        "-STOP" => Signal::SIGSTOP,
        "-CONT" => Signal::SIGCONT,
        "-TERM" => Signal::SIGTERM,
        "-INT" => Signal::SIGINT,
        "-HUP" => Signal::SIGHUP,
        other => panic!("no signal {other}"),
    };
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig);
}

/// What `fql mutex show DIR` prints.
fn show(db: &Path, dir: &str) -> String {
    let out = fql(db).args(["mutex", "show", dir]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Waits until `fql mutex show DIR` prints `want`; what it printed.
fn until_shown(db: &Path, dir: &str, want: &str) -> String {
    let mut last = String::new();
    within(PATIENCE, || {
        last = show(db, dir);
        last.contains(want).then(|| last.clone())
    })
    .unwrap_or_else(|| panic!("never showed {want:?}: {last}"))
}

/// Waits for `child` to end, killing it and failing if it does not.
fn ends(child: &mut Child, what: &str) -> std::process::ExitStatus {
    within(PATIENCE, || child.try_wait().unwrap()).unwrap_or_else(|| {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{what} did not end within {PATIENCE:?}")
    })
}

/// Waits until `file` holds a whole line (a shell writes it piecemeal);
/// the line.
fn line_in(file: &Path) -> String {
    eventually_some(&format!("a line in {}", file.display()), || {
        std::fs::read_to_string(file)
            .ok()
            .filter(|s| s.ends_with('\n'))
            .map(|s| s.trim().to_string())
    })
}

/// `FQL_MUTEX_SOAK=CLIENTSxROUNDS` (e.g. `16x50`) runs the contention
/// test bigger than the default, which keeps `cargo test` quick.
fn soak_size() -> (u64, u64) {
    std::env::var("FQL_MUTEX_SOAK")
        .ok()
        .and_then(|v| {
            let (k, r) = v.split_once('x')?;
            Some((k.parse().ok()?, r.parse().ok()?))
        })
        .unwrap_or((6, 6))
}

#[test]
fn no_two_holders_with_kills_pauses_and_a_reaper() {
    let (clients, rounds) = soak_size();
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = dir.path().join("fql.db");
    fql(&db).args(["-w", "-q", "/audit(0)=0"]).status().unwrap();
    let mut reaper = fql(&db)
        .args(["mutex", "reap", "/locks/job"])
        .args(CHAOS)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let section = critical_section(&db);
    let workers: Vec<_> = (0..clients)
        .map(|k| {
            let db = db.clone();
            let section = section.clone();
            std::thread::spawn(move || {
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (k + 1));
                for round in 0..rounds {
                    if rng.next(10) == 0 {
                        // A waiter that gives up: it must leave no trace.
                        let _ = fql(&db)
                            .args(["mutex", "acquire", "/locks/job", "--wait", "0.05", "--name"])
                            .arg(format!("gave-up-{k}-{round}"))
                            .args(CHAOS)
                            .stdout(Stdio::null())
                            .stderr(Stdio::null())
                            .status();
                    }
                    let mut child = fql(&db)
                        .args(["mutex", "run", "/locks/job", "--name"])
                        .arg(format!("w{k}-{round}"))
                        .args(CHAOS)
                        .args(["--grace", "0.2", "--", "sh", "-c", &section])
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn()
                        .unwrap();
                    std::thread::sleep(Duration::from_millis(rng.next(200)));
                    match rng.next(10) {
                        0 => signal(&child, "-KILL"),
                        1 => {
                            // Paused for twice the staleness: reaped meanwhile.
                            signal(&child, "-STOP");
                            std::thread::sleep(Duration::from_millis(2000));
                            signal(&child, "-CONT");
                        }
                        _ => {}
                    }
                    let _ = child.wait();
                }
            })
        })
        .collect();
    // Waiters behind a killed owner rely on the reaper: should it end
    // early, they would wait for ever, so the test stops them and fails.
    eventually("every worker's last round", || {
        if let Some(status) = reaper.try_wait().unwrap() {
            let _ = Command::new("pkill")
                .arg("-KILL")
                .arg("-f")
                .arg(db.as_os_str())
                .status();
            panic!("the reaper ended early ({status}); its error is above");
        }
        workers.iter().all(|w| w.is_finished())
    });
    for w in workers {
        w.join().unwrap();
    }
    signal(&reaper, "-TERM");
    let _ = reaper.wait();

    let out = fql(&db)
        .args(["-q", "/audit(<vstamp>)=(<str>,<bytes>)"])
        .output()
        .unwrap();
    let audit = String::from_utf8(out.stdout).unwrap();
    let entries: Vec<(String, String)> = audit
        .lines()
        .map(|l| {
            let value = l.split_once(")=(").unwrap().1.trim_end_matches(')');
            let (name, token) = value.split_once(',').unwrap();
            (name.to_string(), token.to_string())
        })
        .collect();
    assert!(
        entries.len() as u64 >= clients * rounds / 2,
        "most rounds wrote: {audit}"
    );
    // Waiters that gave up are gone from the queue.
    let show = fql(&db)
        .args(["mutex", "show", "/locks/job"])
        .output()
        .unwrap();
    let show = String::from_utf8(show.stdout).unwrap();
    assert!(!show.contains("gave-up"), "{show}");
    // Tokens never go back, and each belongs to one holder.
    let mut owners = std::collections::HashMap::new();
    for pair in entries.windows(2) {
        assert!(pair[0].1 <= pair[1].1, "token went back: {pair:?}");
    }
    for (name, token) in &entries {
        let first = owners.entry(token.clone()).or_insert_with(|| name.clone());
        assert_eq!(first, name, "token {token} held by two clients");
    }
}

#[test]
fn waiters_are_granted_in_queue_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let status = fql(&db)
        // "first" never beats: a staleness far above the test's length
        // keeps the head waiter from taking over from it.
        .args(["mutex", "try-acquire", "/locks/fifo", "--name", "first"])
        .args(["--stale", "600"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let mut waiters = Vec::new();
    for n in 0..5 {
        let child = fql(&db)
            .args([
                "mutex",
                "acquire",
                "/locks/fifo",
                "--stale",
                "600",
                "--name",
            ])
            .arg(format!("w{n}"))
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        // Each queues before the next starts.
        until_shown(&db, "/locks/fifo", &format!("{}. w{n} ", n + 1));
        waiters.push(child);
    }
    let mut holder = "first".to_string();
    for (n, mut waiter) in waiters.into_iter().enumerate() {
        let release = fql(&db)
            .args(["mutex", "release", "/locks/fifo", "--name", &holder])
            .status()
            .unwrap();
        assert!(release.success(), "{holder} held it");
        // The oldest waiter, and only it, returns holding the mutex.
        assert!(waiter.wait().unwrap().success());
        holder = format!("w{n}");
        let show = fql(&db)
            .args(["mutex", "show", "/locks/fifo"])
            .output()
            .unwrap();
        let show = String::from_utf8(show.stdout).unwrap();
        assert!(show.starts_with(&format!("owner: {holder} ")), "{show}");
    }
}

#[test]
fn run_passes_exit_codes_and_stops_the_command_when_the_lock_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    for code in [0, 3, 255] {
        let status = fql(&db)
            .args([
                "mutex",
                "run",
                "/locks/run",
                "--name",
                "c",
                "--",
                "sh",
                "-c",
            ])
            .arg(format!("exit {code}"))
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(code));
    }
    // Killed by a signal: 128 + n.
    let status = fql(&db)
        .args([
            "mutex",
            "run",
            "/locks/run",
            "--name",
            "c",
            "--",
            "sh",
            "-c",
            "kill -TERM $$",
        ])
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(128 + 15));

    // Signals to fql go to the command, whose status fql then returns.
    let started = dir.path().join("started");
    let mut child = fql(&db)
        .args([
            "mutex",
            "run",
            "/locks/run",
            "--name",
            "s",
            "--",
            "sh",
            "-c",
        ])
        .arg(format!(
            "trap 'exit 7' TERM; touch {}; while :; do sleep 0.05; done",
            started.display()
        ))
        .spawn()
        .unwrap();
    eventually("the command's start", || started.exists());
    signal(&child, "-TERM");
    assert_eq!(child.wait().unwrap().code(), Some(7));

    // A command holding the lock, with a grandchild that ignores SIGTERM;
    // another client takes the lock away (by reaping a stopped holder).
    let pidfile = dir.path().join("grandchild.pid");
    let script = format!(
        "sh -c 'trap \"\" TERM; echo $$ > {}; sleep 60' & wait",
        pidfile.display()
    );
    let mut holder = fql(&db)
        .args([
            "mutex",
            "run",
            "/locks/run",
            "--name",
            "h",
            "--grace",
            "0.3",
        ])
        .args(TIMING)
        .args(["--", "sh", "-c", &script])
        .spawn()
        .unwrap();
    let grandchild = line_in(&pidfile);
    // Pause the holder past the staleness; a reaper hands the lock on.
    signal(&holder, "-STOP");
    let mut reaper = fql(&db)
        .args(["mutex", "reap", "/locks/run"])
        .args(TIMING)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    until_shown(&db, "/locks/run", "owner: none (free)");
    signal(&holder, "-CONT");
    let status = holder.wait().unwrap();
    signal(&reaper, "-TERM");
    let _ = reaper.wait();
    // The command was stopped, and the lock's loss has its own status,
    // whatever the command's was (here 143, by SIGTERM).
    assert_eq!(status.code(), Some(75), "{status:?}");
    // No descendant survives, not even the one that ignored SIGTERM.
    // (A killed process nobody reaped is a zombie: dead, but listed.)
    let pid = grandchild.parse().expect("a pid");
    assert!(!alive(pid), "grandchild {grandchild} survived");
}

/// The database file deleted under a holder: a new holder on the new file
/// gets a larger fencing token (versions never start again), and the old
/// holder's heartbeat fails, so it stops its command and exits non-zero,
/// even when the command takes SIGTERM as a cue to end well.
#[test]
fn a_holder_whose_file_is_deleted_stops_its_command_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = dir.path().join("fql.db");
    let started = dir.path().join("token");
    let mut holder = fql(&db)
        .args(["mutex", "run", "/locks/job", "--name", "a"])
        .args(TIMING)
        .args(["--grace", "2", "--", "sh", "-c"])
        .arg(format!(
            "trap 'exit 0' TERM; echo $FQL_MUTEX_TOKEN > {}; for i in $(seq 100); do sleep 0.05; done",
            started.display()
        ))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = line_in(&started);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let taken = fql(&db)
        .args(["mutex", "try-acquire", "/locks/job", "--name", "b"])
        .output()
        .unwrap();
    assert!(taken.status.success(), "{taken:?}");
    let second = String::from_utf8(taken.stdout).unwrap().trim().to_string();
    assert_eq!(first.len(), second.len());
    assert!(second > first, "token {second} after {first}");

    let status = holder.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut holder.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success(), "{status:?}: {stderr}");
    assert!(stderr.contains("deleted or replaced"), "{stderr}");
}

/// Whether process `pid` still runs (a zombie is dead, only not yet
/// collected by whoever adopted it).
fn alive(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .trim_start()
        .chars()
        .next();
    !matches!(state, None | Some('Z' | 'X'))
}
