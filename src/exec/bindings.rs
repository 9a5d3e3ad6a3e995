//! The rows of statements that feed later ones: each statement's names
//! once, each row its values packed in the tuple encoding, and past a
//! small budget, on disk.
//!
//! A join over a million rows would otherwise hold a million rows of
//! names and values in memory until the script ends. Here a row costs the
//! bytes of its packed values and four of length. A statement's rows stay
//! in memory until they pass [`BLOCK`] bytes as it runs; then they go to
//! a temporary file of the statement's own, which the statements they
//! feed read back in order. Finished statements whose rows stay in memory
//! hold at most [`BUDGET`] bytes together; past it, the largest go to
//! files of their own too. Memory then stays flat however many rows a
//! script binds.
//!
//! Each file is private and unlinked from the start, so it is gone when
//! its rows are dropped: rows a statement no later one uses are forgotten
//! (and a failed attempt's with it), and their disk space goes back at
//! once, however long the script runs.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use crate::codec;
use crate::syntax::ast::{Elem, ElemKind, Span};

use super::Error;

/// How many bytes of one statement's rows are held in memory as it runs
/// before they go to disk; also the size of a write to it.
const BLOCK: usize = 256 << 10;

/// How many bytes of rows all finished statements may hold in memory
/// together; past it, the largest go to disk.
const BUDGET: usize = 4 << 20;

/// How many bytes of a statement's rows on disk are read at once; also
/// the fewest bytes a finished statement's rows take to be worth a file
/// of their own (each file holds a descriptor open while its rows are
/// kept: many small statements beyond the budget stay in memory rather
/// than run out of descriptors).
const READ: usize = 64 << 10;

/// What the statements of a plan that feed later ones have bound so far:
/// carried from one transaction of the plan to the next.
#[derive(Debug, Default)]
pub struct Bindings {
    sets: HashMap<usize, RowSet>,
}

impl Bindings {
    /// Forgets the rows of statement `id`, which no statement still to run
    /// uses; the disk space they took goes back.
    pub fn forget(&mut self, id: usize) {
        self.sets.remove(&id);
    }

    /// The rows statement `id` bound, if it ran.
    pub(super) fn get(&self, id: usize) -> Option<&RowSet> {
        self.sets.get(&id)
    }

    /// Takes what a transaction bound, once it committed.
    pub(super) fn absorb(&mut self, added: Added) {
        self.sets.extend(added.sets);
        self.keep_within_budget();
    }

    /// Moves the largest sets held in memory to disk until those left
    /// hold at most [`BUDGET`] bytes, or are each too small to be worth a
    /// file.
    fn keep_within_budget(&mut self) {
        let mut held: usize = self.sets.values().map(|s| s.mem.len()).sum();
        while held > BUDGET {
            let Some(set) = self.sets.values_mut().max_by_key(|s| s.mem.len()) else {
                return;
            };
            let len = set.mem.len();
            // Without a file the rows stay where they are.
            if len < READ || set.spill().is_err() {
                return;
            }
            held -= len;
        }
    }
}

/// What one attempt at a transaction binds, beside what the transactions
/// before it bound: dropped with the attempt if it fails, files and all.
pub(super) struct Fed<'b> {
    base: &'b Bindings,
    sets: HashMap<usize, RowSet>,
}

/// What an attempt bound, apart from what it bound it beside: added to
/// the [`Bindings`] once the attempt's transaction commits.
#[derive(Debug)]
pub(super) struct Added {
    sets: HashMap<usize, RowSet>,
}

impl<'b> Fed<'b> {
    pub fn new(base: &'b Bindings) -> Fed<'b> {
        Fed {
            base,
            sets: HashMap::new(),
        }
    }

    /// What the attempt bound, to keep once it succeeded.
    pub fn into_sets(self) -> Added {
        Added { sets: self.sets }
    }

    /// The rows statement `id` bound, in this attempt or before it.
    pub fn get(&self, id: usize) -> Option<&RowSet> {
        self.sets.get(&id).or_else(|| self.base.get(id))
    }

    /// A builder of a statement's rows, each row starting with the values
    /// of its driver's row.
    pub fn builder(&self, driver: Option<&RowSet>) -> Builder {
        Builder {
            set: RowSet {
                names: driver.map(|d| d.names.clone()).unwrap_or_default(),
                ..RowSet::default()
            },
            driver_names: driver.map_or(0, |d| d.names.len()),
            named: false,
            elems: Vec::new(),
        }
    }

    /// Keeps the rows statement `id` bound.
    pub fn insert(&mut self, id: usize, built: Builder) -> Result<(), Error> {
        self.sets.insert(id, built.finish()?);
        Ok(())
    }
}

/// The rows one statement bound, in order.
#[derive(Debug, Default)]
pub(super) struct RowSet {
    /// The names each row binds, in order: those of the row of its driver
    /// it ran for, then its own. A name twice means the later.
    names: Vec<String>,
    /// Rows on disk, before those in memory.
    disk: Option<Spill>,
    /// Rows in memory, each a 4-byte little-endian length and the packed
    /// values.
    mem: Vec<u8>,
}

impl RowSet {
    /// Where the value of `name` is in a row: the last of that name.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.names.iter().rposition(|n| n == name)
    }

