//! Scripts read a transaction at a time: memory that does not grow with a
//! script's length or with the rows a join binds, and the same results and
//! diagnostics as a script read whole.
//!
//! Memory is the binary's peak resident set, as the kernel counts it for
//! the child alone (`wait4`): a count, not a time, so it holds on a loaded
//! machine. Each test compares a run with a fourth of the rows to a run
//! with all of them; a script held whole, or a join held in memory, grows
//! by hundreds of bytes a row, far past the bound.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use assert_cmd::cargo::cargo_bin;

use super::{fql, on_db, spawn_piped, stderr, stdout, temp_file, text};

/// How much more the peak resident set of a run with four times the rows
/// may be, in KiB. Held whole, 75,000 more rows of script cost about
/// 45 MB, and 75,000 more rows bound for a join about 25 MB.
const GROWTH_KIB: i64 = 16 << 10;

/// What a run of the binary did.
struct Run {
    status: i32,
    stdout: String,
    stderr: String,
    /// Its peak resident set, in KiB.
    peak_kib: i64,
}

/// Runs `fql` with `args`, `write` writing its standard input through a
/// pipe as it reads it, and measures it.
fn measure<S: AsRef<OsStr>>(
    args: &[S],
    write: impl FnOnce(&mut dyn Write) + Send + 'static,
) -> Run {
    // Reaped by `wait4` below, which measures it.
    #[allow(clippy::zombie_processes)]
    let mut child = spawn_piped(|cmd| cmd.args(args).stdin(Stdio::piped()));
    let mut stdin = child.stdin.take().expect("a pipe");
    let writer = std::thread::spawn(move || {
        write(&mut stdin);
        // Dropped: the script ends.
    });
    let mut out = child.stdout.take().expect("a pipe");
    let mut err = child.stderr.take().expect("a pipe");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        out.read_to_string(&mut text).expect("UTF-8 output");
        text
    });
    let mut stderr = String::new();
    err.read_to_string(&mut stderr).expect("UTF-8 diagnostics");
    let pid = child.id() as nix::libc::pid_t;
    let mut status = 0;
    // SAFETY: `rusage` is plain data the call fills in; the child is ours
    // and not yet waited for.
    let (waited, usage) = unsafe {
        let mut usage: nix::libc::rusage = std::mem::zeroed();
        let waited = nix::libc::wait4(pid, &mut status, 0, &mut usage);
        (waited, usage)
    };
    assert_eq!(waited, pid, "waited for fql");
    writer.join().expect("the script was written");
    Run {
        status: nix::libc::WEXITSTATUS(status),
        stdout: reader.join().expect("the output was read"),
        stderr,
        peak_kib: usage.ru_maxrss,
    }
}

/// Checks `large`, on four times the rows of `small`, took little more memory: each test's point.
fn assert_flat(small: &Run, large: &Run, context: &str) {
    assert!(
        large.peak_kib - small.peak_kib < GROWTH_KIB,
        "{context}peak {} KiB for 25,000 rows, {} KiB for 100,000",
        small.peak_kib,
        large.peak_kib
    );
}

/// Writes a script that loads `rows` rows into `dir`, `per` a transaction.
fn load(out: &mut dyn Write, dir: &str, rows: usize, per: usize) {
    let mut out = std::io::BufWriter::new(out);
    for n in 0..rows {
        writeln!(out, "/{dir}({n})=\"value of row {n}\"").unwrap();
        if n % per == per - 1 {
            writeln!(out, "@commit").unwrap();
        }
    }
    out.flush().unwrap();
}

/// `--db DB ARGS`, for the runs [`measure`] makes on a database of their own.
fn db_args(args: &[&str], db: &Path) -> Vec<std::ffi::OsString> {
    let mut all = vec!["--db".into(), db.as_os_str().to_owned()];
    all.extend(args.iter().map(Into::into));
    all
}

/// A script piped into `fql -w` is checked whole and then run, yet its
/// memory does not grow with its length.
#[cfg(target_os = "linux")]
#[test]
fn a_long_script_on_standard_input_runs_in_flat_memory() {
    let dir = tempfile::tempdir().unwrap();
    let small = measure(&db_args(&["-w"], &dir.path().join("small.db")), |out| {
        load(out, "t", 25_000, 1000)
    });
    let large = measure(&db_args(&["-w"], &dir.path().join("large.db")), |out| {
        load(out, "t", 100_000, 1000)
    });
    for run in [&small, &large] {
        assert_eq!(run.status, 0, "{}", run.stderr);
    }
    let large_db = dir.path().join("large.db");
    let count = stdout(fql().args(db_args(&["-q", "/t(...)=<count>"], &large_db)));
    assert_eq!(count, "/t(...)=100000\n");
    assert_flat(&small, &large, "");
}

