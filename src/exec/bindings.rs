//! The rows of statements that feed later ones: each statement's names
//! once, each row its values packed in the tuple encoding, and past a
//! small budget, on disk.
//!
//! A join over a million rows would otherwise hold a million rows of
//! names and values in memory until the script ends. Here a row costs the
//! bytes of its packed values and four of length; a statement's rows stay
//! in memory while they are few, and past [`BLOCK`] bytes go to a private
//! temporary file, unlinked from the start, that the statements they feed
//! read back in order. Memory then stays flat however many rows a script
//! binds.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::codec;
use crate::syntax::ast::{Elem, ElemKind, Span};

use super::Error;

/// How many bytes of one statement's rows are held in memory before they
/// go to disk; also the size of a write to it.
const BLOCK: usize = 256 << 10;

/// How many bytes of rows all finished statements may hold in memory
/// together; past it, the largest go to disk.
const BUDGET: usize = 4 << 20;

/// How many bytes of a statement's rows on disk are read at once.
const READ: usize = 64 << 10;

/// What the statements of a plan that feed later ones have bound so far:
/// carried from one transaction of the plan to the next.
#[derive(Debug, Default)]
pub struct Bindings {
    sets: HashMap<usize, RowSet>,
    /// The file rows on disk are in, once some are.
    spill: Option<Arc<Spill>>,
    /// Where the rows of committed transactions end in `spill`: what an
    /// attempt of the next transaction wrote past it is dropped if the
    /// attempt is.
    end: u64,
}

impl Bindings {
    /// Forgets the rows of statement `id`, which no statement still to run
    /// uses.
    pub fn forget(&mut self, id: usize) {
        self.sets.remove(&id);
        if self.sets.values().all(|s| s.disk.is_none()) {
            // Nothing on disk is wanted any more: the file starts again.
            if let Some(spill) = &self.spill {
                spill.truncate(0);
            }
            self.end = 0;
        }
    }

    /// The rows statement `id` bound, if it ran.
    pub(super) fn get(&self, id: usize) -> Option<&RowSet> {
        self.sets.get(&id)
    }

    /// Takes what a transaction bound, once it committed.
    pub fn absorb(&mut self, added: Added) {
        if self.spill.is_none() {
            self.spill = added.spill;
        }
        self.sets.extend(added.sets);
        self.end = self.spill.as_ref().map_or(0, |s| s.len());
        self.keep_within_budget();
    }

    /// Moves the largest sets held in memory to disk until those left
    /// hold at most [`BUDGET`] bytes.
    fn keep_within_budget(&mut self) {
        let held =
            |sets: &HashMap<usize, RowSet>| -> usize { sets.values().map(|s| s.mem.len()).sum() };
        while held(&self.sets) > BUDGET {
            let Some(set) = self.sets.values_mut().max_by_key(|s| s.mem.len()) else {
                return;
            };
            let spill = match &self.spill {
                Some(s) => s.clone(),
                None => match Spill::create() {
                    Ok(s) => self.spill.insert(Arc::new(s)).clone(),
                    // Without a file the rows stay where they are.
                    Err(_) => return,
                },
            };
            if set.move_to(&spill).is_err() {
                return;
            }
            self.end = spill.len();
        }
    }
}

/// What one attempt at a transaction binds, beside what the transactions
/// before it bound: dropped with the attempt if it fails.
pub(super) struct Fed<'b> {
    base: &'b Bindings,
    sets: HashMap<usize, RowSet>,
    spill: Option<Arc<Spill>>,
}

/// What an attempt bound, apart from what it bound it beside: added to
/// the [`Bindings`] once the attempt's transaction commits.
#[derive(Debug)]
pub struct Added {
    sets: HashMap<usize, RowSet>,
    spill: Option<Arc<Spill>>,
}

impl<'b> Fed<'b> {
    pub fn new(base: &'b Bindings) -> Fed<'b> {
        if let Some(spill) = &base.spill {
            // Rows a failed attempt before this one wrote.
            spill.truncate(base.end);
        }
        Fed {
            base,
            sets: HashMap::new(),
            spill: base.spill.clone(),
        }
    }

    /// What the attempt bound, to keep once it succeeded.
    pub fn into_sets(self) -> Added {
        Added {
            sets: self.sets,
            spill: self.spill,
        }
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
            spill: self.spill.clone(),
            elems: Vec::new(),
        }
    }

    /// Keeps the rows statement `id` bound.
    pub fn insert(&mut self, id: usize, built: Builder) -> Result<(), Error> {
        let (set, spill) = built.finish()?;
        if self.spill.is_none() {
            self.spill = spill;
        }
        self.sets.insert(id, set);
        Ok(())
    }
}

