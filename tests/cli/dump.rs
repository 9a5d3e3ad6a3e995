//! `fql dump` and `fql load` through the real binary: a subtree dumped
//! and loaded back is equal, byte for byte; a load refuses a target that
//! holds data and a line outside the dump; a load that stopped goes on
//! with `--resume` and ends equal.

use std::path::{Path, PathBuf};

use super::{fql_db, interrupt_when_blocked, outputs, stderr, stdout, text};

/// `fql --db DB`, with no fault plan unless `faults`.
fn on(db: &Path, faults: Option<&str>) -> assert_cmd::Command {
    let mut cmd = fql_db();
    cmd.env_remove("FQL_FAULTS").arg("--db").arg(db);
    if let Some(plan) = faults {
        cmd.env("FQL_FAULTS", plan);
    }
    cmd
}

/// A dump without its `% read version` lines, which differ between
/// databases and runs.
fn body(dump: &str) -> String {
    dump.lines()
        .filter(|l| !l.starts_with("% read version"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Writes `rows` key-values over a few directories, of every shape a dump
/// takes: tuples of several types, values of several types, bytes that
/// are no tuple, an empty value, a nested directory and an empty one.
fn fill(db: &Path, rows: usize) {
    let mut script = String::new();
    for i in 0..rows {
        let line = match i % 5 {
            0 => format!("/app/users({i},\"user {i}\")=\"name\\n{i}\"\n"),
            1 => format!("/app/users({i},\"x\")=({i},1.5,nil,true)\n"),
            2 => format!("/app/logs/day({i},0x{:04x})={i}[i64]\n", i % 65536),
            3 => format!("/app/logs(\"e\",{i})=0x00ff{:02x}\n", i % 256),
            _ => format!("/app/\"odd dir\"({i})=nil\n"),
        };
        script.push_str(&line);
    }
    script.push_str("/app/empty(0)=1\n/app/empty(0)=clear\n/other(1)=\"not dumped\"\n");
    let file = db.with_extension("fill.fql");
    std::fs::write(&file, script).unwrap();
    stdout(on(db, None).arg("-w").arg("-f").arg(&file));
}

fn dump(db: &Path) -> String {
    stdout(on(db, None).args(["dump", "/app"]))
}

#[test]
fn a_subtree_dumped_and_loaded_back_is_equal() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (dir.path().join("from.db"), dir.path().join("to.db"));
    fill(&from, 20_000);
    let file = dir.path().join("app.fql");
    let (out, err) = outputs(on(&from, None).args(["dump", "/app", "-o"]).arg(&file), 0);
    assert_eq!((out.as_str(), err.as_str()), ("", ""));
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.starts_with("% fql dump 1\n% root /app\n% read version "));
    assert!(
        written.ends_with("% end 20000\n"),
        "{}",
        &written[written.len() - 40..]
    );
    assert!(written.contains("\n/app/users(0,\"user 0\")=\"name\\n0\"\n"));
    assert!(written.contains("\n/app/logs/day(2,0x0002)=(\"\",nil,nil,nil,nil,nil,nil)\n"));
    assert!(written.contains("\n% directory /app/\"odd dir\"\n"));
    assert!(!written.contains("not dumped"));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // Small transactions: the load takes many of them.
    let err = stderr(
        on(&to, None)
            .args(["load", "--batch-keys", "1000"])
            .arg(&file),
        0,
    );
    assert!(
        err.contains("loaded 20000 key-values and 6 directories in 2"),
        "{err}"
    );
    assert_eq!(body(&dump(&to)), body(&written));
    let read =
        |db: &Path| stdout(on(db, None).args(["-q", "/app/logs(...)", "-q", "/app/users(...)"]));
    assert_eq!(read(&to), read(&from));
    assert_eq!(read(&to).lines().count(), 12_000);
    // The same file is a script: `fql -w -f` writes its key-values, a
    // transaction at each `@commit`.
    assert_eq!(written.matches("\n@commit\n").count(), 2);
    let replayed = dir.path().join("replayed.db");
    stdout(on(&replayed, None).arg("-w").arg("-f").arg(&file));
    assert_eq!(read(&replayed), read(&from));
    assert!(!PathBuf::from(format!("{}.resume", file.display())).exists());
}

#[test]
fn a_dump_read_over_several_transactions_says_so_and_loads_equal() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (dir.path().join("from.db"), dir.path().join("to.db"));
    fill(&from, 5_000);
    // Another client commits all along, so a new transaction reads at a
    // new version.
    let script = dir.path().join("writer.fql");
    let writes: String = (0..200_000)
        .map(|i| format!("/other(2)={i}\n@commit\n"))
        .collect();
    std::fs::write(&script, writes).unwrap();
    let mut writer = std::process::Command::new(assert_cmd::cargo::cargo_bin("fql"))
        .env_remove("FQL_FAULTS")
        .env_remove("FDB_CLUSTER_FILE")
        .arg("--db")
        .arg(&from)
        .args(["-w", "-f"])
        .arg(&script)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while stdout(on(&from, None).args(["-q", "/other(2)"])).is_empty() {}
    // Reads that fail as a transaction too old go on in new transactions.
    let (out, err) = outputs(
        on(&from, Some("1007@read:0.5;seed=3")).args(["dump", "/app"]),
        0,
    );
    writer.kill().unwrap();
    writer.wait().unwrap();
    let versions = out
        .lines()
        .filter(|l| l.starts_with("% read version"))
        .count();
    assert!(versions > 1, "{err}");
    assert!(
        err.contains(&format!("the dump took {versions} transactions")),
        "{err}"
    );
    assert!(err.contains("it is not one snapshot"), "{err}");
    let file = dir.path().join("app.fql");
    std::fs::write(&file, &out).unwrap();
    // Commits that fail, or whose result is unknown, are retried.
    stderr(
        on(&to, Some("1020:0.3,1021:0.3;ids=off;seed=5"))
            .args(["load", "--batch-keys", "300"])
            .arg(&file),
        0,
    );
    assert_eq!(body(&dump(&to)), body(&out));
}

