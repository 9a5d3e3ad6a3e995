//! FQL's atomic operations on every backend, run through the engine as a
//! script would run them, against a model of each operation written from
//! FoundationDB's own definitions (`fdbclient/Atomic.h`), and against FDB
//! itself when the suite has a cluster.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use fql::exec::{Bindings, Engine, Output};
use fql::kv::{Database, Error, Limits};
use fql::syntax::ast::AtomicOp;

use crate::backend::Backend;

/// Runs `script` and returns what it prints, a line a result.
fn run(db: &Backend, script: &str) -> Vec<String> {
    run_on(db.handle(), script)
}

fn run_on(db: Arc<dyn Database>, script: &str) -> Vec<String> {
    let mut out = Vec::new();
    Engine::new(db)
        .run_text(script, &HashMap::new(), &mut |row: Output| {
            out.push(row.to_string());
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e:?}\nfrom:\n{}", &script[..script.len().min(2000)]));
    out
}

fn hex(bytes: &[u8]) -> String {
    format!("0x{}", const_hex::encode(bytes))
}

/// The value after `op` with `operand` on `existing`, as FDB defines it;
/// `None` is a cleared or missing key.
fn model(op: AtomicOp, existing: Option<&[u8]>, operand: &[u8]) -> Option<Vec<u8>> {
    let limit = Limits::default().value;
    let present = existing.is_some();
    let cur = existing.unwrap_or_default();
    let p = operand;
    // The existing value cut or zero-padded to the operand's length.
    let padded = || {
        (0..p.len())
            .map(|i| cur.get(i).copied().unwrap_or(0))
            .collect()
    };
    let bytewise = |f: fn(u8, u8) -> u8| {
        (0..p.len())
            .map(|i| f(cur.get(i).copied().unwrap_or(0), p[i]))
            .collect()
    };
    // Compares the existing value, at the operand's length, with it, as
    // little-endian unsigned ints.
    let cur_vs_p = || {
        let c: Vec<u8> = padded();
        c.iter().rev().cmp(p.iter().rev())
    };
    Some(match op {
        AtomicOp::Add if cur.is_empty() || p.is_empty() => p.to_vec(),
        AtomicOp::Add => {
            let mut carry = 0u16;
            (0..p.len())
                .map(|i| {
                    let sum = u16::from(cur.get(i).copied().unwrap_or(0)) + u16::from(p[i]) + carry;
                    carry = sum >> 8;
                    sum as u8
                })
                .collect()
        }
        AtomicOp::BitAnd if !present => p.to_vec(),
        AtomicOp::BitAnd => (0..p.len())
            .map(|i| cur.get(i).map_or(0, |c| c & p[i]))
            .collect(),
        AtomicOp::BitOr | AtomicOp::BitXor if cur.is_empty() || p.is_empty() => p.to_vec(),
        AtomicOp::BitOr => bytewise(|a, b| a | b),
        AtomicOp::BitXor => bytewise(|a, b| a ^ b),
        AtomicOp::Max if cur.is_empty() || p.is_empty() => p.to_vec(),
        AtomicOp::Max if cur_vs_p().is_gt() => padded(),
        AtomicOp::Max => p.to_vec(),
        AtomicOp::Min if !present || p.is_empty() => p.to_vec(),
        AtomicOp::Min if cur_vs_p().is_lt() => padded(),
        AtomicOp::Min => p.to_vec(),
        AtomicOp::ByteMin if present && cur < p => cur.to_vec(),
        AtomicOp::ByteMax if present && cur > p => cur.to_vec(),
        AtomicOp::ByteMin | AtomicOp::ByteMax => p.to_vec(),
        AtomicOp::AppendIfFits if cur.is_empty() => p.to_vec(),
        AtomicOp::AppendIfFits if cur.len() + p.len() > limit => cur.to_vec(),
        AtomicOp::AppendIfFits => [cur, p].concat(),
        AtomicOp::CompareAndClear if !present || cur == p => return None,
        AtomicOp::CompareAndClear => cur.to_vec(),
    })
}

/// A small deterministic generator: the cases are the same on every
/// backend and every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }

    /// Bytes of up to 9, with zeros and `ff`s frequent, where carries,
    /// widths and comparisons turn.
    fn bytes(&mut self) -> Vec<u8> {
        let len = self.below(10);
        (0..len)
            .map(|_| match self.below(4) {
                0 => 0,
                1 => 0xff,
                _ => self.next() as u8,
            })
            .collect()
    }
}

/// Every operation, on missing keys, empty values and values shorter,
/// longer and as long as the operand, with bytes operands of every
/// length: what the key holds after the commit is what FDB defines.
pub fn every_operation_as_fdb_defines_it(db: &Backend) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut setup = String::new();
    let mut ops = String::new();
    let mut want = BTreeMap::new();
    for &op in AtomicOp::ALL {
        for case in 0..40 {
            let existing = match rng.below(5) {
                0 => None,
                1 => Some(Vec::new()),
                _ => Some(rng.bytes()),
            };
            let operand = rng.bytes();
            let key = format!("/atomic(\"{op}\",{case})");
            if let Some(v) = &existing {
                setup.push_str(&format!("{key}={}\n", hex(v)));
            }
            ops.push_str(&format!("{key}={op}({})\n", hex(&operand)));
            if let Some(after) = model(op, existing.as_deref(), &operand) {
                want.insert((op.name(), case), format!("{key}={}", hex(&after)));
            }
        }
    }
    // The directory exists before the operations, so that a
    // `compare_and_clear`, which creates none, meets the stored values.
    run(db, &format!("/atomic(\"made\")=nil\n{setup}"));
    run(db, &ops);
    let got = run(db, "/atomic(<str>,<int>)=<bytes>");
    let want: Vec<String> = want.into_values().collect();
    assert_eq!(got, want);
}

