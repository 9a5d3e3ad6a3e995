//! Looking over directories without changing them: the tree under a path
//! with each directory's layer, prefix and estimated size; what a
//! directory holds, so a remove can refuse one that is not empty; and an
//! exact count of a directory's key-values, read in as many transactions
//! as it takes, so it works at any size.

use std::time::{Duration, Instant};

use super::layer::DirectoryLayer;
use super::{Directory, Error, Result, owned};
use crate::kv::{
    self, Database, DatabaseExt, RangeCursor, RangeOption, RetryOptions, StreamingMode, Transaction,
};

/// One directory of a [`DirectoryLayer::tree`], and those below it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeNode {
    /// The absolute path; empty for the root.
    pub path: Vec<String>,
    /// The layer; `partition` for a partition, empty for a plain one.
    pub layer: Vec<u8>,
    /// The raw prefix; `None` for the root, which has none of its own.
    /// A partition's covers every directory inside it.
    pub prefix: Option<Vec<u8>>,
    /// [`Transaction::estimated_range_size`] of the prefix's range: the
    /// directory's own key-values (a partition's: all inside it). `None`
    /// for the root.
    pub estimated_bytes: Option<u64>,
    /// The subdirectories shown, in byte order of their names.
    pub children: Vec<TreeNode>,
    /// Subdirectories not shown, as the depth ran out before them.
    pub hidden: usize,
}

/// What a directory holds, besides its own entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Holdings {
    /// Its direct subdirectories.
    pub subdirectories: usize,
    /// Whether any key-value lies under its prefix (a partition's: any
    /// key at all inside it, metadata included).
    pub keys: bool,
}

impl Holdings {
    /// Nothing to lose by removing it.
    pub fn is_empty(&self) -> bool {
        self.subdirectories == 0 && !self.keys
    }
}

/// An exact [`count`] of a directory's key-values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Key-values under the directory's prefix.
    pub keys: u64,
    /// Their keys' and values' bytes.
    pub bytes: u64,
    /// Transactions the count took; above 1 the parts were read at
    /// different versions, so writes made meanwhile may be half counted.
    pub transactions: u64,
}

/// How long one transaction of a [`count`] reads before the rest goes to
/// a new one: well inside FDB's five seconds.
const COUNT_SLICE: Duration = Duration::from_secs(2);

impl DirectoryLayer {
    /// The tree under `path` (the root for an empty one), down to `depth`
    /// levels below it (`None`: all). Each directory is read in its own
    /// transaction, so a tree of any size stays inside FDB's five seconds;
    /// the tree is therefore not one snapshot.
    pub fn tree<S: AsRef<str>>(
        &self,
        db: &dyn Database,
        retry: RetryOptions,
        path: &[S],
        depth: Option<usize>,
    ) -> Result<TreeNode> {
        let path = owned(path);
        let (mut node, names) = db
            .run_with(retry, |tx, _| self.tree_node(tx, &path))
            .map(|(found, _)| found)?;
        self.fill(db, retry, &mut node, names, depth)?;
        Ok(node)
    }

    /// Adds the children of `node` (named `names`), `depth` levels deep.
    fn fill(
        &self,
        db: &dyn Database,
        retry: RetryOptions,
        node: &mut TreeNode,
        names: Vec<String>,
        depth: Option<usize>,
    ) -> Result<()> {
        if depth == Some(0) {
            node.hidden = names.len();
            return Ok(());
        }
        for name in names {
            let mut path = node.path.clone();
            path.push(name);
            let (mut child, grandchildren) = db
                .run_with(retry, |tx, _| self.tree_node(tx, &path))
                .map(|(found, _)| found)?;
            self.fill(db, retry, &mut child, grandchildren, depth.map(|d| d - 1))?;
            node.children.push(child);
        }
        Ok(())
    }

    /// The node at `path`, without children, and its children's names.
    fn tree_node(
        &self,
        tx: &mut dyn Transaction,
        path: &[String],
    ) -> Result<(TreeNode, Vec<String>)> {
        let names = self.list(tx, path)?;
        let node = if path.is_empty() {
            TreeNode {
                path: Vec::new(),
                layer: Vec::new(),
                prefix: None,
                estimated_bytes: None,
                children: Vec::new(),
                hidden: 0,
            }
        } else {
            let dir = self.open(tx, path, b"")?;
            let (begin, end) = range_of(&dir);
            TreeNode {
                estimated_bytes: Some(tx.estimated_range_size(&begin, &end)?),
                path: dir.path,
                layer: dir.layer,
                prefix: Some(dir.prefix),
                children: Vec::new(),
                hidden: 0,
            }
        };
        Ok((node, names))
    }

    /// What `path` holds: its subdirectories, and whether any key lies
    /// under its prefix. Reads one key at most.
    pub fn holdings<S: AsRef<str>>(
        &self,
        tx: &mut dyn Transaction,
        path: &[S],
    ) -> Result<Holdings> {
        let path = owned(path);
        let dir = self.open(tx, &path, b"")?;
        let subdirectories = self.list(tx, &path)?.len();
        let (begin, end) = range_of(&dir);
        let first = tx.get_range(&RangeOption::new(begin, end).limit(1), 1, true)?;
        Ok(Holdings {
            subdirectories,
            keys: !first.kvs.is_empty(),
        })
    }
}

/// The range of every key under `dir`'s raw prefix.
fn range_of(dir: &Directory) -> (Vec<u8>, Vec<u8>) {
    (dir.prefix.clone(), kv::strinc(&dir.prefix))
}

