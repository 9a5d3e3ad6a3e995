//! Writing a dump: every directory under the roots, depth first, each
//! followed by its key-values in key order.

use std::io::Write;
use std::time::Instant;

use crate::directory::{self, DirectoryLayer};
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
    let mut d = Dumper {
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
    // Nothing is written before every root is known to exist.
    for root in roots {
        if !d.read(|tx| Ok(DirectoryLayer::new().exists(tx, root)?))? {
            return Err(Error::NotFound(directory::show(root)));
        }
    }
    let version = d.read(|tx| Ok(tx.read_version()?))?;
    d.dumped.versions.push(version);
    writeln!(d.out, "{MAGIC}")?;
    for root in roots {
        writeln!(d.out, "% root {}", directory::show(root))?;
    }
    writeln!(d.out, "% read version {version}")?;
    for root in roots {
        d.tree(root)?;
    }
    writeln!(d.out, "% end {}", d.dumped.key_values)?;
    d.out.flush()?;
    Ok(d.dumped)
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

impl Dumper<'_> {
    /// Bounds the transaction by the timeout, as the retry loop bounds
    /// its own.
    fn bound(&mut self) -> Result<(), Error> {
        if let Some(t) = self.retry.timeout {
            let ms = u64::try_from(t.as_millis()).unwrap_or(u64::MAX).max(1);
            self.tx.set_option(TransactionOption::Timeout(ms))?;
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
            if let Ok(prefix) = dir.prefix() {
                self.keys(&directory::show(&path), prefix)?;
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
            let mut elems: Vec<Elem<'_>> = Vec::new();
            for kv in &batch {
                self.line.clear();
                format::put_key(&mut self.line, path, prefix, &kv.key, &mut elems);
                if self.line.starts_with('%') {
                    self.dumped.raw += 1;
                }
                format::put_value(&mut self.line, &kv.value);
                self.line.push('\n');
                self.out.write_all(self.line.as_bytes())?;
                self.dumped.key_values += 1;
                self.since_commit += self.line.len();
                if self.since_commit >= COMMIT_BYTES
                    || self.dumped.key_values.is_multiple_of(COMMIT_ROWS)
                {
                    self.out.write_all(b"@commit\n")?;
                    self.since_commit = 0;
                }
            }
        }
        Ok(())
    }
}
