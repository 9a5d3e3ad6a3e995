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
mod param;
mod root;

pub use param::{Param, ParamError, Params};
pub use root::{Root, RootError};

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
    /// Whether every key-value a range read reads is a result, nothing
    /// filtered on the client, so that the limit can go to the database
    /// with the read: FDB's `exact` mode needs it there.
    pub read_limit: bool,
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
    /// A relative path with more `..` than its root has directories
    /// above it. Never clamped at `/`: a script meant for a deeper root
    /// would otherwise touch other data.
    #[error("the path climbs above `/`: its root `{root}` is {depth} deep")]
    #[diagnostic(
        code(fql::above_root),
        help(
            "`./` and `../` start at the root (`--root DIR`, or `\\cd` in the shell); use fewer `..`, a deeper root, or an absolute path"
        )
    )]
    AboveRoot {
        /// The root, as FQL writes it.
        root: String,
        /// How many directories deep it is.
        depth: usize,
        /// The first `..` with nowhere to go.
        #[label("nothing is above `/`")]
        at: Span,
    },
    /// A relative path that comes to `/` itself where a directory is
    /// needed: `.` or `..(1)=2` with the root at `/`.
    #[error("the path names `/`, the top of the directory layer, which is not a directory")]
    #[diagnostic(
        code(fql::top_path),
        help(
            "name a directory under it, as in `./users`; `./<>` lists the directories at the top; or give a deeper root with `--root DIR`; a key at the top, outside every directory, is written absolute, as in `/(1)`"
        )
    )]
    TopPath {
        /// The path.
        #[label("this is `/`")]
        at: Span,
    },
    /// A reference to a name that nothing binds and no parameter supplies.
    #[error("`:{name}` is not bound")]
    #[diagnostic(
        code(fql::unbound),
        help(
            "supply it as a parameter ({}), or bind it with a named variable `<{name}:type>` in an earlier statement{}",
            supply.example(name),
            supply.same_entry()
        )
    )]
    Unbound {
        /// The name.
        name: String,
        /// The reference.
        #[label("nothing binds this name")]
        at: Span,
        /// How the front end takes a parameter.
        supply: Supply,
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
    /// A parameter whose value a reference's cast does not allow:
    /// `-p id=ann` then `/c(:id!int)`.
    #[error("`:{name}` holds {value}, not `{cast}`")]
    #[diagnostic(
        code(fql::cast_failed),
        help(
            "a cast requires the bound value to have its type; pass a value of type `{cast}` with {}",
            supply.example(name)
        )
    )]
    CastFailed {
        /// The name.
        name: String,
        /// What it holds: its type, and the value when short.
        value: String,
        /// The type the cast requires.
        cast: Type,
        /// The cast.
        #[label("requires `{cast}`")]
        at: Span,
        /// How the front end takes a parameter.
        supply: Supply,
    },
    /// A reference to a name that only a non-aggregate variable of an
    /// aggregate read names: `/b(<n:int>,<sum>)` then `/c(:n)`. Such a
    /// read gives one result for all its rows, so the variable takes no
    /// single value.
    #[error("`:{name}` is named in an aggregate read, which binds only its aggregates")]
    #[diagnostic(
        code(fql::folded_name),
        help(
            "an aggregate read folds all its rows into one result, so `<{name}:...>` there takes no one value; reference the aggregate's own name (`<total:sum>` then `:total`), or bind `{name}` in a read without aggregates"
        )
    )]
    Folded {
        /// The name.
        name: String,
        /// The reference.
        #[label("not bound")]
        at: Span,
        /// The variable in the aggregate read.
        #[label("named here, in a read that folds its rows")]
        named: Span,
    },

    /// A parameter written as a directory path (`-p dir=/locks/s`)
    /// where data stands: `/x(:dir)`. A path is a directory only in a
    /// path; stored as a key's element it would be some spelling of it.
    #[error("`:{name}` holds the directory path `{path}`, but stands here for data")]
    #[diagnostic(
        code(fql::path_as_data),
        help(
            "a path parameter may start a directory path, as in `/:{name}(...)`; for data, pass a string (`-p {name}:str={path}`) or a tuple of names (`-p '{name}=(\"a\",\"b\")'`)"
        )
    )]
    PathAsData {
        /// The name.
        name: String,
        /// The path, as FQL writes it.
        path: String,
        /// The reference.
        #[label("data goes here, not a directory")]
        at: Span,
    },
    /// A parameter written as a directory path, absolute, that does not
    /// start its path: `/app/:dir` or `./:dir`. Splicing `/locks/s` under
    /// `/app` would read a directory the path never named.
    #[error(
        "`:{name}` holds the absolute path `{path}`, so it must come first in an absolute path"
    )]
    #[diagnostic(
        code(fql::path_not_first),
        help(
            "write `/:{name}/...` so the path starts with it; to put names under another directory, pass them as a tuple: `-p '{name}=(\"a\",\"b\")'`"
        )
    )]
    PathNotFirst {
        /// The name.
        name: String,
        /// The path, as FQL writes it.
        path: String,
        /// The reference.
        #[label("a whole path cannot go here")]
        at: Span,
    },
}

