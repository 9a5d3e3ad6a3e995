//! The engine against the raw backend it runs on, in one run:
//!
//! - `read`: a range read of 1M key-values through parse, plan, decode,
//!   filter and canonical printing into a sink, against a raw scan of the
//!   same range (target: raw ÷ engine ≥ 0.5);
//! - peak heap of that read at 250k, 500k and 1M rows (target: ≤ 64 MB,
//!   flat as the range grows);
//! - `write`: 1M sets written by a script, 10,000 per transaction, against
//!   raw inserts of the same keys and values (target: raw ÷ engine ≥ 0.5).
//!
//! - `join/point_read`: a script that reads 100,000 rows of one directory
//!   and, for each, reads one key of another by the value the row bound
//!   (`/join_ids(<id:int>)` then `/join_rows(:id)=<str>`), printing the
//!   100,000 rows it finds: what binding a row's values into a planned
//!   statement costs, per row. `FQL_BENCH_ONCE=1` runs it once and
//!   nothing else, for instruction counts under `valgrind --tool=callgrind`.
//!
//! - `directories/N`: N directories created in one transaction on a file,
//!   `/d1(1)=1` to `/dN(1)=1`, for N from 1,250 to 10,000 (target: linear;
//!   the report prints the time per directory at each N, which should
//!   stay flat).
//!
//! - `dircache/{cached,uncached}`: `/a/b/c(1)=<>` read in 200 separate
//!   transactions by one engine, with the directory cache and without;
//!   the report prints the point reads (the sequential round trips on
//!   FDB) each transaction made, and the time per transaction
//!   (`FQL_BENCH_DIRCACHE=1` prints that report alone;
//!   `FQL_BENCH_DIRCACHE=cached` or `uncached` runs that side once, for
//!   instruction counts under callgrind).
//!
//! The engine reads a long range ahead: it fetches each batch on a second
//! thread while it prints the one before (see `docs/engine.md`), so its
//! read keeps two cores busy where the raw scan keeps one.
//!
//! `cargo bench --bench engine`. The ratios are printed at the end, each
//! from the best of three runs of both sides, taken one after the other.

use std::alloc::{GlobalAlloc, Layout};
use std::fmt::Write as _;
use std::hint::black_box;
use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group};
use fql::directory::DirectoryLayer;
use fql::exec::{Each, Engine, Found};
use fql::kv::embedded::Embedded;
use fql::kv::{Database, DatabaseExt, Error, RangeCursor, RangeOption, StreamingMode};

#[path = "../tests/support/hooked.rs"]
mod hooked;

/// mimalloc, counting, while [`COUNTING`] is on, the bytes allocated
/// since it was turned on, less those freed, and their peak. Off, it costs
/// a load: the timed runs share no counter between threads.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static NET: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn count(bytes: isize) {
    if COUNTING.load(Ordering::Relaxed) {
        let now = NET.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { mimalloc::MiMalloc.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
    }
}

/// The most heap `f` held at once, above what there was before it.
fn peak_heap(f: impl FnOnce()) -> usize {
    NET.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::SeqCst);
    f();
    COUNTING.store(false, Ordering::SeqCst);
    PEAK.load(Ordering::Relaxed) as usize
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const ROWS: usize = 1_000_000;
const PER_TX: usize = 10_000;
const VALUE: &str = "value-of-16-byte";

/// The script that writes `rows` key-values, `@commit` every 10,000.
fn write_script(rows: usize) -> String {
    let mut s = String::with_capacity(rows * 40);
    for i in 0..rows {
        if i > 0 && i % PER_TX == 0 {
            s.push_str("@commit\n");
        }
        writeln!(s, "/bench({i},\"k\")=\"{VALUE}\"").unwrap();
    }
    s
}

