//! The transaction interface's cases. Each takes a fresh, empty database.

use std::time::{Duration, Instant};

use fql::kv::{
    self, ConflictRangeType, Database, DatabaseExt, Error, MutationType, RangeCursor, RangeOption,
    RangeResult, RetryOptions, StreamingMode, Transaction, TransactionOption,
};

use crate::backend::Backend;
use crate::eventually::within;

type R<T = ()> = Result<T, Error>;

fn set_all(db: &dyn Database, kvs: &[(&[u8], &[u8])]) {
    db.run(|tx, _| {
        for (k, v) in kvs {
            tx.set(k, v)?;
        }
        R::Ok(())
    })
    .unwrap();
}

fn read_all(db: &dyn Database, range: RangeOption) -> Vec<kv::KeyValue> {
    db.run(|tx, _| kv::collect_range(tx, &range, false))
        .unwrap()
}

fn keys(rows: &[kv::KeyValue]) -> Vec<Vec<u8>> {
    rows.iter().map(|r| r.key.clone()).collect()
}

fn get(db: &dyn Database, key: &[u8]) -> Option<Vec<u8>> {
    db.run(|tx, _| tx.get(key, false)).unwrap()
}

pub fn keys_sort_as_unsigned_bytes(db: &Backend) {
    let mut want: Vec<&[u8]> = vec![
        b"",
        b"\x00",
        b"\x00\x00",
        b"\x01",
        b"a",
        b"a\x00",
        b"ab",
        b"b",
        b"\x7f",
        b"\x80",
        b"\xfe",
        b"\xfe\xff",
    ];
    // Written in a scrambled order.
    let scrambled: Vec<(&[u8], &[u8])> = want
        .iter()
        .rev()
        .step_by(1)
        .map(|k| (*k, &b"v"[..]))
        .collect();
    set_all(db, &scrambled);
    let got = keys(&read_all(db, RangeOption::new(b"", b"\xff")));
    want.sort();
    assert_eq!(got, want.iter().map(|k| k.to_vec()).collect::<Vec<_>>());
}

fn letters(db: &dyn Database) {
    let kvs: Vec<(Vec<u8>, Vec<u8>)> = (b'a'..=b'j').map(|c| (vec![c], vec![c, c])).collect();
    let refs: Vec<(&[u8], &[u8])> = kvs.iter().map(|(k, v)| (&k[..], &v[..])).collect();
    set_all(db, &refs);
}

fn string(rows: &[kv::KeyValue]) -> String {
    rows.iter().map(|r| r.key[0] as char).collect()
}

pub fn range_edges_limits_and_reverse(db: &Backend) {
    letters(db);
    let r = |b: &[u8], e: &[u8]| RangeOption::new(b, e);
    assert_eq!(
        string(&read_all(db, r(b"c", b"f"))),
        "cde",
        "begin inclusive, end exclusive"
    );
    assert_eq!(string(&read_all(db, r(b"c\0", b"f\0"))), "def");
    assert_eq!(string(&read_all(db, r(b"c", b"f").rev())), "edc");
    assert_eq!(string(&read_all(db, r(b"a", b"z").limit(3))), "abc");
    assert_eq!(string(&read_all(db, r(b"a", b"z").rev().limit(3))), "jih");
    assert_eq!(string(&read_all(db, r(b"a", b"z").limit(0))), "");
    assert_eq!(string(&read_all(db, r(b"f", b"f"))), "", "empty range");
    assert_eq!(string(&read_all(db, RangeOption::prefix(b"d"))), "d");
    assert_eq!(string(&read_all(db, r(b"", b"\xff"))), "abcdefghij");
    let exact = r(b"a", b"z").mode(StreamingMode::Exact).limit(4);
    assert_eq!(string(&read_all(db, exact)), "abcd");
}

pub fn range_reads_stream_in_batches(db: &Backend) {
    let n = 5000u32;
    db.run(|tx, _| {
        for i in 0..n {
            tx.set(&i.to_be_bytes(), &[1; 20])?;
        }
        R::Ok(())
    })
    .unwrap();
    for (mode, reverse) in [
        (StreamingMode::Iterator, false),
        (StreamingMode::Iterator, true),
        (StreamingMode::WantAll, false),
        (StreamingMode::Small, true),
    ] {
        let mut range = RangeOption::new(vec![0], vec![0xfe]).mode(mode);
        range.reverse = reverse;
        let mut cursor = RangeCursor::new(range, false);
        let mut tx = db.create_trx().unwrap();
        let (mut rows, mut batches, mut largest) = (Vec::new(), 0, 0);
        while let Some(batch) = cursor.next_batch(&mut *tx).unwrap() {
            batches += 1;
            largest = largest.max(batch.len());
            rows.extend(
                batch
                    .into_iter()
                    .map(|kv| u32::from_be_bytes(kv.key.try_into().unwrap())),
            );
        }
        let mut want: Vec<u32> = (0..n).collect();
        if reverse {
            want.reverse();
        }
        assert_eq!(rows, want, "{mode:?} reverse={reverse}");
        assert!(batches > 1, "{mode:?} read {n} rows in one batch");
        assert!(largest <= 4096, "{mode:?} batch of {largest} rows");
    }
}

/// Reading ahead hands over what paging one batch at a time reads, in the
/// same order, and stops where its caller says; the transaction is usable
/// after it, even when the caller stopped while a batch was on its way.
pub fn range_reads_read_ahead(db: &Backend) {
    let n = 6000u32;
    db.run(|tx, _| {
        for i in 0..n {
            tx.set(&i.to_be_bytes(), &i.to_le_bytes())?;
        }
        R::Ok(())
    })
    .unwrap();
    for reverse in [false, true] {
        let mut range = RangeOption::new(vec![0], vec![0xfe]);
        range.reverse = reverse;
        let mut want: Vec<u32> = (0..n).collect();
        if reverse {
            want.reverse();
        }
        for stop in [None, Some(1200), Some(5000)] {
            let mut tx = db.create_trx().unwrap();
            let mut cursor = RangeCursor::new(range.clone(), false);
            let mut rows = Vec::new();
            cursor
                .read_ahead(&mut *tx, false, |fetched| {
                    let kv::Fetched::Rows(batch) = fetched else {
                        panic!("a new snapshot in a young transaction")
                    };
                    for row in batch {
                        assert_eq!(row.key, row.value.iter().rev().cloned().collect::<Vec<_>>());
                        rows.push(u32::from_be_bytes(row.key[..].try_into().unwrap()));
                    }
                    R::Ok(match stop {
                        Some(s) if rows.len() >= s => std::ops::ControlFlow::Break(()),
                        _ => std::ops::ControlFlow::Continue(()),
                    })
                })
                .unwrap();
            match stop {
                None => assert_eq!(rows, want, "reverse={reverse}"),
                Some(s) => {
                    assert!(rows.len() >= s, "{} rows", rows.len());
                    assert_eq!(rows, want[..rows.len()], "reverse={reverse} stop={s}");
                }
            }
            tx.set(b"after", b"1").unwrap();
            assert_eq!(tx.get(b"after", false).unwrap().as_deref(), Some(&b"1"[..]));
        }
    }
}

pub fn range_errors(db: &Backend) {
    let mut tx = db.create_trx().unwrap();
    let system = tx.get_range(&RangeOption::new(b"a", b"\xff\x01"), 1, false);
    assert_eq!(system.unwrap_err(), Error::KeyOutsideLegalRange);
    assert_eq!(
        tx.get(b"\xffx", false).unwrap_err(),
        Error::KeyOutsideLegalRange
    );
    assert_eq!(
        tx.set(b"\xff", b"").unwrap_err(),
        Error::KeyOutsideLegalRange
    );
    let exact = RangeOption::new(b"a", b"b").mode(StreamingMode::Exact);
    assert_eq!(
        tx.get_range(&exact, 1, false).unwrap_err(),
        Error::ExactModeWithoutLimits
    );
}