/// The rows a named variable binds go to disk past 256 KiB: a
/// join's memory does not grow with its rows, across `@commit` or in one
/// transaction, and it finds what it would in memory.
#[cfg(target_os = "linux")]
#[test]
fn a_join_over_many_rows_runs_in_flat_memory() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("join.db");
    // `/few` and `/many` rows, and `/b` for one id in 1,000.
    let setup = measure(&db_args(&["-w"], &db), |out: &mut dyn Write| {
        load(out, "few", 25_000, 25_000);
        load(out, "many", 100_000, 25_000);
        for n in (0..100_000).step_by(1000) {
            writeln!(out, "/b({n})=\"joined {n}\"").unwrap();
        }
    });
    assert_eq!(setup.status, 0, "{}", setup.stderr);
    for one_transaction in [false, true] {
        let join = |dir: &str| {
            let (read, join) = (format!("/{dir}(<x:int>)=<>"), "/b(:x)=<>");
            let args: Vec<String> = if one_transaction {
                vec!["-q".into(), format!("{read}\n{join}")]
            } else {
                vec!["-q".into(), read, "-q".into(), join.into()]
            };
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            measure(&db_args(&args, &db), |_: &mut dyn Write| {})
        };
        let few = join("few");
        let many = join("many");
        for run in [&few, &many] {
            assert_eq!(run.status, 0, "{}", run.stderr);
        }
        assert_eq!(few.stdout.lines().count(), 25);
        assert_eq!(many.stdout.lines().count(), 100);
        assert_eq!(
            many.stdout.lines().nth(99),
            Some("/b(99000)=\"joined 99000\"")
        );
        assert_flat(
            &few,
            &many,
            &format!("one transaction: {one_transaction}; "),
        );
    }
}

/// A statement that feeds a join, bound again in transaction after
/// transaction, keeps on disk the rows still in use, not those of every
/// time it ran: with each file the binary writes limited to a little over
/// one time's rows, a script that binds it fifteen times finishes (a file
/// that grows past the limit stops the binary with `SIGXFSZ`).
#[cfg(target_os = "linux")]
#[test]
fn a_feeder_bound_again_in_many_transactions_keeps_little_on_disk() {
    /// The largest file the binary may write, in bytes.
    const LIMIT: u64 = 2 << 20;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("feeder.db");
    // About 310 KiB of rows each time `/big` is read: past the 256 KiB a
    // statement holds in memory as it runs.
    let setup = measure(&db_args(&["-w"], &db), |out: &mut dyn Write| {
        for n in 0..1500 {
            writeln!(out, "/big({n})=\"{}\"", "x".repeat(200)).unwrap();
        }
    });
    assert_eq!(setup.status, 0, "{}", setup.stderr);
    assert!(std::fs::metadata(&db).unwrap().len() < LIMIT / 2);
    let script = "/big(<x:int>)=<v:str>\n/none(:x)=<>\n@commit\n".repeat(15);
    let script = temp_file("feeder_again.fql", script.as_bytes());
    let mut run = Command::new(cargo_bin("fql"));
    run.args(db_args(&["-f"], &db)).arg(&script);
    // SAFETY: `setrlimit` is async-signal-safe, and touches only the
    // child's own limits.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut run, || {
            let limit = nix::libc::rlimit {
                rlim_cur: LIMIT,
                rlim_max: LIMIT,
            };
            match nix::libc::setrlimit(nix::libc::RLIMIT_FSIZE, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let out = run.output().expect("fql runs");
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "");
}

/// `@commit` in a comment or a string ends no transaction, an indented one
/// does, and a script checked a transaction at a time still runs nothing
/// when its last transaction is invalid.
#[test]
fn transactions_end_only_at_commit_lines() {
    let (_dir, db) = on_db();
    // The guard fails, so its whole transaction writes nothing.
    let script = "/a(1)=\"@commit\"\n% @commit\n/a(2)=2 % @commit\n[exists] /nothing(1)\n  @commit\n/a(3)=3\n";
    db().args(["-w", "--on-error", "continue"])
        .write_stdin(script)
        .assert()
        .code(1);
    assert_eq!(stdout(db().args(["-q", "/a(...)"])), "/a(3)=3\n");
    // Valid up to the last transaction: nothing runs.
    let mut script = String::new();
    for n in 0..3000 {
        script.push_str(&format!("/b({n})=1\n@commit\n"));
    }
    script.push_str("/b(<string>)\n");
    let err = stderr(db().arg("-w").write_stdin(script), 3);
    assert!(err.contains("[<stdin>:6001:5]"));
    assert_eq!(stdout(db().args(["-q", "/b(...)=<count>"])), "");
}