fn run_script(engine: &Engine, src: &str, sink: &mut impl std::io::Write) -> usize {
    let script = fql::check::load(src).expect("a valid script");
    let plan = fql::plan::plan(&script, &Default::default()).expect("a plan");
    let mut n = 0;
    // Lines are collected and written in large pieces, as `fql` prints
    // to a pipe or a file.
    let mut pending = Vec::new();
    engine
        .run(
            &plan,
            &mut Each(|found: Found<'_>| {
                n += 1;
                found.write_to(&mut pending);
                pending.push(b'\n');
                if pending.len() >= 1 << 16 {
                    sink.write_all(&pending).expect("the sink takes it");
                    pending.clear();
                }
                Ok(())
            }),
        )
        .expect("runs");
    sink.write_all(&pending).expect("the sink takes it");
    n
}

/// A database holding `rows` key-values in `/bench`.
fn filled(rows: usize) -> (Arc<dyn Database>, Vec<u8>) {
    let db: Arc<dyn Database> = Arc::new(Embedded::memory());
    let engine = Engine::new(db.clone());
    run_script(&engine, &write_script(rows), &mut std::io::sink());
    let prefix = db
        .run(|tx, _| DirectoryLayer::new().open(tx, &["bench"], b""))
        .expect("/bench exists")
        .prefix()
        .expect("a plain directory")
        .to_vec();
    (db, prefix)
}

fn engine_read(db: &Arc<dyn Database>) -> usize {
    let engine = Engine::new(db.clone());
    run_script(&engine, "/bench(<int>,<str>)=<str>", &mut std::io::sink())
}

/// The same read on one thread: a read with a limit does not read ahead.
fn engine_read_one_thread(db: &Arc<dyn Database>) -> usize {
    let engine = Engine::new(db.clone());
    let script = format!("[limit:{ROWS}] /bench(<int>,<str>)=<str>");
    run_script(&engine, &script, &mut std::io::sink())
}

fn raw_read(db: &Arc<dyn Database>, prefix: &[u8]) -> usize {
    let mut tx = db.create_trx().unwrap();
    let range = RangeOption::prefix(prefix).mode(StreamingMode::Iterator);
    let mut cursor = RangeCursor::new(range, false);
    let mut n = 0;
    while let Some(batch) = cursor.next_batch(&mut *tx).unwrap() {
        n += black_box(batch).len();
    }
    n
}

/// The keys and values the write script makes, encoded.
fn raw_rows(prefix: &[u8], rows: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    use fql::syntax::ast::{Elem, ElemKind, Int, Span};
    let elem = |kind| Elem {
        kind,
        span: Span::default(),
    };
    (0..rows)
        .map(|i| {
            let key = [
                elem(ElemKind::Int(Int::Small(i as i64))),
                elem(ElemKind::Str("k".into())),
            ];
            let key = fql::codec::encode_key(prefix, &key).unwrap().bytes;
            let value =
                fql::codec::encode_value(&elem(ElemKind::Str(VALUE.into())), &Default::default())
                    .unwrap()
                    .bytes;
            (key, value)
        })
        .collect()
}

fn raw_write(db: &dyn Database, rows: &[(Vec<u8>, Vec<u8>)]) {
    for chunk in rows.chunks(PER_TX) {
        db.run(|tx, _| {
            for (k, v) in chunk {
                tx.set(k, v)?;
            }
            Ok::<_, Error>(())
        })
        .unwrap();
    }
}