/// How the front end running a script takes a parameter's value, for
/// the help of the errors that ask for one: a command line has `-p`, the
/// interactive shell `\set`, and the help names what the user can type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Supply {
    /// `-p NAME=VALUE` on the command line.
    #[default]
    Flag,
    /// `\set NAME VALUE` in the shell, where an entry of several lines
    /// is one script.
    Shell,
}

impl Supply {
    /// How to give `name` a value, as the user types it.
    pub fn example(self, name: &str) -> String {
        match self {
            Supply::Flag => format!("`-p {name}=...`"),
            Supply::Shell => format!("`\\set {name} VALUE`"),
        }
    }

    /// Where the earlier statement may stand, when that needs saying:
    /// in the shell, names carry only within one entry.
    fn same_entry(self) -> &'static str {
        match self {
            Supply::Flag => "",
            Supply::Shell => " of the same entry (Alt-Enter starts a new line of it)",
        }
    }
}

impl Error {
    /// Where the error points.
    pub fn span(&self) -> Span {
        match self {
            Error::AboveRoot { at, .. } | Error::TopPath { at } => *at,
            Error::Unbound { at, .. }
            | Error::Unrelated { at, .. }
            | Error::TypeConflict { at, .. }
            | Error::CastFailed { at, .. }
            | Error::Folded { at, .. }
            | Error::PathAsData { at, .. }
            | Error::PathNotFirst { at, .. } => *at,
        }
    }
}

/// Whether a value has the type a cast names.
pub fn cast_holds(value: &ElemKind<'_>, ty: Type) -> bool {
    crate::codec::type_of(value).is_some_and(|found| ty.includes(found))
}

/// A value as an error names it: its text when short, and its type.
pub fn describe(value: &ElemKind<'_>) -> String {
    let ty = crate::codec::type_of(value).map_or("?", Type::name);
    let text = value.to_string();
    if text.chars().count() <= 40 {
        format!("`{text}` of type `{ty}`")
    } else {
        format!("a `{ty}` value")
    }
}

/// Plans a script that passed [`check`](fn@crate::check::check), with
/// `params` for its unbound references. The plan borrows the script's
/// statements and copies only those that take parameters, so a script of a
/// million writes is held once.
pub fn plan<'a>(script: &'a Script<'a>, params: &Params) -> Result<Plan<'a>, Vec<Error>> {
    Planner::new(params).plan(script)
}

