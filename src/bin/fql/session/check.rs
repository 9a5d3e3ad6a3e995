//! The first pass over a script: every transaction parsed, checked and
//! planned, in order, before anything runs, keeping only what running it
//! needs of the whole: which statements feed later ones, the first that
//! writes, how many there are, and a fingerprint of each piece of text
//! read.

use fql::plan::{Plan, Planner, Statements};
use fql::syntax::ast::{Item, Script as Parsed};
use fql::syntax::{Report, Sources};

use super::Settings;
use super::fingerprints::Fingerprints;
use crate::error::CliError;
use crate::output;
use crate::source::Script;

/// What the first pass found.
#[derive(Debug)]
pub struct Checked {
    /// The statements whose rows feed later ones.
    pub feeders: Statements,
    /// How many statements and transactions the script has.
    pub statements: usize,
    pub transactions: usize,
    /// The first statement that writes.
    pub first_write: Option<WriteAt>,
    /// The pieces of text checked, for the run to compare with what it
    /// reads again.
    pub pieces: Fingerprints,
}

/// A statement that writes: its input, its line there, and what it does.
#[derive(Debug)]
pub struct WriteAt {
    pub name: String,
    pub line: usize,
    pub noun: &'static str,
}

/// The first statement of `plan`, planned from `sources`, that writes.
pub fn first_write(sources: &Sources, plan: &Plan<'_>) -> Option<WriteAt> {
    let step = plan.steps.iter().find(|s| s.kind.writes())?;
    let (name, line) = sources.locate(step.span.start as usize);
    Some(WriteAt {
        name: name.to_string(),
        line,
        noun: step.kind.noun(),
    })
}

/// Parses, checks and plans `script` a transaction at a time, reporting
/// every error against its input: a syntax or static error in any
/// transaction, else every planning error (a reference nothing supplies),
/// and, when `all_used`, every parameter that no statement uses.
pub fn check(script: &Script, settings: &Settings, all_used: bool) -> Result<Checked, CliError> {
    let (width, color) = (output::width(), settings.color);
    let params = &settings.params;
    let mut planner = Planner::new(params)
        .with_root(settings.root.clone())
        .with_supply(settings.supply);
    let mut invalid = Report::default();
    // Planning errors are shown only if nothing is invalid: held until
    // the end, the first few rendered.
    let mut unplanned = Report::default();
    let mut unplanned_text = String::new();
    let mut first = None;
    let mut pieces = Fingerprints::default();
    let typed = script.shown();
    let typed = typed.as_deref();
    for piece in script.pieces() {
        let sources = piece?;
        pieces.push(&sources);
        let parsed = match fql::check::load(sources.text()) {
            Ok(parsed) => parsed,
            Err(errors) => {
                let shown =
                    crate::source::add(typed, &mut invalid, &errors, &sources, color, width);
                // Told as each piece is read: a long script's first errors
                // show before the rest is checked.
                crate::error::report(&CliError::invalid(shown));
                continue;
            }
        };
        if script.single() {
            refuse_commits(&sources, &parsed)?;
        }
        if invalid.count() > 0 {
            // The rest is only checked: planning needs what came before.
            continue;
        }
        let planned = planner.plan(&parsed);
        // Only the run drops rows; here, what is retired is forgotten.
        planner.take_retired();
        match planned {
            Ok(plan) => {
                if first.is_none() {
                    first = first_write(&sources, &plan);
                }
            }
            Err(errors) => {
                let shown =
                    crate::source::add(typed, &mut unplanned, &errors, &sources, color, width);
                unplanned_text.push_str(&shown);
            }
        }
    }
    if invalid.count() > 0 {
        return Err(CliError::invalid(invalid.summary(&script.name())));
    }
    // Reported first: a misspelt `-p` is what leaves a reference unbound.
    let unused = match all_used {
        true => super::params::all_used(params, planner.wanted()),
        false => Ok(()),
    };
    if unplanned.count() > 0 {
        let unplanned = CliError::invalid(format!("{unplanned_text}{}", unplanned.more()));
        if let Err(unused) = unused {
            unused.tell();
        }
        return Err(unplanned);
    }
    unused?;
    Ok(Checked {
        feeders: planner.feeders().clone(),
        statements: planner.statements(),
        transactions: planner.transactions(),
        first_write: first,
        pieces,
    })
}

/// `-1` promises that everything commits or nothing does; a script that
/// commits on its own would break that promise.
fn refuse_commits(sources: &Sources, parsed: &Parsed<'_>) -> Result<(), CliError> {
    let Some(meta) = parsed.items.iter().find_map(|item| match item {
        Item::Meta(meta) => Some(meta),
        Item::Statement(_) => None,
    }) else {
        return Ok(());
    };
    let (name, line) = sources.locate(meta.span.start as usize);
    Err(CliError::Usage(format!(
        "--single-transaction runs everything in one transaction, but {name} commits at line {line}"
    )))
}