/// FDB's `getRange` reads nothing from a range that begins at or past its
/// end; a clear of an inverted range fails with `inverted_range`, and so
/// does the commit after it (FDB's client defers the error there); a
/// conflict range fails alone.
pub fn inverted_ranges_read_nothing_and_fail_to_clear(db: &Backend) {
    letters(db);
    let mut tx = db.create_trx().unwrap();
    for snapshot in [false, true] {
        for range in [
            RangeOption::new(b"d", b"b"),
            RangeOption::new(b"d", b"b").rev(),
            RangeOption::new(b"d", b"b").limit(3),
            RangeOption::new(b"c", b"c"),
            RangeOption::new(b"\xff", b"\xff"),
        ] {
            let batch = tx.get_range(&range, 1, snapshot);
            assert_eq!(batch, Ok(RangeResult::default()), "{range:?}");
            let all = kv::collect_range(&mut *tx, &range, snapshot);
            assert_eq!(all, Ok(vec![]), "{range:?}");
        }
    }
    for ty in [ConflictRangeType::Read, ConflictRangeType::Write] {
        let added = tx.add_conflict_range(b"d", b"b", ty);
        assert_eq!(added, Err(Error::InvertedRange));
    }
    tx.set(b"k", b"v").unwrap();
    tx.commit().expect("a refused conflict range dooms nothing");
    assert_eq!(get(db, b"k"), Some(b"v".to_vec()));

    let mut tx = db.create_trx().unwrap();
    tx.set(b"x", b"1").unwrap();
    assert_eq!(tx.clear_range(b"d", b"b"), Err(Error::InvertedRange));
    assert_eq!(tx.commit().map(|_| ()), Err(Error::InvertedRange));
    assert_eq!(get(db, b"x"), None, "nothing of it is written");
}

pub fn clears_and_range_clears(db: &Backend) {
    letters(db);
    db.run(|tx, _| {
        tx.clear(b"a")?;
        tx.clear(b"zz")?; // missing: no-op
        tx.clear_range(b"c", b"f")?;
        tx.clear_range(b"h\0", b"i")?; // empty of keys
        R::Ok(())
    })
    .unwrap();
    assert_eq!(
        string(&read_all(db, RangeOption::new(b"", b"\xff"))),
        "bfghij"
    );
}

pub fn reads_see_own_writes(db: &Backend) {
    letters(db);
    let mut tx = db.create_trx().unwrap();
    tx.set(b"b", b"new").unwrap();
    tx.clear_range(b"d", b"g").unwrap();
    tx.set(b"e", b"back").unwrap();
    tx.set(b"k", b"added").unwrap();
    tx.clear(b"i").unwrap();
    assert_eq!(tx.get(b"b", false).unwrap().as_deref(), Some(&b"new"[..]));
    assert_eq!(tx.get(b"d", false).unwrap(), None);
    assert_eq!(tx.get(b"e", false).unwrap().as_deref(), Some(&b"back"[..]));
    assert_eq!(tx.get(b"i", false).unwrap(), None);
    let all = kv::collect_range(&mut *tx, &RangeOption::new(b"", b"\xff"), false).unwrap();
    assert_eq!(string(&all), "abceghjk");
    let rev = kv::collect_range(
        &mut *tx,
        &RangeOption::new(b"", b"\xff").rev().limit(5),
        false,
    );
    assert_eq!(string(&rev.unwrap()), "kjhge");
    // Nothing is visible outside before commit.
    assert_eq!(get(&db.reopen(), b"k"), None);
    tx.commit().unwrap();
    assert_eq!(
        string(&read_all(&db.reopen(), RangeOption::new(b"", b"\xff"))),
        "abceghjk"
    );
}

fn le(n: i64) -> Vec<u8> {
    n.to_le_bytes().to_vec()
}

pub fn atomic_operations(db: &Backend) {
    db.run(|tx, _| {
        tx.atomic_op(b"n", &le(5), MutationType::Add)?;
        tx.atomic_op(b"n", &le(-2), MutationType::Add)?;
        tx.set(b"m", &le(10))?;
        tx.atomic_op(b"m", &le(1), MutationType::Add)?;
        assert_eq!(
            tx.get(b"m", false)?,
            Some(le(11)),
            "atomic over a known value"
        );
        tx.set(b"x", b"same")?;
        R::Ok(())
    })
    .unwrap();
    assert_eq!(get(db, b"n"), Some(le(3)));
    // Concurrent adds from transactions that both started before either
    // committed do not conflict: add reads nothing.
    let mut a = db.create_trx().unwrap();
    let mut b = db.create_trx().unwrap();
    a.read_version().unwrap();
    b.read_version().unwrap();
    a.atomic_op(b"n", &le(100), MutationType::Add).unwrap();
    b.atomic_op(b"n", &le(1000), MutationType::Add).unwrap();
    // Reading an added key inside the transaction sees stored + delta.
    assert_eq!(b.get(b"n", true).unwrap(), Some(le(1003)));
    a.commit().unwrap();
    b.commit().unwrap();
    assert_eq!(get(db, b"n"), Some(le(1103)));
    db.run(|tx, _| {
        tx.atomic_op(b"x", b"same", MutationType::CompareAndClear)?;
        tx.atomic_op(b"mx", &le(7), MutationType::Max)?;
        tx.atomic_op(b"mx", &le(3), MutationType::Max)?;
        tx.atomic_op(b"s", b"ab", MutationType::AppendIfFits)?;
        tx.atomic_op(b"s", b"cd", MutationType::AppendIfFits)?;
        R::Ok(())
    })
    .unwrap();
    assert_eq!(get(db, b"x"), None);
    assert_eq!(get(db, b"mx"), Some(le(7)));
    assert_eq!(get(db, b"s"), Some(b"abcd".to_vec()));
}

/// A transaction that writes a key several ways commits what its last
/// write says, whatever the order: a set over an add, an add over a set,
/// a clear or range clear over either, a set over a range clear. Each in
/// a transaction of its own, so none is helped by another.
pub fn later_writes_of_a_key_win_at_commit(db: &Backend) {
    type Writes = fn(&mut dyn Transaction) -> R<()>;
    let cases: [(&str, Writes, Option<Vec<u8>>); 7] = [
        (
            "an add, then a set",
            |tx| {
                tx.atomic_op(b"w", &le(5), MutationType::Add)?;
                tx.set(b"w", &le(40))
            },
            Some(le(40)),
        ),
        (
            "a set, then an add",
            |tx| {
                tx.set(b"w", &le(40))?;
                tx.atomic_op(b"w", &le(2), MutationType::Add)
            },
            Some(le(42)),
        ),
        (
            "a set and an add, then a clear",
            |tx| {
                tx.set(b"w", &le(7))?;
                tx.atomic_op(b"w", &le(1), MutationType::Add)?;
                tx.clear(b"w")
            },
            None,
        ),
        (
            "an add, a range clear, a set and an add",
            |tx| {
                tx.atomic_op(b"w", &le(3), MutationType::Add)?;
                tx.clear_range(b"w", b"x")?;
                tx.set(b"w", &le(10))?;
                tx.atomic_op(b"w", &le(1), MutationType::Add)
            },
            Some(le(11)),
        ),
        (
            "an add, then a range clear",
            |tx| {
                tx.atomic_op(b"w", &le(3), MutationType::Add)?;
                tx.clear_range(b"w", b"x")
            },
            None,
        ),
        (
            "an add, then a range clear that ends at it",
            |tx| {
                tx.atomic_op(b"w", &le(3), MutationType::Add)?;
                tx.clear_range(b"a", b"w")
            },
            Some(le(4)),
        ),
        (
            "two sets",
            |tx| {
                tx.set(b"w", b"one")?;
                tx.set(b"w", b"two")
            },
            Some(b"two".to_vec()),
        ),
    ];
    for (what, writes, want) in cases {
        db.run(|tx, _| tx.set(b"w", &le(1))).unwrap();
        db.run(|tx, _| writes(tx)).unwrap();
        assert_eq!(get(db, b"w"), want, "{what}");
    }
    // An add, then a versionstamped value: the value is the stamp.
    db.run(|tx, _| tx.set(b"w", &le(1))).unwrap();
    let (_, committed) = db
        .run_with(RetryOptions::default(), |tx, _| {
            tx.atomic_op(b"w", &le(3), MutationType::Add)?;
            tx.atomic_op(
                b"w",
                &stamped(b"v", 1),
                MutationType::SetVersionstampedValue,
            )
        })
        .unwrap();
    let stamp = committed
        .versionstamp
        .expect("a writing commit has a stamp");
    assert_eq!(get(db, b"w"), Some([&b"v"[..], &stamp].concat()));
}

