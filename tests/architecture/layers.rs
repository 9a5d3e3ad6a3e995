//! The library's layers as `src/lib.rs` states them: its module table
//! says what each top-level module may use, and the imports must agree.
//!
//! A row's "Uses" is `nothing` or a list of modules, each optionally
//! `... and below`: that module and every module of the rows above it.
//! Rows come in layer order, each naming only rows above it, so the
//! table reads as the code is built, from the bottom up.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::graph::Graph;

/// One row: the modules it is about, and what they may use.
#[derive(Debug)]
struct Row {
    modules: Vec<String>,
    uses: Vec<(String, bool)>,
}

/// The rows of the table under `# Modules` in the crate docs of `lib`.
fn table(lib: &str) -> Vec<Row> {
    let docs = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(str::trim)
        .skip_while(|l| *l != "# Modules");
    docs.skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let modules = cells[0]
                .split(',')
                .map(|m| m.trim().trim_matches(['[', ']', '`']).to_string())
                .collect();
            let uses = match cells[2] {
                "nothing" => Vec::new(),
                list => list
                    .split(',')
                    .map(str::trim)
                    .map(|u| match u.strip_suffix(" and below") {
                        Some(m) => (m.to_string(), true),
                        None => (u.to_string(), false),
                    })
                    .collect(),
            };
            Row { modules, uses }
        })
        .collect()
}

/// What each module may use: a module named, and for `X and below`
/// every module of `X`'s row and the rows above it; an error for a row
/// that names a module not above it.
fn allowed(rows: &[Row]) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let mut may = BTreeMap::new();
    for (at, row) in rows.iter().enumerate() {
        let mut set = BTreeSet::new();
        for (used, below) in &row.uses {
            let Some(level) = rows[..at].iter().position(|r| r.modules.contains(used)) else {
                return Err(format!(
                    "{:?} uses {used}, which no row above names",
                    row.modules
                ));
            };
            match below {
                true => set.extend(
                    rows[..=level]
                        .iter()
                        .flat_map(|r| r.modules.iter().cloned()),
                ),
                false => _ = set.insert(used.clone()),
            }
        }
        for m in &row.modules {
            may.insert(m.clone(), set.clone());
        }
    }
    Ok(may)
}

/// The `pub mod` declarations of `lib`.
fn declared(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect()
}

#[test]
fn the_module_table_is_the_import_graph() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let rows = table(&lib);
    let may = allowed(&rows).unwrap_or_else(|e| panic!("src/lib.rs's module table: {e}"));
    let listed: BTreeSet<String> = may.keys().cloned().collect();
    assert_eq!(
        listed,
        declared(&lib),
        "the module table of src/lib.rs lists other modules than it declares"
    );
    let graph = Graph::read(&src, &["bin"]);
    let mut unstated = Vec::new();
    for (from, targets) in &graph.edges {
        let [from] = &from[..] else { continue };
        for (to, (file, line)) in targets {
            let [to] = &to[..] else { continue };
            if !may[from].contains(to) {
                unstated.push(format!("{from} -> {to} ({file}:{line})"));
            }
        }
    }
    assert!(
        unstated.is_empty(),
        "imports src/lib.rs's module table does not allow:\n{}",
        unstated.join("\n")
    );
}

#[test]
fn below_means_the_rows_above_and_a_row_names_only_those() {
    let doc = |last: &str| {
        format!(
            "//! # Modules\n//!\n//! | Module | Holds | Uses |\n//! |---|---|---|\n\
             //! | [`a`] | x | nothing |\n//! | [`b`], [`c`] | y | a |\n//! | [`d`] | z | {last} |\n"
        )
    };
    let rows = table(&doc("b and below"));
    assert_eq!(rows.len(), 3);
    let may = allowed(&rows).unwrap();
    assert!(may["a"].is_empty());
    assert_eq!(may["c"], BTreeSet::from(["a".to_string()]));
    let all: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    assert_eq!(may["d"], all);
    let err = allowed(&table(&doc("c, e"))).unwrap_err();
    assert!(err.contains("uses e"), "{err}");
}
