//! Plans: what each statement of a checked script will do, decided before
//! anything runs.
//!
//! A plan splits the script into transactions at `@commit`, classifies each
//! statement (set, clear, clear over a range, single read, range read,
//! directory list, directory removal), resolves its query options, and
//! substitutes the parameters the caller supplied for the references nothing
//! in the script binds. What a plan reads and filters can be printed
//! ([`Plan`]'s `Display`, `fql explain`), so a user sees which key range a
//! query touches before running it.

mod explain;

use std::collections::HashMap;

use crate::kv::StreamingMode;
use crate::syntax::ast::*;

/// A checked script, ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan<'a> {
    /// Every statement, in order.
    pub steps: Vec<Step<'a>>,
    /// Where each transaction's statements end in `steps`; `@commit` ends
    /// one and begins the next.
    ends: Vec<usize>,
}

impl<'a> Step<'a> {
    /// The query, parameters substituted.
    pub fn query(&self) -> &Query<'a> {
        self.substituted.as_deref().unwrap_or(self.written)
    }
}

impl<'a> Plan<'a> {
    /// The transactions, in order, each its statements.
    pub fn transactions(&self) -> impl Iterator<Item = &[Step<'a>]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| &self.steps[start..end])
    }
}

/// One statement to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Step<'a> {
    /// Its position in the script, counting statements from 0.
    pub id: usize,
    /// What the statement does.
    pub kind: Kind,
    /// The query as written.
    written: &'a Query<'a>,
    /// The query with parameters substituted, when it references any.
    substituted: Option<Box<Query<'a>>>,
    /// Its resolved query options.
    pub options: ReadOptions,
    /// Where it was written.
    pub span: Span,
    /// The names its named variables bind.
    pub binds: Vec<String>,
    /// Whether a later statement uses those names: then its results feed
    /// that statement and are not printed.
    pub feeds: bool,
    /// The statement whose rows this one runs once per row of, when it
    /// references names bound by earlier statements.
    pub driver: Option<usize>,
}

/// Query options, resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Keys in descending order.
    pub reverse: bool,
    /// At most this many results, counted after filtering.
    pub limit: Option<usize>,
    /// A key-value that does not match is an error, not skipped.
    pub strict: bool,
    /// Reads add no read conflicts.
    pub snapshot: bool,
    /// FDB's streaming mode for range reads.
    pub mode: StreamingMode,
    /// `[absent]` or `[exists]`: the read prints nothing and stops the
    /// transaction unless it finds what the guard asks.
    pub guard: Option<Guard>,
    /// `[min:N]`: at least this many key-values must match.
    pub min: Option<usize>,
    /// `[max:N]`: at most this many key-values may match.
    pub max: Option<usize>,
    /// `[system]`: raw keys may lie in the system keyspace, from `0xff`
    /// on, as FDB's `read_system_keys` and `access_system_keys` allow.
    pub system: bool,
    /// `[prefix]`: a directory listing shows each directory's key prefix,
    /// as the raw range that holds its keys.
    pub prefix: bool,
}

/// A read that checks the database instead of printing it: the smallest
/// addition that lets one transaction act only if a key is there, or is
/// not (a lock taken only when nobody holds it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// `[absent]`: no key-value may match.
    Absent,
    /// `[exists]`: at least one key-value must match.
    Exists,
}

/// Errors found while planning.
#[derive(Clone, Debug, PartialEq, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum Error {
    /// A reference to a name that nothing binds and no parameter supplies.
    #[error("`:{name}` is not bound")]
    #[diagnostic(
        code(fql::unbound),
        help(
            "supply it as a parameter (`-p {name}=...`), or bind it with a named variable `<{name}:type>` in an earlier statement"
        )
    )]
    Unbound {
        /// The name.
        name: String,
        /// The reference.
        #[label("nothing binds this name")]
        at: Span,
    },
    /// A statement that references names bound by two statements that do
    /// not run one per row of the other, so no row holds both.
    #[error("`:{name}` and `:{other}` are bound by unrelated statements")]
    #[diagnostic(
        code(fql::unrelated_names),
        help(
            "a statement runs once per row of one earlier statement; bind both names there, or make the statement that binds `:{other}` reference `:{name}`"
        )
    )]
    Unrelated {
        /// A name from the driving statement's rows.
        name: String,
        /// The name those rows lack.
        other: String,
        /// The reference to `other`.
        #[label("no row of the statement binding `:{name}` holds this")]
        at: Span,
    },
    /// A reference whose cast can never hold for what the name binds:
    /// `<id:int>` then `:id!str`.
    #[error("`:{name}` is bound to {bound}, so it is never {cast}")]
    #[diagnostic(code(fql::type_conflict))]
    TypeConflict {
        /// The name.
        name: String,
        /// The types the binding variable allows.
        bound: String,
        /// The cast.
        cast: String,
        /// The cast.
        #[label("never true")]
        at: Span,
    },
}