/// `body` with a 10-byte placeholder at `at` and the 4-byte offset suffix.
fn stamped(body: &[u8], at: usize) -> Vec<u8> {
    let mut v = body.to_vec();
    v.splice(at..at, [0xff; 10]);
    v.extend((at as u32).to_le_bytes());
    v
}

pub fn versionstamps_are_shared_within_a_commit_and_increase(db: &Backend) {
    let (_, first) = db
        .run_with(RetryOptions::default(), |tx, _| {
            tx.atomic_op(
                &stamped(b"log\x01\x00", 3),
                b"one",
                MutationType::SetVersionstampedKey,
            )?;
            tx.atomic_op(
                &stamped(b"log\x02\x00", 3),
                b"two",
                MutationType::SetVersionstampedKey,
            )?;
            tx.atomic_op(
                b"beat",
                &stamped(b"", 0),
                MutationType::SetVersionstampedValue,
            )?;
            R::Ok(())
        })
        .unwrap();
    let stamp = first.versionstamp.expect("a writing commit has a stamp");
    let rows = read_all(db, RangeOption::prefix(b"log"));
    assert_eq!(rows.len(), 2);
    for (row, user) in rows.iter().zip([1u8, 2]) {
        assert_eq!(
            &row.key[3..13],
            &stamp,
            "every stamp of a commit is the same"
        );
        assert_eq!(
            &row.key[13..],
            &[user, 0],
            "the bytes after the stamp are kept"
        );
    }
    assert_eq!(
        get(db, b"beat"),
        Some(stamp.to_vec()),
        "a 10-byte stamp at offset 0"
    );
    assert_eq!(
        u64::from_be_bytes(stamp[..8].try_into().unwrap()),
        first.version.unwrap()
    );

    let mut last = stamp;
    for _ in 0..3 {
        let (_, c) = db
            .run_with(RetryOptions::default(), |tx, _| {
                tx.atomic_op(
                    b"beat",
                    &stamped(b"", 0),
                    MutationType::SetVersionstampedValue,
                )
            })
            .unwrap();
        let s = c.versionstamp.unwrap();
        assert!(s > last, "stamps increase: {s:02x?} after {last:02x?}");
        last = s;
    }
    // A reopened file keeps counting.
    let (_, c) = db
        .reopen()
        .run_with(RetryOptions::default(), |tx, _| tx.set(b"k", b"v"))
        .unwrap();
    assert!(c.versionstamp.unwrap() > last);
}

/// Versions advance about a million a second, as FoundationDB's do, so
/// the versions of two commits tell the time between them, and
/// `version_now`, which ages are measured against, is never behind the
/// read version: `fql mutex show` tells a heartbeat's age in seconds so
/// on every backend.
pub fn versions_advance_with_time(db: &Backend) {
    let commit = || {
        let (_, c) = db
            .run_with(RetryOptions::default(), |tx, _| tx.set(b"t", b"v"))
            .unwrap();
        c.version.unwrap()
    };
    let first = commit();
    std::thread::sleep(Duration::from_millis(200));
    let second = commit();
    // 200 ms apart: at least a tenth of a second's versions, whatever the
    // load (which only lengthens the pause).
    assert!(
        second - first >= 100_000,
        "200 ms advanced the version by {} only",
        second - first
    );
    let mut tx = db.create_trx().unwrap();
    let read = tx.read_version().unwrap();
    let now = tx.version_now().unwrap();
    assert!(read >= second, "read version {read} before commit {second}");
    assert!(
        now >= read,
        "version_now {now} behind the read version {read}"
    );
}

pub fn versionstamped_value_is_unreadable_before_commit(db: &Backend) {
    let mut tx = db.create_trx().unwrap();
    tx.atomic_op(
        b"v",
        &stamped(b"ab", 1),
        MutationType::SetVersionstampedValue,
    )
    .unwrap();
    assert_eq!(tx.get(b"v", false).unwrap_err(), Error::AccessedUnreadable);
    let all = kv::collect_range(&mut *tx, &RangeOption::new(b"", b"\xff"), false);
    assert_eq!(all.unwrap_err(), Error::AccessedUnreadable);
    let bad = tx.atomic_op(
        b"v",
        &stamped(b"", 0)[..10],
        MutationType::SetVersionstampedValue,
    );
    assert!(matches!(bad, Err(Error::InvalidOperation(_))), "{bad:?}");
}

fn unreadable<T>() -> R<T> {
    Err(Error::AccessedUnreadable)
}

/// A versionstamped key may land anywhere from its key with the smallest
/// stamp the commit can give (that of the read version, or zeros before
/// one is taken) to its key with a stamp of `0xff` bytes: until the commit,
/// FDB fails every read (snapshot or not, `get` or range) that would have
/// to look there with `accessed_unreadable`. A read that stops short of the
/// range, or lies beside it, goes on; a clear makes what it clears readable
/// again; a key written inside stays unreadable.
pub fn versionstamped_key_range_is_unreadable_before_commit(db: &Backend) {
    set_all(db, &[(b"a", b"1"), (b"log\x01", b"old"), (b"z", b"26")]);
    let mut tx = db.create_trx().unwrap();
    tx.atomic_op(
        &stamped(b"log!", 3),
        b"new",
        MutationType::SetVersionstampedKey,
    )
    .unwrap();
    let highest = [&b"log"[..], &[0xff; 10], b"!"].concat();
    for snapshot in [false, true] {
        assert_eq!(tx.get(&highest, snapshot), unreadable());
        assert_eq!(tx.get(b"log\x01", snapshot), unreadable(), "a stored key");
        for range in [
            RangeOption::prefix(b"log"),
            RangeOption::new(b"log\x01", b"log\x02"),
            RangeOption::new(b"", b"\xff"),
            RangeOption::new(b"", b"\xff").rev(),
            RangeOption::new(b"", b"\xff").limit(2),
        ] {
            let all = kv::collect_range(&mut *tx, &range, snapshot);
            assert_eq!(all, unreadable(), "{range:?}");
        }
        assert_eq!(tx.get(b"log", snapshot), Ok(None), "before the range");
        assert_eq!(tx.get(b"a", snapshot), Ok(Some(b"1".to_vec())));
        let read = |tx: &mut dyn Transaction, range: RangeOption| {
            kv::collect_range(tx, &range, snapshot).map(|r| string(&r))
        };
        assert_eq!(
            read(&mut *tx, RangeOption::new(b"", b"log")),
            Ok("a".into())
        );
        assert_eq!(
            read(&mut *tx, RangeOption::new(b"loh", b"\xff")),
            Ok("z".into())
        );
        // Reads that stop before they reach it.
        let first = RangeOption::new(b"", b"\xff").limit(1);
        assert_eq!(read(&mut *tx, first.clone()), Ok("a".into()));
        assert_eq!(read(&mut *tx, first.rev()), Ok("z".into()));
    }
    tx.set(b"log\x02", b"mine").unwrap();
    assert_eq!(tx.get(b"log\x02", false), unreadable(), "written inside");
    tx.clear_range(b"log\x01", b"log\x03").unwrap();
    assert_eq!(tx.get(b"log\x02", false), Ok(None), "cleared");
    let cleared = RangeOption::new(b"log\x01", b"log\x03");
    assert_eq!(kv::collect_range(&mut *tx, &cleared, false), Ok(vec![]));
    assert_eq!(tx.get(&highest, false), unreadable(), "the rest stays so");
    let committed = tx.commit().unwrap();
    let stamp = committed
        .versionstamp
        .expect("a writing commit has a stamp");
    let rows = read_all(db, RangeOption::prefix(b"log"));
    let key = [&b"log"[..], &stamp, b"!"].concat();
    assert_eq!(keys(&rows), vec![key], "the key, and no cleared one");
    assert_eq!(rows[0].value, b"new");
}

