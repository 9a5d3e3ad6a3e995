//! Leader election through real `fql mutex elect` and `observe` processes.

use super::{TIMING, fql, signal, until_shown};
use crate::support::eventually::PATIENCE;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};

/// A process whose standard output is read line by line.
struct Lines {
    child: Child,
    lines: Receiver<String>,
}

impl Lines {
    fn spawn(db: &Path, args: &[&str]) -> Lines {
        let mut child = fql(db).args(args).stdout(Stdio::piped()).spawn().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Lines { child, lines }
    }

    /// The next line, within `PATIENCE`.
    fn next(&self, what: &str) -> String {
        self.lines
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|e| panic!("{what}: no line ({e})"))
    }

    /// Stops it with SIGTERM; its exit code.
    fn stop(self) -> Option<i32> {
        self.stop_with(nix::sys::signal::Signal::SIGTERM)
    }

    /// Stops it with `sig`; its exit code.
    fn stop_with(mut self, sig: nix::sys::signal::Signal) -> Option<i32> {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::kill(pid, sig);
        self.child.wait().unwrap().code()
    }
}

/// A candidate of the election in /locks/lead.
fn candidate(db: &Path, name: &str, more: &[&str]) -> Lines {
    let mut args = vec!["mutex", "elect", "/locks/lead", "--name", name];
    args.extend(TIMING);
    args.extend(more);
    Lines::spawn(db, &args)
}

/// The term a line `leader NAME term TOKEN` names.
fn term_of(line: &str, name: &str) -> String {
    let term = line
        .strip_prefix(&format!("leader {name} term "))
        .unwrap_or_else(|| panic!("{name} leads: {line}"));
    assert_eq!(term.len(), 24, "{line}");
    term.to_string()
}

/// Waits until `name` waits in the queue.
fn queued(db: &Path, name: &str) {
    until_shown(db, "/locks/lead", &format!(". {name} ("));
}

/// Two candidates: the leader resigns on SIGTERM, the other leads in a
/// higher term, and an observer prints each change in order.
#[test]
fn a_resigning_leader_hands_on_and_observe_prints_each_change() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let a = candidate(&db, "a", &[]);
    let term_a = term_of(&a.next("a"), "a");
    let observer = Lines::spawn(
        &db,
        &[
            "mutex",
            "observe",
            "/locks/lead",
            "--count",
            "2",
            "--format",
            "jsonl",
        ],
    );
    let first = observer.next("the leader found first");
    assert_eq!(first, format!(r#"{{"leader":"a","term":"{term_a}"}}"#));
    let b = candidate(&db, "b", &["--format", "json"]);
    queued(&db, "b");
    assert_eq!(a.stop(), Some(0), "a resigns and exits 0");
    let elected: serde_json::Value = serde_json::from_str(&b.next("b")).unwrap();
    assert_eq!(elected["leader"], "b");
    let term_b = elected["term"].as_str().unwrap().to_string();
    assert!(term_b > term_a, "term {term_b} after {term_a}");
    assert_eq!(
        observer.next("the change to b"),
        format!(r#"{{"leader":"b","term":"{term_b}"}}"#)
    );
    assert_eq!(b.stop(), Some(0));
    assert_eq!(
        observer.next("nobody leads"),
        r#"{"leader":null,"term":null}"#
    );
    let mut observer = observer.child;
    let status = observer.wait().unwrap();
    assert!(status.success(), "after --count 2 changes: {status:?}");
    let show = fql(&db)
        .args(["mutex", "show", "/locks/lead"])
        .output()
        .unwrap();
    let show = String::from_utf8(show.stdout).unwrap();
    assert!(
        show.contains("owner: none") && show.contains("queue: 0"),
        "{show}"
    );
}

/// A leader killed with SIGKILL never resigns: the next candidate takes
/// over once its heartbeat stood still (handed on by a reaper process).
#[test]
fn a_killed_leader_is_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let mut a = candidate(&db, "a", &[]);
    let term_a = term_of(&a.next("a"), "a");
    let b = candidate(&db, "b", &[]);
    queued(&db, "b");
    let mut reaper = fql(&db)
        .args(["mutex", "reap", "/locks/lead"])
        .args(TIMING)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    signal(&a.child, "-KILL");
    let _ = a.child.wait();
    let term_b = term_of(&b.next("b after a was killed"), "b");
    assert!(term_b > term_a, "term {term_b} after {term_a}");
    assert_eq!(b.stop(), Some(0));
    signal(&reaper, "-TERM");
    let _ = reaper.wait();
}

/// A candidate stopped while it waits (Ctrl-C) leaves the queue and exits
/// 0; one whose --wait passes exits 1; a leader stopped by SIGHUP
/// resigns; names print escaped.
#[test]
fn candidates_leave_no_trace_and_names_print_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let odd = "line\nbreak\u{1b}[31m";
    let leader = candidate(&db, odd, &[]);
    let line = leader.next("the odd name");
    assert!(
        line.starts_with(r#"leader "line\nbreak"#) && !line.contains('\u{1b}'),
        "{line:?}"
    );
    let observed = fql(&db)
        .args(["mutex", "observe", "/locks/lead", "--for", "0.2"])
        .output()
        .unwrap();
    assert!(observed.status.success(), "{observed:?}");
    assert_eq!(
        String::from_utf8(observed.stdout).unwrap(),
        format!("{line}\n")
    );
    let waiting = candidate(&db, "w", &[]);
    queued(&db, "w");
    let interrupted = waiting.stop_with(nix::sys::signal::Signal::SIGINT);
    assert_eq!(interrupted, Some(0), "a stopped candidate exits 0");
    let late = fql(&db)
        .args([
            "mutex",
            "elect",
            "/locks/lead",
            "--name",
            "late",
            "--wait",
            "0.3",
        ])
        .args(TIMING)
        .output()
        .unwrap();
    assert_eq!(late.status.code(), Some(1), "{late:?}");
    let show = fql(&db)
        .args(["mutex", "show", "/locks/lead"])
        .output()
        .unwrap();
    let show = String::from_utf8(show.stdout).unwrap();
    assert!(show.contains("queue: 0 waiting"), "{show}");
    let hung_up = leader.stop_with(nix::sys::signal::Signal::SIGHUP);
    assert_eq!(hung_up, Some(0));
    let show = fql(&db)
        .args(["mutex", "show", "/locks/lead"])
        .output()
        .unwrap();
    let show = String::from_utf8(show.stdout).unwrap();
    assert!(show.starts_with("owner: none"), "resigned: {show}");
}
