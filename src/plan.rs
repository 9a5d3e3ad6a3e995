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
pub struct Plan {
    /// The transactions, in order; `@commit` ends one and begins the next.
    pub transactions: Vec<Vec<Step>>,
}

/// One statement to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// What the statement does.
    pub kind: Kind,
    /// The query, parameters substituted.
    pub query: Query,
    /// Its resolved query options.
    pub options: ReadOptions,
    /// Where it was written.
    pub span: Span,
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
}

/// Errors found while planning.
#[derive(Clone, Debug, PartialEq, thiserror::Error, miette::Diagnostic)]
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
    /// A reference to a name that an earlier statement binds: joins run in
    /// a later version of the engine.
    #[error(
        "`:{name}` refers to a named variable of an earlier statement, which this engine does not run yet"
    )]
    #[diagnostic(
        code(fql::join_unsupported),
        help("pass the value as a parameter instead (`-p {name}=...`)")
    )]
    JoinUnsupported {
        /// The name.
        name: String,
        /// The reference.
        #[label("bound by an earlier statement")]
        at: Span,
    },
}

impl Error {
    /// Where the error points.
    pub fn span(&self) -> Span {
        match self {
            Error::Unbound { at, .. } | Error::JoinUnsupported { at, .. } => *at,
        }
    }
}

/// Plans a script that passed [`check`](crate::syntax::check), with
/// `params` for its unbound references.
pub fn plan(script: &Script, params: &HashMap<String, Elem>) -> Result<Plan, Vec<Error>> {
    let mut transactions = vec![Vec::new()];
    let mut errors = Vec::new();
    let mut bound: HashMap<String, Span> = HashMap::new();
    for item in &script.items {
        match item {
            Item::Meta(m) if m.kind == MetaKind::Commit => transactions.push(Vec::new()),
            Item::Meta(_) => {}
            Item::Statement(stmt) => {
                let mut query = stmt.query.clone();
                substitute(&mut query, params, &bound, &mut errors);
                names_bound(&stmt.query, &mut bound);
                let step = Step {
                    kind: query.kind(),
                    query,
                    options: read_options(&stmt.options),
                    span: stmt.span,
                };
                transactions.last_mut().expect("one at least").push(step);
            }
        }
    }
    if transactions.last().is_some_and(Vec::is_empty) && transactions.len() > 1 {
        transactions.pop();
    }
    if errors.is_empty() {
        Ok(Plan { transactions })
    } else {
        Err(errors)
    }
}

fn read_options(opts: &Options) -> ReadOptions {
    let mut out = ReadOptions::default();
    for opt in &opts.items {
        match (opt.name, opt.arg.as_ref().map(|a| &a.kind)) {
            (OptName::Reverse, _) => out.reverse = true,
            (OptName::Strict, _) => out.strict = true,
            (OptName::Snapshot, _) => out.snapshot = true,
            (OptName::Limit, Some(OptArgKind::Int(Int::Small(n)))) => {
                out.limit = usize::try_from(*n).ok();
            }
            (OptName::Mode, Some(OptArgKind::Name(m))) => {
                out.mode = match m.as_str() {
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

/// Records the names a statement's named variables bind.
fn names_bound(query: &Query, bound: &mut HashMap<String, Span>) {
    let mut var = |v: &Variable| {
        if let Some(name) = &v.name {
            bound.entry(name.name.to_string()).or_insert(name.span);
        }
    };
    let dir = match query {
        Query::Directory(d) | Query::Remove { dir: d, .. } => d,
        Query::KeyValue(kv) => &kv.key.dir,
    };
    for e in &dir.elems {
        if let DirElem::Var(v) = e {
            var(v);
        }
    }
    if let Query::KeyValue(kv) = query {
        let mut elem = |e: &Elem| {
            if let ElemKind::Var(v) = &e.kind {
                var(v)
            }
        };
        for e in &kv.key.tuple.elems {
            e.walk(&mut elem);
        }
        if let Value::Data(e, _) = &kv.value {
            e.walk(&mut elem);
        }
    }
}

/// Replaces references by parameters.
fn substitute(
    query: &mut Query,
    params: &HashMap<String, Elem>,
    bound: &HashMap<String, Span>,
    errors: &mut Vec<Error>,
) {
    let mut resolve = |r: &Reference| -> Option<ElemKind> {
        let name = r.name.name.as_str();
        if let Some(p) = params.get(name) {
            return Some(p.kind.clone());
        }
        errors.push(if bound.contains_key(name) {
            Error::JoinUnsupported {
                name: name.into(),
                at: r.span,
            }
        } else {
            Error::Unbound {
                name: name.into(),
                at: r.span,
            }
        });
        None
    };
    let dir = match query {
        Query::Directory(d) | Query::Remove { dir: d, .. } => d,
        Query::KeyValue(kv) => &mut kv.key.dir,
    };
    for e in dir.elems.iter_mut() {
        if let DirElem::Ref(r) = e
            && let Some(kind) = resolve(r)
        {
            let name = match kind {
                ElemKind::Str(s) => s,
                other => other.to_string().into(),
            };
            *e = DirElem::Name { name, span: r.span };
        }
    }
    if let Query::KeyValue(kv) = query {
        for e in kv.key.tuple.elems.iter_mut() {
            substitute_elem(e, &mut resolve);
        }
        if let Value::Data(e, _) = &mut kv.value {
            substitute_elem(e, &mut resolve);
        }
    }
}

fn substitute_elem(e: &mut Elem, resolve: &mut impl FnMut(&Reference) -> Option<ElemKind>) {
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
