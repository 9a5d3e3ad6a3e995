//! The mutex's speed and fairness, each client on its own handle of one
//! database file, as separate processes would be (a commit by another
//! handle reaches a watch through the file, not through memory):
//!
//! - clean handover, from the commit of a release to the return of the
//!   next holder's acquire, with 1, 16, 64 and 256 clients waiting: p50
//!   and p99, and the transactions the clients made per grant (target:
//!   p99 ≤ 5 ms at 64 waiting, flat in the queue length);
//! - fairness: 48 clients, each holding for 10 ms, for 10 seconds: grants
//!   per client (FIFO keeps every client within one grant of the others);
//! - with real processes of the `fql` binary, the time from `kill -9` of
//!   an owner to the next owner's return, with a reaper running and with
//!   none (the head waiter takes over; target: within L + h + 250 ms both
//!   ways); ten dead waiters ahead of a live one (target: at most h in all
//!   once they have been dead for L); and false takeovers of a live owner
//!   beside a busy loop on every core (target: none).
//!
//! `cargo bench --bench mutex` runs all three; `-- handover`, `-- fair`
//! or `-- dead` runs one, and numbers pick the handover's queue lengths
//! (`-- handover 64 256`).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex as Shared};
use std::time::{Duration, Instant};

use fql::kv::embedded::Embedded;
use fql::lock::Timing;
use fql::lock::mutex::Mutex;

#[path = "../tests/support/hooked.rs"]
mod hooked;

/// How many handovers each queue length measures.
const GRANTS: usize = 200;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// A client of the mutex at `path` on a handle of its own.
fn client(path: &std::path::Path, n: usize, count: &Arc<AtomicUsize>) -> Mutex {
    let db = hooked::counting_transactions(
        Arc::new(Embedded::open(path).expect("the file opens")),
        count.clone(),
    );
    Mutex::new(db, vec!["bench".into()], format!("c{n}"), Timing::default()).expect("a client")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    // Numbers pick the queue lengths of the handover: `-- handover 64`.
    let mut lengths: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if lengths.is_empty() {
        lengths = vec![1, 16, 64, 256];
    }
    let wanted = |part: &str| {
        let named: Vec<&String> = args
            .iter()
            .filter(|a| !a.starts_with('-') && a.parse::<usize>().is_err())
            .collect();
        named.is_empty() || named.iter().any(|a| part.starts_with(a.as_str()))
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    if wanted("handover") {
        for waiters in lengths {
            eprint!("{}", handover(dir.path(), waiters));
        }
    }
    if wanted("fair") {
        eprint!("{}", fairness(dir.path(), 48, Duration::from_millis(10)));
    }
    if wanted("dead") {
        // Each part prints as it ends: the ones with processes take a while.
        eprint!("{}", dead_owner(dir.path(), true));
        eprint!("{}", dead_owner(dir.path(), false));
        eprint!("{}", dead_waiters(dir.path(), true));
        eprint!("{}", dead_waiters(dir.path(), false));
        eprint!("{}", live_owner_beside_hogs(dir.path()));
    }
}

/// Clean handovers with `waiters` clients waiting behind the holder.
fn handover(dir: &std::path::Path, waiters: usize) -> String {
    let path = dir.join(format!("mutex-{waiters}.db"));
    let transactions = Arc::new(AtomicUsize::new(0));
    // Each event: (release committed, or acquire returned, at).
    let events: Arc<Shared<Vec<(bool, Instant)>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let grants = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..=waiters)
        .map(|n| {
            let me = client(&path, n, &transactions);
            let (events, stop, grants) = (events.clone(), stop.clone(), grants.clone());
            let failed = failed.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    // A loaded machine may make a transaction outlive its
                    // time: count it, and go on.
                    match me.acquire(Some(Duration::from_secs(2))) {
                        Ok(Some(_)) => {}
                        Ok(None) => continue,
                        Err(_) => {
                            failed.fetch_add(1, Ordering::Relaxed);
                            continue;
                        }
                    }
                    events.lock().unwrap().push((false, Instant::now()));
                    if grants.fetch_add(1, Ordering::SeqCst) + 1 >= GRANTS + waiters {
                        stop.store(true, Ordering::SeqCst);
                    }
                    while me.release().is_err() {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                    events.lock().unwrap().push((true, Instant::now()));
                }
            })
        })
        .collect();
    for c in clients {
        c.join().expect("a client ends");
    }
    let mut sorted: Vec<(bool, Instant)> = events.lock().unwrap().clone();
    sorted.sort_by_key(|(_, at)| *at);
    // Skip the start, while the queue fills.
    let mut handovers: Vec<Duration> = sorted
        .windows(2)
        .filter(|w| w[0].0 && !w[1].0)
        .map(|w| w[1].1 - w[0].1)
        .skip(waiters)
        .collect();
    handovers.sort();
    let per_grant =
        transactions.load(Ordering::Relaxed) as f64 / grants.load(Ordering::SeqCst) as f64;
    format!(
        "mutex handover, {waiters:>3} waiting: p50 {:.2?}, p99 {:.2?} over {} grants; {per_grant:.1} transactions per grant (all clients); {} calls failed\n",
        percentile(&handovers, 0.5),
        percentile(&handovers, 0.99),
        handovers.len(),
        failed.load(Ordering::Relaxed),
    )
}