/// Counts the key-values of the directory at `path` exactly, and their
/// bytes, reading for two seconds in each transaction and going on in
/// a new one from where it stopped, so that a directory of any size is
/// counted. Subdirectories have prefixes of their own and are not
/// counted. A partition has no key-values of its own: its count is that
/// of every directory inside it, at every depth, which hold all it keeps.
/// `progress` is called after each transaction with the count so far.
pub fn count<S: AsRef<str>>(
    db: &dyn Database,
    retry: RetryOptions,
    path: &[S],
    progress: impl FnMut(&Count),
) -> Result<Count> {
    count_in_slices(db, retry, path, COUNT_SLICE, progress)
}

/// [`count`], reading for `slice` in each transaction.
fn count_in_slices<S: AsRef<str>>(
    db: &dyn Database,
    retry: RetryOptions,
    path: &[S],
    slice: Duration,
    mut progress: impl FnMut(&Count),
) -> Result<Count> {
    let ranges: Vec<(Vec<u8>, Vec<u8>)> = counted_prefixes(db, retry, &owned(path))?
        .into_iter()
        .map(|p| {
            let end = kv::strinc(&p);
            (p, end)
        })
        .collect();
    let mut total = Count::default();
    let mut from = ranges.first().map(|(begin, _)| (0, begin.clone()));
    while let Some(start) = from.take() {
        let (slice, _) = db.run_with(retry, |tx, _| count_slice(tx, &ranges, &start, slice))?;
        total.keys += slice.keys;
        total.bytes += slice.bytes;
        total.transactions += 1;
        progress(&total);
        from = slice.rest;
    }
    Ok(total)
}

/// The prefixes whose ranges a [`count`] of `path` reads: the
/// directory's own; for a partition, those of the directories inside it
/// (a partition within adding none of its own), each looked up in a
/// transaction of its own, so a partition of any size is walked.
fn counted_prefixes(
    db: &dyn Database,
    retry: RetryOptions,
    path: &[String],
) -> Result<Vec<Vec<u8>>> {
    let layer = DirectoryLayer::new();
    let (top, _) = db.run_with(retry, |tx, _| layer.open(tx, path, b""))?;
    if !top.is_partition() {
        return Ok(vec![top.prefix]);
    }
    let mut prefixes = Vec::new();
    let mut left = vec![top.path];
    while let Some(path) = left.pop() {
        let (children, _) = db.run_with(retry, |tx, _| {
            let mut children = Vec::new();
            for name in layer.list(tx, &path)? {
                let mut child = path.clone();
                child.push(name);
                children.push(layer.open(tx, &child, b"")?);
            }
            Ok::<_, Error>(children)
        })?;
        // Depth first, each directory's children in name order.
        for child in children.into_iter().rev() {
            if !child.is_partition() {
                prefixes.push(child.prefix.clone());
            }
            left.push(child.path);
        }
    }
    prefixes.sort();
    Ok(prefixes)
}

/// What one transaction of a [`count`] read.
struct Slice {
    keys: u64,
    bytes: u64,
    /// Where the next transaction goes on, if the ranges are not done:
    /// the index of a range, and the key to begin at in it.
    rest: Option<(usize, Vec<u8>)>,
}

/// Counts `ranges` from `start` on, until they end or `time` is spent.
fn count_slice(
    tx: &mut dyn Transaction,
    ranges: &[(Vec<u8>, Vec<u8>)],
    (first, begin): &(usize, Vec<u8>),
    time: Duration,
) -> Result<Slice, Error> {
    let started = Instant::now();
    let mut slice = Slice {
        keys: 0,
        bytes: 0,
        rest: None,
    };
    for (i, (range_begin, end)) in ranges.iter().enumerate().skip(*first) {
        let begin = if i == *first { begin } else { range_begin };
        let range = RangeOption::new(begin.clone(), end.clone()).mode(StreamingMode::WantAll);
        let mut cursor = RangeCursor::new(range, true);
        while let Some(batch) = cursor.next_batch(tx)? {
            slice.keys += batch.len() as u64;
            slice.bytes += batch
                .iter()
                .map(|kv| (kv.key.len() + kv.value.len()) as u64)
                .sum::<u64>();
            if started.elapsed() >= time
                && let Some(last) = batch.last()
            {
                slice.rest = Some((i, kv::key_after(&last.key)));
                return Ok(slice);
            }
        }
    }
    Ok(slice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kv::embedded::Embedded;

    /// With no time to read in, each transaction reads one batch and
    /// the next goes on after it: the count is the same.
    #[test]
    fn a_count_split_into_many_transactions_is_exact() {
        let db = Embedded::memory();
        let layer = DirectoryLayer::new();
        let dir = db
            .run(|tx, _| layer.create_or_open(tx, &["c"], b""))
            .unwrap();
        let space = dir.subspace().unwrap();
        db.run(|tx, _| {
            for i in 0..20_000i64 {
                tx.set(&space.pack(&(i,)), b"v")?;
            }
            Ok::<_, Error>(())
        })
        .unwrap();
        let bytes: u64 = (0..20_000i64)
            .map(|i| space.pack(&(i,)).len() as u64 + 1)
            .sum();
        let mut seen = Vec::new();
        let counted = count_in_slices(&db, RetryOptions::default(), &["c"], Duration::ZERO, |c| {
            seen.push(c.keys)
        })
        .unwrap();
        assert_eq!((counted.keys, counted.bytes), (20_000, bytes));
        assert!(counted.transactions > 2, "{counted:?}");
        assert_eq!(seen.len() as u64, counted.transactions);
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        let whole = count(&db, RetryOptions::default(), &["c"], |_| {}).unwrap();
        assert_eq!((whole.keys, whole.transactions), (20_000, 1));
    }
}