fn best_of_three(mut f: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let (db, prefix) = filled(ROWS);
    assert_eq!(engine_read(&db), ROWS);
    assert_eq!(engine_read_one_thread(&db), ROWS);
    assert_eq!(raw_read(&db, &prefix), ROWS);

    let mut g = c.benchmark_group("engine");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(ROWS as u64));
    g.bench_function("read/engine", |b| b.iter(|| engine_read(&db)));
    g.bench_function("read/raw", |b| b.iter(|| raw_read(&db, &prefix)));
    let script = write_script(ROWS);
    g.bench_function("write/engine", |b| {
        b.iter(|| {
            let engine = Engine::new(Arc::new(Embedded::memory()));
            run_script(&engine, &script, &mut std::io::sink())
        })
    });
    let rows = raw_rows(&prefix, ROWS);
    g.bench_function("write/raw", |b| {
        b.iter(|| raw_write(&Embedded::memory(), &rows))
    });
    g.finish();

    // Ratios and memory, measured here, one side after the other.
    let engine = best_of_three(|| {
        engine_read(&db);
    });
    let raw = best_of_three(|| {
        raw_read(&db, &prefix);
    });
    let one_thread = best_of_three(|| {
        engine_read_one_thread(&db);
    });
    let mut report = String::new();
    writeln!(
        report,
        "read 1M: engine {engine:.2?}, raw {raw:.2?}, raw/engine = {:.2}",
        raw.as_secs_f64() / engine.as_secs_f64()
    )
    .unwrap();
    writeln!(
        report,
        "read 1M without reading ahead: engine {one_thread:.2?}, raw/engine = {:.2}",
        raw.as_secs_f64() / one_thread.as_secs_f64()
    )
    .unwrap();
    let engine_w = best_of_three(|| {
        let engine = Engine::new(Arc::new(Embedded::memory()));
        run_script(&engine, &script, &mut std::io::sink());
    });
    let raw_w = best_of_three(|| raw_write(&Embedded::memory(), &rows));
    writeln!(
        report,
        "write 1M: engine {engine_w:.2?}, raw {raw_w:.2?}, raw/engine = {:.2}",
        raw_w.as_secs_f64() / engine_w.as_secs_f64()
    )
    .unwrap();
    drop((db, rows, script));
    for n in [250_000, 500_000, ROWS] {
        let (db, _) = filled(n);
        let peak = peak_heap(|| {
            engine_read(&db);
        });
        writeln!(
            report,
            "read {n}: peak heap above the stored data {:.1} MB",
            peak as f64 / 1e6
        )
        .unwrap();
    }
    std::io::stderr().write_all(report.as_bytes()).unwrap();
}

const JOINED: usize = 100_000;

/// A database holding `rows` ids in `/join_ids` and a row for each in
/// `/join_rows`.
fn joined(rows: usize) -> Engine {
    let engine = Engine::new(Arc::new(Embedded::memory()));
    let mut script = String::new();
    for i in 0..rows {
        if i > 0 && i % PER_TX == 0 {
            script.push_str("@commit\n");
        }
        writeln!(script, "/join_ids({i})=nil\n/join_rows({i})=\"{VALUE}\"").unwrap();
    }
    run_script(&engine, &script, &mut std::io::sink());
    engine
}

/// The point-read join over every id; how many rows it printed. Not
/// inlined, so that callgrind can count it alone.
#[inline(never)]
fn point_read_join(engine: &Engine) -> usize {
    let script = "/join_ids(<id:int>)\n/join_rows(:id)=<str>";
    run_script(engine, script, &mut std::io::sink())
}

fn joins(c: &mut Criterion) {
    let engine = joined(JOINED);
    assert_eq!(point_read_join(&engine), JOINED);
    let mut g = c.benchmark_group("join");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(JOINED as u64));
    g.bench_function("point_read", |b| b.iter(|| point_read_join(&engine)));
    g.finish();
}

/// The script that creates `n` directories, each with one key, in one
/// transaction.
fn directories_script(n: usize) -> String {
    (1..=n).map(|i| format!("/d{i}(1)=1\n")).collect()
}

/// Runs `script` on a new database file; the time it took.
fn create_directories(script: &str) -> Duration {
    let dir = tempfile::tempdir().expect("a temp dir");
    let db: Arc<dyn Database> = Arc::new(Embedded::open(dir.path().join("d.db")).expect("opens"));
    let engine = Engine::new(db);
    let start = Instant::now();
    run_script(&engine, script, &mut std::io::sink());
    start.elapsed()
}