fn watch_on(db: &dyn Database, key: &[u8]) -> kv::Watch {
    let mut tx = db.create_trx().unwrap();
    tx.get(key, false).unwrap();
    let w = tx.watch(key).unwrap();
    tx.commit().unwrap();
    w
}

pub fn watches_fire_on_change(db: &Backend) {
    set_all(db, &[(b"w", b"1")]);
    let mut w = watch_on(db, b"w");
    assert!(
        !w.wait(Some(Duration::from_millis(100))).unwrap(),
        "no change, no fire"
    );
    // Writing the same value is no change.
    set_all(db, &[(b"w", b"1")]);
    assert!(!w.wait(Some(Duration::from_millis(100))).unwrap());
    let other = db.reopen();
    let start = Instant::now();
    set_all(&other, &[(b"w", b"2")]);
    assert!(
        w.wait(Some(Duration::from_secs(5))).unwrap(),
        "fires on change"
    );
    assert!(start.elapsed() < Duration::from_secs(1));
    // A watch on a missing key fires when it appears, and one set up by
    // a transaction that wrote the key starts from the written value.
    let mut missing = watch_on(db, b"new");
    let mut tx = db.create_trx().unwrap();
    tx.set(b"mine", b"x").unwrap();
    let mut mine = tx.watch(b"mine").unwrap();
    tx.commit().unwrap();
    assert!(!mine.wait(Some(Duration::from_millis(50))).unwrap());
    set_all(db, &[(b"new", b"!"), (b"mine", b"y")]);
    assert!(missing.wait(Some(Duration::from_secs(5))).unwrap());
    assert!(mine.wait(Some(Duration::from_secs(5))).unwrap());
    // Clearing is a change too.
    let mut cleared = watch_on(db, b"new");
    db.run(|tx, _| tx.clear(b"new")).unwrap();
    assert!(cleared.wait(Some(Duration::from_secs(5))).unwrap());
}

/// Whether `w` fires within a few seconds (`Some(true)` fired, `false`
/// not) or fails.
fn fires(w: &mut kv::Watch) -> Result<bool, Error> {
    w.wait(Some(Duration::from_secs(5)))
}

/// Whether `w` stays quiet for a moment.
fn quiet(w: &mut kv::Watch) -> bool {
    !w.wait(Some(Duration::from_millis(50))).unwrap()
}

/// FDB reports a watching transaction's own changes to the key at once,
/// before any commit: a write of another value, a clear, a range clear
/// over it, an atomic operation (whose result is unknown). Writing the
/// value it has changes nothing. A watch reads its key as the transaction
/// sees it, so a watch on a key the transaction gave a versionstamped value
/// (or that a versionstamped key may land on) fails with
/// `accessed_unreadable`, on the watch, not the call.
pub fn watches_see_their_own_transactions_writes(db: &Backend) {
    set_all(db, &[(b"w", b"1"), (b"n", &le(1))]);
    let mut tx = db.create_trx().unwrap();
    let mut w = tx.watch(b"w").unwrap();
    tx.set(b"w", b"1").unwrap();
    assert!(quiet(&mut w), "the same value");
    tx.set(b"w", b"2").unwrap();
    assert_eq!(fires(&mut w), Ok(true), "another value, before the commit");
    tx.commit().unwrap();

    let mut tx = db.create_trx().unwrap();
    let mut cleared = tx.watch(b"w").unwrap();
    let mut early = tx.watch(b"w").unwrap();
    let mut added = tx.watch(b"n").unwrap();
    let mut missing = tx.watch(b"m").unwrap();
    tx.clear(b"w").unwrap();
    assert_eq!(fires(&mut early), Ok(true), "a clear");
    tx.atomic_op(b"n", &le(0), MutationType::Add).unwrap();
    assert_eq!(fires(&mut added), Ok(true), "an atomic operation");
    tx.clear(b"m").unwrap();
    tx.clear_range(b"l", b"mm").unwrap();
    assert!(quiet(&mut missing), "cleared, as it was");
    drop(tx);
    assert_eq!(
        fires(&mut cleared),
        Ok(true),
        "fired before its transaction went"
    );
    assert_eq!(fires(&mut missing), Err(Error::TransactionCancelled));

    let mut tx = db.create_trx().unwrap();
    let mut w = tx.watch(b"w").unwrap();
    tx.clear_range(b"a", b"x").unwrap();
    assert_eq!(fires(&mut w), Ok(true), "a range clear over it");

    let mut tx = db.create_trx().unwrap();
    tx.atomic_op(
        b"v",
        &stamped(b"ab", 1),
        MutationType::SetVersionstampedValue,
    )
    .unwrap();
    let mut v = tx.watch(b"v").expect("the call succeeds");
    assert_eq!(fires(&mut v), Err(Error::AccessedUnreadable));
    tx.atomic_op(&stamped(b"log", 3), b"", MutationType::SetVersionstampedKey)
        .unwrap();
    let mut k = tx.watch(&[&b"log"[..], &[0xff; 10]].concat()).unwrap();
    assert_eq!(fires(&mut k), Err(Error::AccessedUnreadable));
}

/// A watch reads its key with a conflict, and a commit that fails fails
/// its transaction's watches with the commit's error, as FDB's do.
pub fn watches_of_a_failed_commit_fail_with_its_error(db: &Backend) {
    set_all(db, &[(b"w", b"1")]);
    let mut tx = db.create_trx().unwrap();
    let mut w = tx.watch(b"w").unwrap();
    tx.set(b"other", b"x").unwrap();
    set_all(&db.reopen(), &[(b"w", b"2")]);
    assert_eq!(tx.commit().map(|_| ()), Err(Error::NotCommitted));
    assert_eq!(fires(&mut w), Err(Error::NotCommitted));
    assert_eq!(get(db, b"other"), None);
}

pub fn watch_of_uncommitted_transaction_is_cancelled(db: &Backend) {
    let mut tx = db.create_trx().unwrap();
    let mut w = tx.watch(b"k").unwrap();
    drop(tx);
    assert_eq!(
        w.wait(Some(Duration::from_secs(1))),
        Err(Error::TransactionCancelled)
    );
    let mut tx = db.create_trx().unwrap();
    let mut w = tx.watch(b"k").unwrap();
    tx.reset();
    assert_eq!(
        w.wait(Some(Duration::from_secs(1))),
        Err(Error::TransactionCancelled)
    );
}

pub fn limits_fail_and_write_nothing(db: &Backend) {
    let limit = db.key_limit;
    let key = vec![b'k'; limit + 1];
    let r = db.run(|tx, _| {
        tx.set(b"before", b"x")?;
        tx.set(&key, b"")
    });
    assert_eq!(
        r,
        Err(Error::KeyTooLarge {
            size: limit + 1,
            limit
        })
    );
    let value = vec![0; 100_001];
    let r = db.run(|tx, _| tx.set(b"k", &value));
    assert_eq!(
        r,
        Err(Error::ValueTooLarge {
            size: 100_001,
            limit: 100_000
        })
    );
    // Exactly at the limits is fine.
    db.run(|tx, _| tx.set(&key[..limit], &value[..100_000]))
        .unwrap();
    db.run(|tx, _| tx.clear(&key[..limit])).unwrap();
    // 120 values of 90 kB: over 10 MB in one transaction.
    let big = vec![7; 90_000];
    let r = db.run(|tx, _| {
        for i in 0..120u32 {
            tx.set(&i.to_be_bytes(), &big)?;
        }
        R::Ok(())
    });
    assert!(
        matches!(
            r,
            Err(Error::TransactionTooLarge {
                limit: 10_000_000,
                ..
            })
        ),
        "{r:?}"
    );
    // A caller that ignores the error still cannot commit the rest.
    let mut tx = db.create_trx().unwrap();
    tx.set(b"partial", b"x").unwrap();
    assert!(tx.set(&key, b"").is_err());
    assert!(matches!(tx.commit(), Err(Error::KeyTooLarge { .. })));
    assert_eq!(
        read_all(db, RangeOption::new(b"", b"\xff")),
        vec![],
        "nothing was written"
    );
}

