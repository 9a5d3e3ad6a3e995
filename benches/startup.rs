//! Cold start of the `fql` binary, from spawn to exit, as a user's shell
//! runs it: `fql --memory -q '/a(1)'`, and the same read on a database
//! file (`--db`), which adds opening the file and checking what it holds.
//! Target: at most 20 ms wall.
//!
//! `cargo bench --bench startup`. Criterion reports the time per run; the
//! best of 50 further runs of each is printed at the end against the
//! target.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

fn run_once(store: &[&str]) -> Duration {
    let start = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_fql"))
        .args(store)
        .args(["-q", "/a(1)"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("fql runs");
    let elapsed = start.elapsed();
    assert!(status.success());
    elapsed
}

fn report(what: &str, store: &[&str]) {
    let best = (0..50).map(|_| run_once(store)).min().expect("runs");
    let mut all: Vec<_> = (0..50).map(|_| run_once(store)).collect();
    all.sort();
    eprintln!(
        "cold start, {what}: best {best:.2?}, median {:.2?} (target ≤ 20 ms)",
        all[all.len() / 2]
    );
}

fn startup(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("fql.db");
    let file = ["--db", path(&db)];
    // The file exists, as it does for every start but the first.
    run_once(&file);
    let mut g = c.benchmark_group("startup");
    g.sample_size(50);
    g.bench_function("memory query", |b| b.iter(|| run_once(&["--memory"])));
    g.bench_function("file query", |b| b.iter(|| run_once(&file)));
    g.finish();
    report("`fql --memory -q '/a(1)'`", &["--memory"]);
    report("`fql --db FILE -q '/a(1)'`", &file);
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

criterion_group!(benches, startup);
criterion_main!(benches);
