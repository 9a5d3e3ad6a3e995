//! A progress line on standard error for long queries: keys read, results,
//! rate, and the attempt and its cause while a transaction is retried.
//! Drawn only on a terminal, only once a query has run for a while and
//! only while no result has been printed for a moment, and wiped before
//! the next result, so it never mixes into the results.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use fql::kv::Activity;

/// How long a query runs before its progress shows.
const DELAY: Duration = Duration::from_secs(1);
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(200);

/// The progress line of one query; dropping it wipes the line.
pub struct Progress {
    shared: Option<Arc<Shared>>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    activity: Arc<Activity>,
    start: Instant,
    results: AtomicU64,
    /// Microseconds from `start` to the last result.
    last_result: AtomicU64,
    /// Whether a line is on the screen; held while drawing or wiping.
    drawn: Mutex<bool>,
    done: AtomicBool,
    wake: Condvar,
}

impl Progress {
    /// Starts the line for a query reading through `activity`; does
    /// nothing unless `enabled` (standard error is a terminal).
    pub fn start(activity: Arc<Activity>, enabled: bool) -> Progress {
        if !enabled {
            return Progress {
                shared: None,
                thread: None,
            };
        }
        let shared = Arc::new(Shared {
            activity,
            start: Instant::now(),
            results: AtomicU64::new(0),
            last_result: AtomicU64::new(0),
            drawn: Mutex::new(false),
            done: AtomicBool::new(false),
            wake: Condvar::new(),
        });
        let thread = std::thread::Builder::new()
            .name("progress".into())
            .spawn({
                let shared = shared.clone();
                move || shared.run()
            })
            .ok();
        Progress {
            shared: Some(shared),
            thread,
        }
    }

    /// Call before printing a result: wipes the line if it is drawn.
    pub fn before_output(&self) {
        if let Some(s) = &self.shared {
            s.results.fetch_add(1, Ordering::Relaxed);
            let now = s.start.elapsed().as_micros() as u64;
            s.last_result.store(now, Ordering::Relaxed);
            s.wipe();
        }
    }

    /// Call before printing an error: wipes the line if it is drawn, so
    /// that the error does not start after its text; the line stays away
    /// for a moment, as after a result, while the error is printed.
    pub fn clear(&self) {
        if let Some(s) = &self.shared {
            let now = s.start.elapsed().as_micros() as u64;
            s.last_result.store(now, Ordering::Relaxed);
            s.wipe();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(s) = &self.shared {
            s.done.store(true, Ordering::SeqCst);
            s.wake.notify_all();
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
            s.wipe();
        }
    }
}

impl Shared {
    fn run(&self) {
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            drawn = self
                .wake
                .wait_timeout(drawn, TICK)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            if self.done.load(Ordering::SeqCst) {
                return;
            }
            let elapsed = self.start.elapsed();
            let quiet = elapsed.as_micros() as u64 - self.last_result.load(Ordering::Relaxed);
            if elapsed < DELAY || quiet < TICK.as_micros() as u64 * 2 {
                continue;
            }
            let keys = self.activity.keys_read();
            let rate = keys as f64 / elapsed.as_secs_f64();
            let mut line = format!(
                "\r\x1b[K{} keys read ({}/s), {} results, {:.1} s",
                count(keys as f64),
                count(rate),
                self.results.load(Ordering::Relaxed),
                elapsed.as_secs_f64()
            );
            if let Some(attempt) = attempt(&self.activity) {
                line.push_str(&format!("; retrying: {attempt}"));
            }
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(line.as_bytes()).and_then(|()| err.flush());
            *drawn = true;
        }
    }

    fn wipe(&self) {
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        if *drawn {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(b"\r\x1b[K").and_then(|()| err.flush());
            *drawn = false;
        }
    }
}

/// The attempt the newest transaction is at and why the last one was
/// retried (`attempt 3, not_committed`), once it has been retried.
pub fn attempt(activity: &Activity) -> Option<String> {
    match activity.retries() {
        (retries @ 1.., Some(why)) => Some(format!("attempt {}, {}", retries + 1, why.name())),
        _ => None,
    }
}

/// `1234567` as `1.2M`.
fn count(n: f64) -> String {
    match n {
        n if n >= 1e9 => format!("{:.1}G", n / 1e9),
        n if n >= 1e6 => format!("{:.1}M", n / 1e6),
        n if n >= 1e3 => format!("{:.1}k", n / 1e3),
        n => format!("{n:.0}"),
    }
}
