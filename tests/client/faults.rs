//! `FQL_FAULTS` injected by the library: `fql -C` processes retry exactly
//! what FDB's `on_error` retries, never apply a write twice after
//! `commit_unknown_result`, and the mutex answers what happened under it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use libtest_mimic::Failed;

use super::{cluster_file, library, ran};

/// A database reached through the library, and the `fql` that reaches it.
struct Client {
    dir: tempfile::TempDir,
    db: PathBuf,
    cluster: PathBuf,
    fql: PathBuf,
    lib: PathBuf,
}

impl Client {
    fn new() -> Result<Client, Failed> {
        let lib = library()?;
        // The default build, the one this suite's cargo built.
        let fql = PathBuf::from(env!("CARGO_BIN_EXE_fql"));
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let cluster = cluster_file(dir.path())?;
        Ok(Client {
            db: dir.path().join("client.db"),
            dir,
            cluster,
            fql,
            lib,
        })
    }

    /// `fql -C cluster ARGS` with `faults` injected by the library.
    fn run(&self, faults: &str, args: &[&str]) -> Result<Output, Failed> {
        Command::new(&self.fql)
            .env("FDB_CLIENT_LIB_PATH", &self.lib)
            .env("FQL_FAULTS", faults)
            .env_remove("FDB_CLUSTER_FILE")
            .arg("-C")
            .arg(&self.cluster)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("fql -C did not start: {e}").into())
    }

    /// Fails unless the library injects faults for this client: a commit
    /// always reported unknown and never applied stops `fql -C` with
    /// exit 4, so a trial whose answers would also pass without faults
    /// cannot pass with none injected.
    fn injects(&self) -> Result<(), Failed> {
        let out = self.run("1021-unapplied:1", &["-w", "-q", "/probe(1)=1"])?;
        if out.status.code() != Some(4) {
            return Err(format!("no fault injected: {}", said(&out)).into());
        }
        Ok(())
    }

    /// `fql --db ARGS` on the file, without faults or the library.
    fn direct(&self, args: &[&str]) -> Result<String, Failed> {
        let out = ran(
            "fql --db",
            Command::new(env!("CARGO_BIN_EXE_fql"))
                .env_remove("FQL_FAULTS")
                .env_remove("FDB_CLUSTER_FILE")
                .arg("--db")
                .arg(&self.db)
                .args(args)
                .output(),
        )?;
        Ok(text(&out.stdout))
    }

    /// The values of `/log`'s rows, sorted.
    fn logged(&self) -> Result<Vec<u32>, Failed> {
        let shown = self.direct(&["-q", "/log(<vstamp>)=<int>"])?;
        let mut values = shown
            .lines()
            .map(|l| l.rsplit_once('=').and_then(|(_, v)| v.parse().ok()))
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(|| format!("rows of /log: {shown}"))?;
        values.sort();
        Ok(values)
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn said(out: &Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// A script of `n` versionstamped inserts, each its own transaction.
fn log_script(dir: &Path, n: u32) -> Result<PathBuf, Failed> {
    let path = dir.join("log.fql");
    let script: String = (0..n)
        .map(|i| format!("/log(#:0000)={i}\n@commit\n"))
        .collect();
    std::fs::write(&path, script).map_err(|e| e.to_string())?;
    Ok(path)
}

const STATEMENTS: u32 = 12;

/// Each code at a tenth of the reads or commits where FDB gives it: a code
/// `on_error` retries (as `fql::kv::retried_by_on_error` says) lets every
/// insert land once; one it does not fails the script with the code's
/// exit status, having written each insert at most once. Every code
/// every attempt: a retried one runs to the `--timeout` (1031, exit 5)
/// instead of failing at once with itself.
pub fn retried_as_on_error() -> Result<(), Failed> {
    let codes = [1007, 1009, 1020, 1031, 1037, 1078, 1213, 1235, 1242];
    let mut report = Vec::new();
    for code in codes {
        let c = Client::new()?;
        let script = log_script(c.dir.path(), STATEMENTS)?;
        let plan = format!("{code}:0.1;seed={code}");
        let out = c.run(&plan, &["-w", "-f", script.to_str().unwrap()])?;
        let rows = c.logged()?;
        let retried = fql::kv::retried_by_on_error(code);
        let want: Vec<u32> = (0..STATEMENTS).collect();
        if retried {
            if !out.status.success() || rows != want {
                return Err(
                    format!("{plan}: retried, but {} and rows {rows:?}", said(&out)).into(),
                );
            }
        } else {
            let unique = rows.windows(2).all(|w| w[0] != w[1]);
            let fails_clearly = out.status.code() == Some(5) && text(&out.stderr).contains("1031");
            if !fails_clearly || !unique || rows.len() == want.len() {
                return Err(
                    format!("{plan}: not retried, but {} and rows {rows:?}", said(&out)).into(),
                );
            }
        }
        let always = format!("{code}:1");
        let out = c.run(&always, &["--timeout", "0.5", "-w", "-q", "/always(1)=1"])?;
        // A retried code runs to the deadline, as fql's loop says; one
        // that is not fails the first attempt with itself.
        let kept_retrying = text(&out.stderr).contains("--timeout ran out while retrying");
        let own = text(&out.stderr).contains(&format!("({code})"));
        if out.status.code() != Some(5) || kept_retrying != retried || (!retried && !own) {
            return Err(format!("{always}: {}", said(&out)).into());
        }
        report.push(format!("{code}: {} rows", rows.len()));
    }
    eprintln!("{}", report.join(", "));
    Ok(())
}

/// Versionstamped inserts under commits reported unknown: the fdb
/// backend records no idempotency ids, so a statement either lands once
/// or stops the script with exit 4 and `fql::commit_unknown`'s words;
/// never a row twice. Plans: 1021 (either kind), applied, not applied.
pub fn unknown_results_land_once() -> Result<(), Failed> {
    let mut report = Vec::new();
    for plan in [
        "1021:0.5;seed=1",
        "1021:0.5;seed=2",
        "1021:0.5;seed=3",
        "1021-applied:0.5;seed=4",
        "1021-unapplied:0.5;seed=5",
    ] {
        let c = Client::new()?;
        c.injects()?;
        let script = log_script(c.dir.path(), STATEMENTS)?;
        let out = c.run(plan, &["-w", "-f", script.to_str().unwrap()])?;
        let rows = c.logged()?;
        let mut unique = rows.clone();
        unique.dedup();
        if unique != rows {
            return Err(format!("{plan}: a row twice: {rows:?}\n{}", said(&out)).into());
        }
        if !out.status.success()
            && (out.status.code() != Some(4)
                || !text(&out.stderr).contains("may or may not have committed"))
        {
            return Err(format!("{plan}: {}", said(&out)).into());
        }
        if out.status.success() && rows.len() != STATEMENTS as usize {
            return Err(format!("{plan}: succeeded with rows {rows:?}").into());
        }
        report.push(format!(
            "{plan}: exit {:?}, {} rows",
            out.status.code(),
            rows.len()
        ));
    }
    eprintln!("{}", report.join("; "));
    Ok(())
}

/// `mutex show`'s owner and token: none while no commit has made the
/// mutex's directory.
fn owner(c: &Client) -> Result<(String, String), Failed> {
    let out = Command::new(env!("CARGO_BIN_EXE_fql"))
        .env_remove("FQL_FAULTS")
        .env_remove("FDB_CLUSTER_FILE")
        .arg("--db")
        .arg(&c.db)
        .args(["mutex", "show", "/locks/m"])
        .output()
        .map_err(|e| format!("fql mutex show did not start: {e}"))?;
    super::mutex_show::owner_and_token_of(&out)
        .ok_or_else(|| format!("fql mutex show: {}", said(&out)).into())
}

/// `fql -C mutex try-acquire` and `release` with most commits reported
/// unknown: each answers what happened (the token it holds, a release
/// that freed the mutex), never "not acquired" for a grant that landed.
pub fn mutex_answers_what_happened() -> Result<(), Failed> {
    let timing = ["--heartbeat", "0.2", "--stale", "5"];
    for seed in 1..=3 {
        let c = Client::new()?;
        c.injects()?;
        let plan = format!("1021:0.8;seed={seed}");
        let mut take = vec!["mutex", "try-acquire", "/locks/m", "--name", "a"];
        take.extend(timing);
        let out = c.run(&plan, &take)?;
        let (who, token) = owner(&c)?;
        let printed = text(&out.stdout).trim().to_string();
        match out.status.code() {
            Some(0) if who == "a" && token == printed => {}
            Some(4) if text(&out.stderr).contains("may or may not have committed") => {}
            _ => {
                return Err(format!(
                    "try-acquire {plan}: {} (owner {who:?} {token:?})",
                    said(&out)
                )
                .into());
            }
        }
        if who != "a" {
            continue;
        }
        let mut release = vec!["mutex", "release", "/locks/m", "--name", "a"];
        release.extend(timing);
        let out = c.run(&plan, &release)?;
        let (who, _) = owner(&c)?;
        match out.status.code() {
            Some(0) if who == "none" => {}
            Some(4) if text(&out.stderr).contains("may or may not have committed") => {}
            _ => return Err(format!("release {plan}: {} (owner {who:?})", said(&out)).into()),
        }
    }
    Ok(())
}
