//! What a watch knows: the query, and each key it found with its value
//! and its armed database watch.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::codec::encode_key;
use crate::directory::DirectoryLayer;
use crate::exec::{self, Bindings, Engine, Output, Part, Row};
use crate::kv::{DatabaseExt, Error as KvError, Transaction, Watch};

use crate::plan::{Params, Plan, Root, plan_in};
use crate::syntax::ast::{DirElem, Elem, Item, Kind, Place, Query, Span};

use super::{Error, Event, Options, wait};

/// A key found, by its FQL text.
struct Entry {
    /// The last value read; `None` for the one key of a single-key watch
    /// while it does not exist.
    output: Option<Output>,
    /// The key's bytes, when known: what its watch is armed on.
    raw: Option<Vec<u8>>,
    /// The armed watch; `None` until the next full read arms one (the
    /// bound on watches was reached, or the last one failed).
    watch: Option<Watch>,
}

/// The query and how to read one of its keys again.
struct Target<'e> {
    engine: &'e Engine,
    layer: DirectoryLayer,
    text: &'e str,
    params: &'e Params,
    root: &'e Root,
    /// The statement's options, as a line before a one-key query.
    before: String,
    /// The query's value (`=<int>`, or nothing), after a one-key query.
    after: String,
    /// Whether the query names one key.
    single: bool,
}

/// A watch in progress.
pub(super) struct State<'e> {
    query: Target<'e>,
    options: Options,
    entries: BTreeMap<String, Entry>,
    /// The wait before the next full read, and when it is due.
    poll: Duration,
    next_poll: Instant,
}

/// The key of the one entry of a single-key watch.
const SINGLE: &str = "";

/// What one transaction found: each key's text, its value, and the watch
/// armed on it in this transaction, if any.
type Found = Vec<(String, Option<Output>, Option<Vec<u8>>, Option<Watch>)>;

