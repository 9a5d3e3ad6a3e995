//! `FQL_FAULTS`: the embedded database failing as FoundationDB does,
//! with real `fql` processes. Writes land once however their commits are
//! reported, and the mutex never says "not held" of a grant or release
//! that happened.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use assert_cmd::cargo::cargo_bin;

use super::text;
use crate::support::eventually::eventually;

fn fql(db: &Path, faults: Option<&str>) -> Command {
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.env_remove("FDB_CLUSTER_FILE")
        .env_remove("FQL_FAULTS")
        .arg("--db")
        .arg(db);
    if let Some(plan) = faults {
        cmd.env("FQL_FAULTS", plan);
    }
    cmd
}

fn run(cmd: &mut Command) -> Output {
    cmd.stdin(Stdio::null()).output().expect("fql runs")
}

#[test]
fn a_plan_that_cannot_be_read_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    for (plan, says) in [
        (
            "1020@read:0.1",
            "fql: FQL_FAULTS: \"1020@read:0.1\": not_committed (1020) happens only at commit",
        ),
        ("1020:2", "\"2\" is not a rate"),
        (
            "1025:0.1",
            "transaction_cancelled (1025) is not a fault fql injects",
        ),
        ("1020:0.1;sede=4", "no setting \"sede\""),
    ] {
        let out = run(fql(&db, Some(plan)).args(["-w", "-q", "/a(1)=2"]));
        assert_eq!(out.status.code(), Some(2), "{plan}");
        assert!(
            text(&out.stderr).contains(says),
            "{plan}: {}",
            text(&out.stderr)
        );
    }
    assert!(!db.exists(), "nothing was opened");
    let out = run(Command::new(cargo_bin("fql"))
        .env("FQL_FAULTS", "1020:0.1")
        .args(["--fdb", "status"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("injects faults into the embedded database only"));
}

/// The values of `/log`'s rows.
fn logged(db: &Path) -> Vec<String> {
    let out = run(fql(db, None).args(["-q", "/log(<vstamp>)=<int>"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut values: Vec<String> = text(&out.stdout)
        .lines()
        .map(|l| l.rsplit_once('=').expect("a row").1.to_string())
        .collect();
    values.sort();
    values
}

/// Statements appending under a new versionstamp, each its own
/// transaction, with half the commits reported unknown (applied or not):
/// each leaves exactly one row. Without idempotency ids the database
/// cannot tell, and fql stops rather than write a row twice.
#[test]
fn versionstamped_inserts_land_once_per_statement() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("log.fql");
    let statements = 12;
    let text_of: String = (0..statements)
        .map(|n| format!("/log(#:0000)={n}\n@commit\n"))
        .collect();
    std::fs::write(&script, text_of).unwrap();
    for seed in 1..=3 {
        let db = dir.path().join(format!("ids-{seed}.db"));
        let plan = format!("1021:0.6,1020:0.1;seed={seed}");
        let out = run(fql(&db, Some(&plan)).arg("-w").arg("-f").arg(&script));
        assert!(out.status.success(), "{plan}: {}", text(&out.stderr));
        let mut want: Vec<String> = (0..statements).map(|n| n.to_string()).collect();
        want.sort();
        assert_eq!(logged(&db), want, "{plan}");
    }
    for seed in 1..=3 {
        let db = dir.path().join(format!("no-ids-{seed}.db"));
        let plan = format!("1021:0.6;ids=off;seed={seed}");
        let out = run(fql(&db, Some(&plan)).arg("-w").arg("-f").arg(&script));
        let values = logged(&db);
        let mut unique = values.clone();
        unique.dedup();
        assert_eq!(values, unique, "{plan}: no row twice");
        if !out.status.success() {
            assert_eq!(out.status.code(), Some(4), "{plan}");
            assert!(
                text(&out.stderr).contains("may or may not have committed"),
                "{plan}: {}",
                text(&out.stderr)
            );
        }
    }
}

/// `fql mutex show`'s owner and token, without faults.
fn owner(db: &Path) -> (String, String) {
    let out = run(fql(db, None).args(["mutex", "show", "/locks/m"]));
    super::mutex_show::owner_and_token_of(&out)
        .unwrap_or_else(|| panic!("mutex show: {}", text(&out.stderr)))
}

/// A client takes the mutex, another waits for it, the first releases
/// it: every step's commits reported unknown more often than not, in
/// separate processes. Each command's answer agrees with the mutex:
/// try-acquire prints the token it holds, release succeeds and hands the
/// mutex to the waiter, which prints the token it then holds; never
/// "not acquired" or "does not hold" for what happened. With and without
/// the database telling whether a commit landed.
#[test]
fn mutex_answers_agree_with_the_mutex_under_unknown_results() {
    let dir = tempfile::tempdir().unwrap();
    let timing = ["--heartbeat", "0.2", "--stale", "5"];
    for (n, ids) in [(1, ""), (2, ""), (3, ";ids=off"), (4, ";ids=off")] {
        let db = dir.path().join(format!("m{n}.db"));
        let faults = |who: u64| format!("1021:0.8;seed={}{ids}", n * 10 + who);
        let mut take = fql(&db, Some(&faults(1)));
        let out = run(take
            .args(["mutex", "try-acquire", "/locks/m", "--name", "a"])
            .args(timing));
        assert!(
            out.status.success(),
            "try-acquire {n}: {}",
            text(&out.stderr)
        );
        let token = text(&out.stdout).trim().to_string();
        assert_eq!(
            owner(&db),
            ("a".to_string(), token),
            "after try-acquire {n}"
        );

        let waiter = fql(&db, Some(&faults(2)))
            .args([
                "mutex",
                "acquire",
                "/locks/m",
                "--name",
                "b",
                "--wait",
                "60",
                "--timeout",
                "60",
            ])
            .args(timing)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        eventually("b queued", || {
            text(&run(fql(&db, None).args(["mutex", "show", "/locks/m"])).stdout)
                .contains("queue: 1 waiting")
        });

        let out = run(fql(&db, Some(&faults(3)))
            .args(["mutex", "release", "/locks/m", "--name", "a"])
            .args(timing));
        assert!(out.status.success(), "release {n}: {}", text(&out.stderr));

        let out = waiter.wait_with_output().unwrap();
        assert!(out.status.success(), "acquire {n}: {}", text(&out.stderr));
        let token = text(&out.stdout).trim().to_string();
        assert_eq!(owner(&db), ("b".to_string(), token), "after acquire {n}");
    }
}