fn directories(c: &mut Criterion) {
    // 15,000 such directories pass FoundationDB's 10 MB transaction limit.
    let sizes = [1_250, 2_500, 5_000, 10_000];
    let mut g = c.benchmark_group("directories");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for n in sizes {
        let script = directories_script(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(n.to_string(), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| create_directories(&script)).sum())
        });
    }
    g.finish();
    let mut report = String::new();
    for n in sizes {
        let script = directories_script(n);
        let best = (0..3).map(|_| create_directories(&script)).min().unwrap();
        writeln!(
            report,
            "{n} directories in one transaction: {best:.2?}, {:.1} µs each",
            best.as_secs_f64() * 1e6 / n as f64
        )
        .unwrap();
    }
    std::io::stderr().write_all(report.as_bytes()).unwrap();
}

/// Transactions of the `dircache` script.
const DIRCACHE_TX: usize = 200;

/// An engine over a file holding `/a/b/c(1)=1`, with the directory cache
/// on or off, and the count of point reads its transactions make.
fn dircache_engine(cached: bool) -> (Engine, Arc<AtomicUsize>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file: Arc<dyn Database> = Arc::new(Embedded::open(dir.path().join("d.db")).expect("opens"));
    let (count, gets) = hooked::counting_gets();
    let db = hooked::before_each(file, count);
    let engine = Engine::new(db).directory_cache(cached);
    run_script(&engine, "/a/b/c(1)=1\n", &mut std::io::sink());
    (engine, gets, dir)
}

fn dircache_script() -> String {
    "/a/b/c(1)=<>\n@commit\n".repeat(DIRCACHE_TX)
}

fn dircache(c: &mut Criterion) {
    let script = dircache_script();
    let mut g = c.benchmark_group("dircache");
    g.throughput(Throughput::Elements(DIRCACHE_TX as u64));
    for (name, cached) in [("cached", true), ("uncached", false)] {
        let (engine, _, _dir) = dircache_engine(cached);
        g.bench_function(name, |b| {
            b.iter(|| run_script(&engine, &script, &mut std::io::sink()))
        });
    }
    g.finish();
    dircache_report();
}

/// The `dircache` script run once, after the run that fills the cache.
fn dircache_once(cached: bool) {
    let script = dircache_script();
    let (engine, _, _dir) = dircache_engine(cached);
    run_script(&engine, "/a/b/c(1)=<>\n", &mut std::io::sink());
    assert_eq!(
        run_script(&engine, &script, &mut std::io::sink()),
        DIRCACHE_TX
    );
}

/// The point reads and time a transaction of the `dircache` script takes,
/// cached and not, from the best of three runs.
fn dircache_report() {
    let script = dircache_script();
    let mut report = String::new();
    for (name, cached) in [("cached", true), ("uncached", false)] {
        let (engine, gets, _dir) = dircache_engine(cached);
        // The first transaction fills the cache.
        run_script(&engine, &script, &mut std::io::sink());
        gets.store(0, Ordering::Relaxed);
        let took = best_of_three(|| {
            assert_eq!(
                run_script(&engine, &script, &mut std::io::sink()),
                DIRCACHE_TX
            );
        });
        writeln!(
            report,
            "dircache/{name}: {} point reads a transaction, {:.1} µs a transaction",
            gets.load(Ordering::Relaxed) as f64 / (3 * DIRCACHE_TX) as f64,
            took.as_secs_f64() * 1e6 / DIRCACHE_TX as f64
        )
        .unwrap();
    }
    std::io::stderr().write_all(report.as_bytes()).unwrap();
}

criterion_group!(benches, bench, joins, directories, dircache);

fn main() {
    if let Some(which) = std::env::var_os("FQL_BENCH_DIRCACHE") {
        match which.to_str() {
            // One side alone, for instruction counts under callgrind.
            Some("cached") => dircache_once(true),
            Some("uncached") => dircache_once(false),
            _ => dircache_report(),
        }
        return;
    }
    if std::env::var_os("FQL_BENCH_ONCE").is_some() {
        let engine = joined(JOINED);
        assert_eq!(point_read_join(&engine), JOINED);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