#[test]
fn a_load_goes_to_another_directory_with_to() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    fill(&db, 50);
    let file = dir.path().join("app.fql");
    std::fs::write(&file, dump(&db)).unwrap();
    stderr(
        on(&db, None).args(["load", "--to", "/copy/of"]).arg(&file),
        0,
    );
    let copy = stdout(on(&db, None).args(["dump", "/copy/of"]));
    assert_eq!(body(&copy), body(&dump(&db)).replace("/app", "/copy/of"));
}

#[test]
fn a_target_that_holds_data_is_refused_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (dir.path().join("from.db"), dir.path().join("to.db"));
    fill(&from, 20);
    let file = dir.path().join("app.fql");
    std::fs::write(&file, dump(&from)).unwrap();
    stdout(on(&to, None).args(["-w", "-q", "/app/mine(1)=\"kept\""]));
    let err = stderr(on(&to, None).arg("load").arg(&file), 2);
    assert!(
        err.contains("/app is not empty (--force loads into it anyway)"),
        "{err}"
    );
    assert_eq!(
        stdout(on(&to, None).args(["-q", "/app/..."])),
        "/app\n/app/mine\n"
    );
    stderr(on(&to, None).args(["load", "--force"]).arg(&file), 0);
    assert!(dump(&to).contains("\n/app/mine(1)=\"kept\"\n"));
    assert_eq!(
        body(&dump(&to))
            .replace("% directory /app/mine\n/app/mine(1)=\"kept\"\n", "")
            .replace("% end 21", "% end 20"),
        body(&dump(&from))
    );
}

#[test]
fn a_line_outside_the_dump_is_refused_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let file = dir.path().join("app.fql");
    std::fs::write(
        &file,
        "% fql dump 1\n% root /app\n% directory /app\n/app(1)=2\n/elsewhere(1)=2\n% end 2\n",
    )
    .unwrap();
    let err = stderr(on(&db, None).arg("load").arg(&file), 3);
    assert!(
        err.contains(
            "line 5: /elsewhere is outside /app, what the dump holds; nothing was written"
        ),
        "{err}"
    );
    assert!(!db.exists(), "no database was opened");
    // Under another target, the same line is as far outside.
    let err = stderr(on(&db, None).args(["load", "--to", "/t"]).arg(&file), 3);
    assert!(err.contains("line 5: /elsewhere is outside /app"), "{err}");
    // A dump cut short is refused whole too.
    std::fs::write(
        &file,
        "% fql dump 1\n% root /app\n% directory /app\n/app(1)=2\n",
    )
    .unwrap();
    let err = stderr(on(&db, None).arg("load").arg(&file), 3);
    assert!(
        err.contains("the dump is cut short: it has no `% end` line"),
        "{err}"
    );
    std::fs::write(&file, "/app(1)=2\n").unwrap();
    let err = stderr(on(&db, None).arg("load").arg(&file), 3);
    assert!(err.contains("line 1: not a dump of fql"), "{err}");
    assert!(!db.exists(), "no database was opened");
}