impl<'e> State<'e> {
    /// Checks that `text` is one query that reads key-values.
    pub(super) fn new(
        engine: &'e Engine,
        text: &'e str,
        params: &'e Params,
        root: &'e Root,
        options: Options,
    ) -> Result<State<'e>, Error> {
        let (before, after, single) = with_plan(text, params, root, |plan, script| {
            let steps: Vec<_> = plan.transactions().flatten().collect();
            let [step] = steps.as_slice() else {
                return Err(invalid("a watch takes one query, not several"));
            };
            let (Query::KeyValue(kv), Some(Item::Statement(st))) =
                (step.query(), script.items.first())
            else {
                return Err(invalid(
                    "a watch takes a query of key-values, such as /dir(<>)=<>",
                ));
            };
            if !matches!(step.kind, Kind::Read | Kind::ReadRange) {
                return Err(invalid(format!(
                    "a watch only reads: this query is a {}",
                    step.kind.noun()
                )));
            }
            let before = match st.options.is_empty() {
                true => String::new(),
                false => format!("{}\n", st.options),
            };
            Ok((before, kv.value.to_string(), step.kind == Kind::Read))
        })?;
        Ok(State {
            query: Target {
                engine,
                layer: DirectoryLayer::new(),
                text,
                params,
                root,
                before,
                after,
                single,
            },
            options,
            entries: BTreeMap::new(),
            poll: options.poll,
            next_poll: Instant::now() + options.poll,
        })
    }

    /// Reads the query once, arming a watch on each key found, and
    /// returns what it found.
    pub(super) fn first_read(&mut self) -> Result<Vec<Output>, Error> {
        let found = self
            .query
            .read_all(&self.entries, self.options.max_watches)?;
        let mut rows = Vec::new();
        for (key, output, raw, watch) in found {
            rows.extend(output.clone());
            self.entries.insert(key, Entry { output, raw, watch });
        }
        self.next_poll = Instant::now() + self.poll;
        Ok(rows)
    }

    /// Waits for the next change, a timer's full read, the end, or
    /// `stop`, and returns what changed (often nothing).
    pub(super) fn next_changes(&mut self, stop: &dyn Fn() -> bool) -> Result<Vec<Event>, Error> {
        let polling = self.polling();
        let until = match (self.options.until, polling) {
            (Some(u), true) => Some(u.min(self.next_poll)),
            (u, true) => u.or(Some(self.next_poll)),
            (u, false) => u,
        };
        let keys: Vec<String> = self.entries.keys().cloned().collect();
        let mut armed: Vec<(usize, &mut Watch)> = self
            .entries
            .values_mut()
            .enumerate()
            .filter_map(|(i, e)| e.watch.as_mut().map(|w| (i, w)))
            .collect();
        let fired = wait::any(&mut armed, until, stop);
        let fired: Vec<(String, bool)> = fired
            .into_iter()
            .map(|(i, r)| (keys[i].clone(), r.is_ok()))
            .collect();
        if !fired.is_empty() {
            return self.reread_keys(fired);
        }
        if polling && Instant::now() >= self.next_poll && !stop() {
            return self.reread_all();
        }
        Ok(Vec::new())
    }

    /// Whether new keys are looked for by reading the query again: for a
    /// range always, for one key while no watch is armed on it.
    fn polling(&self) -> bool {
        !self.query.single || self.entries.values().any(|e| e.watch.is_none())
    }

    /// Reads again each key whose watch resolved. A watch that failed
    /// (the database had too many) is left to the next full read.
    fn reread_keys(&mut self, fired: Vec<(String, bool)>) -> Result<Vec<Event>, Error> {
        let mut events = Vec::new();
        for (key, ok) in fired {
            let Some(entry) = self.entries.get_mut(&key) else {
                continue;
            };
            entry.watch = None;
            if !ok {
                continue;
            }
            let raw = entry.raw.clone();
            let (output, watch) = self.query.read_key(&key, raw.as_deref())?;
            events.extend(self.update(key, output, raw, watch));
        }
        Ok(events)
    }

    /// Reads the whole query again, arming watches where none is: new
    /// keys, and keys whose watch was not armed or failed.
    fn reread_all(&mut self) -> Result<Vec<Event>, Error> {
        let armed = self.entries.values().filter(|e| e.watch.is_some()).count();
        let budget = self.options.max_watches.saturating_sub(armed);
        let found = self.query.read_all(&self.entries, budget)?;
        let mut events = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (key, output, raw, watch) in found {
            seen.insert(key.clone());
            events.extend(self.update(key, output, raw, watch));
        }
        let gone: Vec<String> = (self.entries.keys())
            .filter(|k| !seen.contains(*k))
            .cloned()
            .collect();
        for key in gone {
            events.extend(self.update(key, None, None, None));
        }
        let new_keys = events.iter().any(|e| matches!(e, Event::Set(_)));
        self.poll = match new_keys {
            true => self.options.poll,
            false => (self.poll * 2).min(self.options.poll_max),
        };
        self.next_poll = Instant::now() + self.poll;
        Ok(events)
    }

    /// Records what a read found of `key` and says what changed.
    fn update(
        &mut self,
        key: String,
        output: Option<Output>,
        raw: Option<Vec<u8>>,
        watch: Option<Watch>,
    ) -> Option<Event> {
        let single = self.query.single;
        let entry = self.entries.entry(key.clone()).or_insert(Entry {
            output: None,
            raw: None,
            watch: None,
        });
        if raw.is_some() {
            entry.raw = raw;
        }
        if watch.is_some() {
            entry.watch = watch;
        }
        let before = std::mem::replace(&mut entry.output, output.clone());
        let event = match (before, output) {
            (Some(old), None) => Some(Event::Clear(key_only(old))),
            (old, Some(new)) if old.as_ref() != Some(&new) => Some(Event::Set(new)),
            _ => None,
        };
        if entry.output.is_none() && !single {
            self.entries.remove(&key);
        }
        event
    }
}