/// `clients` clients that each acquire, hold for `hold` and release, over
/// and over for ten seconds: how evenly the grants fall. The grants of the
/// first two seconds, while every client comes to be queued, do not count.
fn fairness(dir: &std::path::Path, clients: usize, hold: Duration) -> String {
    const WARM: Duration = Duration::from_secs(2);
    const RUN: Duration = Duration::from_secs(10);
    let path = dir.join("fairness.db");
    let transactions = Arc::new(AtomicUsize::new(0));
    let all: Vec<Mutex> = (0..clients)
        .map(|n| client(&path, n, &transactions))
        .collect();
    let start = Instant::now() + Duration::from_millis(200);
    let threads: Vec<_> = all
        .into_iter()
        .map(|me| {
            std::thread::spawn(move || {
                std::thread::sleep(start.saturating_duration_since(Instant::now()));
                let mut grants = 0usize;
                while start.elapsed() < WARM + RUN {
                    let left = (WARM + RUN).saturating_sub(start.elapsed());
                    match me.acquire(Some(left)) {
                        Ok(Some(_)) => {}
                        Ok(None) => break,
                        Err(e) => {
                            eprintln!("an acquire failed: {e}");
                            continue;
                        }
                    }
                    // Only the grants of the ten seconds count.
                    if (WARM..WARM + RUN).contains(&start.elapsed()) {
                        grants += 1;
                    }
                    std::thread::sleep(hold);
                    while let Err(e) = me.release() {
                        eprintln!("a release failed: {e}");
                    }
                }
                grants
            })
        })
        .collect();
    let mut grants: Vec<usize> = threads
        .into_iter()
        .map(|t| t.join().expect("a client ends"))
        .collect();
    grants.sort();
    let total: usize = grants.iter().sum();
    format!(
        "fairness, {clients} clients, {hold:?} hold, {RUN:?}: grants per client min {}, max {}, mean {:.1} ({total} in all)\n",
        grants[0],
        grants[grants.len() - 1],
        total as f64 / clients as f64,
    )
}