#[test]
fn a_load_that_stopped_goes_on_with_resume() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (dir.path().join("from.db"), dir.path().join("to.db"));
    fill(&from, 5_000);
    let dumped = dump(&from);
    let file = dir.path().join("app.fql");
    // The dump with a layer on /app/zlast, which sorts last.
    std::fs::write(
        &file,
        dumped.replace(
            "% end 5000\n",
            "% layer \"mine\" /app/zlast\n/app/zlast(1)=2\n% end 5001\n",
        ),
    )
    .unwrap();
    // The target's /app/zlast has another layer: the load stops there,
    // after what came before it committed.
    let other = dir.path().join("other.fql");
    std::fs::write(
        &other,
        "% fql dump 1\n% root /app/zlast\n% layer \"theirs\" /app/zlast\n% end 0\n",
    )
    .unwrap();
    stderr(on(&to, None).arg("load").arg(&other), 0);
    let err = stderr(
        on(&to, None)
            .args(["load", "--force", "--batch-keys", "700"])
            .arg(&file),
        4,
    );
    let resume = PathBuf::from(format!("{}.resume", file.display()));
    let point = std::fs::read_to_string(&resume).unwrap();
    let line: u64 = point.lines().next().unwrap()["line ".len()..]
        .parse()
        .unwrap();
    let lines = dumped.lines().count() as u64;
    assert!(line > 700 && line < lines, "{point}");
    assert!(
        err.contains(&format!("is loaded through line {line}; `fql load ")),
        "{err}"
    );
    assert!(err.contains("--resume` goes on after it"), "{err}");
    // Put right what stopped it, then go on.
    stdout(on(&to, None).args(["-w", "-q", "/app/zlast=remove"]));
    let err = stderr(on(&to, None).args(["load", "--resume"]).arg(&file), 0);
    let loaded: u64 = err["fql: loaded ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(loaded < 5001, "{err}");
    assert_eq!(
        body(&dump(&to)),
        body(&std::fs::read_to_string(&file).unwrap())
    );
    assert!(!resume.exists());
    // With no point left, --resume has nothing to go on from.
    let err = stderr(on(&to, None).args(["load", "--resume"]).arg(&file), 2);
    assert!(
        err.contains("--resume:") && err.contains("has no resume point"),
        "{err}"
    );
}