impl Target<'_> {
    /// Reads the whole query in one transaction; arms a watch (up to
    /// `budget`) on each key found that `known` holds no watch for.
    fn read_all(&self, known: &BTreeMap<String, Entry>, budget: usize) -> Result<Found, Error> {
        let single = self.single;
        let (found, _) =
            self.engine
                .database()
                .run_with(self.engine.retry_options(), |tx, _| {
                    let rows = self.rows(tx, self.text)?;
                    let mut found = Found::new();
                    let mut budget = budget;
                    if single {
                        let raw = self.single_key(tx)?;
                        let watch = arm(tx, raw.as_deref(), &mut budget)?;
                        found.push((SINGLE.into(), rows.into_iter().next(), raw, watch));
                        return Ok(found);
                    }
                    for row in rows {
                        let key = key_text(&row);
                        let watched = known.get(&key).is_some_and(|e| e.watch.is_some());
                        let (raw, watch) = match watched || budget == 0 {
                            true => (None, None),
                            false => {
                                let raw = self.raw_key(tx, &row)?;
                                let watch = arm(tx, raw.as_deref(), &mut budget)?;
                                (raw, watch)
                            }
                        };
                        found.push((key, Some(row), raw, watch));
                    }
                    Ok::<_, Error>(found)
                })?;
        Ok(found)
    }

    /// Reads one key again and arms the next watch on it (`raw`, or for
    /// a single-key watch the query's key) in the same transaction.
    fn read_key(
        &self,
        key: &str,
        raw: Option<&[u8]>,
    ) -> Result<(Option<Output>, Option<Watch>), Error> {
        let text = match self.single {
            true => self.text.to_string(),
            false => format!("{}{key}{}", self.before, self.after),
        };
        let (found, _) =
            self.engine
                .database()
                .run_with(self.engine.retry_options(), |tx, _| {
                    let row = self.rows(tx, &text)?.into_iter().next();
                    let raw = match self.single {
                        true => self.single_key(tx)?,
                        false => raw.map(<[u8]>::to_vec),
                    };
                    let watch = arm(tx, raw.as_deref(), &mut 1)?;
                    Ok::<_, Error>((row, watch))
                })?;
        Ok(found)
    }

    /// The key-values `text` reads in `tx`.
    fn rows(&self, tx: &mut dyn Transaction, text: &str) -> Result<Vec<Output>, Error> {
        let engine = self.engine;
        with_plan(text, self.params, self.root, |plan, _| {
            let mut rows = Vec::new();
            let mut bindings = Bindings::default();
            for steps in plan.transactions() {
                let mut keep = |o: Output| {
                    if !matches!(o, Output::NewSnapshot) {
                        rows.push(o);
                    }
                    Ok::<(), exec::Error>(())
                };
                engine.run_in(tx, steps, &mut bindings, &mut keep)?;
            }
            Ok(rows)
        })
    }

    /// The bytes of the one key the query names, or `None` while its
    /// directory does not exist.
    fn single_key(&self, tx: &mut dyn Transaction) -> Result<Option<Vec<u8>>, Error> {
        with_plan(self.text, self.params, self.root, |plan, _| {
            let step = plan.transactions().flatten().next();
            let Some(Query::KeyValue(kv)) = step.map(|s| s.query()) else {
                return Ok(None);
            };
            match kv.key.place() {
                Place::Prefix(bytes) => return Ok(Some(encode(bytes, &kv.key.tuple.elems)?)),
                Place::Root => return Ok(Some(encode(&[], &kv.key.tuple.elems)?)),
                Place::Directory(_) => {}
            }
            let mut dir = kv.key.dir.clone();
            if self.root.resolve(&mut dir).is_err() {
                return Ok(None);
            }
            let names: Option<Vec<String>> = (dir.elems.iter())
                .map(|e| match e {
                    DirElem::Name { name, .. } => Some(name.to_string()),
                    _ => None,
                })
                .collect();
            let Some(prefix) = names.map(|n| self.prefix(tx, &n)).transpose()? else {
                return Ok(None);
            };
            match prefix {
                Some(p) => Ok(Some(encode(&p, &kv.key.tuple.elems)?)),
                None => Ok(None),
            }
        })
    }

    /// The bytes of a key-value's key; `None` for one that has none to
    /// watch (a partition's, an aggregate's).
    fn raw_key(&self, tx: &mut dyn Transaction, row: &Output) -> Result<Option<Vec<u8>>, Error> {
        let Output::KeyValue(Row {
            path, key, rest, ..
        }) = row
        else {
            return Ok(match row {
                Output::Raw(raw) => Some(raw.key.clone()),
                _ => None,
            });
        };
        let elems: Option<Vec<Elem<'static>>> = (key.iter())
            .map(|p| match p {
                Part::Data(kind) => Some(Elem {
                    kind: kind.clone(),
                    span: Span::default(),
                }),
                Part::Written(_) => None,
            })
            .collect();
        let (Some(elems), false) = (elems, *rest) else {
            return Ok(None);
        };
        let prefix = match (path.prefix(), path.names()) {
            (Some(bytes), _) => Some(bytes.to_vec()),
            (None, []) => Some(Vec::new()),
            (None, names) => self.prefix(tx, names)?,
        };
        match prefix {
            Some(prefix) => Ok(Some(encode(&prefix, &elems)?)),
            None => Ok(None),
        }
    }

    /// The prefix of the directory `names`, or `None` if it does not
    /// exist or is a partition.
    fn prefix(&self, tx: &mut dyn Transaction, names: &[String]) -> Result<Option<Vec<u8>>, Error> {
        let dir_error = |e: crate::directory::Error| Error::Exec(e.into());
        if !self.layer.exists(tx, names).map_err(dir_error)? {
            return Ok(None);
        }
        let dir = self.layer.open(tx, names, b"").map_err(dir_error)?;
        Ok(dir.prefix().ok().map(<[u8]>::to_vec))
    }
}

