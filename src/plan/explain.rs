//! A plan in words: for each statement, the directories it touches, the
//! keys it reads or writes, and what is filtered on the client.

use std::fmt::{self, Display, Formatter};

use super::{Plan, ReadOptions, Step};
use crate::syntax::ast::*;

impl Display for Plan<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.write_annotated(f, &mut |_, _| String::new())
    }
}

impl Plan<'_> {
    /// The plan in words, as its `Display` gives it, with the lines
    /// `note` gives after each statement (`note(n, Some(step))`) and after
    /// each transaction (`note(n, None)`), `n` counting transactions from
    /// 0: what `fql explain --analyze` measured of them.
    pub fn annotated(&self, note: &mut dyn FnMut(usize, Option<&Step<'_>>) -> String) -> String {
        let mut out = String::new();
        // Writing to a string does not fail.
        let _ = self.write_annotated(&mut out, note);
        out
    }

    fn write_annotated(
        &self,
        f: &mut dyn fmt::Write,
        note: &mut dyn FnMut(usize, Option<&Step<'_>>) -> String,
    ) -> fmt::Result {
        for (n, steps) in self.transactions().enumerate() {
            let writes = steps.iter().any(|s| s.kind.writes());
            writeln!(
                f,
                "transaction {} ({})",
                n + 1,
                if writes { "read-write" } else { "read-only" }
            )?;
            for step in steps {
                write!(f, "{step}")?;
                f.write_str(&note(n, Some(step)))?;
            }
            f.write_str(&note(n, None))?;
        }
        Ok(())
    }
}

impl Display for Step<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(f, "  {}: {}", describe(self.kind), self.query())?;
        let (dir, kv) = match self.query() {
            Query::Directory(d) | Query::Remove { dir: d, .. } => (d, None),
            Query::KeyValue(kv) => (&kv.key.dir, Some(kv)),
            Query::Raw(raw) => {
                raw_keys(f, raw, self.kind)?;
                return write_options(f, &self.options);
            }
        };
        let creates = match (self.kind, self.query()) {
            (Kind::Set, _) => true,
            (Kind::Mutate, Query::KeyValue(kv)) => {
                !matches!(&kv.value, Value::Mutate(m) if m.op == AtomicOp::CompareAndClear)
            }
            _ => false,
        };
        writeln!(f, "    directories: {}", directories(dir, creates))?;
        if let Some(kv) = kv {
            let (constant, filtered) = key_prefix(&kv.key.tuple);
            let prefix = Tuple {
                elems: constant.iter().cloned().collect(),
                rest: None,
                span: Span::default(),
            };
            match self.kind {
                Kind::Set | Kind::Mutate | Kind::Clear | Kind::Read => {
                    writeln!(f, "    key: {}", kv.key.tuple)?
                }
                _ if prefix.elems.is_empty() => {
                    writeln!(f, "    keys: every key of each directory")?
                }
                _ => writeln!(f, "    keys: those starting with {prefix}")?,
            }
            if filtered {
                writeln!(f, "    client filter: key {}", kv.key.tuple)?;
            }
            match &kv.value {
                Value::Data(e, _) if self.kind != Kind::Set && !is_any(e) => {
                    let value = kv.value.to_string();
                    writeln!(
                        f,
                        "    client filter: value {}",
                        value.trim_start_matches('=')
                    )?
                }
                _ => {}
            }
            if let Value::Mutate(m) = &kv.value {
                writeln!(
                    f,
                    "    mutation: {} at commit, reading nothing (no read conflict)",
                    m.op
                )?;
            }
            if self.kind == Kind::ClearRange {
                let how = if filtered {
                    "each matching key"
                } else {
                    "one range clear"
                };
                writeln!(f, "    clears: {how}")?;
            }
        }
        write_options(f, &self.options)
    }
}

fn write_options(f: &mut Formatter<'_>, o: &ReadOptions) -> fmt::Result {
    let opts = options(o);
    if !opts.is_empty() {
        writeln!(f, "    options: {}", opts.join(", "))?;
    }
    Ok(())
}

/// The keys a statement on raw keys touches, as bytes, and its value
/// filter.
fn raw_keys(f: &mut Formatter<'_>, raw: &RawKeyValue<'_>, kind: Kind) -> fmt::Result {
    match &raw.key.kind {
        RawKeyKind::Key(_) => writeln!(f, "    key: {} (raw)", raw.key)?,
        RawKeyKind::Prefix(_) | RawKeyKind::Range(..) => {
            let (begin, end) = super::raw_bounds(&raw.key.kind);
            let mut text = String::new();
            crate::syntax::write_bytes(&mut text, &begin)?;
            text.push_str(" up to ");
            crate::syntax::write_bytes(&mut text, &end)?;
            writeln!(f, "    keys: from {text}, left out (raw)")?
        }
    }
    if let Value::Data(e, _) = &raw.value
        && kind != Kind::Set
        && !is_any(e)
    {
        let value = raw.value.to_string();
        writeln!(
            f,
            "    client filter: value {}",
            value.trim_start_matches('=')
        )?;
    }
    if kind == Kind::ClearRange {
        writeln!(f, "    clears: one range clear")?;
    }
    Ok(())
}

fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::List => "list directories",
        Kind::Remove => "remove directories",
        Kind::Set => "set",
        Kind::Mutate => "atomic operation",
        Kind::Clear => "clear one key",
        Kind::ClearRange => "clear matching keys",
        Kind::Read => "read one key",
        Kind::ReadRange => "range read",
    }
}

fn directories(dir: &Directory<'_>, creates: bool) -> String {
    if !dir.has_holes() {
        let note = if creates { " (created if missing)" } else { "" };
        return format!("{dir}{note}");
    }
    format!("every directory matching {dir}, in ascending path order")
}

/// The constant elements before the first hole, and whether anything after
/// them needs a client-side filter.
fn key_prefix<'t, 'a>(t: &'t Tuple<'a>) -> (&'t [Elem<'a>], bool) {
    let n = t
        .elems
        .iter()
        .position(Elem::has_holes)
        .unwrap_or(t.elems.len());
    (&t.elems[..n], n < t.elems.len())
}

fn is_any(e: &Elem<'_>) -> bool {
    matches!(&e.kind, ElemKind::Var(v) if v.types.is_empty())
}

fn options(o: &ReadOptions) -> Vec<String> {
    let mut out = Vec::new();
    match o.guard {
        Some(crate::plan::Guard::Absent) => {
            out.push("guard: stops the transaction if anything matches".into())
        }
        Some(crate::plan::Guard::Exists) => {
            out.push("guard: stops the transaction unless something matches".into())
        }
        None => {}
    }
    match (o.min, o.max) {
        (Some(min), Some(max)) => out.push(format!("between {min} and {max} must match")),
        (Some(min), None) => out.push(format!("at least {min} must match")),
        (None, Some(max)) => out.push(format!("at most {max} may match")),
        (None, None) => {}
    }
    if o.reverse {
        out.push("reverse".into());
    }
    match o.limit {
        // Nothing is filtered: the database stops the read at the limit.
        Some(n) if o.read_limit => out.push(format!("limit {n} (of the range read)")),
        Some(n) => out.push(format!("limit {n}")),
        None => {}
    }
    if o.strict {
        out.push("strict".into());
    }
    if o.snapshot {
        out.push("snapshot".into());
    }
    if o.system {
        out.push("system keys".into());
    }
    if o.prefix {
        out.push("with key prefixes".into());
    }
    if o.mode != Default::default() {
        out.push(format!("mode {:?}", o.mode));
    }
    out
}