impl Error {
    /// Where the error points.
    pub fn span(&self) -> Span {
        match self {
            Error::Unbound { at, .. }
            | Error::Unrelated { at, .. }
            | Error::TypeConflict { at, .. } => *at,
        }
    }
}

/// Plans a script that passed [`check`](fn@crate::check::check), with
/// `params` for its unbound references. The plan borrows the script's
/// statements and copies only those that take parameters, so a script of a
/// million writes is held once.
pub fn plan<'a>(
    script: &'a Script<'a>,
    params: &HashMap<String, Elem<'static>>,
) -> Result<Plan<'a>, Vec<Error>> {
    Planner::new(params).plan(script)
}

/// Plans a script piece by piece, each piece whole transactions of it (the
/// text up to and including an `@commit`), so that a script too large to
/// hold is planned in the memory of its largest transaction.
///
/// The planner carries from piece to piece what later statements need of
/// earlier ones: which statement last bound each name, with its types, and
/// the names its rows hold. Statements are numbered through the whole
/// script. Whether a statement feeds a later one is known only once the
/// later one is planned: a first pass over the script gathers
/// [`Planner::feeders`], and a second planner, given them with
/// [`Planner::with_feeders`], plans each piece again as it runs. A single
/// piece holding the whole script needs no first pass.
#[derive(Debug)]
pub struct Planner<'p> {
    params: &'p HashMap<String, Elem<'static>>,
    /// The number of the next statement.
    next: usize,
    /// For each name, the statement that bound it last and its types.
    bound: HashMap<String, (usize, Vec<Type>)>,
    /// Each statement that some name is still bound by; one no name
    /// points at any more is dropped.
    live: HashMap<usize, Live>,
    /// The statements found so far to drive a later one.
    drivers: Statements,
    /// The statements that feed a later one, from a first pass.
    known: Option<Statements>,
    /// Statements whose rows no later statement can use any more.
    retired: Vec<usize>,
    /// Where the last `@commit` ended a transaction, in statements, and
    /// how many have ended so far, to count transactions as [`Plan`] does.
    last_end: Option<usize>,
    ended: usize,
}

