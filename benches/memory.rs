//! Peak memory of the release binary on long scripts and large joins, at
//! 1M and 3M rows, with the time each takes:
//!
//! - `load`: `generate | fql -w` of N sets, 1,000 a transaction, into a
//!   database file;
//! - `join`: `/load(<x:int>)=<>` over those N rows feeding `:x` to a
//!   statement in the next transaction, and in the same one. The joined
//!   statement reads a directory that does not exist, which costs no
//!   database read: 3M point reads take longer than the five seconds a
//!   transaction may live;
//! - `join, point reads`: the same at 1M rows, each row feeding a read of
//!   one key;
//! - `dump --all`, `load of dump --all`: the whole database dumped and
//!   loaded into a new one, checked to hold the same bytes;
//! - `dump`, `load of the dump`: `fql dump /load -o FILE` of the 1M rows
//!   and `fql load FILE` into a new database, checked equal, beside
//!   sqlite3's `.dump` and `.read` of the same rows in a table (when the
//!   `sqlite3` command is installed).
//!
//! Target: each below 64 MB, and flat as N grows (the peak at 3M rows no
//! more than a few MB above the peak at 1M).
//!
//! `cargo bench --bench memory`. Peaks are the kernel's count of the
//! child's resident set (`wait4`), so they hold on a busy machine; the
//! times do not.
//!
//! Measured on 2 shared cores (load average 5 to 9), peak and time:
//!
//! | Run | 1M rows | 3M rows | before, 1M | before, 3M |
//! |---|---|---|---|---|
//! | load | 17 MB, 8 s | 20 MB, 28 s | 653 MB, 10 s | 1,936 MB, 20 s |
//! | join across `@commit` | 19 MB, 0.7 s | 19 MB, 2.3 s | 392 MB, 0.5 s | 1,147 MB, 2.8 s |
//! | join in one transaction | 19 MB, 0.5 s | 19 MB, 2.2 s | 299 MB, 0.5 s | 864 MB, 1.6 s |
//! | join, point reads | 19 MB, 1.8 s | | 464 MB, 1.5 s | |
//!
//! "Before" is the binary that held a script whole and a join's rows in
//! memory, one owned row of names and values each.

use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A run of the binary: its peak resident set in bytes, its time, its
/// output's lines.
struct Measured {
    peak: u64,
    took: Duration,
    lines: usize,
}

/// Runs the release `fql` with `args`, `write` writing its standard input.
fn measure(
    args: &[&str],
    db: &Path,
    write: impl FnOnce(&mut dyn Write) + Send + 'static,
) -> Measured {
    let start = Instant::now();
    // Reaped by `wait4` below, which measures it.
    #[allow(clippy::zombie_processes)]
    let mut child = Command::new(env!("CARGO_BIN_EXE_fql"))
        .arg("--db")
        .arg(db)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("fql starts");
    let mut stdin = child.stdin.take().expect("a pipe");
    let writer = std::thread::spawn(move || write(&mut stdin));
    let mut out = child.stdout.take().expect("a pipe");
    let mut lines = 0;
    let mut buf = vec![0; 1 << 16];
    loop {
        match out.read(&mut buf).expect("output") {
            0 => break,
            n => lines += buf[..n].iter().filter(|&&b| b == b'\n').count(),
        }
    }
    let (peak, status) = reap(&child);
    let took = start.elapsed();
    writer.join().expect("the script was written");
    assert_eq!(status, 0, "fql {args:?} failed");
    Measured { peak, took, lines }
}

/// Runs `cmd` to its end: its peak and its time.
fn measure_command(cmd: &mut Command) -> Measured {
    let start = Instant::now();
    // Reaped by `wait4` below, which measures it.
    #[allow(clippy::zombie_processes)]
    let child = cmd.stdin(Stdio::null()).spawn().expect("it starts");
    let (peak, status) = reap(&child);
    assert_eq!(status, 0, "{cmd:?} failed");
    Measured {
        peak,
        took: start.elapsed(),
        lines: 0,
    }
}

/// Waits for `child`: its peak resident set in bytes and its exit status.
fn reap(child: &std::process::Child) -> (u64, i32) {
    let pid = child.id() as nix::libc::pid_t;
    let mut status = 0;
    // SAFETY: `rusage` is plain data the call fills in; the child is ours
    // and not yet waited for.
    let usage = unsafe {
        let mut usage: nix::libc::rusage = std::mem::zeroed();
        assert_eq!(nix::libc::wait4(pid, &mut status, 0, &mut usage), pid);
        usage
    };
    (
        usage.ru_maxrss as u64 * 1024,
        nix::libc::WEXITSTATUS(status),
    )
}

