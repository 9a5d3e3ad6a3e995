//! Baselines of the raw embedded backend, through the transaction
//! interface: what the executor's overhead is later judged against.
//!
//! `cargo bench --bench kv`. Inserts commit 10,000 keys per transaction
//! (well inside FDB's 10 MB limit), durable on the file backend.
//!
//! `memory/conflict_100k` is what a transaction's sets of key ranges cost
//! end to end: 100,000 reads at scattered keys, each adding a read
//! conflict range out of order, and ten range clears with a forward and a
//! reverse read of 10,000 rows each across them, then a commit checked
//! against a write made meanwhile. `FQL_BENCH_ONCE=1` runs that once and
//! nothing else, for instruction counts under `valgrind --tool=callgrind`.
//!
//! `FQL_BENCH_WRITES=file` (or `memory`) runs a fixed workload once and
//! nothing else, each part in a function of its own for callgrind to
//! count: [`write_new`] sets 100,000 new keys in ten commits,
//! [`overwrite`] sets them again, [`read_back`] scans them and reads
//! each, and [`clear_all`] clears them with one range clear: what the
//! undo table (reads at older versions) adds to each.
//!
//! `FQL_BENCH_STEADY=SECONDS` writes steadily to a file for that long (a
//! commit of 100 random keys out of 100,000, 16-byte values, every 10 ms)
//! and prints the file's size (with its WAL) and the rows of its tables:
//! what the undo table keeps under a steady load.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group};
use fql::kv::embedded::Embedded;
use fql::kv::{Database, DatabaseExt, Error, RangeCursor, RangeOption, StreamingMode};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const ROWS: u32 = 1_000_000;
const PER_TX: u32 = 10_000;
const GETS: u32 = 100_000;

fn key(i: u32) -> [u8; 8] {
    let mut k = *b"k\0\0\0\0\0\0\0";
    k[4..].copy_from_slice(&i.to_be_bytes());
    k
}

fn insert(db: &dyn Database, rows: u32) {
    for start in (0..rows).step_by(PER_TX as usize) {
        db.run(|tx, _| {
            for i in start..(start + PER_TX).min(rows) {
                tx.set(&key(i), b"value-of-16-byte")?;
            }
            Ok::<_, Error>(())
        })
        .unwrap();
    }
}

fn scan(db: &dyn Database) -> usize {
    let mut tx = db.create_trx().unwrap();
    let range = RangeOption::new(&b"k"[..], &b"l"[..]).mode(StreamingMode::WantAll);
    let mut cursor = RangeCursor::new(range, true);
    let mut n = 0;
    while let Some(batch) = cursor.next_batch(&mut *tx).unwrap() {
        n += black_box(batch).len();
    }
    n
}

fn gets(db: &dyn Database) {
    let mut tx = db.create_trx().unwrap();
    let mut x = 12345u32;
    for _ in 0..GETS {
        // A cheap pseudo-random walk over the keys.
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        black_box(tx.get(&key(x % ROWS), true).unwrap());
    }
}

/// Reads that keep conflict ranges, range clears and reads across them in
/// one transaction, committed after another wrote: see the module doc.
/// Not inlined, so that callgrind can count it alone.
#[inline(never)]
fn conflicts(db: &dyn Database) -> usize {
    let mut tx = db.create_trx().unwrap();
    let mut x = 54321u32;
    for _ in 0..GETS {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        black_box(tx.get(&key(x % ROWS), false).unwrap());
    }
    let mut read = 0;
    for n in 0..10u32 {
        let at = n * (ROWS / 10);
        tx.clear_range(&key(at + 100), &key(at + 200)).unwrap();
        for reverse in [false, true] {
            let mut range = RangeOption::new(&key(at)[..], &key(at + 10_000)[..]);
            range.reverse = reverse;
            let mut cursor = RangeCursor::new(range, false);
            while let Some(batch) = cursor.next_batch(&mut *tx).unwrap() {
                read += black_box(batch).len();
            }
        }
    }
    db.run(|other, _| other.set(b"other", b"1")).unwrap();
    tx.set(b"mine", b"1").unwrap();
    tx.commit().unwrap();
    read
}

const WRITES: u32 = 100_000;

#[inline(never)]
fn write_new(db: &dyn Database) {
    insert(db, WRITES);
}

#[inline(never)]
fn overwrite(db: &dyn Database) {
    insert(db, WRITES);
}

