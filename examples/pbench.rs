#[global_allocator]
static A: mimalloc::MiMalloc = mimalloc::MiMalloc;
fn main() {
    let mut qs = Vec::new();
    for e in std::fs::read_dir("examples/spec").unwrap() {
        let s = std::fs::read_to_string(e.unwrap().path()).unwrap();
        for l in s.lines() {
            if l.starts_with('/') && fql::syntax::parse(l).is_ok() {
                qs.push(l.to_string());
            }
        }
    }
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().unwrap())
        .unwrap_or(10000);
    let mut best = 0f64;
    for _ in 0..7 {
        let t = std::time::Instant::now();
        for _ in 0..n {
            for q in &qs {
                std::hint::black_box(fql::syntax::parse(std::hint::black_box(q)).unwrap());
            }
        }
        best = best.max((qs.len() * n) as f64 / t.elapsed().as_secs_f64());
    }
    eprintln!(
        "best {:.2}M q/s, avg len {}",
        best / 1e6,
        qs.iter().map(|q| q.len()).sum::<usize>() / qs.len()
    );
}