impl<'p> Planner<'p> {
    /// A planner at the start of a script.
    pub fn new(params: &'p HashMap<String, Elem<'static>>) -> Planner<'p> {
        Planner {
            params,
            next: 0,
            bound: HashMap::new(),
            live: HashMap::new(),
            drivers: Statements::default(),
            known: None,
            retired: Vec::new(),
            last_end: None,
            ended: 0,
        }
    }

    /// Marks the statements that feed later ones as a first pass over the
    /// same script found them.
    pub fn with_feeders(mut self, feeders: Statements) -> Planner<'p> {
        self.known = Some(feeders);
        self
    }

    /// The statements that feed a later one, among those planned so far.
    pub fn feeders(&self) -> &Statements {
        &self.drivers
    }

    /// How many statements have been planned.
    pub fn statements(&self) -> usize {
        self.next
    }

    /// How many transactions the pieces planned so far make, counted as
    /// the plan of their whole text counts them.
    pub fn transactions(&self) -> usize {
        let open = self.last_end != Some(self.next) || self.ended == 0;
        self.ended + usize::from(open)
    }

    /// The statements whose rows no statement planned from now on can
    /// use, because every name they bound is bound again by a later one;
    /// taken once each. Statements of the pieces already planned may still
    /// use them.
    pub fn take_retired(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.retired)
    }

    /// Plans the next piece of the script. Its steps are numbered on from
    /// the pieces before; its transactions are its own.
    pub fn plan<'a>(&mut self, script: &'a Script<'a>) -> Result<Plan<'a>, Vec<Error>> {
        let first = self.next;
        let mut steps = Vec::with_capacity(script.items.len());
        let mut ends = Vec::new();
        let mut errors = Vec::new();
        for item in &script.items {
            match item {
                Item::Meta(m) if m.kind == MetaKind::Commit => {
                    ends.push(steps.len());
                    if self.last_end != Some(self.next) {
                        self.ended += 1;
                        self.last_end = Some(self.next);
                    }
                }
                Item::Meta(_) => {}
                Item::Statement(stmt) => {
                    steps.push(self.step(stmt, &mut errors));
                }
            }
        }
        // The last transaction, unless `@commit` just ended it; an empty
        // piece is one empty transaction.
        if ends.last() != Some(&steps.len()) || ends.is_empty() {
            ends.push(steps.len());
        }
        ends.dedup();
        // A statement feeds a later one when that one runs per its rows.
        let feeders = self.known.as_ref().unwrap_or(&self.drivers);
        for step in &mut steps {
            step.feeds = feeders.contains(step.id);
            // A guard that feeds nothing needs one key-value at most.
            if step.options.guard.is_some() && !step.feeds {
                step.options.limit = Some(1);
            }
        }
        debug_assert!(steps.first().is_none_or(|s| s.id == first));
        if errors.is_empty() {
            Ok(Plan { steps, ends })
        } else {
            Err(errors)
        }
    }

    /// Plans one statement, the next of the script.
    fn step<'a>(&mut self, stmt: &'a Statement<'a>, errors: &mut Vec<Error>) -> Step<'a> {
        let id = self.next;
        self.next += 1;
        let binds = names_bound(&stmt.query);
        let (substituted, refs) = if has_refs(&stmt.query) {
            let mut query = stmt.query.clone();
            let refs = substitute(&mut query, self.params, &self.bound, errors);
            (Some(Box::new(query)), refs)
        } else {
            (None, Vec::new())
        };
        let driver = driver(&refs, &self.bound, &self.live, errors);
        if let Some(d) = driver {
            self.drivers.insert(d);
        }
        if !binds.is_empty() {
            let mut names = driver
                .and_then(|d| self.live.get(&d))
                .map(|d| d.names.clone())
                .unwrap_or_default();
            names.extend(binds.iter().map(|(n, _)| n.clone()));
            let bound = binds.len();
            self.live.insert(id, Live { names, bound });
            for (name, types) in &binds {
                if let Some((old, _)) = self.bound.insert(name.clone(), (id, types.clone())) {
                    self.retire(old);
                }
            }
        }
        Step {
            id,
            kind: stmt.kind(),
            written: &stmt.query,
            substituted,
            options: read_options(&stmt.options),
            span: stmt.span,
            binds: binds.into_iter().map(|(n, _)| n).collect(),
            feeds: false,
            driver,
        }
    }

    /// Notes that a name statement `id` bound is bound again by a later
    /// one, and forgets the statement once none of its names is bound by
    /// it any more.
    fn retire(&mut self, id: usize) {
        let Some(live) = self.live.get_mut(&id) else {
            return;
        };
        live.bound -= 1;
        if live.bound == 0 {
            self.live.remove(&id);
            self.retired.push(id);
        }
    }
}

/// A statement some name is still bound by.
#[derive(Debug)]
struct Live {
    /// Every name its rows hold: those of its driver's rows, then its own.
    names: Vec<String>,
    /// How many of its own names are still bound by it, not by a later
    /// statement.
    bound: usize,
}

/// A set of statements, by number: one bit each, so that the statements
/// of a script of millions that feed later ones cost kilobytes to note.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Statements(Vec<u64>);

impl Statements {
    /// Adds statement `id`.
    pub fn insert(&mut self, id: usize) {
        let (word, bit) = (id / 64, id % 64);
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << bit;
    }

    /// Whether statement `id` is in the set.
    pub fn contains(&self, id: usize) -> bool {
        self.0
            .get(id / 64)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }
}

