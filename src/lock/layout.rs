//! The keys a lock may hold, taken from its kind's schema script
//! (`mutex/schema`, `rwlock/schema`), and the check each of its
//! transactions makes before it reads or writes: a directory that holds
//! anything else is not such a lock (a user's data, a mistyped path, a
//! lock of another kind), and no command of the kind may change it.
//! What follows speaks of the mutex; a read-write lock's families differ,
//! not how they are checked.
//!
//! The check must stay cheap for a mutex with many waiters, so it reads a
//! bounded number of keys whatever the queue's length. The schema's
//! patterns start with constants (`("owner", <name:str>)`), so the keys of
//! a mutex fall into a few families, each the range of one packed prefix:
//!
//! - the ranges between families must be empty. They are read together
//!   with the family after each, and add read conflicts, so a key written
//!   there by another transaction before this one commits makes it
//!   conflict and look again;
//! - a family bounded by `[max:N]` (the owner, the fencing token) is read
//!   whole, at most `N + 1` keys, and each key must match its pattern;
//! - an unbounded family (the queue, waiters, heartbeats) has its first
//!   and last key checked, where a key whose next element has the wrong
//!   type sorts.
//!
//! That is one read per family, one more for the last key of each
//! unbounded family and one for the range after the last family: twelve
//! small reads, besides opening the directory.
//!
//! The keys of the unbounded families are read as snapshots and add no
//! read conflict, so clients that join the queue at once do not make each
//! other retry: an enqueue writes a versionstamped queue key, whose write
//! conflict range runs, on FoundationDB, from the stamp of its read
//! version to the end of the stamps (on the embedded store, the key it
//! got), and nothing any enqueue reads lies there.
//!
//! The mutex scripts clear only keys of the bounded families and single
//! keys they have checked or that match the layout by their shape alone,
//! so no mutex command removes a key outside the layout.

use std::sync::OnceLock;

use crate::codec;
use crate::directory::{DirectoryLayer, show};
use crate::exec::Engine;
use crate::kv::{AsKvError, Committed, DatabaseExt};
use crate::kv::{ConflictRangeType, KeyValue, RangeOption, Transaction, key_after, strinc};
use crate::plan::Plan;
use crate::schema::Pattern;
use crate::syntax::ast::{Elem, ElemKind, Kind, Query};
use foundationdb_tuple::TuplePack;

use super::runner::{checked, dir_param, elem};

/// The kinds of lock, each with its schema script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schema {
    /// `mutex/schema`.
    Mutex,
    /// `rwlock/schema`: read-write locks and semaphores.
    ReadWrite,
}

impl Schema {
    fn script(self) -> &'static str {
        match self {
            Schema::Mutex => "mutex/schema",
            Schema::ReadWrite => "rwlock/schema",
        }
    }
}

/// Why a layout check failed; each kind of lock words a foreign key its
/// own way.
#[derive(Debug)]
pub(crate) enum Error {
    /// The directory holds a key that its schema does not allow: the
    /// transaction stopped before it wrote anything.
    Foreign {
        /// The directory.
        dir: String,
        /// The first such key-value, as FQL.
        key: String,
    },
    /// The directory could not be opened.
    Directory(crate::directory::Error),
    /// The database failed.
    Kv(crate::kv::Error),
}

impl From<crate::directory::Error> for Error {
    fn from(e: crate::directory::Error) -> Error {
        Error::Directory(e)
    }
}

impl From<crate::kv::Error> for Error {
    fn from(e: crate::kv::Error) -> Error {
        Error::Kv(e)
    }
}

/// The families of keys of a kind of lock, in key order.
pub(crate) struct Layout {
    families: Vec<Family>,
}

/// The keys of one or more patterns that start with the same constants.
struct Family {
    /// The packed constants, after the directory's prefix.
    begin: Vec<u8>,
    /// The end of the family's range: one key, or every key under `begin`.
    end: Vec<u8>,
    /// At most this many keys, when every pattern of the family bounds
    /// its count.
    max: Option<usize>,
    patterns: Vec<Pattern<'static>>,
}