/// [`plan`], with the script's relative paths (`./users`) under `root`
/// rather than under `/`.
pub fn plan_in<'a>(
    script: &'a Script<'a>,
    params: &Params,
    root: &Root,
) -> Result<Plan<'a>, Vec<Error>> {
    Planner::new(params).with_root(root.clone()).plan(script)
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
    params: &'p Params,
    /// The number of the next statement.
    next: usize,
    /// For each name, the statement that bound it last and its types.
    bound: HashMap<String, (usize, Vec<Type>)>,
    /// Names that only a non-aggregate variable of an aggregate read
    /// named, with where: they bind nothing.
    folded: HashMap<String, Span>,
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
    /// Where relative paths start.
    root: Root,
    /// The names references take from parameters, in order of first use.
    wanted: Vec<String>,
    /// How a missing parameter is supplied, for the errors' help.
    supply: Supply,
}

impl<'p> Planner<'p> {
    /// A planner at the start of a script.
    pub fn new(params: &'p Params) -> Planner<'p> {
        Planner {
            params,
            next: 0,
            bound: HashMap::new(),
            folded: HashMap::new(),
            live: HashMap::new(),
            drivers: Statements::default(),
            known: None,
            retired: Vec::new(),
            last_end: None,
            ended: 0,
            root: Root::default(),
            wanted: Vec::new(),
            supply: Supply::default(),
        }
    }

    /// Has the errors that ask for a parameter say how `supply` gives one.
    pub fn with_supply(mut self, supply: Supply) -> Planner<'p> {
        self.supply = supply;
        self
    }

    /// Puts relative paths under `root` instead of `/`.
    pub fn with_root(mut self, root: Root) -> Planner<'p> {
        self.root = root;
        self
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

    /// The parameters references may take.
    pub fn params(&self) -> &'p Params {
        self.params
    }

    /// The names the script's references take from parameters, supplied
    /// or not, in order of first use, among the statements planned so
    /// far: a parameter supplied and not among them is one no statement
    /// uses, most likely a typo.
    pub fn wanted(&self) -> &[String] {
        &self.wanted
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
        let (binds, folded) = names_bound(&stmt.query);
        let (substituted, refs) = if has_refs(&stmt.query) {
            let mut query = stmt.query.clone();
            let known = Known {
                supply: self.supply,
                params: self.params,
                bound: &self.bound,
                folded: &self.folded,
            };
            let refs = substitute(&mut query, known, &mut self.wanted, errors);
            (Some(Box::new(query)), refs)
        } else {
            (None, Vec::new())
        };
        let substituted = self.resolved(&stmt.query, substituted, errors);
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
                self.folded.remove(name);
                if let Some((old, _)) = self.bound.insert(name.clone(), (id, types.clone())) {
                    self.retire(old);
                }
            }
        }
        self.folded.extend(folded);
        let mut options = read_options(&stmt.options);
        // Only a limit can go down with the read: statements without one
        // (every write) skip the walk of their pattern.
        options.read_limit = match &stmt.query {
            Query::KeyValue(kv) if options.limit.is_some() => {
                crate::check::client_filter(kv).is_none()
            }
            _ => false,
        };
        Step {
            id,
            kind: stmt.kind(),
            written: &stmt.query,
            substituted,
            options,
            span: stmt.span,
            binds: binds.into_iter().map(|(n, _)| n).collect(),
            feeds: false,
            driver,
        }
    }

    /// `query`, or its copy `substituted`, with a relative path put
    /// under the root; a query with an absolute path is not copied.
    fn resolved<'a>(
        &self,
        query: &Query<'a>,
        substituted: Option<Box<Query<'a>>>,
        errors: &mut Vec<Error>,
    ) -> Option<Box<Query<'a>>> {
        if query.dir().is_none_or(|d| d.relative.is_none()) {
            return substituted;
        }
        let mut query = substituted.unwrap_or_else(|| Box::new(query.clone()));
        if let Some(dir) = query.dir_mut()
            && let Err(e) = self.root.resolve(dir)
        {
            errors.push(e);
        }
        Some(query)
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