/// Ends the `sleep 59.919` commands a killed owner left running.
fn end_orphans() {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in procs.flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if cmdline == b"sleep\x0059.919\x00"
            && let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>()
        {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// `kill -9` of an owner (`fql mutex run -- sleep`) to the return of the
/// waiter's `fql mutex acquire`, with `fql mutex reap` running or not
/// (then the waiter, at the head of the queue, takes over).
fn dead_owner(dir: &std::path::Path, with_reaper: bool) -> String {
    use std::process::{Command, Stdio};
    let fql = env!("CARGO_BIN_EXE_fql");
    let db = dir.join(format!("dead-owner-{with_reaper}.db"));
    let timing = ["--heartbeat", "0.2", "--stale", "0.6"];
    let (h, l) = (Duration::from_millis(200), Duration::from_millis(600));
    let mut reaper = with_reaper.then(|| {
        Command::new(fql)
            .arg("--db")
            .arg(&db)
            .args(["mutex", "reap", "/dead"])
            .args(timing)
            .stdout(Stdio::null())
            .spawn()
            .expect("the reaper starts")
    });
    let mut times = Vec::new();
    for round in 0..10 {
        let mut owner = Command::new(fql)
            .arg("--db")
            .arg(&db)
            .args(["mutex", "run", "/dead", "--name"])
            .arg(format!("owner{round}"))
            .args(timing)
            .args(["--", "sleep", "59.919"])
            .spawn()
            .expect("the owner starts");
        // Held once `show` names it.
        loop {
            let show = Command::new(fql)
                .arg("--db")
                .arg(&db)
                .args(["mutex", "show", "/dead"])
                .output()
                .expect("show runs");
            if String::from_utf8_lossy(&show.stdout).contains(&format!("owner: owner{round} ")) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut waiter = Command::new(fql)
            .arg("--db")
            .arg(&db)
            .args(["mutex", "acquire", "/dead", "--name"])
            .arg(format!("next{round}"))
            .args(timing)
            .stdout(Stdio::null())
            .spawn()
            .expect("the waiter starts");
        std::thread::sleep(Duration::from_millis(300));
        let killed = Instant::now();
        owner.kill().expect("kill -9");
        let _ = owner.wait();
        assert!(waiter.wait().expect("the waiter ends").success());
        times.push(killed.elapsed());
        // The sleeping command survives its killed fql; end it.
        end_orphans();
        let _ = Command::new(fql)
            .arg("--db")
            .arg(&db)
            .args(["mutex", "release", "/dead", "--name"])
            .arg(format!("next{round}"))
            .status();
    }
    if let Some(reaper) = &mut reaper {
        let _ = reaper.kill();
        let _ = reaper.wait();
    }
    times.sort();
    format!(
        "dead owner (kill -9) to next owner, {}: median {:.0?}, max {:.0?} over {} runs; L + h + 250 ms = {:.0?}\n",
        if with_reaper {
            "reaper running"
        } else {
            "no reaper"
        },
        times[times.len() / 2],
        times[times.len() - 1],
        times.len(),
        l + h + Duration::from_millis(250)
    )
}

fn fql_at(db: &std::path::Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_fql"));
    cmd.arg("--db").arg(db);
    cmd
}

/// Waits until `show` prints `want`; a minute at most.
fn shown(db: &std::path::Path, dir: &str, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "never shown: {want}");
        let show = fql_at(db)
            .args(["mutex", "show", dir])
            .output()
            .expect("show runs");
        if String::from_utf8_lossy(&show.stdout).contains(want) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Ten waiters killed (`kill -9`) at the head of the queue, a live one
/// behind them, and no reaper: from the owner's release to the live
/// waiter's return. `settled`: the owner holds on for 2 L after the
/// kills (the head of the queue has dropped them by then); else it
/// releases at once, and the grant meets them.
fn dead_waiters(dir: &std::path::Path, settled: bool) -> String {
    use std::process::Stdio;
    let db = dir.join(format!("dead-waiters-{settled}.db"));
    let timing = ["--heartbeat", "0.2", "--stale", "0.6"];
    let (h, l) = (Duration::from_millis(200), Duration::from_millis(600));
    let mut times = Vec::new();
    for round in 0..5 {
        let owner = format!("owner{round}");
        let taken = fql_at(&db)
            .args(["mutex", "try-acquire", "/waiters", "--name", &owner])
            .args(timing)
            .stdout(Stdio::null())
            .status()
            .expect("try-acquire runs");
        assert!(taken.success());
        // The owner lives: it beats every h / 2 until it releases.
        let beating = Arc::new(AtomicBool::new(true));
        let beats = {
            let (db, owner, beating) = (db.clone(), owner.clone(), beating.clone());
            std::thread::spawn(move || {
                while beating.load(Ordering::SeqCst) {
                    let _ = fql_at(&db)
                        .args(["mutex", "heartbeat", "/waiters", "--name", &owner])
                        .status();
                    std::thread::sleep(h / 2);
                }
            })
        };
        let mut dead = Vec::new();
        for n in 0..10 {
            dead.push(
                fql_at(&db)
                    .args(["mutex", "acquire", "/waiters", "--name"])
                    .arg(format!("dead{round}-{n}"))
                    .args(timing)
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("a waiter starts"),
            );
            shown(&db, "/waiters", &format!("{}. dead{round}-{n} ", n + 1));
        }
        let mut live = fql_at(&db)
            .args(["mutex", "acquire", "/waiters", "--name"])
            .arg(format!("live{round}"))
            .args(timing)
            .stdout(Stdio::null())
            .spawn()
            .expect("the live waiter starts");
        shown(&db, "/waiters", &format!("11. live{round} "));
        for d in &mut dead {
            d.kill().expect("kill -9");
            let _ = d.wait();
        }
        if settled {
            std::thread::sleep(l * 2);
        }
        beating.store(false, Ordering::SeqCst);
        beats.join().expect("the beats end");
        let released = Instant::now();
        let _ = fql_at(&db)
            .args(["mutex", "release", "/waiters", "--name", &owner])
            .status();
        assert!(live.wait().expect("the live waiter ends").success());
        times.push(released.elapsed());
        let _ = fql_at(&db)
            .args(["mutex", "release", "/waiters", "--name"])
            .arg(format!("live{round}"))
            .status();
    }
    times.sort();
    format!(
        "10 dead waiters ahead ({}), release to the live waiter's return, no reaper: median {:.0?}, max {:.0?} over {} runs; h = {h:?}, L = {l:?}\n",
        if settled {
            "killed 2 L before the release"
        } else {
            "killed just before the release"
        },
        times[times.len() / 2],
        times[times.len() - 1],
        times.len(),
    )
}

/// A live owner (`fql mutex run -- sleep 3`, beating every h) with a
/// busy loop on every core beside it and a waiter behind it: a takeover
/// before the owner's release is a false one.
fn live_owner_beside_hogs(dir: &std::path::Path) -> String {
    use std::process::{Command, Stdio};
    let db = dir.join("hogs.db");
    let timing = ["--heartbeat", "0.2", "--stale", "0.6"];
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut hogs: Vec<_> = (0..cores)
        .map(|_| {
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .expect("a busy loop starts")
        })
        .collect();
    let (mut false_takeovers, rounds) = (0, 10);
    for round in 0..rounds {
        let started = Instant::now();
        let mut owner = fql_at(&db)
            .args(["mutex", "run", "/hogs", "--name"])
            .arg(format!("owner{round}"))
            .args(timing)
            .args(["--", "sleep", "3"])
            .spawn()
            .expect("the owner starts");
        shown(&db, "/hogs", &format!("owner: owner{round} "));
        let mut waiter = fql_at(&db)
            .args(["mutex", "acquire", "/hogs", "--name"])
            .arg(format!("next{round}"))
            .args(timing)
            .stdout(Stdio::null())
            .spawn()
            .expect("the waiter starts");
        let held = owner.wait().expect("the owner ends");
        let _ = waiter.wait();
        // The owner's run ends 0 only if it held the mutex throughout.
        if !held.success() || started.elapsed() < Duration::from_secs(3) {
            false_takeovers += 1;
        }
        let _ = fql_at(&db)
            .args(["mutex", "release", "/hogs", "--name"])
            .arg(format!("next{round}"))
            .status();
    }
    for hog in &mut hogs {
        let _ = hog.kill();
        let _ = hog.wait();
    }
    format!(
        "live owner beating every h = 200 ms beside {cores} busy loops, L = 600 ms: {false_takeovers} false takeovers in {rounds} holds of 3 s\n"
    )
}