/// The transaction limit counts what FDB's client counts at commit
/// (`Transaction::getSize`): each mutation and conflict range with the
/// structure that holds it, read conflict ranges included, once the
/// transaction writes; a versionstamped key or value with its 4-byte
/// offset, against the key or value limit too.
pub fn transaction_size_counts_what_fdb_counts(db: &Backend) {
    let param = |len: usize| [vec![7u8; len], 0u32.to_le_bytes().to_vec()].concat();
    let op = MutationType::SetVersionstampedValue;
    let r = db.run(|tx, _| tx.atomic_op(b"v", &param(99_997), op));
    let over = Error::ValueTooLarge {
        size: 100_001,
        limit: 100_000,
    };
    assert_eq!(r, Err(over));
    db.run(|tx, _| tx.atomic_op(b"v", &param(99_996), op))
        .unwrap();
    assert_eq!(get(db, b"v").map(|v| v.len()), Some(99_996));
    let limit = db.key_limit;
    let op = MutationType::SetVersionstampedKey;
    let r = db.run(|tx, _| tx.atomic_op(&stamped(&vec![b'k'; limit - 13], 1), b"", op));
    let size = limit + 1;
    assert_eq!(r, Err(Error::KeyTooLarge { size, limit }));
    db.run(|tx, _| tx.atomic_op(&stamped(&vec![b'k'; limit - 14], 1), b"", op))
        .unwrap();

    // 3,300 sets of 1,000-byte keys: 9.9 MB of keys and conflict ranges,
    // and 10.2 MB with the 88 bytes FDB adds to each set.
    let key = |i: u16, len: usize| {
        let mut k = i.to_be_bytes().to_vec();
        k.resize(len, b'k');
        k
    };
    let r = db.run(|tx, _| (0..3_300).try_for_each(|i| tx.set(&key(i, 1_000), b"")));
    let too_large = |r: &Result<(), Error>| {
        matches!(
            r,
            Err(Error::TransactionTooLarge {
                limit: 10_000_000,
                ..
            })
        )
    };
    assert!(too_large(&r), "{r:?}");

    // 1,000 reads of 5,000-byte keys: 10 MB of read conflict ranges.
    let read = |tx: &mut dyn Transaction, snapshot| {
        (0..1_000).try_for_each(|i| tx.get(&key(i, 5_000), snapshot).map(drop))
    };
    let r = db.run(|tx, _| {
        read(tx, false)?;
        tx.set(b"w", b"1")
    });
    assert!(too_large(&r), "{r:?}");
    let r = db.run(|tx, _| {
        tx.set(b"w", b"1")?;
        read(tx, false)
    });
    assert!(too_large(&r), "reads after the writes: {r:?}");
    assert_eq!(get(db, b"w"), None);
    db.run(|tx, _| read(tx, false))
        .expect("a transaction that writes nothing has no size");
    db.run(|tx, _| {
        read(tx, true)?;
        tx.set(b"w", b"1")
    })
    .expect("snapshot reads add no conflict range");
}

pub fn conflicting_commits_fail_and_retry(db: &Backend) {
    set_all(db, &[(b"counter", b"0")]);
    let mut a = db.create_trx().unwrap();
    let mut b = db.create_trx().unwrap();
    let va = a.get(b"counter", false).unwrap();
    let vb = b.get(b"counter", false).unwrap();
    assert_eq!(va, vb);
    a.set(b"counter", b"a").unwrap();
    b.set(b"counter", b"b").unwrap();
    a.commit().unwrap();
    assert_eq!(b.commit(), Err(Error::NotCommitted));
    assert_eq!(get(db, b"counter"), Some(b"a".to_vec()));
    // A blind write after the other's read does not conflict the writer.
    let mut reader = db.create_trx().unwrap();
    reader.get(b"other", false).unwrap();
    set_all(db, &[(b"counter", b"c")]);
    reader.set(b"other", b"1").unwrap();
    reader.commit().unwrap();
    // The retry loop runs the body again after a conflict.
    let mut attempts = 0;
    let mut intruder = Some(db.reopen());
    db.run(|tx, _| {
        attempts += 1;
        let v = tx.get(b"counter", false)?;
        if let Some(other) = intruder.take() {
            set_all(&other, &[(b"counter", b"intruder")]);
        }
        let mut v = v.unwrap_or_default();
        v.push(b'+');
        tx.set(b"counter", &v)
    })
    .unwrap();
    assert_eq!(attempts, 2);
    assert_eq!(get(db, b"counter"), Some(b"intruder+".to_vec()));
}

/// With `ReportConflictingKeys`, a commit that fails with `not_committed`
/// tells which of its read ranges another commit wrote, as FDB does: in
/// the special keys under `\xff\xff/transaction/conflicting_keys/`, a key
/// valued `1` where a range begins and `0` where it ends, the reads
/// merged as they were sent, until the transaction is retried. Without
/// the option, or without a conflict, the range reads empty.
pub fn conflicting_keys_report_the_read_range_written(db: &Backend) {
    if db.is_scoped() {
        // The view is a keyspace without the special keys.
        let mut tx = db.create_trx().unwrap();
        let refused = tx.get(&[kv::CONFLICTING_KEYS, b"ck"].concat(), false);
        assert_eq!(refused, Err(Error::KeyOutsideLegalRange));
        return;
    }
    set_all(db, &[(b"ck", b"0"), (b"cl", b"0")]);
    let conflicted = |report: bool| {
        let mut reader = db.create_trx().unwrap();
        if report {
            reader
                .set_option(TransactionOption::ReportConflictingKeys)
                .unwrap();
        }
        reader.get(b"ck", false).unwrap();
        let next = RangeOption::new(&b"ck\x00"[..], &b"cm"[..]);
        reader.get_range(&next, 1, false).unwrap();
        let apart = RangeOption::new(&b"x"[..], &b"y"[..]);
        reader.get_range(&apart, 1, false).unwrap();
        set_all(db, &[(b"cl", b"1")]);
        reader.set(b"w", b"1").unwrap();
        assert_eq!(reader.commit(), Err(Error::NotCommitted));
        reader
    };
    let mut reader = conflicted(true);
    let all = RangeOption::new(kv::CONFLICTING_KEYS, kv::CONFLICTING_KEYS_END);
    let rows = reader.get_range(&all, 1, false).unwrap();
    let prefixed = |k: &[u8]| [kv::CONFLICTING_KEYS, k].concat();
    let shown: Vec<(Vec<u8>, Vec<u8>)> =
        rows.kvs.into_iter().map(|kv| (kv.key, kv.value)).collect();
    assert_eq!(
        shown,
        vec![
            (prefixed(b"ck"), b"1".to_vec()),
            (prefixed(b"cm"), b"0".to_vec())
        ]
    );
    assert!(!rows.more);
    assert_eq!(reader.get(&prefixed(b"ck"), false), Ok(Some(b"1".to_vec())));
    assert_eq!(reader.get(&prefixed(b"cl"), false), Ok(None));
    let ranges = kv::read_conflicting(&mut *reader).unwrap();
    assert_eq!(ranges, vec![(b"ck".to_vec(), b"cm".to_vec())]);
    reader.on_error(Error::NotCommitted).unwrap();
    assert_eq!(kv::read_conflicting(&mut *reader).unwrap(), vec![]);
    let mut unasked = conflicted(false);
    assert_eq!(kv::read_conflicting(&mut *unasked).unwrap(), vec![]);
    let mut calm = db.create_trx().unwrap();
    calm.set_option(TransactionOption::ReportConflictingKeys)
        .unwrap();
    calm.get(b"ck", false).unwrap();
    calm.set(b"w", b"2").unwrap();
    assert_eq!(kv::read_conflicting(&mut *calm).unwrap(), vec![]);
    calm.commit().unwrap();
}

