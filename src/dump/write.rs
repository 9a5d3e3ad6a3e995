//! Writing a dump: every directory under the roots, depth first, each
//! followed by its key-values in key order.

use std::io::Write;
use std::time::Instant;

use crate::directory::{self, DirectoryLayer, Space};
use crate::kv::{
    self, AsKvError, Database, RangeCursor, RangeOption, RetryOptions, Transaction,
    TransactionOption,
};
use crate::syntax::ast::Elem;

use super::Error;
use super::format::{self, MAGIC};

/// A dump ends a transaction of `fql -w -f` (`@commit`) after this many
/// key-values, or this many bytes of their lines: well inside
/// FoundationDB's 10 MB and five seconds. The loader makes its own.
const COMMIT_ROWS: u64 = 10_000;
const COMMIT_BYTES: usize = 1 << 20;

/// What a dump wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dumped {
    /// Directories, the roots included.
    pub directories: u64,
    /// Key-values, the raw ones included.
    pub key_values: u64,
    /// Key-values whose key is no tuple, written as raw lines.
    pub raw: u64,
    /// The read version of each transaction the dump read in: one when
    /// the dump is one snapshot.
    pub versions: Vec<u64>,
}

/// Writes a dump of the directories `roots` (absolute paths of names)
/// and everything under them to `out`. Each transaction is bounded by
/// `retry`'s timeout; a read that outlives a transaction goes on in a
/// new one.
pub fn dump(
    db: &dyn Database,
    roots: &[Vec<String>],
    retry: RetryOptions,
    out: &mut dyn Write,
) -> Result<Dumped, Error> {
    nested(roots)?;
    let mut d = Dumper::new(db, retry, out, false)?;
    // Nothing is written before every root is known to exist.
    for root in roots {
        if !d.read(|tx| Ok(DirectoryLayer::new().exists(tx, root)?))? {
            return Err(Error::NotFound(directory::show(root)));
        }
    }
    d.header(
        &roots
            .iter()
            .map(|r| format!("% root {}", directory::show(r)))
            .collect::<Vec<_>>(),
    )?;
    for root in roots {
        d.tree(root)?;
    }
    d.end()
}

/// Writes a dump of the whole database to `out`: the directory layer's
/// own keys first, as the bytes they are, so that a load into an empty
/// database finds every directory at the prefix it had (partitions and
/// the allocator's state included); then every directory with its keys,
/// each partition's own nodes before the directories inside it; then the
/// keys outside every directory; and with `system`, the system keys from
/// `0xff` up to the special keys.
pub fn dump_all(
    db: &dyn Database,
    system: bool,
    retry: RetryOptions,
    out: &mut dyn Write,
) -> Result<Dumped, Error> {
    let mut d = Dumper::new(db, retry, out, system)?;
    d.whole = true;
    d.header(&["% all".to_string()])?;
    // From `0xfe` to the system keys, everything is the layer's own.
    d.outside(directory::OUTSIDE_END, &[0xff])?;
    let layer = d.layer.clone();
    let top = d.read(|tx| Ok(layer.list(tx, directory::ROOT)?))?;
    for name in top {
        d.tree(&[name])?;
    }
    d.root()?;
    if system {
        d.outside(&[0xff], &[0xff, 0xff])?;
    }
    d.end()
}

/// Refuses roots of which one lies inside another, whose keys the dump
/// would hold twice.
fn nested(roots: &[Vec<String>]) -> Result<(), Error> {
    for inner in roots {
        if let Some(outer) = roots
            .iter()
            .find(|o| !std::ptr::eq(*o, inner) && inner.starts_with(o))
        {
            return Err(Error::Nested {
                inner: directory::show(inner),
                outer: directory::show(outer),
            });
        }
    }
    Ok(())
}

