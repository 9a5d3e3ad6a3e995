//! Checking stored data against a schema: every key-value of every
//! directory a pattern names must match one of that directory's patterns.

use std::collections::BTreeMap;

use crate::codec;
use crate::directory::{DirectoryLayer, Space, SpaceCursor};
use crate::kv::{Database, DatabaseExt, RetryOptions, Transaction};
use crate::plan::{Plan, Root};
use crate::syntax::ast::{Kind, Query};
use crate::syntax::counted;

use super::{Error, Pattern};

/// A key-value that matches no pattern of its directory, or a pattern that
/// matched too few or too many.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The key-value in canonical FQL (the value as an untyped read shows
    /// it), or the pattern for a count.
    pub key: String,
    /// Why, against the nearest pattern: `element 2: expected str, found
    /// int 7`.
    pub reason: String,
    /// The reason without the value found, to count violations by.
    pub kind: String,
    /// The nearest pattern, if one came close.
    pub pattern: Option<String>,
}

/// What a validation found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Directories scanned.
    pub directories: u64,
    /// Spaces outside the directories (the root, raw prefixes) that held
    /// keys.
    pub subspaces: u64,
    /// Key-values checked.
    pub keys: u64,
    /// Each pattern and how many key-values it matched.
    pub matches: Vec<(String, u64)>,
    /// Violations by kind.
    pub reasons: BTreeMap<String, u64>,
    /// Violations in all.
    pub violations: u64,
    /// Transactions the scan took: more than one when a directory took
    /// longer to read than a transaction may live, so the data checked is
    /// not one snapshot.
    pub transactions: u64,
    /// Whether it stopped at the violation limit.
    pub stopped: bool,
}

impl Summary {
    /// The first line of the summary as text: what was scanned and how
    /// many violations it found.
    pub fn headline(&self) -> String {
        let outside = match self.subspaces {
            0 => String::new(),
            n => format!(" and {}", counted(n, "subspace", "subspaces")),
        };
        format!(
            "{} in {}{outside}, {}",
            counted(self.keys, "key", "keys"),
            counted(self.directories, "directory", "directories"),
            counted(self.violations, "violation", "violations")
        )
    }
}

/// Validates the data under `db` against the schema `source` with
/// `params`, reporting each violation to `report`, and stopping after
/// `max_violations` of them. `retry` bounds each transaction, and each
/// read of the scan, as the caller's other transactions are bounded
/// (`fql --timeout`). The schema's relative paths start at `/`.
pub fn validate(
    db: &dyn Database,
    retry: RetryOptions,
    source: &str,
    params: &crate::plan::Params,
    max_violations: Option<u64>,
    report: &mut dyn FnMut(&Violation),
) -> Result<Summary, Error> {
    let root = Root::default();
    validate_in(db, retry, source, params, &root, max_violations, report)
}

/// [`validate`], with the schema's relative paths (`./users`) under
/// `root`, so that one schema checks any tenant's or test's directory as
/// a script run there reads it.
pub fn validate_in(
    db: &dyn Database,
    retry: RetryOptions,
    source: &str,
    params: &crate::plan::Params,
    root: &Root,
    max_violations: Option<u64>,
    report: &mut dyn FnMut(&Violation),
) -> Result<Summary, Error> {
    let script = crate::check::load(source).map_err(Error::Invalid)?;
    let plan = crate::plan::plan_in(&script, params, root).map_err(Error::Plan)?;
    let patterns = patterns(&plan)?;
    let layer = DirectoryLayer::new();
    let dirs = directories(db, retry, &layer, &patterns)?;
    let mut scan = Scan {
        summary: Summary {
            matches: patterns.iter().map(|p| (p.text.clone(), 0)).collect(),
            transactions: 1,
            ..Summary::default()
        },
        max_violations,
        report,
    };
    let claimed = prefixes(&dirs);
    let mut tx = db.create_trx()?;
    for (space, indexes) in &dirs {
        if scan.summary.stopped {
            break;
        }
        let mine: Vec<&Pattern<'_>> = indexes.iter().map(|&i| &patterns[i]).collect();
        scan.directory(&mut tx, retry, &layer, space, &mine, &claimed)?;
    }
    Ok(scan.summary)
}