    /// Calls `f` with each row's packed values, in order.
    pub fn try_for_each(&self, mut f: impl FnMut(&[u8]) -> Result<(), Error>) -> Result<(), Error> {
        if let Some(spill) = &self.disk {
            let mut buf = Vec::new();
            let mut at = 0;
            let end = spill.len;
            // Bytes of `buf` not yet handed out start at `from`.
            let mut from = 0;
            while at < end || from < buf.len() {
                match frame(&buf[from..]) {
                    Some(row) => {
                        from += 4 + row.len();
                        f(row)?;
                    }
                    None if at >= end => return Err(spill_error("the rows on disk end early")),
                    None => {
                        // Keep the piece of a row left, and read on: at
                        // least the rest of that row.
                        buf.drain(..from);
                        from = 0;
                        let want = needed(&buf).max(READ).min((end - at) as usize);
                        let old = buf.len();
                        buf.resize(old + want, 0);
                        spill
                            .file
                            .read_exact_at(&mut buf[old..], at)
                            .map_err(|e| spill_error(&e.to_string()))?;
                        at += want as u64;
                    }
                }
            }
        }
        let mut rest = &self.mem[..];
        while let Some(row) = frame(rest) {
            rest = &rest[4 + row.len()..];
            f(row)?;
        }
        Ok(())
    }

    /// Moves the rows held in memory to the end of the set's file, after
    /// those already there; makes the file if there is none yet.
    fn spill(&mut self) -> io::Result<()> {
        if self.mem.is_empty() {
            return Ok(());
        }
        let spill = match &mut self.disk {
            Some(spill) => spill,
            None => self.disk.insert(Spill::create()?),
        };
        spill.append(&self.mem)?;
        self.mem = Vec::new();
        Ok(())
    }
}

/// The row at the start of `bytes`, if all of it is there.
fn frame(bytes: &[u8]) -> Option<&[u8]> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    bytes.get(4..4 + len)
}

/// How many more bytes the row at the start of `bytes` needs.
fn needed(bytes: &[u8]) -> usize {
    match bytes.get(..4) {
        Some(len) => 4 + u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize,
        None => 4,
    }
    .saturating_sub(bytes.len())
}

/// Builds the rows of one statement as it runs.
pub(super) struct Builder {
    set: RowSet,
    /// How many of the names are the driver's.
    driver_names: usize,
    /// Whether the statement's own names are known: they are those of its
    /// first row, and every row of a statement binds the same.
    named: bool,
    /// The values of one row's captures, to pack.
    elems: Vec<Elem<'static>>,
}