/// The rows one statement bound, in order.
#[derive(Debug, Default)]
pub(super) struct RowSet {
    /// The names each row binds, in order: those of the row of its driver
    /// it ran for, then its own. A name twice means the later.
    names: Vec<String>,
    /// Rows on disk, before those in memory: the file and a range of it.
    disk: Option<(Arc<Spill>, u64, u64)>,
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
        if let Some((spill, start, len)) = &self.disk {
            let mut buf = Vec::new();
            let mut at = *start;
            let end = start + len;
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

    /// Moves the rows held in memory to the end of `spill`, after those
    /// already there, which must end where the file does.
    fn move_to(&mut self, spill: &Arc<Spill>) -> io::Result<()> {
        if self.mem.is_empty() {
            return Ok(());
        }
        let at = spill.append(&self.mem)?;
        match &mut self.disk {
            Some((_, start, len)) => {
                debug_assert_eq!(*start + *len, at);
                *len += self.mem.len() as u64;
            }
            None => self.disk = Some((spill.clone(), at, self.mem.len() as u64)),
        }
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
    spill: Option<Arc<Spill>>,
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

    /// Writes the rows held to disk.
    fn flush(&mut self) -> Result<(), Error> {
        let spill = match &self.spill {
            Some(s) => s.clone(),
            None => {
                let created = Spill::create().map_err(|e| spill_error(&e.to_string()))?;
                self.spill.insert(Arc::new(created)).clone()
            }
        };
        self.set
            .move_to(&spill)
            .map_err(|e| spill_error(&e.to_string()))
    }

    /// The rows, and the file they went to, if they did: all of them, if
    /// some did, so that a set is read from one place or two, not more.
    fn finish(mut self) -> Result<(RowSet, Option<Arc<Spill>>), Error> {
        if self.set.disk.is_some() {
            self.flush()?;
        }
        Ok((self.set, self.spill))
    }
}

/// A private temporary file, unlinked from the start, that rows are
/// appended to and read back from by position.
#[derive(Debug)]
struct Spill {
    file: File,
    /// Where the next rows go; what is past it is dropped.
    end: AtomicU64,
}

impl Spill {
    fn create() -> io::Result<Spill> {
        Ok(Spill {
            file: tempfile::tempfile()?,
            end: AtomicU64::new(0),
        })
    }

    fn len(&self) -> u64 {
        self.end.load(Ordering::Relaxed)
    }

    /// Appends `bytes`; returns where they start.
    fn append(&self, bytes: &[u8]) -> io::Result<u64> {
        let at = self.len();
        self.file.write_all_at(bytes, at)?;
        self.end.store(at + bytes.len() as u64, Ordering::Relaxed);
        Ok(at)
    }

    /// Drops everything past `len`.
    fn truncate(&self, len: u64) {
        if self.len() > len {
            self.end.store(len, Ordering::Relaxed);
            // The space goes back to the file system; if it cannot, the
            // bytes are only written over.
            let _ = self.file.set_len(len);
        }
    }
}

fn spill_error(reason: &str) -> Error {
    Error::Spill {
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::Int;

    fn int(n: i64) -> ElemKind<'static> {
        ElemKind::Int(Int::Small(n))
    }

    /// Rows of every size go to disk past a block and come back in order,
    /// and rows built on them start with their driver's values.
    #[test]
    fn rows_round_trip_through_memory_and_disk() {
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

    /// What a failed attempt wrote to disk is dropped by the next one, and
    /// forgetting every set on disk empties the file.
    #[test]
    fn failed_attempts_and_forgotten_sets_leave_nothing_on_disk() {
        let fill = |fed: &Fed<'_>| {
            let mut built = fed.builder(None);
            for n in 0..100_000 {
                built
                    .push(&[], &mut vec![("n".to_string(), int(n))])
                    .unwrap();
            }
            built
        };
        let mut bindings = Bindings::default();
        let mut fed = Fed::new(&bindings);
        let built = fill(&fed);
        fed.insert(0, built).unwrap();
        bindings.absorb(fed.into_sets());
        let committed = bindings.end;
        assert!(committed > 0);
        for _ in 0..3 {
            let mut fed = Fed::new(&bindings);
            let built = fill(&fed);
            fed.insert(1, built).unwrap();
            assert_eq!(fed.spill.as_ref().unwrap().len(), 2 * committed);
            // Dropped, as a failed attempt is.
        }
        assert_eq!(Fed::new(&bindings).spill.unwrap().len(), committed);
        bindings.forget(0);
        assert_eq!(
            bindings
                .spill
                .as_ref()
                .unwrap()
                .file
                .metadata()
                .unwrap()
                .len(),
            0
        );
    }

    /// Finished sets held in memory beyond the budget go to disk.
    #[test]
    fn sets_in_memory_stay_within_the_budget() {
        let mut bindings = Bindings::default();
        for id in 0..64 {
            let mut fed = Fed::new(&bindings);
            let mut built = fed.builder(None);
            // Just under a block each: none spills as it is built.
            for n in 0..(BLOCK / 16) as i64 {
                built
                    .push(&[], &mut vec![("n".to_string(), int(n))])
                    .unwrap();
            }
            fed.insert(id, built).unwrap();
            bindings.absorb(fed.into_sets());
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
    }
}