/// The patterns of a planned schema: its reads of key-values, in order.
/// A schema without one allows nothing and checks nothing, which is never
/// what its author meant, so that is an error.
pub fn patterns<'p>(plan: &'p Plan<'p>) -> Result<Vec<Pattern<'p>>, Error> {
    let mut patterns = Vec::new();
    for step in &plan.steps {
        if !matches!(step.kind, Kind::Read | Kind::ReadRange) {
            continue;
        }
        if let Query::KeyValue(kv) = step.query() {
            let n = patterns.len();
            patterns.push(Pattern::new(n, kv, step.options.min, step.options.max)?);
        }
    }
    if patterns.is_empty() {
        return Err(Error::NoPatterns);
    }
    Ok(patterns)
}

/// Every space (directory, the root, raw prefix) a pattern names, with
/// the patterns naming it.
fn directories(
    db: &dyn Database,
    retry: RetryOptions,
    layer: &DirectoryLayer,
    patterns: &[Pattern<'_>],
) -> Result<BTreeMap<Space, Vec<usize>>, Error> {
    let (dirs, _) = db.run_with(retry, |tx, _| {
        let mut dirs: BTreeMap<Space, Vec<usize>> = BTreeMap::new();
        for p in patterns {
            for space in crate::exec::matching_spaces(tx, layer, p.key_at)? {
                // A partition holds no keys: a pattern with holes passes
                // over it to the directories inside, but one naming it
                // could match nothing, and a query naming it is refused.
                if let Space::Directory(path) = &space
                    && !p.key_at.dir.has_holes()
                    && layer.open(tx, path, b"")?.is_partition()
                {
                    return Err(crate::exec::Error::Partition {
                        path: crate::directory::show(path),
                        at: p.key_at.dir.span,
                    });
                }
                dirs.entry(space).or_default().push(p.index);
            }
        }
        Ok::<_, crate::exec::Error>(dirs)
    })?;
    Ok(dirs)
}

/// The raw prefixes the schema names. A key under one belongs to that
/// subspace's patterns, so a scan of the root, or of a shorter prefix,
/// passes over it rather than calling it a key no pattern allows.
fn prefixes(dirs: &BTreeMap<Space, Vec<usize>>) -> Vec<Vec<u8>> {
    dirs.keys()
        .filter_map(|space| match space {
            Space::Prefix(p) => Some(p.clone()),
            Space::Root | Space::Directory(_) => None,
        })
        .collect()
}

/// Whether `key`, read in the space of `prefix`, lies under a longer
/// prefix of `claimed`: another subspace of the schema.
fn claimed_elsewhere(claimed: &[Vec<u8>], prefix: &[u8], key: &[u8]) -> bool {
    claimed
        .iter()
        .any(|c| c.len() > prefix.len() && c.starts_with(prefix) && key.starts_with(c))
}

/// A validation under way: what it found so far, and where violations go.
struct Scan<'r> {
    summary: Summary,
    max_violations: Option<u64>,
    report: &'r mut dyn FnMut(&Violation),
}

impl Scan<'_> {
    /// Counts and reports a violation; stops the scan at the limit.
    fn violation(&mut self, v: Violation) {
        let summary = &mut self.summary;
        summary.violations += 1;
        *summary.reasons.entry(v.kind.clone()).or_default() += 1;
        (self.report)(&v);
        if self.max_violations.is_some_and(|m| summary.violations >= m) {
            summary.stopped = true;
        }
    }

    /// Checks every key-value of `space` against `mine`, its patterns,
    /// then each pattern's count against its bounds.
    fn directory(
        &mut self,
        tx: &mut Box<dyn Transaction>,
        retry: RetryOptions,
        layer: &DirectoryLayer,
        space: &Space,
        mine: &[&Pattern<'_>],
        claimed: &[Vec<u8>],
    ) -> Result<(), Error> {
        // A partition holds directories, not keys.
        let cursor = space
            .cursor(&mut **tx, layer, true)
            .map_err(crate::exec::Error::from)?;
        let Some(mut cursor) = cursor else {
            return Ok(());
        };
        let prefix = cursor.prefix().to_vec();
        let path = &space.to_string();
        let keys_before = self.summary.keys;
        let mut counts = vec![0u64; mine.len()];
        'scan: while let Some(batch) = next_batch(&mut cursor, tx, retry, &mut self.summary)? {
            for kv in batch {
                if claimed_elsewhere(claimed, &prefix, &kv.key) {
                    continue;
                }
                self.summary.keys += 1;
                if let Some(v) = check(path, &prefix, &kv.key, &kv.value, mine, &mut counts) {
                    self.violation(v);
                    if self.summary.stopped {
                        break 'scan;
                    }
                }
            }
        }
        match space {
            Space::Directory(_) => self.summary.directories += 1,
            Space::Root | Space::Prefix(_) if self.summary.keys > keys_before => {
                self.summary.subspaces += 1
            }
            Space::Root | Space::Prefix(_) => {}
        }
        for (p, &n) in mine.iter().zip(&counts) {
            self.summary.matches[p.index].1 += n;
            // A scan stopped at the violation limit counted part of the
            // directory: its counts prove nothing either way.
            if !self.summary.stopped
                && let Some(v) = out_of_bounds(p, n as usize, path)
            {
                self.violation(v);
            }
        }
        Ok(())
    }
}