struct Dumper<'o> {
    /// Whether the transaction reads the system keys.
    system: bool,
    /// Whether the dump is of the whole database, which holds the
    /// directory layer's nodes as bytes.
    whole: bool,
    tx: Box<dyn Transaction>,
    retry: RetryOptions,
    out: &'o mut dyn Write,
    /// The line being written, kept to reuse its allocation.
    line: String,
    layer: DirectoryLayer,
    dumped: Dumped,
    /// Bytes of key-value lines written since the last `@commit`.
    since_commit: usize,
    /// Whether a read failed since the last one that succeeded, so that
    /// the transaction's read version may have changed.
    renewed: bool,
}

impl<'o> Dumper<'o> {
    fn new(
        db: &dyn Database,
        retry: RetryOptions,
        out: &'o mut dyn Write,
        system: bool,
    ) -> Result<Self, Error> {
        let mut d = Dumper {
            system,
            whole: false,
            tx: db.create_trx()?,
            retry,
            out,
            line: String::new(),
            layer: DirectoryLayer::new(),
            dumped: Dumped::default(),
            since_commit: 0,
            renewed: false,
        };
        d.bound()?;
        Ok(d)
    }

    /// Bounds the transaction by the timeout, as the retry loop bounds
    /// its own, and lets it read the system keys when the dump holds them.
    fn bound(&mut self) -> Result<(), Error> {
        if let Some(t) = self.retry.timeout {
            let ms = u64::try_from(t.as_millis()).unwrap_or(u64::MAX).max(1);
            self.tx.set_option(TransactionOption::Timeout(ms))?;
        }
        if self.system {
            self.tx.set_option(TransactionOption::ReadSystemKeys)?;
        }
        Ok(())
    }

    /// The first lines: the format, what the dump holds, the snapshot.
    fn header(&mut self, holds: &[String]) -> Result<(), Error> {
        let version = self.read(|tx| Ok(tx.read_version()?))?;
        self.dumped.versions.push(version);
        writeln!(self.out, "{MAGIC}")?;
        for line in holds {
            writeln!(self.out, "{line}")?;
        }
        writeln!(self.out, "% read version {version}")?;
        Ok(())
    }

    /// The last line, which counts the key-values.
    fn end(self) -> Result<Dumped, Error> {
        writeln!(self.out, "% end {}", self.dumped.key_values)?;
        self.out.flush()?;
        Ok(self.dumped)
    }

    /// Writes every key from `begin` to `end` as the bytes it is, after
    /// an `% outside` line.
    fn outside(&mut self, begin: &[u8], end: &[u8]) -> Result<(), Error> {
        writeln!(self.out, "% outside")?;
        let range = RangeOption::new(begin.to_vec(), end.to_vec());
        let mut cursor = RangeCursor::new(range, false);
        while let Some(batch) = self.read(|tx| Ok(cursor.next_batch(tx)?))? {
            // The metadata version is the database's own stamp, which no
            // transaction may set to bytes of its choosing.
            for kv in batch.iter().filter(|kv| kv.key != kv::METADATA_VERSION_KEY) {
                self.line.clear();
                format::put_raw_key(&mut self.line, &kv.key);
                self.end_row(&kv.value)?;
            }
        }
        Ok(())
    }

    /// Writes the keys at the root, outside every directory, after an
    /// `% outside` line: as tuples at the root where they are.
    fn root(&mut self) -> Result<(), Error> {
        writeln!(self.out, "% outside")?;
        let layer = self.layer.clone();
        let Some(mut cursor) = self.read(|tx| Ok(Space::Root.cursor(tx, &layer, false)?))? else {
            return Ok(());
        };
        while let Some(batch) = self.read(|tx| Ok(cursor.next_batch(tx)?))? {
            self.rows("/", &[], &batch)?;
        }
        Ok(())
    }