#[inline(never)]
fn read_back(db: &dyn Database) -> usize {
    let mut tx = db.create_trx().unwrap();
    let mut n = 0;
    for i in 0..WRITES {
        n += black_box(tx.get(&key(i), true).unwrap()).map_or(0, |v| v.len());
    }
    n + scan(db)
}

#[inline(never)]
fn clear_all(db: &dyn Database) {
    db.run(|tx, _| tx.clear_range(b"k", b"l")).unwrap();
}

/// The steady write load of the module doc, for `seconds`.
fn steady(seconds: u64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("steady.db");
    let db = Embedded::open(&path).unwrap();
    insert(&db, WRITES);
    let start = Instant::now();
    let mut x = 777u32;
    let mut commits = 0;
    while start.elapsed() < Duration::from_secs(seconds) {
        let next = start + Duration::from_millis(10 * (commits + 1));
        db.run(|tx, _| {
            for _ in 0..100 {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                tx.set(&key(x % WRITES), b"value-of-16-byte")?;
            }
            Ok::<_, Error>(())
        })
        .unwrap();
        commits += 1;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let count = |table: &str| -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap_or(-1)
    };
    let size = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        std::fs::metadata(name).map_or(0, |m| m.len())
    };
    println!(
        "{commits} commits in {seconds} s: file {} bytes, WAL {} bytes; rows: kv {}, commits {}, undo {}",
        size(""),
        size("-wal"),
        count("kv"),
        count("commits"),
        count("undo"),
    );
}

/// The fixed write workload of the module doc, on `kind`.
fn writes_once(kind: &str) {
    let dir = tempfile::tempdir().unwrap();
    let db = match kind {
        "memory" => Embedded::memory(),
        _ => Embedded::open(dir.path().join("writes.db")).unwrap(),
    };
    write_new(&db);
    overwrite(&db);
    assert_eq!(read_back(&db), 17 * WRITES as usize);
    clear_all(&db);
}

fn backends() -> (tempfile::TempDir, Vec<(&'static str, Embedded)>) {
    let dir = tempfile::tempdir().unwrap();
    let file = Embedded::open(dir.path().join("bench.db")).unwrap();
    (dir, vec![("file", file), ("memory", Embedded::memory())])
}

fn bench(c: &mut Criterion) {
    let (dir, dbs) = backends();
    let mut g = c.benchmark_group("kv");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for (name, db) in &dbs {
        g.throughput(Throughput::Elements(u64::from(ROWS)));
        g.bench_function(format!("{name}/insert_1m_sequential"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    db.run(|tx, _| tx.clear_range(b"k", b"l")).unwrap();
                    let start = Instant::now();
                    insert(db, ROWS);
                    total += start.elapsed();
                }
                total
            })
        });
        // The rows the insert benchmark left, or new ones when it was
        // filtered out.
        if scan(db) != ROWS as usize {
            insert(db, ROWS);
        }
        g.bench_function(format!("{name}/scan_1m"), |b| b.iter(|| scan(db)));
        g.throughput(Throughput::Elements(u64::from(GETS)));
        g.bench_function(format!("{name}/get_100k"), |b| b.iter(|| gets(db)));
        if *name == "memory" {
            g.bench_function("memory/conflict_100k", |b| b.iter(|| conflicts(db)));
        }
    }
    g.finish();

    // Watch latency: from a commit by another handle of the file to the
    // watcher waking.
    let path = dir.path().join("bench.db");
    let writer = Embedded::open(&path).unwrap();
    let watcher = &dbs[0].1;
    let mut g = c.benchmark_group("watch");
    g.sample_size(20);
    let mut value = 0u64;
    g.bench_function("file/latency", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                // Every write must change the value, or no watch fires.
                value += 1;
                let mut tx = watcher.create_trx().unwrap();
                let mut w = tx.watch(b"w").unwrap();
                tx.commit().unwrap();
                // Let the watch settle so only the commit is timed.
                std::thread::sleep(Duration::from_millis(30));
                let start = Instant::now();
                writer
                    .run(|tx, _| tx.set(b"w", &value.to_be_bytes()))
                    .unwrap();
                assert!(w.wait(Some(Duration::from_secs(5))).unwrap());
                total += start.elapsed();
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    if let Some(seconds) = std::env::var("FQL_BENCH_STEADY")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        steady(seconds);
        return;
    }
    if let Ok(kind) = std::env::var("FQL_BENCH_WRITES") {
        writes_once(&kind);
        return;
    }
    if std::env::var_os("FQL_BENCH_ONCE").is_some() {
        let db = Embedded::memory();
        insert(&db, ROWS);
        assert_eq!(conflicts(&db), 10 * 2 * 9_900);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
