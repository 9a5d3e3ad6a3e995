//! What statements cost, as a metered engine measures them
//! (`fql explain --analyze`): the same figures on every backend.

use std::sync::Arc;

use fql::directory::DirectoryLayer;
use fql::exec::{self, Bindings, Costs, Engine, TransactionCost};
use fql::kv::{self, DatabaseExt, RangeOption};

use crate::backend::Backend;

/// Runs `script` on `engine`, each transaction in the retry loop, its
/// results dropped.
fn run(engine: &Engine, script: &str) {
    let parsed = fql::check::load(script).expect("a valid script");
    let plan = fql::plan::plan(&parsed, &Default::default()).expect("a plan");
    let mut bindings = Bindings::default();
    for steps in plan.transactions() {
        let sink = &mut exec::Each(|_: exec::Found<'_>| Ok(()));
        engine
            .run_transaction(steps, &mut bindings, sink)
            .expect("the transaction commits");
    }
}

/// `script` run metered: what each of its transactions cost.
fn measured(b: &Backend, script: &str) -> Vec<TransactionCost> {
    let costs = Arc::new(Costs::default());
    run(&Engine::new(b.handle()).metered(costs.clone()), script);
    costs.take()
}

/// The bytes of the keys and values stored under directory `path`.
fn stored_bytes(b: &Backend, path: &[&str]) -> u64 {
    let kvs = b
        .run(|tx, _| {
            let dir = DirectoryLayer::new().open(tx, path, b"")?;
            let range = RangeOption::prefix(dir.prefix()?);
            Ok::<_, fql::directory::Error>(kv::collect_range(tx, &range, false)?)
        })
        .expect("the directory is read");
    kvs.iter()
        .map(|kv| (kv.key.len() + kv.value.len()) as u64)
        .sum()
}

/// A range read of a directory three levels down reads each level of its
/// path, then its keys: those the filter leaves out are counted apart
/// from those it returns.
pub fn reads_are_counted_by_level_and_filtered_rows_apart(b: &Backend) {
    run(
        &Engine::new(b.handle()),
        "/a/b/c(1)=\"x\"\n/a/b/c(2)=\"y\"\n/a/b/c(3)=3\n",
    );
    let costs = measured(b, "/a/b/c(<int>)=<str>\n");
    assert_eq!(costs.len(), 1, "one transaction: {costs:?}");
    let s = &costs[0].statements[0];
    assert_eq!(s.levels.len(), 3, "one figure per level: {s:?}");
    let per_level = s.levels[0].reads;
    assert!(per_level >= 2, "an entry and a layer at least: {s:?}");
    assert!(s.levels.iter().all(|l| l.reads == per_level), "{s:?}");
    assert_eq!(s.data.keys, 3);
    assert_eq!(s.data.bytes, stored_bytes(b, &["a", "b", "c"]));
    assert_eq!((s.data.range_batches, s.data.point_reads), (1, 0));
    assert_eq!((s.returned, s.filtered()), (2, Some(1)));
    assert_eq!(s.round_trips(), 3 * per_level + s.directory_other.reads + 1);
    assert_eq!(s.runs, 1);
    assert!(costs[0].retries.is_empty());
    assert_eq!(costs[0].commits, 1);
}

/// A directory inside a partition is a level of its path like any other.
pub fn levels_go_on_inside_a_partition(b: &Backend) {
    b.run(|tx, _| DirectoryLayer::new().create_or_open(tx, &["p"], b"partition"))
        .expect("a partition");
    run(&Engine::new(b.handle()), "/p/x/y(1)=2\n");
    let costs = measured(b, "/p/x/y(<int>)=<int>\n");
    let s = &costs[0].statements[0];
    assert_eq!(s.levels.len(), 3, "{s:?}");
    assert!(s.levels.iter().all(|l| l.reads > 0), "{s:?}");
    assert_eq!((s.data.keys, s.returned), (1, 1));
}

/// A write is counted with its bytes; a retried attempt is counted with
/// the error it was retried after.
pub fn writes_and_retries_are_counted(b: &Backend) {
    let costs = Arc::new(Costs::default());
    let engine = Engine::new(b.handle()).metered(costs.clone());
    let parsed = fql::check::load("/w(1)=\"ab\"\n").unwrap();
    let plan = fql::plan::plan(&parsed, &Default::default()).unwrap();
    let steps = plan.transactions().next().unwrap();
    let mut first = true;
    engine
        .run_transaction_with(
            steps,
            &mut Bindings::default(),
            &mut exec::Each(|_: exec::Found<'_>| Ok(())),
            |_| match std::mem::take(&mut first) {
                true => Err(exec::Error::Kv(kv::Error::NotCommitted)),
                false => Ok(()),
            },
        )
        .expect("committed on the second attempt");
    let costs = costs.take();
    let tx = &costs[0];
    // On a cluster shared with other cases running at once, a real
    // conflict may follow the one made here: each is counted too.
    assert_eq!(tx.retries[0], kv::Error::NotCommitted);
    assert!(tx.retries.iter().all(|e| *e == kv::Error::NotCommitted));
    assert_eq!(tx.conflicts(), tx.retries.len());
    let s = &tx.statements[0];
    // The first attempt stopped before the statement; each later one ran it.
    assert_eq!(s.runs, tx.retries.len() as u64, "{s:?}");
    let written = b
        .run(|tx, _| {
            let dir = DirectoryLayer::new().open(tx, &["w"], b"")?;
            let key = dir.subspace()?.pack(&(1i64,));
            let value = tx.get(&key, false)?.expect("written");
            Ok::<_, fql::directory::Error>((key.len() + value.len()) as u64)
        })
        .unwrap();
    assert!(s.writes >= 1, "{s:?}");
    assert!(s.bytes_written >= written, "{s:?}");
    assert_eq!(s.returned, 0);
}

/// A real conflict is counted with the range the backend reports: the
/// key the first statement read, which another transaction wrote after
/// the attempt's read version, and that statement as its reader. A backend that cannot
/// read the special keys (a directory's view) leaves it unreported.
pub fn a_conflict_is_counted_with_its_range_and_reader(b: &Backend) {
    run(&Engine::new(b.handle()), "/c(1)=2\n");
    let key = b
        .run(|tx, _| {
            let dir = DirectoryLayer::new().open(tx, &["c"], b"")?;
            Ok::<_, fql::directory::Error>(dir.subspace()?.pack(&(1i64,)))
        })
        .unwrap();
    let costs = Arc::new(Costs::default());
    let engine = Engine::new(b.handle()).metered(costs.clone());
    let parsed = fql::check::load("/c(1)=<>\n/c(2)=3\n").unwrap();
    let plan = fql::plan::plan(&parsed, &Default::default()).unwrap();
    let steps = plan.transactions().next().unwrap();
    let mut first = true;
    engine
        .run_transaction_with(
            steps,
            &mut Bindings::default(),
            &mut exec::Each(|_: exec::Found<'_>| Ok(())),
            // Before the statements: the key is read (its read version
            // taken), then written by another transaction.
            |tx| {
                if std::mem::take(&mut first) {
                    tx.get(&key, false)?;
                    b.run(|other, _| other.set(&key, b"\x15\x02"))?;
                }
                Ok::<_, exec::Error>(())
            },
        )
        .expect("committed on the second attempt");
    let costs = costs.take();
    let tx = &costs[0];
    assert_eq!(tx.retries, [kv::Error::NotCommitted]);
    if b.is_scoped() {
        assert_eq!((tx.conflicting.len(), tx.unreported), (0, 1), "{tx:?}");
        return;
    }
    assert!(tx.conflicts_reported(), "{tx:?}");
    assert_eq!(tx.conflicting.len(), 1, "{tx:?}");
    let c = &tx.conflicting[0];
    assert_eq!((&c.begin, &c.end), (&key, &kv::key_after(&key)), "{c:?}");
    assert_eq!(c.statements, [0], "{c:?}");
}