/// `append_if_fits` appends while the value stays within FDB's 100,000
/// bytes, and past that leaves the value as it was, with no error.
pub fn append_if_fits_stops_at_the_value_limit(db: &Backend) {
    let limit = Limits::default().value;
    let start = vec![b'x'; limit - 30];
    run(db, &format!("/big(1)={}", hex(&start)));
    let append = |n: usize| format!("/big(1)=append_if_fits({})", hex(&vec![b'y'; n]));
    run(db, &append(20));
    run(db, &append(11));
    let size = |db: &Backend| {
        let out = run(db, "/big(1)=<bytes>");
        (out[0].len() - "/big(1)=0x".len()) / 2
    };
    assert_eq!(size(db), limit - 10, "20 bytes fit, 11 more would not");
    run(db, &append(10));
    assert_eq!(size(db), limit, "exactly at the limit fits");
    run(db, &append(1));
    assert_eq!(size(db), limit);
}

/// The operand types a counter and a high-water mark are kept with: ints
/// of a width, read back with the same width; `add` of a negative int
/// subtracts, and wraps at the width.
pub fn counters_are_kept_with_add(db: &Backend) {
    run(db, "/c(\"hits\")=add(1[i64])\n/c(\"hits\")=add(1[i64])");
    run(db, "/c(\"hits\")=add(40[i64])\n/c(\"hits\")=add(-2[i64])");
    run(
        db,
        "/c(\"small\")=250[u8]\n@commit\n/c(\"small\")=add(10[u8])",
    );
    run(
        db,
        "/c(\"peak\")=max(17[u64])\n@commit\n/c(\"peak\")=max(9[u64])",
    );
    // Once for each key a read finds: the read binds it, the operation
    // references it.
    run(db, "/pages(\"a\")=nil\n/pages(\"b\")=nil");
    run(
        db,
        "/pages(<p:str>)\n/views(:p)=add(1[i64])\n/views(\"a\")=add(1[i64])",
    );
    assert_eq!(
        run(db, "/views(<str>)=<int[i64]>"),
        ["/views(\"a\")=2[i64]", "/views(\"b\")=1[i64]"]
    );
    let got = run(
        db,
        "/c(\"hits\")=<int[i64]>\n/c(\"small\")=<int[u8]>\n/c(\"peak\")=<int[u64]>",
    );
    assert_eq!(
        got,
        [
            "/c(\"hits\")=40[i64]",
            "/c(\"small\")=4[u8]",
            "/c(\"peak\")=17[u64]"
        ]
    );
}

/// An atomic operation reads nothing: a transaction that adds to a key
/// another commit wrote after it began still commits, and the sum holds
/// both. A read of the key in the same transaction sees the operation.
pub fn atomic_operations_take_no_read_conflict(db: &Backend) {
    run(db, "/c(\"n\")=1[i64]");
    let engine = Engine::new(db.handle());
    let script = fql::check::load("/c(\"n\")=add(5[i64])\n/c(\"n\")=<int[i64]>").unwrap();
    let plan = fql::plan::plan(&script, &HashMap::new()).unwrap();
    let mut tx = db.create_trx().unwrap();
    tx.read_version().unwrap();
    let mut seen = Vec::new();
    engine
        .run_in(
            &mut *tx,
            &plan.steps[..1],
            &mut Bindings::default(),
            &mut |row: Output| {
                seen.push(row.to_string());
                Ok(())
            },
        )
        .unwrap();
    // Another client writes the key after this transaction began.
    run_on(db.reopen(), "/c(\"n\")=100[i64]");
    tx.commit().expect("an add takes no read conflict");
    assert_eq!(run(db, "/c(\"n\")=<int[i64]>"), ["/c(\"n\")=105[i64]"]);
    // In one transaction, a read after the add sees it.
    assert_eq!(
        run(db, "/c(\"n\")=add(5[i64])\n/c(\"n\")=<int[i64]>"),
        ["/c(\"n\")=110[i64]"]
    );
    // The plan's second statement reads: it does conflict.
    let mut tx = db.create_trx().unwrap();
    engine
        .run_in(
            &mut *tx,
            &plan.steps,
            &mut Bindings::default(),
            &mut |_: Output| Ok(()),
        )
        .unwrap();
    run_on(db.reopen(), "/c(\"n\")=0[i64]");
    assert_eq!(tx.commit(), Err(Error::NotCommitted));
    assert_eq!(
        seen,
        [] as [String; 0],
        "an atomic operation prints nothing"
    );
}

/// Clients adding to one counter at once lose no increment.
pub fn concurrent_adds_lose_no_update(db: &Backend) {
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let handle = db.reopen();
                for _ in 0..25 {
                    run_on(handle.clone(), "/c(\"hits\")=add(1[i64])");
                }
            });
        }
    });
    assert_eq!(
        run(db, "/c(\"hits\")=<int[i64]>"),
        ["/c(\"hits\")=100[i64]"]
    );
}