/// The violation of a pattern that matched `n` key-values in the
/// directory at `path`, if `n` is outside its bounds.
fn out_of_bounds(p: &Pattern<'_>, n: usize, path: &str) -> Option<Violation> {
    if !(p.min.is_some_and(|m| n < m) || p.max.is_some_and(|m| n > m)) {
        return None;
    }
    let (bound, last) = match (p.min, p.max) {
        (Some(a), Some(b)) => (format!("between {a} and {b}"), b),
        (Some(a), None) => (format!("at least {a}"), a),
        (None, Some(b)) => (format!("at most {b}"), b),
        (None, None) => unreachable!("a bound failed"),
    };
    let noun = if last == 1 { "key-value" } else { "key-values" };
    let matched = counted(n as u64, "key-value matches", "key-values match");
    Some(Violation {
        key: p.text.clone(),
        reason: format!("{matched} in {path}, {bound} allowed"),
        kind: format!("pattern matches {bound} {noun}"),
        pattern: Some(p.text.clone()),
    })
}

/// The next batch of a scan, going on in a new transaction when the old
/// one has lived too long.
fn next_batch(
    cursor: &mut SpaceCursor,
    tx: &mut Box<dyn Transaction>,
    retry: RetryOptions,
    summary: &mut Summary,
) -> Result<Option<Vec<crate::kv::KeyValue>>, Error> {
    let (batch, renewed) = crate::kv::read_resuming(tx, retry, |tx| cursor.next_batch(tx))?;
    summary.transactions += u64::from(renewed);
    Ok(batch)
}

/// Checks one key-value against its directory's patterns; counts the
/// first that matches, or explains the failure against the nearest.
fn check(
    path: &str,
    prefix: &[u8],
    key: &[u8],
    value: &[u8],
    patterns: &[&Pattern<'_>],
    counts: &mut [u64],
) -> Option<Violation> {
    let value_text = codec::decode_untyped(value).to_string();
    let Some(elems) = codec::decode_key(prefix, key) else {
        return Some(Violation {
            key: format!("{path}{}={value_text}", hex_key(&key[prefix.len()..])),
            reason: "key: not a valid tuple".into(),
            kind: "key: not a valid tuple".into(),
            pattern: None,
        });
    };
    let mut nearest: Option<(super::pattern::Mismatch, &Pattern<'_>)> = None;
    for (n, p) in patterns.iter().enumerate() {
        match p.check(&elems, value) {
            Ok(()) => {
                counts[n] += 1;
                return None;
            }
            Err(m) => {
                if nearest
                    .as_ref()
                    .is_none_or(|(best, _)| m.score > best.score)
                {
                    nearest = Some((m, p));
                }
            }
        }
    }
    let key_text = {
        let parts: Vec<String> = elems.iter().map(|e| e.kind.to_string()).collect();
        format!("{path}({})={value_text}", parts.join(","))
    };
    let (mismatch, pattern) = nearest?;
    let (reason, pattern) = if mismatch.length
        && patterns
            .iter()
            .all(|p| p.check(&elems, value).is_err_and(|m| m.length))
    {
        let n = elems.len();
        let noun = if n == 1 { "element" } else { "elements" };
        (format!("no pattern has {n} {noun}"), None)
    } else {
        (mismatch.reason, Some(pattern.text.clone()))
    };
    Some(Violation {
        key: key_text,
        kind: kind_of(&reason),
        reason,
        pattern,
    })
}

/// A key that is not a tuple, as a comment can show it.
fn hex_key(rest: &[u8]) -> String {
    format!("(% raw 0x{} %)", const_hex::encode(rest))
}

/// The reason up to the type of what was found: `element 2: expected str,
/// found int`.
fn kind_of(reason: &str) -> String {
    match reason.find(", found ") {
        Some(n) => {
            let rest = &reason[n + ", found ".len()..];
            let ty = rest.split_whitespace().next().unwrap_or("");
            format!("{}, found {ty}", &reason[..n])
        }
        None => reason.to_string(),
    }
}
