//! Many clients creating directories at once never share a prefix.
//!
//! The process test re-runs this test binary: each child runs the ignored
//! test `child_creates_directories` against one SQLite file,
//! named by an environment variable, so the clients really are separate
//! processes with separate allocators.

use std::process::{Command, Stdio};

use fql::kv::embedded::Embedded;

use super::clients::{PER_CLIENT, check, create_many};
use crate::support::eventually::eventually;

const DB_VAR: &str = "FQL_DIRECTORY_TEST_DB";
const CHILD_VAR: &str = "FQL_DIRECTORY_TEST_CHILD";
const PROCESSES: usize = 4;

#[test]
#[ignore = "a child of processes_never_share_a_prefix"]
fn child_creates_directories() {
    let (Ok(file), Ok(client)) = (std::env::var(DB_VAR), std::env::var(CHILD_VAR)) else {
        return;
    };
    let db = Embedded::open(&file).unwrap();
    // Start together: the parent creates the go file once all are running.
    let go = format!("{file}.go");
    eventually("the go file", || std::path::Path::new(&go).exists());
    let attempts = create_many(&db, client.parse().unwrap());
    println!("attempts: {attempts}");
}

#[test]
fn processes_never_share_a_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dirs.db");
    // Create the file first so the children do not race to set it up.
    drop(Embedded::open(&file).unwrap());
    let exe = std::env::current_exe().unwrap();
    // This module's path, less the test binary's name that starts it.
    let here = module_path!().split_once("::").map_or("", |(_, p)| p);
    let name = format!("{here}::child_creates_directories");
    let children: Vec<_> = (0..PROCESSES)
        .map(|client| {
            Command::new(&exe)
                .args(["--ignored", "--exact", &name])
                .args(["--test-threads=1", "--quiet", "--nocapture"])
                .env(DB_VAR, &file)
                .env(CHILD_VAR, client.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    std::fs::write(dir.path().join("dirs.db.go"), b"").unwrap();
    let mut attempts = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "a child failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("1 passed"), "{stdout}");
        attempts += stdout
            .lines()
            .find_map(|l| l.strip_prefix("attempts: "))
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
    }
    eprintln!("{attempts} attempts for {} creates", PROCESSES * PER_CLIENT);
    check(&Embedded::open(&file).unwrap(), PROCESSES);
}
