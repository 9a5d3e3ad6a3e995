//! Reading a dump back: every line checked against the directories the
//! dump holds, and written in transactions of a bounded size.

use std::io::BufRead;

use crate::directory::{self, DirectoryLayer};
use crate::kv::{Database, DatabaseExt, RangeOption, RetryOptions, TransactionOption};

use super::Error;
use super::format::{self, Line};

/// At most this many directories are created or opened in one
/// transaction: each costs reads, one per level of its path, and ten
/// thousand take seconds of a transaction's five.
const DIRECTORIES: usize = 1_000;

/// How a load writes.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Load the dump's one directory here instead of where it was.
    pub to: Option<Vec<String>>,
    /// Load into directories that hold data already.
    pub force: bool,
    /// Lines already loaded, by an earlier load that stopped after
    /// committing them: they are read, not written. With some, the
    /// targets are not checked for data (they hold the lines').
    pub after: u64,
    /// A transaction commits once its writes hold this many bytes...
    pub batch_bytes: usize,
    /// ...or this many writes.
    pub batch_keys: usize,
    /// The bounds of each transaction.
    pub retry: RetryOptions,
}

impl Default for LoadOptions {
    /// Transactions of about 1 MB, a tenth of FoundationDB's limit, or
    /// 10,000 writes.
    fn default() -> Self {
        LoadOptions {
            to: None,
            force: false,
            after: 0,
            batch_bytes: 1 << 20,
            batch_keys: 10_000,
            retry: RetryOptions::default(),
        }
    }
}

/// What [`check`] found in a dump.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// The directories the dump holds.
    pub roots: Vec<Vec<String>>,
    /// Whether it holds the whole database (`fql dump --all`).
    pub whole: bool,
    /// The read versions it was read at.
    pub versions: Vec<u64>,
    /// Its key-values.
    pub key_values: u64,
    /// Its lines.
    pub lines: u64,
}

/// How far a load got.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// The last line committed: a load with [`LoadOptions::after`] set to
    /// it goes on after it.
    pub line: u64,
    /// Key-values written by this load.
    pub key_values: u64,
    /// Directory lines written by this load.
    pub directories: u64,
    /// Transactions committed.
    pub transactions: u64,
}

/// Reads a whole dump without writing: every line must be one of a
/// dump's and lie under its roots (or `options.to`), and the end line
/// must count what the dump holds. A load of a file checked first writes
/// nothing when the file is wrong.
pub fn check(input: impl BufRead, options: &LoadOptions) -> Result<Checked, Error> {
    let mut reader = Reader::new(input, options.to.clone());
    while reader.next()?.is_some() {}
    Ok(Checked {
        whole: reader.whole,
        roots: reader.roots,
        versions: reader.versions,
        key_values: reader.key_values,
        lines: reader.number,
    })
}

/// Loads a dump into `db`, calling `committed` after each transaction
/// commits with how far the load got.
pub fn load(
    db: &dyn Database,
    input: impl BufRead,
    options: &LoadOptions,
    committed: &mut dyn FnMut(&Loaded),
) -> Result<Loaded, Error> {
    let mut reader = Reader::new(input, options.to.clone());
    let mut chunk = Chunk::default();
    let mut loaded = Loaded {
        line: options.after,
        ..Loaded::default()
    };
    let mut checked = options.force || options.after > 0;
    while let Some((number, item)) = reader.next()? {
        if number <= options.after {
            continue;
        }
        if !checked {
            match reader.whole {
                true => nothing_in(db, options.retry)?,
                false => empty(db, &reader.targets(), options.retry)?,
            }
            checked = true;
        }
        chunk.push(item, number);
        if chunk.bytes >= options.batch_bytes
            || chunk.writes() >= options.batch_keys
            || chunk.dirs.len() >= DIRECTORIES
        {
            chunk.commit(db, options.retry, &mut loaded)?;
            committed(&loaded);
        }
    }
    if chunk.writes() > 0 {
        chunk.commit(db, options.retry, &mut loaded)?;
    }
    loaded.line = loaded.line.max(reader.number);
    committed(&loaded);
    Ok(loaded)
}

/// Fails when a target holds a key or a subdirectory.
fn empty(db: &dyn Database, targets: &[Vec<String>], retry: RetryOptions) -> Result<(), Error> {
    for target in targets {
        let (full, _) = db.run_with(retry, |tx, _| -> Result<bool, Error> {
            let layer = DirectoryLayer::new();
            if !layer.exists(tx, target)? {
                return Ok(false);
            }
            if !layer.list(tx, target)?.is_empty() {
                return Ok(true);
            }
            let dir = layer.open(tx, target, b"")?;
            let Ok(prefix) = dir.prefix() else {
                return Ok(false);
            };
            let first = tx.get_range(&RangeOption::prefix(prefix).limit(1), 1, true)?;
            Ok(!first.kvs.is_empty())
        })?;
        if full {
            return Err(Error::NotEmpty(directory::show(target)));
        }
    }
    Ok(())
}