/// Errors in later transactions name their input, and its line and column,
/// for each input of a sequence; a byte that is not UTF-8 is found where
/// it is in its input.
#[test]
fn diagnostics_name_the_input_line_and_column() {
    let file = temp_file(
        "later.fql",
        b"/a(1)=1\n@commit\n/b(2)=2\n@commit\n\n/c(<string>)\n",
    );
    // The report of the file between two queries.
    let report = |file: &Path| {
        let first = ["--memory", "-w", "--color", "never", "-q", "/q(1)=1", "-f"];
        stderr(fql().args(first).arg(file).args(["-q", "/d(:nothing)"]), 3)
    };
    let err = report(&file);
    assert!(err.contains(&format!("[{}:6:5]", file.display())), "{err}");
    assert!(err.contains(" 6 │ /c(<string>)"), "{err}");
    assert!(err.ends_with("1 error in 3 inputs\n"), "{err}");
    // With the syntax right, the reference nothing binds is next.
    let file = temp_file("later_ok.fql", b"/a(1)=1\n@commit\n/b(2)=2\n");
    assert!(report(&file).contains("[<query 2>:1:4]"));
    let binary = temp_file("later_binary.fql", b"/a(1)=1\n@commit\n/b(\"\xff\")\n");
    assert_eq!(
        stderr(fql().args(["--memory", "-w", "-f"]).arg(&binary), 2),
        format!(
            "fql: {} is not UTF-8: invalid byte at offset 20 (line 3)\n",
            binary.display()
        )
    );
}

/// A script file changed while it runs stops the run at the first
/// transaction that is not what was checked, exit 4, whatever the new text
/// says: a transaction rewritten (here into a write, without `-w`), one
/// added, and one taken away. The file is changed in place while the first
/// transaction prints far more rows than the pipe and the output buffers
/// hold, so the run has started and has not yet read the second
/// transaction's end: a long comment starts that transaction, longer than
/// any read-ahead of the file.
#[test]
fn a_file_changed_while_it_runs_stops_at_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let fill: String = (0..30_000).map(|n| format!("/r({n})=\"{n}\"\n")).collect();
    fql()
        .arg("--db")
        .arg(&db)
        .arg("-w")
        .write_stdin(fill)
        .assert()
        .success();
    let padding = "% a long comment\n".repeat(20_000);
    let first = "/r(<int>)=<str>\n@commit\n";
    let second = format!("{padding}/r(0)=<str>\n@commit\n");
    let script = format!("{first}{second}");
    // The transactions start at lines 1, 3 and 20,005.
    let cases = [
        // The same length, but a write.
        (format!("{first}{padding}/w(0)=\"abc\"\n@commit\n"), "3"),
        (format!("{script}/w(1)=1\n"), "20005"),
        (first.to_string(), "3"),
    ];
    let path = dir.path().join("changing.fql");
    for (changed, line) in cases {
        std::fs::write(&path, &script).unwrap();
        // A loaded machine may take more than a transaction's five
        // seconds to print the rows: the read goes on.
        let mut child = spawn_piped(|cmd| {
            cmd.arg("--db")
                .arg(&db)
                .args(["--split-reads", "-f"])
                .arg(&path)
        });
        let mut out = child.stdout.take().unwrap();
        let mut started = [0u8; 10];
        out.read_exact(&mut started).unwrap();
        // In place: fql reads the same file again.
        std::fs::write(&path, &changed).unwrap();
        let mut rest = String::new();
        out.read_to_string(&mut rest).unwrap();
        let done = child.wait_with_output().unwrap();
        let stderr = text(&done.stderr);
        assert_eq!(done.status.code(), Some(4), "{line}: {stderr}");
        let expected = format!(
            "fql: {} changed while it ran: from line {line} on it is not what was checked; the transactions before it are committed\n",
            path.display()
        );
        assert_eq!(stderr, expected);
        // The first transaction ran whole; the second only where it was
        // what was checked.
        let printed = format!("{}{rest}", text(&started));
        let rows = printed.lines().filter(|l| l.starts_with("/r(")).count();
        assert_eq!(rows, 30_000 + usize::from(line == "20005"));
        let written = stdout(fql().arg("--db").arg(&db).args(["-q", "/w(...)"]));
        assert_eq!(written, "", "{line}: nothing was written");
    }
}