impl Builder {
    /// Adds a row: the packed values of the driver's row it ran for, then
    /// what it captured, which it takes.
    pub fn push(
        &mut self,
        driver_row: &[u8],
        captures: &mut Vec<(String, ElemKind<'static>)>,
    ) -> Result<(), Error> {
        if !self.named {
            self.named = true;
            self.set
                .names
                .extend(captures.iter().map(|(n, _)| n.clone()));
        }
        debug_assert!(
            captures
                .iter()
                .map(|(n, _)| n)
                .eq(&self.set.names[self.driver_names..]),
            "every row of a statement binds the same names"
        );
        self.elems.clear();
        self.elems.extend(captures.drain(..).map(|(_, kind)| Elem {
            kind,
            span: Span::default(),
        }));
        let own = codec::encode_key(&[], &self.elems)?;
        // Values read from the database hold no incomplete versionstamp,
        // whose offset would follow the bytes.
        debug_assert_eq!(own.op, codec::Op::Set);
        let own = own.bytes;
        let len = u32::try_from(driver_row.len() + own.len())
            .map_err(|_| spill_error("a row of more than 4 GiB"))?;
        let mem = &mut self.set.mem;
        mem.extend_from_slice(&len.to_le_bytes());
        mem.extend_from_slice(driver_row);
        mem.extend_from_slice(&own);
        if mem.len() >= BLOCK {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the rows held to the set's file.
    fn flush(&mut self) -> Result<(), Error> {
        self.set.spill().map_err(|e| spill_error(&e.to_string()))
    }

    /// The rows: all of them on disk, if some went there, so that a set
    /// is read from one place or two, not more.
    fn finish(mut self) -> Result<RowSet, Error> {
        if self.set.disk.is_some() {
            self.flush()?;
        }
        Ok(self.set)
    }
}

/// A private temporary file of one set's rows, unlinked from the start:
/// appended to, read back by position, and gone with the set.
#[derive(Debug)]
struct Spill {
    file: File,
    /// How many bytes of rows it holds.
    len: u64,
}

impl Spill {
    fn create() -> io::Result<Spill> {
        Ok(Spill {
            file: tempfile::tempfile()?,
            len: 0,
        })
    }

    /// Appends `bytes`.
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all_at(bytes, self.len)?;
        self.len += bytes.len() as u64;
        Ok(())
    }
}

fn spill_error(reason: &str) -> Error {
    Error::Spill {
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::syntax::ast::Int;

    /// Held by each test that makes files, so that [`on_disk`] counts one
    /// test's files at a time.
    static FILES: Mutex<()> = Mutex::new(());

    fn files() -> std::sync::MutexGuard<'static, ()> {
        FILES.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn int(n: i64) -> ElemKind<'static> {
        ElemKind::Int(Int::Small(n))
    }

    /// How many files this process holds open that were made in the
    /// temporary directory and are unlinked, and their bytes: what the
    /// file system gives rows that went to disk, found where the kernel
    /// keeps them, whoever holds them.
    fn on_disk() -> (usize, u64) {
        let tmp = std::env::temp_dir();
        let tmp = tmp.canonicalize().unwrap_or(tmp);
        let mut found = (0, 0);
        for entry in std::fs::read_dir("/proc/self/fd").unwrap() {
            let fd = entry.unwrap().path();
            // A descriptor closed meanwhile, by the listing itself or a
            // test elsewhere, is passed over.
            let Ok(target) = std::fs::read_link(&fd) else {
                continue;
            };
            let target = target.to_string_lossy();
            if target.starts_with(&*tmp.to_string_lossy())
                && target.ends_with(" (deleted)")
                && let Ok(meta) = std::fs::metadata(&fd)
            {
                found.0 += 1;
                found.1 += meta.len();
            }
        }
        found
    }

    /// `rows` rows of one int each, as statement `id` of an attempt.
    fn bind(bindings: &mut Bindings, id: usize, rows: i64) {
        let mut fed = Fed::new(bindings);
        let mut built = fed.builder(None);
        for n in 0..rows {
            built
                .push(&[], &mut vec![("n".to_string(), int(n))])
                .unwrap();
        }
        fed.insert(id, built).unwrap();
        bindings.absorb(fed.into_sets());
    }

    /// Rows of every size go to disk past a block and come back in order,
    /// and rows built on them start with their driver's values.
    #[test]
    fn rows_round_trip_through_memory_and_disk() {
        let _files = files();
        let base = Bindings::default();
        let mut fed = Fed::new(&base);
        let mut built = fed.builder(None);
        let rows = 40_000;
        for n in 0..rows {
            let text = "x".repeat(n as usize % 300);
            let mut captures = vec![
                ("id".to_string(), int(n)),
                ("text".to_string(), ElemKind::Str(text.into())),
            ];
            built.push(&[], &mut captures).unwrap();
            assert!(captures.is_empty());
        }
        fed.insert(1, built).unwrap();
        let set = fed.get(1).unwrap();
        assert!(set.disk.is_some() && set.mem.is_empty(), "spilled whole");
        assert_eq!(set.names, ["id", "text"]);
        let mut next = 0;
        let mut joined = fed.builder(Some(set));
        set.try_for_each(|row| {
            let elems = codec::decode_key(&[], row).unwrap();
            assert_eq!(elems[0].kind, int(next));
            assert_eq!(
                elems[1].kind,
                ElemKind::Str("x".repeat(next as usize % 300).into())
            );
            if next % 1000 == 0 {
                joined.push(row, &mut vec![("more".to_string(), int(-next))])?;
            }
            next += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(next, rows);
        fed.insert(2, joined).unwrap();
        let mut bindings = Bindings::default();
        bindings.absorb(fed.into_sets());
        let set = bindings.get(2).unwrap();
        assert_eq!(set.names, ["id", "text", "more"]);
        assert_eq!(set.position("more"), Some(2));
        let mut seen = Vec::new();
        set.try_for_each(|row| {
            let elems = codec::decode_key(&[], row).unwrap();
            seen.push((elems[0].kind.clone(), elems[2].kind.clone()));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 40);
        assert_eq!(seen[3], (int(3000), int(-3000)));
    }

    /// A statement bound again and again, each time in a transaction of
    /// its own with the rows before it forgotten, as a long script that
    /// rebinds a large feeder across `@commit` does, keeps on disk the
    /// rows of the sets still kept, not of every set it ever bound.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_feeder_bound_again_and_again_keeps_disk_use_bounded() {
        let _files = files();
        let (files_before, bytes_before) = on_disk();
        let mut bindings = Bindings::default();
        // Three blocks of rows each time.
        let rows = (3 * BLOCK / 6) as i64;
        let mut one = 0;
        for id in 0..20 {
            bind(&mut bindings, id, rows);
            if id > 0 {
                bindings.forget(id - 1);
            }
            let (files, bytes) = on_disk();
            let bytes = bytes.saturating_sub(bytes_before);
            if id == 0 {
                one = bytes;
                assert!(one >= 2 * BLOCK as u64, "the rows went to disk: {one}");
            }
            assert!(files <= files_before + 1, "{files} files after {id}");
            assert!(
                bytes <= one,
                "{bytes} bytes on disk after {id}, {one} for one set"
            );
        }
        bindings.forget(19);
        assert_eq!(on_disk(), (files_before, bytes_before), "all given back");
    }

    /// What a failed attempt wrote to disk goes with it, and forgetting a
    /// set on disk gives its space back while other sets stay.
    #[cfg(target_os = "linux")]
    #[test]
    fn failed_attempts_and_forgotten_sets_leave_nothing_on_disk() {
        let _files = files();
        let before = on_disk();
        let mut bindings = Bindings::default();
        bind(&mut bindings, 0, 100_000);
        let committed = on_disk();
        assert_eq!(committed.0, before.0 + 1);
        for _ in 0..3 {
            let mut fed = Fed::new(&bindings);
            let mut built = fed.builder(None);
            for n in 0..100_000 {
                built
                    .push(&[], &mut vec![("n".to_string(), int(n))])
                    .unwrap();
            }
            fed.insert(1, built).unwrap();
            assert_eq!(on_disk().0, committed.0 + 1);
            // Dropped, as a failed attempt is.
        }
        assert_eq!(on_disk(), committed);
        bind(&mut bindings, 1, 100_000);
        bindings.forget(0);
        assert_eq!(on_disk().0, committed.0, "the set kept keeps its file");
        bindings.forget(1);
        assert_eq!(on_disk(), before);
    }

    /// Finished sets held in memory beyond the budget go to disk, the
    /// largest first; sets too small to be worth a file stay.
    #[test]
    fn sets_in_memory_stay_within_the_budget() {
        let _files = files();
        let mut bindings = Bindings::default();
        for id in 0..64 {
            // Under a block each: none spills as it is built.
            bind(&mut bindings, id, (BLOCK / 16) as i64);
            let held: usize = bindings.sets.values().map(|s| s.mem.len()).sum();
            assert!(held <= BUDGET, "{held} bytes held after {id}");
        }
        let mut count = 0;
        bindings
            .get(0)
            .unwrap()
            .try_for_each(|_| {
                count += 1;
                Ok(())
            })
            .unwrap();
        assert_eq!(count, BLOCK / 16);
        let mut small = Bindings::default();
        for id in 0..100 {
            bind(&mut small, id, (READ / 8) as i64);
        }
        let held: usize = small.sets.values().map(|s| s.mem.len()).sum();
        assert!(held > BUDGET);
        assert!(small.sets.values().all(|s| s.mem.len() < READ));
        assert!(small.sets.values().all(|s| s.disk.is_none()));
    }
}