/// A key's bytes: the directory's prefix, then the tuple.
fn encode(prefix: &[u8], elems: &[Elem<'_>]) -> Result<Vec<u8>, Error> {
    let encoded = encode_key(prefix, elems).map_err(|e| Error::Exec(e.into()))?;
    Ok(encoded.bytes)
}

/// Arms a watch on `raw` if there is a key and room for one more watch.
/// A database with too many watches already gets none: the full reads
/// see that key's changes.
fn arm(
    tx: &mut dyn Transaction,
    raw: Option<&[u8]>,
    budget: &mut usize,
) -> Result<Option<Watch>, Error> {
    let Some(raw) = raw.filter(|_| *budget > 0) else {
        return Ok(None);
    };
    match tx.watch(raw) {
        Ok(w) => {
            *budget -= 1;
            Ok(Some(w))
        }
        Err(KvError::TooManyWatches { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// A key-value's key as FQL text: what names it in the watch's map, and
/// the key of the query that reads it alone again.
fn key_text(row: &Output) -> String {
    key_only(row.clone()).to_string()
}

/// The key without its value.
fn key_only(output: Output) -> Output {
    match output {
        Output::KeyValue(row) => Output::KeyValue(Row { value: None, ..row }),
        other => other,
    }
}

/// Plans `text` and hands the plan (and the script) to `f`.
fn with_plan<T>(
    text: &str,
    params: &Params,
    root: &Root,
    f: impl FnOnce(&Plan<'_>, &crate::syntax::ast::Script<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    let script = crate::check::load(text).map_err(|es| invalid(join(&es)))?;
    let plan = plan_in(&script, params, root).map_err(|es| invalid(join(&es)))?;
    f(&plan, &script)
}

fn join(errors: &[impl std::fmt::Display]) -> String {
    let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
    all.join("; ")
}

fn invalid(message: impl Into<String>) -> Error {
    Error::Invalid(message.into())
}