/// The names a statement's named variables bind, with their types, and
/// the names it leaves unbound with where they stand. An aggregate read
/// binds the names of its directory and of its aggregates, each to the
/// type of its result: its other variables take no one value.
fn names_bound(query: &Query<'_>) -> (Names, Vec<(String, Span)>) {
    let folds = aggregates(query);
    let mut out: Names = Vec::new();
    let mut folded = Vec::new();
    let mut var = |v: &Variable<'_>, in_dir: bool| {
        let Some(name) = v.name else { return };
        if folds && !in_dir && !v.types.iter().any(|t| t.ty.is_agg()) {
            folded.push((name.to_string(), v.span));
        } else if !out.iter().any(|(n, _)| n == name) {
            let types = v.types.iter().flat_map(|t| result_types(t.ty));
            out.push((name.to_string(), types.copied().collect()));
        }
    };
    for e in query.dir().into_iter().flat_map(|d| &d.elems) {
        if let DirElem::Var(v) = e {
            var(v, true);
        }
    }
    for e in query.elems() {
        if matches!(e.kind, ElemKind::Var(_) | ElemKind::Tuple(_)) {
            e.walk(&mut |e| {
                if let ElemKind::Var(v) = &e.kind {
                    var(v, false)
                }
            });
        }
    }
    folded.retain(|(n, _)| !out.iter().any(|(m, _)| m == n));
    (out, folded)
}

/// Names, each with the types of what it binds.
type Names = Vec<(String, Vec<Type>)>;

/// Whether a query folds its rows: an aggregate in its key or value.
fn aggregates(query: &Query<'_>) -> bool {
    let agg =
        |e: &Elem<'_>| matches!(&e.kind, ElemKind::Var(v) if v.types.iter().any(|t| t.ty.is_agg()));
    match query {
        Query::KeyValue(kv) => {
            kv.key.tuple.elems.iter().any(agg) || matches!(&kv.value, Value::Data(e, _) if agg(e))
        }
        _ => false,
    }
}

/// The types a variable of type `ty` binds: an aggregate's are those of
/// its result.
fn result_types(ty: Type) -> &'static [Type] {
    match ty {
        Type::Agg(Agg::Count) => &[Type::Int],
        Type::Agg(Agg::Sum | Agg::Min | Agg::Max) => &[Type::Int, Type::Num],
        Type::Agg(Agg::Avg) => &[Type::Num],
        Type::Agg(Agg::Append) => &[Type::Str, Type::Bytes],
        Type::Any => &[Type::Any],
        Type::Nil => &[Type::Nil],
        Type::Bool => &[Type::Bool],
        Type::Int => &[Type::Int],
        Type::Num => &[Type::Num],
        Type::Str => &[Type::Str],
        Type::Bytes => &[Type::Bytes],
        Type::Uuid => &[Type::Uuid],
        Type::Vstamp => &[Type::Vstamp],
        Type::Tuple => &[Type::Tuple],
        Type::F32 => &[Type::F32],
        Type::Vstamp80 => &[Type::Vstamp80],
        Type::User => &[Type::User],
    }
}

/// What a reference may name: parameters, names earlier statements bind,
/// and names an aggregate read left unbound.
#[derive(Clone, Copy)]
struct Known<'k> {
    supply: Supply,
    params: &'k Params,
    bound: &'k HashMap<String, (usize, Vec<Type>)>,
    folded: &'k HashMap<String, Span>,
}

/// Where a reference stands, which decides what a parameter written as
/// a path may do there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// An element of a key or a value.
    Data,
    /// The first element of an absolute directory path.
    DirStart,
    /// Any other element of a directory path.
    DirAfter,
}

