//! Static checks: what can be known wrong about a parsed script without a
//! database. Options in the right place with the right arguments, aggregates
//! where rows are folded, incomplete versionstamps only in writes, meta
//! statements where transactions begin.
//!
//! This stage stands between [`syntax`], whose AST it judges, and the
//! [planner](crate::plan), which takes only checked scripts. What the options of a value or a type mean, and whether a
//! literal value can be encoded, is the [`codec`](crate::codec)'s to
//! decide: the checks here call it, so a script is judged by the same code
//! that runs it.
//!
//! ```
//! let errors = fql::check::load("/a(<sum>)=clear").unwrap_err();
//! assert_eq!(errors[0].code(), "fql::aggregate_misplaced");
//! ```

mod elements;
mod error;
mod mutation;
mod options;

use crate::syntax::{self, ast::*};

pub use error::{CheckError, Error};
pub use options::{STREAMING_MODES, client_filter};

/// Parses and checks a script, returning every error of both stages in
/// source order. Statements that parse are checked even when others do not.
pub fn load(src: &str) -> Result<Script<'_>, Vec<Error>> {
    let (script, parse_errors) = syntax::parse_partial(src);
    let check_errors = check(&script).err().unwrap_or_default();
    if parse_errors.is_empty() && check_errors.is_empty() {
        return Ok(script);
    }
    let mut errors: Vec<Error> = parse_errors.into_iter().map(Error::Parse).collect();
    errors.extend(check_errors.into_iter().map(Error::Check));
    errors.sort_by_key(Error::offset);
    Err(errors)
}

/// Checks a script, returning every error in source order.
pub fn check(script: &Script) -> Result<(), Vec<CheckError>> {
    let mut errors = Vec::new();
    let mut tx = Transaction::default();
    for item in &script.items {
        match item {
            Item::Meta(meta) => tx.meta(meta, &mut errors),
            Item::Statement(stmt) => {
                let kind = stmt.kind();
                tx.statement(stmt, kind, &mut errors);
                statement(stmt, kind, &mut errors);
            }
        }
    }
    errors.sort_by_key(|e| syntax::offset(e));
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Where the current transaction stands, for the checks of meta
/// statements: its first statement or meta statement, and the `@read`
/// that made it read-only.
#[derive(Default)]
struct Transaction {
    began: Option<Span>,
    read_only: Option<Span>,
}

impl Transaction {
    /// `@commit` ends the transaction; `@read` and `@write` must open one.
    fn meta(&mut self, meta: &Meta, errors: &mut Vec<CheckError>) {
        match meta.kind {
            MetaKind::Commit => *self = Transaction::default(),
            MetaKind::Read | MetaKind::Write => {
                if let Some(first) = self.began {
                    errors.push(CheckError::MetaMisplaced {
                        meta: meta.kind.to_string(),
                        at: meta.span,
                        first,
                    });
                }
                self.began.get_or_insert(meta.span);
                self.read_only = (meta.kind == MetaKind::Read).then_some(meta.span);
            }
        }
    }

    /// A statement joins the transaction; it may not write in one opened
    /// with `@read`.
    fn statement(&mut self, stmt: &Statement, kind: Kind, errors: &mut Vec<CheckError>) {
        self.began.get_or_insert(stmt.span);
        if let (Some(read), true) = (self.read_only, kind.writes()) {
            errors.push(CheckError::WriteInRead {
                at: stmt.span,
                read,
            });
        }
    }
}

fn statement(stmt: &Statement, kind: Kind, errors: &mut Vec<CheckError>) {
    let raw = matches!(stmt.query, Query::Raw(_));
    options::query_options(&stmt.options, kind, raw, errors);
    if let Query::KeyValue(kv) = &stmt.query {
        options::exact_mode(&stmt.options, kv, errors);
    }
    let (dir, kv) = match &stmt.query {
        Query::Directory(dir) | Query::Remove { dir, .. } => (dir, None),
        Query::KeyValue(kv) => (&kv.key.dir, Some(kv)),
        Query::Raw(raw) => {
            let system = stmt.options.items.iter().any(|o| o.name == OptName::System);
            return raw_statement(raw, kind, system, errors);
        }
    };
    for elem in &dir.elems {
        if let DirElem::Var(var) = elem {
            elements::directory_variable(var, errors);
        }
    }
    let Some(kv) = kv else { return };
    // Said once per kind, not formatted per statement: a script may hold
    // a million writes.
    let agg_place = match kind {
        Kind::Read | Kind::ReadRange => None,
        Kind::Set => Some("in a write"),
        Kind::Mutate => Some("in a mutation"),
        Kind::Clear | Kind::ClearRange => Some("in a clear"),
        Kind::List => Some("in a directory listing"),
        Kind::Remove => Some("in a directory removal"),
    };
    debug_assert!(agg_place.is_none_or(|p| p == format!("in a {}", kind.noun())));
    for elem in &kv.key.tuple.elems {
        elements::element(elem, agg_place, true, errors);
    }
    if let Value::Data(elem, opts) = &kv.value {
        elements::element(elem, agg_place, false, errors);
        options::value_options(elem, opts, errors);
    }
    if let Value::Mutate(m) = &kv.value {
        elements::element(&m.operand, agg_place, false, errors);
        mutation::mutation(kv, m, errors);
    }
    elements::vstamps(&kv.key.tuple.elems, &kv.value, kind, errors);
    elements::user_types(kv, errors);
}

/// Whether raw keys reach into the system keyspace, from `0xff` up to
/// the special keys at `0xffff`, which FDB opens only to a transaction
/// that asks: how a message says so. The special keys themselves are
/// read without asking.
fn system_keys(key: &RawKeyKind, kind: Kind) -> Option<&'static str> {
    let special = |k: &[u8]| k.starts_with(b"\xff\xff") && !kind.writes();
    match key {
        RawKeyKind::Key(k) if k.first() == Some(&0xff) && !special(k) => Some("the key is in"),
        RawKeyKind::Prefix(p) if p.first() == Some(&0xff) && !special(p) => Some("the range is in"),
        RawKeyKind::Range(begin, end) if &end[..] > b"\xff" && !special(begin) => {
            Some("the range reaches into")
        }
        _ => None,
    }
}

/// A statement on raw keys: its value as a tuple key's would be, but no
/// aggregate, since its rows have no tuple to fold by.
fn raw_statement(raw: &RawKeyValue, kind: Kind, system: bool, errors: &mut Vec<CheckError>) {
    if !system && let Some(keys) = system_keys(&raw.key.kind, kind) {
        errors.push(CheckError::SystemKeys {
            keys,
            at: raw.key.span,
        });
    }
    if let Value::Data(elem, opts) = &raw.value {
        let place = match kind {
            Kind::Set => "in a write",
            _ => "in a read of raw keys",
        };
        elements::element(elem, Some(place), false, errors);
        options::value_options(elem, opts, errors);
    }
    if let Value::Mutate(m) = &raw.value {
        elements::element(&m.operand, Some("in a mutation"), false, errors);
        mutation::raw_mutation(raw, m, errors);
    }
    elements::vstamps(&[], &raw.value, kind, errors);
}