#[test]
fn raw_keys_and_layers_keep_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (dir.path().join("from.db"), dir.path().join("to.db"));
    stdout(on(&from, None).args(["-w", "-q", "/app/t(1)=2"]));
    let listed = stdout(on(&from, None).args(["-q", "[prefix] /app/<>"]));
    let prefix = listed
        .trim()
        .rsplit(" % 0x")
        .next()
        .unwrap()
        .trim_end_matches("...");
    // A key that is no tuple, and the long form of 2^64-1, which
    // packs to other bytes.
    stdout(on(&from, None).args([
        "-w",
        "-q",
        &format!("0x{prefix}01ff=0x0102"),
        "-q",
        &format!("0x{prefix}1d08ffffffffffffffff=\"long\""),
    ]));
    let (out, err) = outputs(on(&from, None).args(["dump", "/app"]), 0);
    assert!(out.contains("\n% raw 0x01ff=0x0102\n"), "{out}");
    assert!(
        out.contains("\n% raw 0x1d08ffffffffffffffff=\"long\"\n"),
        "{out}"
    );
    assert!(
        err.contains("2 keys are not tuples, written as `% raw` lines"),
        "{err}"
    );
    let file = dir.path().join("app.fql");
    std::fs::write(
        &file,
        out.replace("% directory /app/t\n", "% layer 0x00ff /app/t\n"),
    )
    .unwrap();
    stderr(on(&to, None).arg("load").arg(&file), 0);
    let again = text(
        &on(&to, None)
            .args(["dump", "/app"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert!(again.contains("\n% layer 0x00ff /app/t\n"), "{again}");
    assert_eq!(body(&again), body(&std::fs::read_to_string(&file).unwrap()));
}

#[test]
fn usage_errors_name_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    stdout(on(&db, None).args(["-w", "-q", "/a/b(1)=2"]));
    let err = stderr(on(&db, None).args(["dump", "/nope"]), 2);
    assert!(err.contains("directory /nope does not exist"), "{err}");
    let (out, err) = outputs(on(&db, None).args(["dump", "/a", "/a/b"]), 2);
    assert_eq!(out, "");
    assert!(
        err.contains("/a/b is inside /a, which the dump holds already"),
        "{err}"
    );
    let err = stderr(on(&db, None).args(["load", "--resume", "-"]), 2);
    assert!(err.contains("--resume needs a FILE"), "{err}");
    let err = stderr(on(&db, None).args(["load", "--batch-bytes", "0", "x"]), 2);
    assert!(err.contains("--batch-bytes"), "{err}");
}

/// Ctrl-C stops a dump at its next read, exit 130: a dump to a file is
/// not put in place.
#[test]
fn ctrl_c_stops_a_dump() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    fill(&db, 60_000);
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fql"))
        .env_remove("FQL_FAULTS")
        .env_remove("FDB_CLUSTER_FILE")
        .arg("--db")
        .arg(&db)
        .args(["dump", "/app"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The pipe is not read, so the dump blocks with it full; it is still
    // running when the signal comes.
    let (done, rest) = interrupt_when_blocked(child);
    assert_eq!(done.status.code(), Some(130), "{done:?}");
    assert!(text(&done.stderr).contains("fql: interrupted"), "{done:?}");
    assert!(!String::from_utf8_lossy(&rest).contains("% end"));
}

/// Every key and value below the system keys of `db`, as raw rows.
fn raw_rows(db: &Path) -> String {
    stdout(on(db, None).args(["-q", "0x..."]))
}

#[test]
fn a_whole_dump_loads_into_an_empty_file_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("src.db"), dir.path().join("dst.db"));
    fill(&src, 40);
    on(&src, None)
        .args(["-w", "dir", "mkdir", "--partition", "/p"])
        .assert()
        .success();
    let writes = [
        "/p/in(1)=\"deep\"",
        "/p/in/deeper(2)=3",
        "/(\"app\",1)=\"at the root\"",
        "0x0203=5",
        "0xab01(\"k\")=nil",
    ];
    for w in writes {
        on(&src, None).args(["-w", "-q", w]).assert().success();
    }
    let file = dir.path().join("all.fql");
    on(&src, None)
        .args(["dump", "--all", "-o"])
        .arg(&file)
        .assert()
        .success();
    let dump = std::fs::read_to_string(&file).unwrap();
    assert!(dump.starts_with("% fql dump 1\n% all\n"), "{dump}");
    assert!(dump.contains("\n% layer \"partition\" /p\n"), "{dump}");
    assert!(dump.contains("\n/(\"app\",1)=\"at the root\"\n"), "{dump}");
    let err = stderr(on(&dst, None).arg("load").arg(&file), 0);
    assert!(err.starts_with("fql: loaded "), "{err}");
    assert_eq!(raw_rows(&dst), raw_rows(&src));
    // A dump of the copy is the dump of the original.
    assert_eq!(
        body(&stdout(on(&dst, None).args(["dump", "--all"]))),
        body(&dump)
    );
    // Where data is, it loads only with --force; it never loads elsewhere.
    let err = stderr(on(&dst, None).arg("load").arg(&file), 2);
    assert!(err.contains("the database is not empty"), "{err}");
    let other = dir.path().join("other.db");
    let err = stderr(
        on(&other, None).arg("load").arg(&file).args(["--to", "/x"]),
        2,
    );
    assert!(err.contains("drop --to"), "{err}");
}

#[test]
fn a_whole_dump_takes_the_system_keys_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src.db");
    on(&src, None)
        .args([
            "-w",
            "-q",
            "[system] 0xff022f6d79=\"mine\"",
            "-q",
            "/a(1)=1",
        ])
        .assert()
        .success();
    let without = stdout(on(&src, None).args(["dump", "--all"]));
    assert!(!without.contains("0xff02"), "{without}");
    let with = stdout(on(&src, None).args(["dump", "--all", "--system"]));
    assert!(with.contains("\n% raw 0xff022f6d79=\"mine\"\n"), "{with}");
    assert!(
        !with.contains("0xff2f6d65746164617461"),
        "no metadata version: {with}"
    );
    let dst = dir.path().join("dst.db");
    let file = dir.path().join("system.fql");
    std::fs::write(&file, &with).unwrap();
    on(&dst, None).arg("load").arg(&file).assert().success();
    assert_eq!(
        stdout(on(&dst, None).args(["-q", "[system] 0xff022f6d79"])),
        "0xff022f6d79=\"mine\"\n"
    );
    for args in [&["dump", "--system", "/a"][..], &["dump", "--all", "/a"]] {
        let err = stderr(on(&src, None).args(args), 2);
        assert!(
            err.contains("cannot be used with") || err.contains("give --all"),
            "{err}"
        );
    }
}