/// Replaces references by parameters, noting in `wanted` each name taken
/// from parameters; returns the references left for names that earlier
/// statements bind, which are filled row by row.
fn substitute<'a, 'k>(
    query: &mut Query<'a>,
    known: Known<'k>,
    wanted: &mut Vec<String>,
    errors: &mut Vec<Error>,
) -> Vec<(String, Span)> {
    let mut joins = Vec::new();
    let mut resolve = |r: &Reference<'_>, place: Place| -> Option<&'k Param> {
        let name = r.name.name;
        if let Some((_, types)) = known.bound.get(name) {
            check_join_cast(r, types, errors);
            joins.push((name.to_string(), r.span));
            return None;
        }
        if !wanted.iter().any(|w| w == name) {
            wanted.push(name.to_string());
        }
        if let Some(p) = known.params.get(name) {
            return param_at(r, p, place, known.supply, errors);
        }
        match known.folded.get(name) {
            Some(named) => errors.push(Error::Folded {
                name: name.into(),
                at: r.span,
                named: *named,
            }),
            None => errors.push(Error::Unbound {
                name: name.into(),
                at: r.span,
                supply: known.supply,
            }),
        }
        None
    };
    replace_refs(query, &mut resolve);
    joins
}

/// A cast on a join reference that can never hold for what the name binds.
fn check_join_cast(r: &Reference<'_>, types: &[Type], errors: &mut Vec<Error>) {
    if let Some(cast) = &r.cast
        && !types.is_empty()
        && !types
            .iter()
            .any(|t| cast.ty.includes(*t) || t.includes(cast.ty))
    {
        let bound = types.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>();
        errors.push(Error::TypeConflict {
            name: r.name.name.into(),
            bound: bound.join(" or "),
            cast: format!("`{}`", cast.ty),
            at: cast.span,
        });
    }
}

/// Parameter `p` for reference `r` standing at `place`: its cast must
/// hold, and a path may only start a directory path.
fn param_at<'k>(
    r: &Reference<'_>,
    p: &'k Param,
    place: Place,
    supply: Supply,
    errors: &mut Vec<Error>,
) -> Option<&'k Param> {
    let name = r.name.name;
    if let Some(cast) = &r.cast {
        let value = p.as_data();
        if !cast_holds(&value, cast.ty) {
            errors.push(Error::CastFailed {
                name: name.into(),
                value: describe(&value),
                cast: cast.ty,
                at: cast.span,
                supply,
            });
        }
    }
    let Param::Path(path) = p else {
        return Some(p);
    };
    let (name, path, at) = (name.to_string(), path.to_string(), r.span);
    match place {
        Place::DirStart => return Some(p),
        Place::Data => errors.push(Error::PathAsData { name, path, at }),
        Place::DirAfter => errors.push(Error::PathNotFirst { name, path, at }),
    }
    None
}

