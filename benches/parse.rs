//! Parser throughput on a corpus of realistic queries: every example of the
//! FQL specification, the mutex schema, and long tuples.
//!
//! `short` parses one-line queries one call each and reports queries per
//! second; `corpus` parses whole scripts and reports bytes per second. The
//! target is at least 5 million short queries/s and 100 MB/s on one core.
//! `lines` parses `parse_lines.fql` one call per line: those lines are the
//! ones the Go implementation's parser also accepts, so its figure compares
//! with that parser's on the same input (see RESULTS.md). `long_strings`
//! parses statements with string literals and names of 100 to 10,000
//! bytes, the case for a vector search in the scans.

use std::hint::black_box;

/// The allocator of the `fql` binary, so the figures are the binary's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Every `.fql` file under `examples/`, in a fixed order.
fn example_scripts() -> Vec<String> {
    let mut paths = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples"
    ))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).expect("examples/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "fql") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("an example is readable"))
        .collect()
}

/// Single-line statements of the examples.
fn short_queries(scripts: &[String]) -> Vec<String> {
    scripts
        .iter()
        .flat_map(|s| s.lines())
        .filter(|l| l.starts_with('/') && fql::syntax::parse(l).is_ok())
        .map(str::to_string)
        .collect()
}

/// A script of wide, deep and long-valued statements.
fn long_tuples() -> String {
    let mut out = String::new();
    for n in 0..200 {
        out.push_str(&format!("/bench/wide/\"dir {n}\"("));
        for k in 0..40 {
            out.push_str(&format!("{},\"field {k}\",{}.5,0x{:08x},", n * k, k, n ^ k));
        }
        out.push_str(&format!(
            "(1,(2,(3,(4,(\"deep\",nil,true))))))=\"{}\"\n",
            "v".repeat(n % 50)
        ));
    }
    out
}

fn parse(c: &mut Criterion) {
    let scripts = example_scripts();
    let short = short_queries(&scripts);
    let mut group = c.benchmark_group("parse");

    group.throughput(Throughput::Elements(short.len() as u64));
    group.bench_function("short", |b| {
        b.iter(|| {
            for q in &short {
                black_box(fql::syntax::parse(black_box(q)).expect("parses"));
            }
        })
    });

    let mut corpus = scripts.join("\n");
    corpus.push_str(&long_tuples());
    group.throughput(Throughput::Bytes(corpus.len() as u64));
    group.bench_function("corpus", |b| {
        b.iter(|| black_box(fql::syntax::parse(black_box(&corpus)).expect("parses")))
    });

    let script = fql::syntax::parse(&corpus).expect("parses");
    group.bench_function("print", |b| {
        b.iter(|| black_box(black_box(&script).to_string()))
    });
    group.finish();
}

/// One statement per line, each accepted by this parser and by the Go
/// implementation's, so that both can be timed on the same input.
const LINES: &str = include_str!("parse_lines.fql");

fn lines(c: &mut Criterion) {
    let lines: Vec<&str> = LINES.lines().collect();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.bench_function("lines", |b| {
        b.iter(|| {
            for line in &lines {
                black_box(fql::syntax::parse(black_box(line)).expect("parses"));
            }
        })
    });
    group.finish();
}

/// Statements with long string literals and long names, 100 to 10,000
/// bytes each: the text the string and name scans of `words.rs` and the
/// lexer spend their time in, where a vector search could win.
fn long_strings_script() -> String {
    let mut out = String::new();
    for (n, len) in [100, 300, 1_000, 3_000, 10_000].into_iter().enumerate() {
        let text: String = "lorem ipsum dolor sit amet, é "
            .chars()
            .cycle()
            .take(len)
            .collect();
        let name: String = "long_name.".chars().cycle().take(len).collect();
        out.push_str(&format!("/long/{name}(\"{text}\",{n})=\"{text}\"\n"));
        out.push_str(&format!("/long/\"{text}\"/{name}(\"{text}\\n{text}\")\n"));
    }
    out
}

fn long_strings(c: &mut Criterion) {
    let script = long_strings_script();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(script.len() as u64));
    group.bench_function("long_strings", |b| {
        b.iter(|| black_box(fql::syntax::parse(black_box(&script)).expect("parses")))
    });
    group.finish();
}

criterion_group!(benches, parse, lines, long_strings);
criterion_main!(benches);