/// The statement a statement with join references runs once per row of:
/// the latest that binds one of the names, whose rows must hold them all.
fn driver(
    refs: &[(String, Span)],
    bound: &HashMap<String, (usize, Vec<Type>)>,
    live: &HashMap<usize, Live>,
    errors: &mut Vec<Error>,
) -> Option<usize> {
    let (first, _) = refs.iter().max_by_key(|(n, _)| bound[n].0)?;
    let driver = bound[first].0;
    let names = live.get(&driver).map_or(&[][..], |d| d.names.as_slice());
    for (name, at) in refs {
        if !names.contains(name) {
            errors.push(Error::Unrelated {
                name: first.clone(),
                other: name.clone(),
                at: *at,
            });
        }
    }
    Some(driver)
}

fn read_options(opts: &Options<'_>) -> ReadOptions {
    let mut out = ReadOptions::default();
    for opt in &opts.items {
        match (opt.name, opt.arg.as_ref().map(|a| &a.kind)) {
            (OptName::Reverse, _) => out.reverse = true,
            (OptName::Strict, _) => out.strict = true,
            (OptName::Snapshot, _) => out.snapshot = true,
            (OptName::System, _) => out.system = true,
            (OptName::Prefix, _) => out.prefix = true,
            (OptName::Absent, _) => out.guard = Some(Guard::Absent),
            (OptName::Exists, _) => out.guard = Some(Guard::Exists),
            (OptName::Min, Some(OptArgKind::Int(Int::Small(n)))) => {
                out.min = usize::try_from(*n).ok();
            }
            (OptName::Max, Some(OptArgKind::Int(Int::Small(n)))) => {
                out.max = usize::try_from(*n).ok();
            }
            (OptName::Limit, Some(OptArgKind::Int(Int::Small(n)))) => {
                out.limit = usize::try_from(*n).ok();
            }
            (OptName::Mode, Some(OptArgKind::Name(m))) => {
                out.mode = match *m {
                    "want_all" => StreamingMode::WantAll,
                    "exact" => StreamingMode::Exact,
                    "small" => StreamingMode::Small,
                    "medium" => StreamingMode::Medium,
                    "large" => StreamingMode::Large,
                    "serial" => StreamingMode::Serial,
                    _ => StreamingMode::Iterator,
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a query holds a reference anywhere.
fn has_refs(query: &Query<'_>) -> bool {
    let mut found = query
        .dir()
        .is_some_and(|d| d.elems.iter().any(|e| matches!(e, DirElem::Ref(_))));
    // Only a reference or a tuple holds a reference: the others need no
    // walk, and a script of a million writes is planned at once.
    for e in query.elems() {
        if matches!(e.kind, ElemKind::Ref(_) | ElemKind::Tuple(_)) {
            e.walk(&mut |e| found |= matches!(e.kind, ElemKind::Ref(_)));
        }
    }
    found
}

/// The names a statement's named variables bind, with their types.
fn names_bound(query: &Query<'_>) -> Vec<(String, Vec<Type>)> {
    let mut out: Vec<(String, Vec<Type>)> = Vec::new();
    let mut var = |v: &Variable<'_>| {
        if let Some(name) = v.name
            && !out.iter().any(|(n, _)| n == name)
        {
            out.push((name.to_string(), v.types.iter().map(|t| t.ty).collect()));
        }
    };
    for e in query.dir().into_iter().flat_map(|d| &d.elems) {
        if let DirElem::Var(v) = e {
            var(v);
        }
    }
    for e in query.elems() {
        if matches!(e.kind, ElemKind::Var(_) | ElemKind::Tuple(_)) {
            e.walk(&mut |e| {
                if let ElemKind::Var(v) = &e.kind {
                    var(v)
                }
            });
        }
    }
    out
}

/// Replaces references by parameters; returns the references left for
/// names that earlier statements bind, which are filled row by row.
fn substitute<'a>(
    query: &mut Query<'a>,
    params: &HashMap<String, Elem<'static>>,
    bound: &HashMap<String, (usize, Vec<Type>)>,
    errors: &mut Vec<Error>,
) -> Vec<(String, Span)> {
    let mut joins = Vec::new();
    let mut resolve = |r: &Reference<'_>| -> Option<ElemKind<'a>> {
        let name = r.name.name;
        if let Some((_, types)) = bound.get(name) {
            if let Some(cast) = &r.cast
                && !types.is_empty()
                && !types.iter().any(|t| *t == cast.ty || *t == Type::Any)
            {
                let bound = types.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>();
                errors.push(Error::TypeConflict {
                    name: name.into(),
                    bound: bound.join(" or "),
                    cast: format!("`{}`", cast.ty),
                    at: cast.span,
                });
            }
            joins.push((name.to_string(), r.span));
            return None;
        }
        if let Some(p) = params.get(name) {
            return Some(p.kind.clone());
        }
        errors.push(Error::Unbound {
            name: name.into(),
            at: r.span,
        });
        None
    };
    replace_refs(query, &mut resolve);
    joins
}

/// Replaces each reference for which `resolve` gives a value.
fn replace_refs<'a>(
    query: &mut Query<'a>,
    resolve: &mut impl FnMut(&Reference<'_>) -> Option<ElemKind<'a>>,
) {
    if let Some(dir) = query.dir_mut()
        && dir.elems.iter().any(|e| matches!(e, DirElem::Ref(_)))
    {
        let mut elems = DirElems::new();
        for e in std::mem::take(&mut dir.elems) {
            let DirElem::Ref(r) = e else {
                elems.push(e);
                continue;
            };
            match resolve(&r) {
                None => elems.push(DirElem::Ref(r)),
                Some(value) => crate::directory::push_value(&mut elems, value, r.span),
            }
        }
        dir.elems = elems;
    }
    for e in query.elems_mut() {
        substitute_elem(e, resolve);
    }
}

fn substitute_elem<'a>(
    e: &mut Elem<'a>,
    resolve: &mut impl FnMut(&Reference<'_>) -> Option<ElemKind<'a>>,
) {
    match &mut e.kind {
        ElemKind::Ref(r) => {
            if let Some(kind) = resolve(r) {
                e.kind = kind;
            }
        }
        ElemKind::Tuple(t) => {
            for inner in t.elems.iter_mut() {
                substitute_elem(inner, resolve);
            }
        }
        _ => {}
    }
}

/// The keys a raw key stands for, as a range: `[begin, end)`. A prefix
/// ends at the first key after every key that starts with it; a prefix
/// of `0xff` bytes only has none, and its range ends where the next
/// keyspace starts, one `0xff` further: `0xff...` is the system keyspace,
/// up to the special keys at `0xffff`, and `0x...` every key below the
/// system's.
pub fn raw_bounds(key: &RawKeyKind) -> (Vec<u8>, Vec<u8>) {
    match key {
        RawKeyKind::Key(k) => (k.clone(), crate::kv::key_after(k)),
        RawKeyKind::Prefix(p) if !p.is_empty() && p.iter().all(|&b| b == 0xff) => {
            (p.clone(), [&p[..], &[0xff]].concat())
        }
        RawKeyKind::Prefix(p) => (p.clone(), crate::kv::strinc(p)),
        RawKeyKind::Range(begin, end) => (begin.clone(), end.clone()),
    }
}

/// A parameter's value from text, as `-p name=value` gives it: an FQL
/// data element (`42`, `"ann"`, `0xff`, `(1,2)`) when the text is one,
/// else the text itself as a string, so `-p name=ann` needs no quotes.
pub fn parse_param(text: &str) -> Elem<'static> {
    let as_str = || Elem {
        kind: ElemKind::Str(text.to_string().into()),
        span: Span::default(),
    };
    let src = format!("/p({text})");
    let Ok(script) = crate::syntax::parse(&src) else {
        return as_str();
    };
    let [
        Item::Statement(Statement {
            query: Query::KeyValue(kv),
            ..
        }),
    ] = script.items.as_slice()
    else {
        return as_str();
    };
    if kv.key.tuple.elems.len() != 1 || kv.key.tuple.rest.is_some() {
        return as_str();
    }
    // Through the tuple encoding and back: data keeps its value exactly
    // and no longer borrows the text.
    match crate::codec::encode_key(&[], &kv.key.tuple.elems) {
        Ok(key) if key.op == crate::codec::Op::Set => crate::codec::decode_key(&[], &key.bytes)
            .and_then(|mut elems| elems.pop())
            .unwrap_or_else(as_str),
        _ => as_str(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What running needs of each step: its number, kind, driver, whether
    /// it feeds, and its query.
    fn shape(plan: &Plan<'_>) -> Vec<(usize, Kind, Option<usize>, bool, String)> {
        plan.steps
            .iter()
            .map(|s| (s.id, s.kind, s.driver, s.feeds, s.query().to_string()))
            .collect()
    }

    /// A script planned a piece at a time, with the feeders a first pass
    /// found, is planned as it is whole: the same steps, the same
    /// transactions, the same errors; and rows are retired once no later
    /// statement can use them.
    #[test]
    fn pieces_plan_as_the_whole() {
        let params = [("p".to_string(), parse_param("7"))].into();
        let text = "/a(<x:int>)\n@commit\n/b(:x,<y:str>)\n/c(:p)=1\n@commit\n@commit\n\
                    /d(:y)\n/a(<x:int>)\n@commit\n[exists] /e(:x)\n/f(<z:int>)";
        let script = crate::check::load(text).unwrap();
        let whole = plan(&script, &params).unwrap();
        let pieces: Vec<String> = crate::syntax::split::pieces(text.as_bytes())
            .map(|piece| String::from_utf8(piece.unwrap()).unwrap())
            .collect();
        let parsed: Vec<Script<'_>> = pieces
            .iter()
            .map(|p| crate::check::load(p).unwrap())
            .collect();
        let mut first = Planner::new(&params);
        for p in &parsed {
            first.plan(p).unwrap();
        }
        assert_eq!(first.transactions(), whole.transactions().count());
        assert_eq!(first.statements(), whole.steps.len());
        let mut second = Planner::new(&params).with_feeders(first.feeders().clone());
        let mut steps = Vec::new();
        let mut retired = Vec::new();
        for p in &parsed {
            steps.extend(shape(&second.plan(p).unwrap()));
            retired.push(second.take_retired());
        }
        assert_eq!(steps, shape(&whole));
        // The second `/a` binds `x` again: the first one's rows are of no
        // further use.
        assert_eq!(retired, [vec![], vec![], vec![], vec![0], vec![]]);
        assert!(whole.steps[4].feeds);
        assert_eq!(whole.steps[5].options.limit, Some(1), "a guard reads one");
        // Errors are those of the whole, piece by piece.
        let text = "/a(<x:int>)\n@commit\n/b(:x,:nothing)\n@commit\n/c(:y)";
        let script = crate::check::load(text).unwrap();
        let whole = plan(&script, &params).unwrap_err();
        let mut planner = Planner::new(&params);
        let errors: Vec<Error> = crate::syntax::split::pieces(text.as_bytes())
            .flat_map(|piece| {
                let piece = String::from_utf8(piece.unwrap()).unwrap();
                let piece = crate::check::load(&piece).unwrap();
                planner.plan(&piece).err().unwrap_or_default()
            })
            .collect();
        let names = |errors: &[Error]| errors.iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(names(&errors), names(&whole));
    }

    /// A statement's rows are retired once every name it bound is bound
    /// again, not before, and once only.
    #[test]
    fn rows_retire_when_their_last_name_is_bound_again() {
        let params = HashMap::new();
        let retired = |text: &str| {
            let script = crate::check::load(text).unwrap();
            let mut planner = Planner::new(&params);
            planner.plan(&script).unwrap();
            planner.take_retired()
        };
        assert_eq!(
            retired("/a(<x:int>,<y:int>)\n/b(<x:int>)"),
            [] as [usize; 0]
        );
        assert_eq!(
            retired("/a(<x:int>,<y:int>)\n/b(<x:int>)\n/c(<y:int>)"),
            [0]
        );
        assert_eq!(
            retired("/a(<x:int>,<y:int>)\n/b(<x:int>,<y:int>)\n/c(<x:int>)\n/d(<y:int>)"),
            [0, 1]
        );
        assert_eq!(retired("/a(<x:int>)\n/b(<x:int>)\n/c(<x:int>)"), [0, 1]);
    }

    /// The set of statements that feed: one bit each.
    #[test]
    fn statements_are_a_set() {
        let mut set = Statements::default();
        for id in [0, 63, 64, 1000] {
            set.insert(id);
        }
        let found: Vec<usize> = (0..1100).filter(|&id| set.contains(id)).collect();
        assert_eq!(found, [0, 63, 64, 1000]);
        assert!(!Statements::default().contains(5));
    }
}