pub fn concurrent_increments_lose_no_update(db: &Backend) {
    set_all(db, &[(b"n", &0u32.to_be_bytes())]);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let handle = db.reopen();
                for _ in 0..50 {
                    handle
                        .run(|tx, _| {
                            let v = tx.get(b"n", false)?.expect("set");
                            let n = u32::from_be_bytes(v.try_into().expect("4 bytes")) + 1;
                            tx.set(b"n", &n.to_be_bytes())
                        })
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(get(db, b"n"), Some(200u32.to_be_bytes().to_vec()));
}

pub fn snapshot_reads_do_not_conflict(db: &Backend) {
    set_all(db, &[(b"a", b"1"), (b"b", b"1")]);
    let mut tx = db.create_trx().unwrap();
    assert_eq!(tx.get(b"a", true).unwrap(), Some(b"1".to_vec()));
    kv::collect_range(&mut *tx, &RangeOption::new(b"a", b"c"), true).unwrap();
    set_all(db, &[(b"a", b"2"), (b"b", b"2")]);
    // Still the snapshot's values.
    assert_eq!(tx.get(b"a", true).unwrap(), Some(b"1".to_vec()));
    tx.set(b"c", b"x").unwrap();
    tx.commit().unwrap();
    // A non-snapshot read of a range another commit wrote conflicts.
    let mut tx = db.create_trx().unwrap();
    kv::collect_range(&mut *tx, &RangeOption::new(b"a", b"c"), false).unwrap();
    set_all(db, &[(b"b", b"3")]);
    tx.set(b"c", b"y").unwrap();
    assert_eq!(tx.commit(), Err(Error::NotCommitted));
}

pub fn manual_conflict_ranges(db: &Backend) {
    let mut a = db.create_trx().unwrap();
    a.read_version().unwrap();
    a.add_conflict_range(b"m", b"n", ConflictRangeType::Read)
        .unwrap();
    a.set(b"z", b"1").unwrap();
    let mut b = db.create_trx().unwrap();
    b.set_option(TransactionOption::NextWriteNoWriteConflictRange)
        .unwrap();
    b.set(b"m1", b"silent").unwrap();
    b.commit().unwrap();
    a.commit()
        .expect("a write without a conflict range conflicts with no one");
    let mut a = db.create_trx().unwrap();
    a.read_version().unwrap();
    a.add_conflict_range(b"m", b"n", ConflictRangeType::Read)
        .unwrap();
    a.set(b"z", b"2").unwrap();
    let mut b = db.create_trx().unwrap();
    b.add_conflict_range(b"m5", b"m6", ConflictRangeType::Write)
        .unwrap();
    b.set(b"elsewhere", b"").unwrap();
    b.commit().unwrap();
    assert_eq!(a.commit(), Err(Error::NotCommitted));
}

pub fn read_only_commit_writes_nothing(db: &Backend) {
    let mut tx = db.create_trx().unwrap();
    assert_eq!(tx.get(b"x", false).unwrap(), None);
    let c = tx.commit().unwrap();
    assert_eq!(c.version, None);
    assert_eq!(c.versionstamp, None);
    // A committed transaction is spent until reset.
    assert!(matches!(tx.set(b"x", b""), Err(Error::InvalidOperation(_))));
    tx.reset();
    tx.set(b"x", b"1").unwrap();
    assert!(tx.commit().unwrap().version.is_some());
}

#[derive(Debug, PartialEq)]
enum AppError {
    Kv(Error),
    Refused,
}

impl From<Error> for AppError {
    fn from(e: Error) -> Self {
        AppError::Kv(e)
    }
}

impl kv::AsKvError for AppError {
    fn as_kv(&self) -> Option<&Error> {
        match self {
            AppError::Kv(e) => Some(e),
            AppError::Refused => None,
        }
    }
}

pub fn retry_loop_stops_on_caller_errors(db: &Backend) {
    let mut attempts = 0;
    let r: Result<(), AppError> = db.run(|tx, _| {
        attempts += 1;
        tx.set(b"k", b"v")?;
        Err(AppError::Refused)
    });
    assert_eq!((r, attempts), (Err(AppError::Refused), 1));
    assert_eq!(get(db, b"k"), None, "a failed body commits nothing");
}

pub fn retry_limit_and_timeout(db: &Backend) {
    let conflict = |tx: &mut dyn Transaction, _| -> R {
        tx.get(b"hot", false)?;
        Err(Error::NotCommitted)
    };
    let mut attempts = 0;
    let opts = RetryOptions {
        retry_limit: Some(2),
        timeout: None,
    };
    let r = db.run_with(opts, |tx, m| {
        attempts += 1;
        conflict(tx, m)
    });
    assert_eq!((r.map(|_| ()), attempts), (Err(Error::NotCommitted), 3));
    let opts = RetryOptions {
        retry_limit: None,
        timeout: Some(Duration::from_millis(200)),
    };
    let start = Instant::now();
    let r = db.run_with(opts, conflict);
    assert_eq!(r.map(|_| ()), Err(Error::TransactionTimedOut));
    assert!(start.elapsed() < Duration::from_secs(3));
}

/// Past its `Timeout` a transaction's reads and its commit fail with
/// `transaction_timed_out`; a write is only buffered (FDB's `set` has no
/// result to fail with) and the failed commit writes none of it.
pub fn past_its_timeout_a_transaction_reads_and_commits_nothing(db: &Backend) {
    let mut tx = db.create_trx().unwrap();
    tx.set_option(TransactionOption::Timeout(50)).unwrap();
    tx.set(b"early", b"1").unwrap();
    std::thread::sleep(Duration::from_millis(120));
    assert_eq!(tx.get(b"early", false), Err(Error::TransactionTimedOut));
    let _ = tx.set(b"late", b"1");
    assert_eq!(tx.commit().map(|_| ()), Err(Error::TransactionTimedOut));
    assert_eq!((get(db, b"early"), get(db, b"late")), (None, None));
}

/// A key longer than the key limit cannot be stored, so FDB drops a clear
/// of one and cuts a range clear's long bounds to the limit: neither fails,
/// and the range still clears the keys between its bounds.
pub fn clears_of_keys_too_long_to_store_do_not_fail(db: &Backend) {
    let long = |first: u8| {
        let mut k = vec![first];
        k.resize(db.key_limit + 50, b'z');
        k
    };
    db.run(|tx, _| {
        tx.set(b"b", b"1")?;
        tx.set(b"d", b"1")
    })
    .unwrap();
    db.run(|tx, _| {
        tx.clear(&long(b'a'))?;
        tx.clear_range(&long(b'a'), &long(b'c'))
    })
    .unwrap();
    let left = read_all(db, RangeOption::new(&b""[..], &b"\xff"[..]));
    assert_eq!(keys(&left), vec![b"d".to_vec()]);
}

/// What a key outside the legal range gets.
fn outside<T>() -> R<T> {
    Err(Error::KeyOutsideLegalRange)
}

/// A key of the system keyspace that no part of FDB uses.
const SYSTEM_KEY: &[u8] = b"\xff\x02/fql-conformance/key";

/// The system keys, from `0xff` to the special keys at `0xffff`: closed
/// to a transaction without `read_system_keys` or `access_system_keys`,
/// readable with either, writable with the second only, by sets, atomic
/// operations and clears alike. A view of a directory's keys, as a
/// tenant, has none: it refuses them whatever the options.
pub fn system_keys_need_their_options(db: &Backend) {
    let mut tx = db.create_trx().unwrap();
    assert_eq!(tx.get(SYSTEM_KEY, false), outside());
    assert_eq!(tx.set(SYSTEM_KEY, b"v"), outside());
    let system = RangeOption::new(&b"\xff"[..], &b"\xff\xff"[..]);
    assert_eq!(tx.get_range(&system, 1, false).map(|r| r.kvs), outside());
    if db.is_scoped() {
        let mut tx = db.create_trx().unwrap();
        tx.set_option(TransactionOption::AccessSystemKeys).unwrap();
        assert_eq!(tx.set(SYSTEM_KEY, b"v"), outside());
        assert_eq!(tx.get(SYSTEM_KEY, false), outside());
        return;
    }
    let mut tx = db.create_trx().unwrap();
    tx.set_option(TransactionOption::ReadSystemKeys).unwrap();
    assert_eq!(tx.get(SYSTEM_KEY, false), Ok(None));
    assert_eq!(
        tx.set(SYSTEM_KEY, b"v"),
        outside(),
        "reading is not writing"
    );
    let mut tx = db.create_trx().unwrap();
    tx.set_option(TransactionOption::AccessSystemKeys).unwrap();
    let special = tx.set(b"\xff\xff/fql", b"v");
    assert_eq!(first_error(&mut *tx, special), 2114, "a special key");
    let counter = [SYSTEM_KEY, b"/n"].concat();
    db.run(|tx, _| {
        tx.set_option(TransactionOption::AccessSystemKeys)?;
        tx.set(SYSTEM_KEY, b"v")?;
        tx.atomic_op(&counter, &2i64.to_le_bytes(), MutationType::Add)
    })
    .unwrap();
    let read = db.run(|tx, _| {
        tx.set_option(TransactionOption::ReadSystemKeys)?;
        let whole = RangeOption::new(SYSTEM_KEY, kv::key_after(&counter));
        Ok::<_, Error>((
            tx.get(SYSTEM_KEY, false)?,
            tx.get(&counter, false)?,
            kv::collect_range(tx, &whole, false)?,
        ))
    });
    let (value, count, rows) = read.unwrap();
    assert_eq!(value.as_deref(), Some(&b"v"[..]));
    assert_eq!(count, Some(2i64.to_le_bytes().to_vec()));
    assert_eq!(keys(&rows), vec![SYSTEM_KEY.to_vec(), counter.clone()]);
    db.run(|tx, _| {
        tx.set_option(TransactionOption::AccessSystemKeys)?;
        tx.clear(SYSTEM_KEY)?;
        tx.clear_range(&counter, &kv::key_after(&counter))
    })
    .unwrap();
    let gone = db.run(|tx, _| {
        tx.set_option(TransactionOption::ReadSystemKeys)?;
        let whole = RangeOption::new(SYSTEM_KEY, kv::key_after(&counter));
        kv::collect_range(tx, &whole, false)
    });
    assert_eq!(gone.map(|rows| rows.len()), Ok(0));
}

/// The special keys need no option to read. `\xff\xff/status/json` holds
/// a JSON document with the client's view; a key no module of the client
/// answers fails with `special_keys_no_module_found`, and a range that
/// reaches from one module into another with
/// `special_keys_cross_module_read`.
pub fn special_keys_answer_status_json_and_fail_the_rest(db: &Backend) {
    if db.is_scoped() {
        let mut tx = db.create_trx().unwrap();
        let refused = tx.get(b"\xff\xff/status/json", false);
        assert_eq!(refused, Err(Error::KeyOutsideLegalRange));
        return;
    }
    let mut tx = db.create_trx().unwrap();
    let status = tx.get(b"\xff\xff/status/json", false).unwrap();
    let status: serde_json::Value = serde_json::from_slice(&status.unwrap()).unwrap();
    assert!(status["client"]["database_status"]["available"].is_boolean());
    assert!(status["cluster"].is_object());
    let code = |r: R<Option<Vec<u8>>>| r.unwrap_err().code();
    assert_eq!(code(tx.get(b"\xff\xff/no_such_module", false)), 2113);
    let json = &b"\xff\xff/status/json"[..];
    let module = RangeOption::new(json, kv::key_after(json));
    let rows = tx.get_range(&module, 1, false).unwrap().kvs;
    assert_eq!(keys(&rows), vec![json.to_vec()]);
    let elsewhere = RangeOption::new(&b"\xff\xff/metrics/"[..], &b"\xff\xff/metrics0"[..]);
    let elsewhere = tx.get_range(&elsewhere, 1, false).map(|_| None);
    assert_eq!(code(elsewhere), 2113);
    let across = RangeOption::new(&b"\xff\xff/status/"[..], &b"\xff\xff/status0"[..]);
    let across = tx.get_range(&across, 1, false).map(|_| None);
    assert_eq!(code(across), 2112);
}

/// The code of the first error of `r` and then a commit: the error of a
/// call FDB's client defers to the commit (a write's, an option's), which
/// the embedded store gives at the call.
fn first_error(tx: &mut dyn Transaction, r: R) -> i32 {
    r.and_then(|()| tx.commit().map(drop))
        .expect_err("an error, at the call or at the commit")
        .code()
}

/// `ReadYourWritesDisable`: reads see the database as of the read
/// version, not the transaction's writes, and watches fail with
/// `watches_disabled`; after a read or a write the option is
/// `client_invalid_operation`, at once or at the next read (FDB defers
/// it). A retry starts with the transaction's writes seen again.
pub fn read_your_writes_disable_reads_past_own_writes(db: &Backend) {
    set_all(db, &[(b"a", b"old")]);
    let mut tx = db.create_trx().unwrap();
    tx.set_option(TransactionOption::ReadYourWritesDisable)
        .unwrap();
    tx.set(b"a", b"new").unwrap();
    tx.set(b"b", b"new").unwrap();
    assert_eq!(tx.get(b"a", false).unwrap().as_deref(), Some(&b"old"[..]));
    assert_eq!(tx.get(b"b", true).unwrap(), None);
    let rows = kv::collect_range(&mut *tx, &RangeOption::new(b"a", b"c"), false).unwrap();
    assert_eq!(string(&rows), "a");
    let watched = tx.watch(b"a").and_then(|mut w| fires(&mut w));
    assert_eq!(watched.map(drop).unwrap_err().code(), 1034);
    tx.commit().unwrap();
    assert_eq!(get(&db.reopen(), b"b").as_deref(), Some(&b"new"[..]));

    let mut tx = db.create_trx().unwrap();
    tx.set(b"c", b"1").unwrap();
    let late = tx
        .set_option(TransactionOption::ReadYourWritesDisable)
        .and_then(|()| tx.get(b"c", false).map(drop));
    assert_eq!(late.unwrap_err().code(), 2000, "after a write");
    let mut tx = db.create_trx().unwrap();
    tx.get(b"a", false).unwrap();
    let late = tx.set_option(TransactionOption::ReadYourWritesDisable);
    assert_eq!(first_error(&mut *tx, late), 2000, "after a read");
    tx.reset();
    tx.set(b"c", b"2").unwrap();
    assert_eq!(tx.get(b"c", false).unwrap().as_deref(), Some(&b"2"[..]));
}

/// `SnapshotRywDisable`: snapshot reads skip the transaction's writes
/// while others still see them; `SnapshotRywEnable` counts back up.
pub fn snapshot_ryw_disable_hides_writes_from_snapshot_reads(db: &Backend) {
    set_all(db, &[(b"a", b"old")]);
    let mut tx = db.create_trx().unwrap();
    tx.set_option(TransactionOption::SnapshotRywDisable)
        .unwrap();
    tx.set(b"a", b"new").unwrap();
    tx.set(b"b", b"new").unwrap();
    assert_eq!(tx.get(b"a", true).unwrap().as_deref(), Some(&b"old"[..]));
    assert_eq!(tx.get(b"b", true).unwrap(), None);
    assert_eq!(tx.get(b"b", false).unwrap().as_deref(), Some(&b"new"[..]));
    let range = RangeOption::new(b"a", b"c");
    assert_eq!(
        string(&kv::collect_range(&mut *tx, &range, true).unwrap()),
        "a"
    );
    assert_eq!(
        string(&kv::collect_range(&mut *tx, &range, false).unwrap()),
        "ab"
    );
    tx.set_option(TransactionOption::SnapshotRywEnable).unwrap();
    assert_eq!(tx.get(b"b", true).unwrap().as_deref(), Some(&b"new"[..]));
}

const TENANT_MAP: &[u8] = b"\xff\xff/management/tenant/map/";
const TENANT_MAP_END: &[u8] = b"\xff\xff/management/tenant/map0";

/// Writes of special keys, as FDB 7.3's: without
/// `SpecialKeySpaceEnableWrites` they are `special_keys_write_disabled`;
/// with it, a key no module writes is
/// `special_keys_no_write_module_found`. A clear of the empty tenant map
/// (what FDB's bindingtester commits before each test) commits on a
/// cluster with tenants (fql's libfdb_c); fql's own stores have none and
/// fail its commit with `tenants_disabled`, as a cluster without tenants
/// does, committing nothing. The tenant map reads empty. A view of a
/// directory has no special keys.
pub fn special_key_writes_need_the_option_and_a_module(db: &Backend) {
    let mut tx = db.create_trx().unwrap();
    if db.is_scoped() {
        let refused = tx.clear_range(TENANT_MAP, TENANT_MAP_END);
        assert_eq!(refused, outside());
        return;
    }
    let disabled = tx.clear_range(TENANT_MAP, TENANT_MAP_END);
    assert_eq!(first_error(&mut *tx, disabled), 2114);
    let mut tx = db.create_trx().unwrap();
    tx.set_option(TransactionOption::SpecialKeySpaceEnableWrites)
        .unwrap();
    let nowhere = tx.set(b"\xff\xff/fql", b"v");
    assert_eq!(first_error(&mut *tx, nowhere), 2115);
    let mut tx = db.create_trx().unwrap();
    tx.set_option(TransactionOption::SpecialKeySpaceEnableWrites)
        .unwrap();
    tx.set(b"user", b"u").unwrap();
    let cleared = tx.clear_range(TENANT_MAP, TENANT_MAP_END);
    if db.has_tenants() {
        cleared.unwrap();
        tx.commit().unwrap();
        assert_eq!(get(&db.reopen(), b"user").as_deref(), Some(&b"u"[..]));
    } else {
        assert_eq!(first_error(&mut *tx, cleared), 2136);
        assert_eq!(get(&db.reopen(), b"user"), None, "nothing committed");
    }
    let mut tx = db.create_trx().unwrap();
    let map = RangeOption::new(TENANT_MAP, TENANT_MAP_END);
    assert_eq!(tx.get_range(&map, 1, false).unwrap().kvs, Vec::new());
}

/// Writes `n` pairs of about 1 KB under `prefix`, in transactions well
/// under FDB's limits; returns their bytes.
fn fill(db: &dyn Database, prefix: &str, n: usize) -> u64 {
    let value = [b'v'; 1000];
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        db.run(|tx, _| {
            for i in chunk {
                tx.set(format!("{prefix}{i:06}").as_bytes(), &value)?;
            }
            R::Ok(())
        })
        .unwrap();
    }
    (n * (prefix.len() + 6 + value.len())) as u64
}