/// Fails when the database holds a key below the system's: a whole
/// dump restores the directory layer's own keys, which only an empty
/// database can take as they are.
fn nothing_in(db: &dyn Database, retry: RetryOptions) -> Result<(), Error> {
    let (full, _) = db.run_with(retry, |tx, _| -> Result<bool, Error> {
        let all = RangeOption::new(Vec::new(), vec![0xff]).limit(1);
        Ok(!tx.get_range(&all, 1, true)?.kvs.is_empty())
    })?;
    match full {
        true => Err(Error::NotEmpty("the database".into())),
        false => Ok(()),
    }
}

/// A write a line asks for, its directory where it lands.
enum Item {
    Directory {
        path: Vec<String>,
        layer: Vec<u8>,
    },
    Set {
        path: Vec<String>,
        key: Vec<u8>,
        value: Vec<u8>,
    },
    /// A whole key, outside every directory.
    Outside {
        key: Vec<u8>,
        value: Vec<u8>,
    },
}

/// What the raw lines of a dump are relative to.
#[derive(Clone)]
enum Current {
    /// The last directory line's directory.
    Directory(Vec<String>),
    /// No directory: after `% outside`, raw lines are whole keys.
    Outside,
}

/// The lines of a dump as writes, each checked.
struct Reader<R> {
    input: R,
    /// The number of the last line read.
    number: u64,
    text: String,
    roots: Vec<Vec<String>>,
    /// Whether the dump holds the whole database (`% all`).
    whole: bool,
    to: Option<Vec<String>>,
    /// Where the raw lines after the last directory or outside line go.
    current: Option<Current>,
    versions: Vec<u64>,
    key_values: u64,
    /// What the end line counted, once read.
    end: Option<u64>,
    /// Whether a line other than the header's was read.
    body: bool,
}

impl<R: BufRead> Reader<R> {
    fn new(input: R, to: Option<Vec<String>>) -> Self {
        Reader {
            input,
            number: 0,
            text: String::new(),
            roots: Vec::new(),
            whole: false,
            to,
            current: None,
            versions: Vec::new(),
            key_values: 0,
            end: None,
            body: false,
        }
    }

    /// Where the dump's directories land.
    fn targets(&self) -> Vec<Vec<String>> {
        match &self.to {
            Some(to) => vec![to.clone()],
            None => self.roots.clone(),
        }
    }

    /// The next write and its line; `None` at the end of a whole dump.
    fn next(&mut self) -> Result<Option<(u64, Item)>, Error> {
        loop {
            self.text.clear();
            if self.input.read_line(&mut self.text)? == 0 {
                return match self.end {
                    Some(_) => Ok(None),
                    None if self.number == 0 => Err(Error::NotADump),
                    None => Err(Error::Truncated("it has no `% end` line".into())),
                };
            }
            self.number += 1;
            let line = format::parse(&self.text).map_err(|message| self.error(message))?;
            if let Some(item) = self.take(line)? {
                return Ok(Some((self.number, item)));
            }
        }
    }

    fn error(&self, message: String) -> Error {
        Error::Line {
            line: self.number,
            message,
        }
    }

    /// What a line asks to write, after checking it in its place.
    fn take(&mut self, line: Line) -> Result<Option<Item>, Error> {
        if self.number == 1 && line != Line::Magic {
            return Err(Error::NotADump);
        }
        if self.end.is_some() && line != Line::Nothing {
            return Err(self.error("a line after the end line".into()));
        }
        match line {
            Line::Magic if self.number == 1 => Ok(None),
            Line::Magic => Err(self.error("a second first line".into())),
            Line::Root(path) if !self.body => {
                self.roots.push(path);
                Ok(None)
            }
            Line::Root(_) => Err(self.error("a root line after the first directory".into())),
            Line::All if !self.body && self.roots.is_empty() => {
                if self.to.is_some() {
                    return Err(Error::WholeTo);
                }
                self.whole = true;
                Ok(None)
            }
            Line::All => Err(self.error("`% all` after a root or directory line".into())),
            Line::Outside if self.whole => {
                self.body = true;
                self.current = Some(Current::Outside);
                Ok(None)
            }
            Line::Outside => {
                Err(self.error("keys outside directories in a dump of directories".into()))
            }
            Line::Version(v) => {
                self.versions.push(v);
                Ok(None)
            }
            Line::End(n) => self.finish(n),
            Line::Nothing => Ok(None),
            Line::Directory { path, layer } => {
                let path = self.land(path)?;
                self.current = Some(Current::Directory(path.clone()));
                Ok(Some(Item::Directory { path, layer }))
            }
            Line::KeyValue { path, key, value } if path.is_empty() => {
                self.key_values += 1;
                match self.whole {
                    true => Ok(Some(Item::Outside { key, value })),
                    false => Err(self.error("a key at the root in a dump of directories".into())),
                }
            }
            Line::KeyValue { path, key, value } => {
                self.key_values += 1;
                let path = self.land(path)?;
                Ok(Some(Item::Set { path, key, value }))
            }
            Line::Raw { suffix, value } => {
                self.key_values += 1;
                match self.current.clone() {
                    Some(Current::Directory(path)) => Ok(Some(Item::Set {
                        path,
                        key: suffix,
                        value,
                    })),
                    Some(Current::Outside) => Ok(Some(Item::Outside { key: suffix, value })),
                    None => Err(self.error("a raw line before any directory line".into())),
                }
            }
        }
    }