/// The layout of `schema`, built the first time it is asked for and kept
/// for the process's life, with the plan its patterns borrow.
pub(crate) fn of(schema: Schema) -> &'static Layout {
    static PLANS: [OnceLock<Plan<'static>>; 2] = [const { OnceLock::new() }; 2];
    static LAYOUTS: [OnceLock<Layout>; 2] = [const { OnceLock::new() }; 2];
    let at = schema as usize;
    LAYOUTS[at].get_or_init(|| {
        // Any directory: the patterns are read after its prefix.
        let params = [("dir".to_string(), elem(dir_param(&["mutex".into()])).into())].into();
        let plan = PLANS[at].get_or_init(|| {
            crate::plan::plan(checked(schema.script()), &params).expect("shipped scripts plan")
        });
        Layout::from_plan(schema, plan)
    })
}

impl Layout {
    fn from_plan(schema: Schema, plan: &'static Plan<'static>) -> Layout {
        let mut families: Vec<Family> = Vec::new();
        for step in &plan.steps {
            let (Kind::Read | Kind::ReadRange, Query::KeyValue(kv)) = (step.kind, step.query())
            else {
                continue;
            };
            let elems = &kv.key.tuple.elems;
            let fixed = elems.iter().take_while(|e| is_constant(e)).count();
            let begin = codec::encode_key(b"", &elems[..fixed])
                .expect("the schema's constants encode")
                .bytes;
            let exact = fixed == elems.len() && kv.key.tuple.rest.is_none();
            let max = if exact { Some(1) } else { step.options.max };
            let pattern = Pattern::new(families.len(), kv, step.options.min, step.options.max)
                .expect("the schema's patterns compile");
            match families.iter_mut().find(|f| f.begin == begin) {
                Some(family) => {
                    family.max = family.max.zip(max).map(|(a, b)| a + b);
                    family.patterns.push(pattern);
                }
                None => families.push(Family {
                    end: if exact {
                        key_after(&begin)
                    } else {
                        strinc(&begin)
                    },
                    begin,
                    max,
                    patterns: vec![pattern],
                }),
            }
        }
        families.sort_by(|a, b| a.begin.cmp(&b.begin));
        assert!(
            families.windows(2).all(|w| w[0].end <= w[1].begin),
            "the families of {} do not overlap",
            schema.script()
        );
        Layout { families }
    }

    /// Checks, in `tx`, that the directory `dir` holds nothing but the keys
    /// of this kind of lock, and returns its prefix, so that the caller
    /// need not resolve the directory again. A missing directory is a
    /// fresh lock: `None`.
    pub(crate) fn check(
        &self,
        tx: &mut dyn Transaction,
        layer: &DirectoryLayer,
        dir: &[String],
    ) -> Result<Option<Vec<u8>>, Error> {
        Ok(self.inspect(tx, layer, dir)?.map(|found| found.prefix))
    }

    /// Runs `f` in the engine's retry loop, in a transaction that first
    /// checks the directory `dir` ([`Layout::check`]): a look at the lock.
    /// `f` gets the directory's prefix, or `None` when there is none yet
    /// (a fresh lock).
    pub(crate) fn look<T, E>(
        &self,
        engine: &Engine,
        dir: &[String],
        mut f: impl FnMut(&mut dyn Transaction, Option<&[u8]>) -> Result<T, E>,
    ) -> Result<(T, Committed), E>
    where
        E: From<Error> + From<crate::kv::Error> + AsKvError,
    {
        let layer = DirectoryLayer::new();
        engine.database().run_with(engine.retry_options(), |tx, _| {
            let prefix = self.check(tx, &layer, dir)?;
            f(tx, prefix.as_deref())
        })
    }

