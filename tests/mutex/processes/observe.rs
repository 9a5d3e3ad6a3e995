//! Observing and administering a mutex whose clients are real `fql`
//! processes: a broken holder stops its command and its fenced write is
//! refused, a killed holder turns stale, `run --stats` reports.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use super::{TIMING, ends, fql, line_in};

/// Starts `fql mutex run` as `name` with a command that writes its token
/// to a file and then sleeps for up to `seconds`; returns the holder and
/// the token once the command started.
fn holder(db: &Path, name: &str, seconds: u32, extra: &[&str]) -> (Child, String) {
    let started = db.with_file_name(format!("{name}.token"));
    let child = fql(db)
        .args(["mutex", "run", "/locks/job", "--name", name])
        .args(TIMING)
        .args(extra)
        .args(["--grace", "1", "--", "sh", "-c"])
        .arg(format!(
            "echo $FQL_MUTEX_TOKEN > {}; for i in $(seq {}); do sleep 0.05; done",
            started.display(),
            seconds * 20
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let token = line_in(&started);
    (child, token)
}

/// Waits for `child` to end, within a generous deadline; its status and
/// standard error.
fn ended(mut child: Child) -> (std::process::ExitStatus, String) {
    let status = ends(&mut child, "the holder");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status, stderr)
}

/// `fql mutex show --format json` with `timing`.
fn shown(db: &Path, timing: &[&str]) -> serde_json::Value {
    let out = fql(db)
        .args(["mutex", "show", "/locks/job", "--format", "json"])
        .args(timing)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A write fenced with `token`: exit 0 only if it committed.
fn fenced_write(db: &Path, token: &str) -> std::process::Output {
    fql(db)
        .args(["-w", "-p", &format!("token=0x{token}"), "-q"])
        .arg("[exists] /locks/job(\"fence\")=:token\n/audit(\"late\")=1")
        .output()
        .unwrap()
}

#[test]
fn a_broken_holder_stops_its_command_and_its_fenced_write_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let db: PathBuf = tmp.path().join("fql.db");
    let (run, token) = holder(&db, "a", 60, &["--stats"]);
    let broke = fql(&db)
        .args(["mutex", "break", "-w", "/locks/job", "--format", "json"])
        .output()
        .unwrap();
    assert!(broke.status.success(), "{broke:?}");
    let broke: serde_json::Value = serde_json::from_slice(&broke.stdout).unwrap();
    assert_eq!(broke["previous_owner"], "a");
    assert_eq!(broke["owner"], serde_json::Value::Null);
    let new = broke["token"].as_str().unwrap();
    assert!(new > token.as_str(), "token {new} after {token}");
    // The holder's next heartbeat finds no owner: it stops its command
    // long before the command's own three seconds.
    let (status, stderr) = ended(run);
    assert!(!status.success(), "{status:?}: {stderr}");
    assert!(stderr.contains("lost the mutex"), "{stderr}");
    assert!(stderr.contains(", lost the mutex\n"), "the stats: {stderr}");
    // Its token no longer fences: the write is refused and nothing lands.
    let late = fenced_write(&db, &token);
    assert_eq!(late.status.code(), Some(1), "{late:?}");
    let audit = fql(&db).args(["-q", "/audit(...)"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&audit.stdout), "");
    // The new token fences.
    assert!(fenced_write(&db, new).status.success());
}

#[test]
fn a_killed_holder_turns_stale_in_show() {
    let tmp = tempfile::tempdir().unwrap();
    let db: PathBuf = tmp.path().join("fql.db");
    let (mut run, _) = holder(&db, "a", 3, &[]);
    // Judged with the default staleness, 5 s, so that a loaded machine
    // that delays a beat does not make it stale.
    let live = shown(&db, &[]);
    assert_eq!(live["owner"]["name"], "a");
    assert_eq!(live["owner"]["verdict"], "live", "{live}");
    run.kill().unwrap();
    run.wait().unwrap();
    std::thread::sleep(Duration::from_millis(800));
    // Another commit, so that a backend whose read version is its last
    // commit's has moved on too.
    let out = fql(&db)
        .args(["-w", "-q", "/elsewhere(1)=1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stale = shown(&db, &TIMING);
    assert_eq!(stale["owner"]["verdict"], "stale", "{stale}");
    let age = stale["owner"]["heartbeat_age_s"].as_f64().unwrap();
    assert!(age >= 0.8, "{stale}");
    assert!(stale["owner"]["held_s"].as_f64().unwrap() >= age, "{stale}");
}

#[test]
fn run_stats_reports_the_wait_the_hold_and_the_heartbeats() {
    let tmp = tempfile::tempdir().unwrap();
    let db: PathBuf = tmp.path().join("fql.db");
    let out = fql(&db)
        .args(["mutex", "run", "/locks/job", "--name", "a", "--stats"])
        .args(TIMING)
        .args(["--format", "json", "--", "sleep", "0.5"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let stats: serde_json::Value = serde_json::from_str(stderr.trim()).unwrap();
    assert_eq!(stats["lost"], false);
    assert!(stats["held_s"].as_f64().unwrap() >= 0.5, "{stats}");
    assert!(stats["waited_s"].as_f64().is_some(), "{stats}");
    assert!(stats["heartbeats"].as_u64().unwrap() >= 1, "{stats}");
    assert_eq!(stats["token"].as_str().map(str::len), Some(24));
}

#[test]
fn a_reaper_reports_in_json() {
    let tmp = tempfile::tempdir().unwrap();
    let db: PathBuf = tmp.path().join("fql.db");
    // An owner that never beats.
    let out = fql(&db)
        .args(["mutex", "try-acquire", "/locks/job", "--name", "gone"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut reaper = fql(&db)
        .args(["mutex", "reap", "/locks/job", "--format", "json"])
        .args(TIMING)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    let mut stdout = std::io::BufReader::new(reaper.stdout.take().unwrap());
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    let _ = reaper.kill();
    let _ = reaper.wait();
    let line: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(
        line,
        serde_json::json!({"event": "reaped_owner", "name": "gone"})
    );
}
