//! The directory layer: the exact keys it writes (so other FDB bindings
//! read them), its behaviour, and many clients allocating prefixes at once.

pub mod behaviour;
pub mod cache;
pub mod clients;
pub mod concurrency;
pub mod golden;
pub mod outside;
pub mod partitions;
pub mod survey;

use fql::directory::{Candidates, DirectoryLayer, Error, ROOT};
use fql::kv::{self, Database, DatabaseExt, RangeOption, Transaction};

use crate::backend::Backend;
use clients::assert_prefix_free;

/// Candidates handed out in order, so prefixes are known in advance.
struct Scripted(std::collections::VecDeque<i64>);

impl Candidates for Scripted {
    fn candidate(&mut self, start: i64, window: i64) -> i64 {
        let next = self.0.pop_front().expect("a scripted candidate");
        assert!(
            (start..start + window).contains(&next),
            "{next} not in window {start}+{window}"
        );
        next
    }
}

/// A layer whose allocator picks `candidates`, in order.
fn scripted(candidates: &[i64]) -> DirectoryLayer {
    DirectoryLayer::new().with_candidates(Scripted(candidates.iter().copied().collect()))
}

/// Runs `f` in one transaction and commits it.
fn run<T>(
    db: &dyn Database,
    mut f: impl FnMut(&mut dyn Transaction) -> Result<T, Error>,
) -> Result<T, Error> {
    db.run(|tx, _| f(tx))
}

/// Every key and value in the database, as hex.
fn dump(db: &dyn Database) -> Vec<(String, String)> {
    let rows = db
        .run(|tx, _| {
            kv::collect_range(tx, &RangeOption::new(b"".to_vec(), b"\xff".to_vec()), false)
        })
        .expect("a full scan");
    rows.into_iter()
        .map(|kv| (const_hex::encode(kv.key), const_hex::encode(kv.value)))
        .collect()
}

/// Every key starting with `prefix`, as hex.
fn keys_under(db: &dyn Database, prefix: &[u8]) -> Vec<String> {
    let rows = db
        .run(|tx, _| kv::collect_range(tx, &RangeOption::prefix(prefix), false))
        .expect("a scan");
    rows.into_iter()
        .map(|kv| const_hex::encode(kv.key))
        .collect()
}

/// `(key, value)` rows from hex written with spaces for reading.
fn rows(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(k, v)| (k.replace(' ', ""), v.replace(' ', "")))
        .collect()
}

/// A path from string slices.
fn path(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}