    /// [`Layout::check`], returning besides the prefix what the check saw
    /// of the owner, the queue and the stored settings.
    pub(super) fn inspect(
        &self,
        tx: &mut dyn Transaction,
        layer: &DirectoryLayer,
        dir: &[String],
    ) -> Result<Option<Found>, Error> {
        let opened = match layer.open(tx, dir, b"") {
            Err(crate::directory::Error::NotFound { .. }) => return Ok(None),
            opened => opened?,
        };
        let prefix = opened.prefix()?;
        let at = |relative: &[u8]| [prefix, relative].concat();
        let foreign = |kv: &KeyValue| Error::Foreign {
            dir: show(dir),
            key: describe(dir, prefix, kv),
        };
        let mut seen = Found::new(prefix);
        let mut gap = prefix.to_vec();
        for family in &self.families {
            let (begin, end) = (at(&family.begin), at(&family.end));
            let found = family.read(tx, &gap, &begin, &end)?;
            if let Some(kv) = found.first().filter(|kv| kv.key < begin) {
                return Err(foreign(kv));
            }
            if let Some(kv) = family.max.and_then(|max| found.get(max)) {
                return Err(foreign(kv));
            }
            if let Some(kv) = found.iter().find(|kv| !family.allows(prefix, kv)) {
                return Err(foreign(kv));
            }
            seen.note(&begin, &found);
            gap = end;
        }
        match empty(tx, &gap, &strinc(prefix))? {
            Some(kv) => Err(foreign(&kv)),
            None => Ok(Some(seen)),
        }
    }
}

/// What the layout check saw of a mutex that exists: enough to tell
/// whether it is idle (free, nobody waiting) and which settings it
/// stores, without another read.
pub(super) struct Found {
    /// The directory's prefix.
    pub prefix: Vec<u8>,
    /// The first key of the owner family, and of the queue family.
    pub owners: Vec<u8>,
    pub queue: Vec<u8>,
    /// The key of the stored settings, and its value if it exists.
    pub config_key: Vec<u8>,
    pub config: Option<Vec<u8>>,
    /// Someone holds the mutex: an owner key other than Go's free
    /// marker `("owner","")`.
    pub held: bool,
    /// Someone waits in the queue.
    pub queued: bool,
}

impl Found {
    fn new(prefix: &[u8]) -> Found {
        let at = |kind: &str| [prefix, &(kind,).pack_to_vec()].concat();
        let config_key = [prefix, &("config",).pack_to_vec()].concat();
        Found {
            prefix: prefix.to_vec(),
            owners: at("owner"),
            queue: at("queue"),
            config_key,
            config: None,
            held: false,
            queued: false,
        }
    }

    /// Notes the keys found of the family that starts at `begin`.
    fn note(&mut self, begin: &[u8], found: &[KeyValue]) {
        if begin == self.owners.as_slice() {
            let marker = [&self.owners[..], b"\x02\x00"].concat();
            self.held = found.iter().any(|kv| kv.key != marker);
        } else if begin == self.queue.as_slice() {
            self.queued = !found.is_empty();
        } else if begin == self.config_key.as_slice() {
            self.config = found.first().map(|kv| kv.value.clone());
        }
    }

    /// The refusal of a settings key whose value no client writes.
    pub fn foreign_config(&self, dir: &[String]) -> Error {
        let kv = KeyValue {
            key: self.config_key.clone(),
            value: self.config.clone().unwrap_or_default(),
        };
        Error::Foreign {
            dir: show(dir),
            key: describe(dir, &self.prefix, &kv),
        }
    }
}

impl Family {
    /// The keys the check looks at, read as snapshots, in one read with
    /// the range between the previous family and this one (from `gap`):
    /// the first key of that range if it holds any, else all of a bounded
    /// family (one more than it may hold, if there are more) or the first
    /// and last key of an unbounded one.
    ///
    /// Keys added to that range, or beside those read of a bounded family,
    /// before this transaction commits make it conflict. An unbounded
    /// family is not guarded so: every waiter that joined would make every
    /// other client's transaction conflict.
    fn read(
        &self,
        tx: &mut dyn Transaction,
        gap: &[u8],
        begin: &[u8],
        end: &[u8],
    ) -> crate::kv::Result<Vec<KeyValue>> {
        let limit = self.max.map_or(1, |max| max + 1);
        let range = RangeOption::new(gap, end).limit(limit);
        let mut found = crate::kv::collect_range(tx, &range, true)?;
        if found.first().is_some_and(|kv| kv.key.as_slice() < begin) {
            return Ok(found);
        }
        if gap < begin {
            tx.add_conflict_range(gap, begin, ConflictRangeType::Read)?;
        }
        let Some(max) = self.max else {
            let last = RangeOption::new(begin, end).rev().limit(1);
            found.extend(crate::kv::collect_range(tx, &last, true)?);
            return Ok(found);
        };
        let mut from = begin.to_vec();
        for kv in &found {
            if from < kv.key {
                tx.add_conflict_range(&from, &kv.key, ConflictRangeType::Read)?;
            }
            from = key_after(&kv.key);
        }
        if found.len() <= max && from.as_slice() < end {
            tx.add_conflict_range(&from, end, ConflictRangeType::Read)?;
        }
        Ok(found)
    }