/// Replaces each reference for which `resolve` gives a value.
fn replace_refs<'a, 'k>(
    query: &mut Query<'a>,
    resolve: &mut impl FnMut(&Reference<'_>, Place) -> Option<&'k Param>,
) {
    if let Some(dir) = query.dir_mut()
        && dir.elems.iter().any(|e| matches!(e, DirElem::Ref(_)))
    {
        let absolute = dir.relative.is_none();
        let mut elems = DirElems::new();
        for (n, e) in std::mem::take(&mut dir.elems).into_iter().enumerate() {
            let DirElem::Ref(r) = e else {
                elems.push(e);
                continue;
            };
            let place = if n == 0 && absolute {
                Place::DirStart
            } else {
                Place::DirAfter
            };
            match resolve(&r, place) {
                None => elems.push(DirElem::Ref(r)),
                Some(Param::Path(path)) => {
                    for name in path.names() {
                        let name = name.clone().into();
                        elems.push(DirElem::Name { name, span: r.span });
                    }
                }
                Some(Param::Data(value)) => {
                    crate::directory::push_value(&mut elems, value.kind.clone(), r.span)
                }
            }
        }
        dir.elems = elems;
    }
    for e in query.elems_mut() {
        substitute_elem(e, resolve);
    }
}

fn substitute_elem<'a, 'k>(
    e: &mut Elem<'a>,
    resolve: &mut impl FnMut(&Reference<'_>, Place) -> Option<&'k Param>,
) {
    match &mut e.kind {
        ElemKind::Ref(r) => {
            if let Some(Param::Data(value)) = resolve(r, Place::Data) {
                e.kind = value.kind.clone();
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

/// A parameter's value from text, as `fql -p name=value` reads it:
/// [`Param::parse`] with relative paths from `/`.
pub fn parse_param(text: &str) -> Result<Param, ParamError> {
    Param::parse(text, &Root::default())
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
        let params = [("p".to_string(), parse_param("7").unwrap())].into();
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

    /// Relative paths are planned under the root, absolute ones as
    /// written; the query printed (what `explain` and messages show) is
    /// the resolved one.
    #[test]
    fn relative_paths_resolve_under_the_root() {
        let params = [("t".to_string(), parse_param("\"x\"").unwrap())].into();
        let text = "./a(1)=2\n../b/<n:str>(<>)\n.(3)\n/abs(4)\n../:t/...\n./...";
        let script = crate::check::load(text).unwrap();
        let root = Root::new(vec!["app".into(), "tests".into()]);
        let queries: Vec<String> = plan_in(&script, &params, &root)
            .unwrap()
            .steps
            .iter()
            .map(|s| s.query().to_string())
            .collect();
        assert_eq!(
            queries,
            [
                "/app/tests/a(1)=2",
                "/app/b/<n:str>(<>)",
                "/app/tests(3)",
                "/abs(4)",
                "/app/x/...",
                "/app/tests/...",
            ]
        );
        // With no root given, the root is `/`.
        let script = crate::check::load("./a(1)\n./...").unwrap();
        let plan = plan(&script, &params).unwrap();
        assert_eq!(plan.steps[0].query().to_string(), "/a(1)");
        assert_eq!(plan.steps[1].query().to_string(), "/...");
    }

    /// Climbing above `/` is an error at the `..` that does it, never
    /// clamped; a path that comes to `/` itself names no directory.
    #[test]
    fn relative_paths_never_leave_the_directory_layer() {
        let params = HashMap::new();
        let errors = |text: &str, root: &[&str]| -> Vec<(String, std::ops::Range<usize>)> {
            let script = crate::check::load(text).unwrap();
            let root = Root::new(root.iter().map(|n| n.to_string()).collect());
            let errors = plan_in(&script, &params, &root).unwrap_err();
            errors
                .iter()
                .map(|e| {
                    let code = miette::Diagnostic::code(e).unwrap().to_string();
                    (code, e.span().range())
                })
                .collect()
        };
        let above = "fql::above_root".to_string();
        assert_eq!(
            errors("../../../x(1)", &["a", "b"]),
            [(above.clone(), 6..8)]
        );
        assert_eq!(errors("../x", &[]), [(above, 0..2)]);
        let top = "fql::top_path".to_string();
        assert_eq!(errors(".(1)=2", &[]), [(top.clone(), 0..1)]);
        assert_eq!(errors("../..", &["a", "b"]), [(top, 0..5)]);
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

    /// The errors of planning `text` with `params`, by code.
    fn codes(text: &str, params: &Params) -> Vec<String> {
        let script = crate::check::load(text).unwrap();
        match plan(&script, params) {
            Ok(_) => Vec::new(),
            Err(errors) => errors
                .iter()
                .map(|e| miette::Diagnostic::code(e).unwrap().to_string())
                .collect(),
        }
    }

    /// A named aggregate binds its result, of the result's types; the
    /// other named variables of an aggregate read bind nothing, and a
    /// reference to one says why.
    #[test]
    fn aggregates_bind_their_results_and_nothing_else() {
        let none = HashMap::new();
        assert_eq!(codes("/a(<n:sum>)\n/b(:n!num)=1", &none), [] as [&str; 0]);
        assert_eq!(codes("/a(<n:count>)\n/b(:n!int)=1", &none), [] as [&str; 0]);
        assert_eq!(
            codes("/a(<n:count>)\n/b(:n!str)=1", &none),
            ["fql::type_conflict"]
        );
        assert_eq!(
            codes("/a()=<s:append>\n/b(:s!bytes)=1", &none),
            [] as [&str; 0]
        );
        assert_eq!(
            codes("/a(<k:int>,<sum>)\n/b(:k)=1", &none),
            ["fql::folded_name"]
        );
        // Bound again by a read that does not fold, it is bound.
        assert_eq!(
            codes("/a(<k:int>,<sum>)\n/c(<k:int>)\n/b(:k)=1", &none),
            [] as [&str; 0]
        );
        let script = crate::check::load("/<d:str>/a(<k:int>)=<n:max>\n/b(:d,:n)=1").unwrap();
        let planned = plan(&script, &none).unwrap();
        assert_eq!(planned.steps[0].binds, ["d", "n"]);
        assert!(planned.steps[0].feeds);
    }

    /// A parameter must have the type of the casts of its references.
    #[test]
    fn parameters_meet_their_casts() {
        let params = [("p".to_string(), parse_param("ann").unwrap())].into();
        assert_eq!(codes("/a(:p!str)=1", &params), [] as [&str; 0]);
        assert_eq!(codes("/a(:p!int)=1", &params), ["fql::cast_failed"]);
        let script = crate::check::load("/a(:p!int)=1").unwrap();
        let errors = plan(&script, &params).unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            "`:p` holds `\"ann\"` of type `str`, not `int`"
        );
    }

    /// A parameter written as a path is a directory where a path starts,
    /// and an error anywhere else; a tuple of names goes anywhere in a
    /// path.
    #[test]
    fn a_path_parameter_starts_a_directory_path() {
        let params: Params = [
            ("dir".to_string(), parse_param("/locks/s").unwrap()),
            ("names".to_string(), parse_param("(\"a\",\"b\")").unwrap()),
        ]
        .into();
        let planned = |text: &str| {
            let script = crate::check::load(text).unwrap();
            let plan = plan(&script, &params).unwrap();
            plan.steps[0].query().to_string()
        };
        assert_eq!(planned("/:dir(\"owner\",<>)"), "/locks/s(\"owner\",<>)");
        assert_eq!(planned("/:dir/x(1)"), "/locks/s/x(1)");
        assert_eq!(planned("/app/:names(1)"), "/app/a/b(1)");
        assert_eq!(codes("/x(:dir)=1", &params), ["fql::path_as_data"]);
        assert_eq!(codes("/x(1)=:dir", &params), ["fql::path_as_data"]);
        assert_eq!(codes("/app/:dir(1)", &params), ["fql::path_not_first"]);
        assert_eq!(codes("./:dir(1)", &params), ["fql::path_not_first"]);
    }

    /// The planner lists the names taken from parameters, supplied or
    /// not, and not those earlier statements bind.
    #[test]
    fn the_planner_knows_which_parameters_are_used() {
        let params: Params = [("a".to_string(), parse_param("1").unwrap())].into();
        let script = crate::check::load("/x(<b:int>)\n/y(:b,:a)\n/z(:c,:a)").unwrap();
        let mut planner = Planner::new(&params);
        let _ = planner.plan(&script);
        assert_eq!(planner.wanted(), ["a", "c"]);
    }

    /// The limit goes to the range read only when every key-value read
    /// is a result.
    #[test]
    fn the_limit_goes_to_the_read_when_nothing_is_filtered() {
        let none = HashMap::new();
        let read_limit = |text: &str| {
            let script = crate::check::load(text).unwrap();
            plan(&script, &none).unwrap().steps[0].options.read_limit
        };
        assert!(read_limit("[limit:2] /a(...)"));
        assert!(read_limit("[limit:2] /<>/a(1,\"x\",...)=<>"));
        assert!(read_limit("[limit:2] /a(1,...)=<any>"));
        assert!(!read_limit("[limit:2] /a(<int>,...)"));
        assert!(!read_limit("[limit:2] /a(1,...)=<int>"));
        assert!(!read_limit("[limit:2] /a(1,...)=2"));
        assert!(!read_limit("/a(1)=<sum>"));
    }
}