    /// Runs the read `f` until it succeeds: in a new transaction after
    /// the old one outlived its window, after a backoff after another
    /// retryable error, until the timeout. A read that succeeds at a new
    /// read version writes that version first.
    fn read<T>(
        &mut self,
        mut f: impl FnMut(&mut dyn Transaction) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let began = Instant::now();
        loop {
            // After a failure the transaction may read at another
            // version: it is taken before the read, which then reads at it.
            let attempt = match self.renewed {
                true => self.tx.read_version().map(Some).map_err(Error::from),
                false => Ok(None),
            };
            let e = match attempt.and_then(|v| Ok((v, f(&mut *self.tx)?))) {
                Ok((version, value)) => {
                    self.renewed = false;
                    self.versioned(version)?;
                    return Ok(value);
                }
                Err(e) => e,
            };
            let Some(kv) = e.as_kv().cloned() else {
                return Err(e);
            };
            if !kv.is_retryable() {
                return Err(e);
            }
            if self.retry.timeout.is_some_and(|t| began.elapsed() >= t) {
                return Err(kv::Error::TransactionTimedOut.into());
            }
            self.renewed = true;
            if kv == kv::Error::TransactionTooOld {
                self.tx.reset();
                self.bound()?;
            } else {
                self.tx.on_error(kv)?;
            }
        }
    }

    /// Writes the read version a read after a failed one read at, if it
    /// is a new one.
    fn versioned(&mut self, version: Option<u64>) -> Result<(), Error> {
        // Before the header, there is no version to follow.
        let Some(version) = version.filter(|_| !self.dumped.versions.is_empty()) else {
            return Ok(());
        };
        if self.dumped.versions.last() != Some(&version) {
            self.dumped.versions.push(version);
            writeln!(self.out, "% read version {version}")?;
        }
        Ok(())
    }

    /// Writes `root` and every directory under it, depth first, children
    /// in the order of their names.
    fn tree(&mut self, root: &[String]) -> Result<(), Error> {
        let mut stack = vec![root.to_vec()];
        while let Some(path) = stack.pop() {
            let layer = self.layer.clone();
            let dir = self.read(|tx| Ok(layer.open(tx, &path, b"")?))?;
            self.line.clear();
            format::put_directory(&mut self.line, &path, dir.layer());
            writeln!(self.out, "{}", self.line)?;
            self.dumped.directories += 1;
            match dir.prefix() {
                Ok(prefix) => self.keys(&directory::show(&path), prefix)?,
                // A whole dump keeps a partition's own nodes, where the
                // directories inside it are found.
                Err(_) => {
                    if let Some(nodes) = dir.partition_nodes().filter(|_| self.whole) {
                        self.outside(&nodes, &kv::strinc(&nodes))?;
                    }
                }
            }
            let children = self.read(|tx| Ok(layer.list(tx, &path)?))?;
            for child in children.into_iter().rev() {
                let mut p = path.clone();
                p.push(child);
                stack.push(p);
            }
        }
        Ok(())
    }

    /// Writes every key-value under `prefix`, a batch at a time.
    fn keys(&mut self, path: &str, prefix: &[u8]) -> Result<(), Error> {
        let mut cursor = RangeCursor::new(RangeOption::prefix(prefix), false);
        while let Some(batch) = self.read(|tx| Ok(cursor.next_batch(tx)?))? {
            self.rows(path, prefix, &batch)?;
        }
        Ok(())
    }

    /// Writes a batch of key-values under `prefix`, each as its tuple in
    /// `path` or as a raw line.
    fn rows(&mut self, path: &str, prefix: &[u8], batch: &[kv::KeyValue]) -> Result<(), Error> {
        let mut elems: Vec<Elem<'_>> = Vec::new();
        for kv in batch {
            self.line.clear();
            format::put_key(&mut self.line, path, prefix, &kv.key, &mut elems);
            self.end_row(&kv.value)?;
        }
        Ok(())
    }

    /// Ends the key's line in `self.line` with `value` and writes it,
    /// with an `@commit` line when the transaction of `fql -w -f` is full.
    fn end_row(&mut self, value: &[u8]) -> Result<(), Error> {
        if self.line.starts_with('%') {
            self.dumped.raw += 1;
        }
        format::put_value(&mut self.line, value);
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())?;
        self.dumped.key_values += 1;
        self.since_commit += self.line.len();
        if self.since_commit >= COMMIT_BYTES || self.dumped.key_values.is_multiple_of(COMMIT_ROWS) {
            self.out.write_all(b"@commit\n")?;
            self.since_commit = 0;
        }
        Ok(())
    }
}