    /// Whether the key-value, found in this family, matches one of its
    /// patterns.
    fn allows(&self, prefix: &[u8], kv: &KeyValue) -> bool {
        let Some(elems) = codec::decode_key(prefix, &kv.key) else {
            return false;
        };
        self.patterns
            .iter()
            .any(|p| p.check(&elems, &kv.value).is_ok())
    }
}

/// `None` if no key lies in `begin..end`, which stays so until this
/// transaction commits; else the first key there.
fn empty(
    tx: &mut dyn Transaction,
    begin: &[u8],
    end: &[u8],
) -> crate::kv::Result<Option<KeyValue>> {
    if begin >= end {
        return Ok(None);
    }
    let range = RangeOption::new(begin, end).limit(1);
    let found = crate::kv::collect_range(tx, &range, true)?.pop();
    if found.is_none() {
        tx.add_conflict_range(begin, end, ConflictRangeType::Read)?;
    }
    Ok(found)
}

/// A stored key-value as FQL, for the refusal: `/app/users("email")="x"`,
/// or the key's bytes when it is not a tuple.
fn describe(dir: &[String], prefix: &[u8], kv: &KeyValue) -> String {
    let value = codec::decode_untyped(&kv.value);
    match codec::decode_key(prefix, &kv.key) {
        Some(elems) => {
            let parts: Vec<String> = elems.iter().map(|e| e.kind.to_string()).collect();
            format!("{}({})={value}", show(dir), parts.join(","))
        }
        None => format!(
            "{} key 0x{}={value}",
            show(dir),
            const_hex::encode(&kv.key[prefix.len()..])
        ),
    }
}

/// Whether an element of a pattern is a constant, not a hole.
fn is_constant(e: &Elem<'_>) -> bool {
    match &e.kind {
        ElemKind::Var(_) | ElemKind::Ref(_) => false,
        ElemKind::Tuple(t) => !t.has_holes(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each family's first constant and bound, in key order.
    fn families(layout: &Layout) -> Vec<(String, Option<usize>)> {
        layout
            .families
            .iter()
            .map(|f| {
                let elems = codec::decode_key(b"", &f.begin).expect("a tuple");
                (elems[0].kind.to_string(), f.max)
            })
            .collect()
    }

    #[test]
    fn a_read_write_lock_has_its_own_families() {
        let names = families(of(Schema::ReadWrite));
        let bounded: Vec<&str> = names
            .iter()
            .filter(|(_, max)| *max == Some(1))
            .map(|(n, _)| n.as_str())
            .collect();
        assert_eq!(bounded, [r#""config""#, r#""turn""#, r#""writer""#]);
        assert_eq!(names.len(), 9);
        assert!(std::ptr::eq(of(Schema::ReadWrite), of(Schema::ReadWrite)));
    }

    #[test]
    fn the_families_come_from_the_schema() {
        let names = families(of(Schema::Mutex));
        assert_eq!(
            names,
            [
                (r#""config""#.to_string(), Some(1)),
                (r#""fence""#.to_string(), Some(1)),
                (r#""hb""#.to_string(), None),
                (r#""owner""#.to_string(), Some(1)),
                (r#""queue""#.to_string(), None),
                (r#""stats""#.to_string(), None),
                (r#""waiter""#.to_string(), None),
            ]
        );
    }
}