fn estimate(db: &dyn Database, begin: &[u8], end: &[u8]) -> R<u64> {
    db.run(|tx, _| tx.estimated_range_size(begin, end))
}

/// The estimate once it holds `settled`: FDB's storage servers update
/// their sample as they apply writes, a moment after the commit, so on a
/// cluster it is asked again for up to ten seconds; the embedded store's
/// is written with the commit and holds at once.
fn settled_estimate(
    db: &dyn Database,
    begin: &[u8],
    end: &[u8],
    settled: impl Fn(u64) -> bool,
) -> u64 {
    let mut last = 0;
    within(Duration::from_secs(10), || {
        last = estimate(db, begin, end).unwrap();
        settled(last).then_some(())
    });
    last
}

/// The estimate reads a sample, not the range: nothing for an empty
/// range, more as data is added, and within a factor of two of the true
/// size for a range of 20,000 pairs, which FDB's sample and the embedded
/// store's both hold well inside (see docs/storage.md).
pub fn estimated_range_size_follows_the_data(db: &Backend) {
    assert_eq!(estimate(db, b"e/", b"e0"), Ok(0));
    assert_eq!(estimate(db, b"a", b"a"), Ok(0));
    assert_eq!(estimate(db, b"z", b"a"), Err(Error::InvertedRange));
    assert_eq!(
        estimate(db, b"a", b"\xff\x01"),
        Err(Error::KeyOutsideLegalRange)
    );
    let half = fill(db, "e/a", 10_000);
    let within = |bytes: u64| move |n: u64| n >= bytes / 2 && n <= bytes * 2;
    let first = settled_estimate(db, b"e/", b"e0", within(half));
    assert!(within(half)(first), "estimated {first} for {half} bytes");
    let whole = half + fill(db, "e/b", 10_000);
    let second = settled_estimate(db, b"e/", b"e0", |n| n > first && within(whole)(n));
    assert!(second > first, "{first} then {second} after doubling");
    assert!(
        within(whole)(second),
        "estimated {second} for {whole} bytes"
    );
    // Outside the data there is still nothing, and a cleared range
    // estimates at nothing again.
    assert_eq!(estimate(db, b"f", b"g"), Ok(0));
    db.run(|tx, _| tx.clear_range(b"e/", b"e0")).unwrap();
    assert_eq!(settled_estimate(db, b"e/", b"e0", |n| n == 0), 0);
}

