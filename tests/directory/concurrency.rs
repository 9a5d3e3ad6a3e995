//! Many clients creating directories at once never share a prefix.
//!
//! The process test re-runs this test binary: each child runs the ignored
//! test `concurrency::child_creates_directories` against one SQLite file,
//! named by an environment variable, so the clients really are separate
//! processes with separate allocators.

use std::process::{Command, Stdio};
use std::sync::Barrier;
use std::thread;
use std::time::Duration;

use fql::directory::RandomCandidates;

use super::*;

const DB_VAR: &str = "FQL_DIRECTORY_TEST_DB";
const CHILD_VAR: &str = "FQL_DIRECTORY_TEST_CHILD";
const PROCESSES: usize = 4;
const PER_CLIENT: usize = 20;

/// Creates this client's directories, one transaction each, half of them
/// under a parent every client creates too; returns how many attempts the
/// transactions took, to show that they did contend. Every client draws
/// the same candidates, so they collide whenever they overlap and only the
/// allocator's conflict keys keep their prefixes apart.
fn create_many(db: &Embedded, client: usize) -> usize {
    let dirs = DirectoryLayer::new().with_candidates(RandomCandidates::seeded(11));
    let mut attempts = 0;
    for i in 0..PER_CLIENT {
        let name = format!("c{client}-{i}");
        let p = if i % 2 == 0 {
            path(&["shared", &name])
        } else {
            path(&[&name])
        };
        run(db, |tx| {
            attempts += 1;
            dirs.create(tx, &p, b"")
        })
        .unwrap();
    }
    attempts
}

/// Every directory's prefix, found by walking the tree.
fn all_prefixes(db: &Embedded) -> Vec<Vec<u8>> {
    let dirs = DirectoryLayer::new();
    let mut pending = vec![Vec::<String>::new()];
    let mut out = Vec::new();
    while let Some(p) = pending.pop() {
        for name in run(db, |tx| dirs.list(tx, &p)).unwrap() {
            let mut child = p.clone();
            child.push(name);
            out.push(
                run(db, |tx| dirs.open(tx, &child, b""))
                    .unwrap()
                    .prefix()
                    .unwrap()
                    .to_vec(),
            );
            pending.push(child);
        }
    }
    out
}

fn check(db: &Embedded, clients: usize) {
    let prefixes = all_prefixes(db);
    // Every client's directories plus `shared`.
    assert_eq!(prefixes.len(), clients * PER_CLIENT + 1);
    assert_prefix_free(&prefixes);
}

#[test]
#[ignore = "a child of processes_never_share_a_prefix"]
fn child_creates_directories() {
    let (Ok(file), Ok(client)) = (std::env::var(DB_VAR), std::env::var(CHILD_VAR)) else {
        return;
    };
    let db = Embedded::open(&file).unwrap();
    // Start together: the parent creates the go file once all are running.
    let go = format!("{file}.go");
    while !std::path::Path::new(&go).exists() {
        thread::sleep(Duration::from_millis(1));
    }
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
    let children: Vec<_> = (0..PROCESSES)
        .map(|client| {
            Command::new(&exe)
                .args([
                    "--ignored",
                    "--exact",
                    "concurrency::child_creates_directories",
                ])
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

#[test]
fn threads_never_share_a_prefix() {
    let db = Embedded::memory();
    let start = Barrier::new(4);
    thread::scope(|s| {
        for client in 0..4 {
            let (db, start) = (db.clone(), &start);
            s.spawn(move || {
                start.wait();
                eprintln!("{} attempts", create_many(&db, client));
            });
        }
    });
    check(&db, 4);
}

/// Two transactions that picked the same candidate: the later commit
/// fails, so it retries with another.
#[test]
fn the_same_candidate_twice_conflicts() {
    use fql::kv::Database;
    let db = Embedded::memory();
    run(&db, |tx| scripted(&[9]).create(tx, &["first"], b"")).unwrap();
    let mut t1 = db.create_trx().unwrap();
    let mut t2 = db.create_trx().unwrap();
    let x = scripted(&[5]).create(&mut *t1, &["x"], b"").unwrap();
    let y = scripted(&[5]).create(&mut *t2, &["y"], b"").unwrap();
    assert_eq!(x.prefix().unwrap(), y.prefix().unwrap());
    t1.commit().unwrap();
    assert_eq!(t2.commit().unwrap_err(), kv::Error::NotCommitted);
}

/// Two transactions with different candidates commit both: counting is an
/// atomic add and every other read is a snapshot or a key of its own.
#[test]
fn different_candidates_do_not_conflict() {
    use fql::kv::Database;
    let db = Embedded::memory();
    run(&db, |tx| scripted(&[9]).create(tx, &["first"], b"")).unwrap();
    let mut t1 = db.create_trx().unwrap();
    let mut t2 = db.create_trx().unwrap();
    scripted(&[5]).create(&mut *t1, &["x"], b"").unwrap();
    scripted(&[6]).create(&mut *t2, &["y"], b"").unwrap();
    t1.commit().unwrap();
    t2.commit().unwrap();
    let dirs = DirectoryLayer::new();
    assert_eq!(
        run(&db, |tx| dirs.list(tx, ROOT)).unwrap(),
        ["first", "x", "y"]
    );
    // Both allocations were counted.
    let counter = const_hex::decode("fe01fe00016863610014 14".replace(' ', "")).unwrap();
    let count = db.run(|tx, _| tx.get(&counter, false)).unwrap();
    assert_eq!(count, Some(3i64.to_le_bytes().to_vec()));
}