    fn finish(&mut self, n: u64) -> Result<Option<Item>, Error> {
        if n != self.key_values {
            return Err(Error::Truncated(format!(
                "its end line counts {n} key-values, and it holds {}",
                self.key_values
            )));
        }
        self.end = Some(n);
        Ok(None)
    }

    /// Where a directory of the dump lands: under the root it is in, or
    /// under the target in that root's place; a directory under none is
    /// refused.
    fn land(&mut self, path: Vec<String>) -> Result<Vec<String>, Error> {
        if self.whole {
            self.body = true;
            return Ok(path);
        }
        if !self.body {
            self.body = true;
            if self.roots.is_empty() {
                return Err(self.error("no `% root` line before the first directory".into()));
            }
            if self.to.is_some() && self.roots.len() > 1 {
                return Err(Error::ManyRoots(self.roots.len()));
            }
        }
        let Some(root) = self.roots.iter().find(|r| path.starts_with(r)) else {
            let roots: Vec<String> = self.roots.iter().map(|r| directory::show(r)).collect();
            return Err(Error::Outside {
                line: self.number,
                path: directory::show(&path),
                roots: roots.join(", "),
            });
        };
        Ok(match &self.to {
            Some(to) => to.iter().chain(&path[root.len()..]).cloned().collect(),
            None => path,
        })
    }
}

/// The writes of one transaction.
#[derive(Default)]
struct Chunk {
    /// Directories, each with the layer to create it with when a line
    /// named it; the writes name them by index.
    dirs: Vec<(Vec<String>, Option<Vec<u8>>)>,
    /// Keys after the prefix of a directory of `dirs`, or whole keys.
    sets: Vec<(Option<usize>, Vec<u8>, Vec<u8>)>,
    bytes: usize,
    /// The last line it holds.
    last: u64,
}

impl Chunk {
    fn writes(&self) -> usize {
        self.dirs.len() + self.sets.len()
    }

    fn push(&mut self, item: Item, number: u64) {
        self.last = number;
        match item {
            Item::Directory { path, layer } => {
                self.bytes += 64 + layer.len();
                self.dirs.push((path, Some(layer)));
            }
            Item::Set { path, key, value } => {
                // Keys of one directory follow one another in a dump.
                let dir = match self.dirs.last() {
                    Some((p, _)) if *p == path => self.dirs.len() - 1,
                    _ => {
                        self.dirs.push((path, None));
                        self.dirs.len() - 1
                    }
                };
                self.bytes += 16 + key.len() + value.len();
                self.sets.push((Some(dir), key, value));
            }
            Item::Outside { key, value } => {
                self.bytes += 16 + key.len() + value.len();
                self.sets.push((None, key, value));
            }
        }
    }

    /// Writes the chunk in one transaction, retried as any is, and
    /// empties it.
    fn commit(
        &mut self,
        db: &dyn Database,
        retry: RetryOptions,
        loaded: &mut Loaded,
    ) -> Result<(), Error> {
        // A whole dump's last lines may be the system keys.
        let system = self
            .sets
            .iter()
            .any(|(d, k, _)| d.is_none() && k.first() == Some(&0xff));
        db.run_with(retry, |tx, _| -> Result<(), Error> {
            if system {
                tx.set_option(TransactionOption::AccessSystemKeys)?;
            }
            // Whole keys first: they hold the directory layer's nodes, in
            // which the directories below are found at the prefixes they
            // had, and depend on no directory.
            for (_, key, value) in self.sets.iter().filter(|(d, _, _)| d.is_none()) {
                tx.set(key, value)?;
            }
            let layer = DirectoryLayer::new();
            let mut prefixes = Vec::with_capacity(self.dirs.len());
            for (path, with) in &self.dirs {
                let dir = layer.create_or_open(tx, path, with.as_deref().unwrap_or(b""))?;
                prefixes.push(dir.prefix().map(<[u8]>::to_vec).map_err(|_| path));
            }
            let mut key = Vec::new();
            for (dir, suffix, value) in &self.sets {
                let Some(dir) = dir else {
                    continue;
                };
                let prefix = prefixes[*dir].as_ref().map_err(|path| Error::Line {
                    line: self.last,
                    message: format!(
                        "{} is a partition, which holds no keys",
                        directory::show(path)
                    ),
                })?;
                key.clear();
                key.extend_from_slice(prefix);
                key.extend_from_slice(suffix);
                tx.set(&key, value)?;
            }
            Ok(())
        })?;
        loaded.line = self.last;
        loaded.key_values += self.sets.len() as u64;
        loaded.directories += self.dirs.iter().filter(|(_, l)| l.is_some()).count() as u64;
        loaded.transactions += 1;
        *self = Chunk::default();
        Ok(())
    }
}