/// FDB's metadata version: any transaction reads `\xff/metadataVersion`
/// without an option; a transaction changes it only by stamping it (a
/// versionstamped value at offset 0, no option needed), after which it
/// cannot read it until the commit; no other write is taken. A view of
/// a directory's keys, as a tenant, offers no system key, this one
/// included.
pub fn the_metadata_version_is_read_by_anyone_and_only_stamped(db: &Backend) {
    let (key, stamp) = (kv::METADATA_VERSION_KEY, kv::METADATA_VERSION_STAMP);
    let stamped = MutationType::SetVersionstampedValue;
    if db.is_scoped() {
        let mut tx = db.create_trx().unwrap();
        assert_eq!(tx.get(key, true), outside());
        return;
    }
    let before = db.run(|tx, _| tx.get(key, false)).unwrap();
    let invalid = |r: R| matches!(r, Err(Error::InvalidOperation(_)));
    let mut tx = db.create_trx().unwrap();
    assert!(invalid(tx.set(key, b"1")), "set");
    let mut tx = db.create_trx().unwrap();
    assert!(
        invalid(tx.atomic_op(key, &[1; 14], stamped)),
        "a stamp elsewhere"
    );
    let mut tx = db.create_trx().unwrap();
    assert!(
        invalid(tx.atomic_op(key, &[0; 8], MutationType::Add)),
        "add"
    );
    let mut tx = db.create_trx().unwrap();
    assert_eq!(tx.clear(key), outside(), "clear");
    let (seen, committed) = db
        .run_with(RetryOptions::default(), |tx, _| {
            tx.atomic_op(key, &stamp, stamped)?;
            Ok::<_, Error>(tx.get(key, true))
        })
        .unwrap();
    assert_eq!(seen, Err(Error::AccessedUnreadable));
    let after = db.run(|tx, _| tx.get(key, false)).unwrap();
    assert_eq!(after, committed.versionstamp.map(|s| s.to_vec()));
    assert_ne!(after, before);
}
