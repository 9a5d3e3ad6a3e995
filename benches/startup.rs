//! Cold start of the `fql` binary: `fql --memory -q '/a(1)'`, from spawn to
//! exit, as a user's shell runs it. Target: at most 20 ms wall.
//!
//! `cargo bench --bench startup`. Criterion reports the time per run; the
//! best of 50 further runs is printed at the end against the target.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

fn run_once() -> Duration {
    let start = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_fql"))
        .args(["--memory", "-q", "/a(1)"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("fql runs");
    let elapsed = start.elapsed();
    assert!(status.success());
    elapsed
}

fn startup(c: &mut Criterion) {
    let mut g = c.benchmark_group("startup");
    g.sample_size(50);
    g.bench_function("memory query", |b| b.iter(run_once));
    g.finish();
    let best = (0..50).map(|_| run_once()).min().expect("runs");
    let mut all: Vec<_> = (0..50).map(|_| run_once()).collect();
    all.sort();
    eprintln!(
        "cold start `fql --memory -q '/a(1)'`: best {best:.2?}, median {:.2?} (target ≤ 20 ms)",
        all[all.len() / 2]
    );
}

criterion_group!(benches, startup);
criterion_main!(benches);