/// `fql dump` of the 1M rows of `/load` in `db` and `fql load` of the
/// dump into a new database, checked equal, against sqlite3's `.dump`
/// and `.read` of the same rows in a table.
fn dump_and_load(db: &Path, dir: &Path) {
    let file = dir.join("load.fql");
    let copy = dir.join("copy.db");
    let rows = 1_000_000;
    measure_round_trip(["dump", "load of the dump"], &["/load"], db, &file, &copy);
    let again = Command::new(env!("CARGO_BIN_EXE_fql"))
        .arg("--db")
        .arg(&copy)
        .args(["dump", "/load"])
        .output()
        .expect("fql runs");
    let body = |text: &str| -> String {
        text.lines()
            .filter(|l| !l.starts_with("% read version"))
            .collect()
    };
    let written = std::fs::read_to_string(&file).expect("the dump");
    assert!(body(&String::from_utf8_lossy(&again.stdout)) == body(&written));
    whole_dump_and_load(db, dir);
    let Ok(_) = Command::new("sqlite3").arg("-version").output() else {
        eprintln!("memory/sqlite3 is not installed: no comparison");
        return;
    };
    let lite = dir.join("lite.db");
    let fill = "create table load(k integer primary key, v text); \
        with recursive n(i) as (select 0 union all select i + 1 from n where i < 999999) \
        insert into load select i, 'value of row ' || i from n;";
    measure_command(Command::new("sqlite3").arg(&lite).arg(fill));
    let sql = dir.join("lite.sql");
    let out = std::fs::File::create(&sql).expect("a file");
    let dumped = measure_command(Command::new("sqlite3").arg(&lite).arg(".dump").stdout(out));
    report("sqlite3 .dump", rows, &dumped);
    let read = format!(".read {}", sql.display());
    let loaded = measure_command(Command::new("sqlite3").arg(dir.join("lite2.db")).arg(read));
    report("sqlite3 .read", rows, &loaded);
}

/// `rows` sets of `/load`, 1,000 a transaction, and a key of `/b` for one
/// row in 1,000.
fn load(rows: usize) -> impl FnOnce(&mut dyn Write) + Send + 'static {
    move |out: &mut dyn Write| {
        let mut out = BufWriter::with_capacity(1 << 16, out);
        for n in 0..rows {
            writeln!(out, "/load({n})=\"value of row {n}\"").unwrap();
            if n % 1000 == 999 {
                writeln!(out, "@commit").unwrap();
            }
        }
        for n in (0..rows).step_by(1000) {
            writeln!(out, "/b({n})={n}").unwrap();
        }
        out.flush().unwrap();
    }
}

fn report(what: &str, rows: usize, m: &Measured) {
    eprintln!(
        "memory/{what:<28} {:>2}M rows: peak {:>6.1} MB, {:>6.2} s, {} results",
        rows / 1_000_000,
        m.peak as f64 / 1e6,
        m.took.as_secs_f64(),
        m.lines
    );
}

/// Measures `fql dump WHAT -o FILE` of the 1M rows in `db` and `fql load
/// FILE` into the new database `copy`, reported under `names`.
fn measure_round_trip(names: [&str; 2], what: &[&str], db: &Path, file: &Path, copy: &Path) {
    let rows = 1_000_000;
    let path = file.to_str().expect("a UTF-8 path");
    let args: Vec<&str> = ["dump"]
        .into_iter()
        .chain(what.iter().copied())
        .chain(["-o", path])
        .collect();
    let dumped = measure(&args, db, |_| {});
    report(names[0], rows, &dumped);
    let loaded = measure(&["load", path], copy, |_| {});
    report(names[1], rows, &loaded);
}

/// `fql dump --all` of the database and `fql load` of it into a new one,
/// checked to hold the same bytes.
fn whole_dump_and_load(db: &Path, dir: &Path) {
    let copy = dir.join("all.db");
    measure_round_trip(
        ["dump --all", "load of dump --all"],
        &["--all"],
        db,
        &dir.join("all.fql"),
        &copy,
    );
    let raw = |db: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_fql"))
            .arg("--db")
            .arg(db)
            .args(["-q", "0x..."])
            .output()
            .expect("fql runs");
        out.stdout
    };
    assert!(raw(db) == raw(&copy), "the same keys and values");
}

fn main() {
    // `cargo test --benches` runs benches without `--bench`: nothing to do.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut peaks: Vec<(String, usize, u64)> = Vec::new();
    for rows in [1_000_000, 3_000_000] {
        let db = dir.path().join(format!("{rows}.db"));
        let loaded = measure(&["-w"], &db, load(rows));
        report("load", rows, &loaded);
        peaks.push(("load".into(), rows, loaded.peak));
        let read = "/load(<x:int>)=<>";
        let missing = "/missing(:x)=<>";
        let one = format!("{read}\n{missing}");
        let joins = [
            ("join across @commit", vec!["-q", read, "-q", missing]),
            ("join in one transaction", vec!["-q", &one]),
        ];
        for (what, args) in joins {
            let joined = measure(&args, &db, |_| {});
            report(what, rows, &joined);
            peaks.push((what.into(), rows, joined.peak));
        }
        if rows == 1_000_000 {
            for (what, args) in [
                ("join, point reads", vec!["-q", read, "-q", "/b(:x)=<>"]),
                (
                    "join, point reads, one tx",
                    vec!["-q", "/load(<x:int>)=<>\n/b(:x)=<>"],
                ),
            ] {
                let joined = measure(&args, &db, |_| {});
                assert_eq!(joined.lines, rows / 1000);
                report(what, rows, &joined);
            }
        }
    }
    dump_and_load(&dir.path().join("1000000.db"), dir.path());
    eprintln!("target: every peak below 64 MB, and flat from 1M to 3M rows");
    for (what, rows, peak) in &peaks {
        if *rows == 1_000_000
            && let Some((_, _, at_3m)) = peaks.iter().find(|(w, r, _)| w == what && *r == 3_000_000)
        {
            eprintln!(
                "memory/{what:<28} 3M - 1M: {:+.1} MB{}",
                (*at_3m as f64 - *peak as f64) / 1e6,
                if peak.max(at_3m) < &(64 << 20) {
                    ""
                } else {
                    "  (over the target)"
                }
            );
        }
    }
}
