//! A crate's modules and the edges between siblings, and the cycles they
//! make.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{lex, paths};

/// A module by its path from the crate root (empty for the root).
pub type Module = Vec<String>;

/// Where an edge comes from: the first file and line found naming it.
pub type Witness = (String, usize);

/// The edges between sibling modules: `a -> b` when a file in `a` (or
/// below) names something in `b` (or below), `a` and `b` having the same
/// parent; an edge to an ancestor or a descendant is none.
#[derive(Debug, Default)]
pub struct Graph {
    pub edges: BTreeMap<Module, BTreeMap<Module, Witness>>,
}

impl Graph {
    /// The graph of the crate whose root file is in `dir`, reading every
    /// `.rs` file below it but those under the folders `skip`.
    pub fn read(dir: &Path, skip: &[&str]) -> Graph {
        let mut files = Vec::new();
        walk(dir, dir, skip, &mut files);
        Graph::of(&files)
    }

    /// The graph of files given as (path from the crate's folder, text).
    pub fn of(files: &[(String, String)]) -> Graph {
        let modules: Vec<Module> = files.iter().map(|(name, _)| module_of(name)).collect();
        let known: BTreeSet<&[String]> = modules
            .iter()
            .flat_map(|m| (0..=m.len()).map(move |k| &m[..k]))
            .collect();
        let mut graph = Graph::default();
        for ((name, text), module) in files.iter().zip(&modules) {
            for named in paths::named(&lex::tokens(text), module) {
                let target = (0..=named.path.len())
                    .rev()
                    .map(|k| &named.path[..k])
                    .find(|p| known.contains(p))
                    .unwrap_or_default();
                graph.add(module, target, (name.clone(), named.line));
            }
        }
        graph
    }

    /// Adds `from -> to`, lifted to where the two are siblings.
    fn add(&mut self, from: &[String], to: &[String], witness: Witness) {
        let k = from.iter().zip(to).take_while(|(a, b)| a == b).count();
        if k >= from.len() || k >= to.len() {
            return;
        }
        let targets = self.edges.entry(from[..=k].to_vec()).or_default();
        targets.entry(to[..=k].to_vec()).or_insert(witness);
    }

    /// One cycle for each edge that closes one in a depth-first walk,
    /// as the modules along it, the first again at the end.
    pub fn cycles(&self) -> Vec<Vec<Module>> {
        let mut state = BTreeMap::new();
        let mut found = Vec::new();
        for start in self.edges.keys() {
            if !state.contains_key(start) {
                self.visit(start, &mut Vec::new(), &mut state, &mut found);
            }
        }
        found
    }

    /// `state`: `false` while a module is on the stack, `true` once done.
    fn visit<'g>(
        &'g self,
        at: &'g Module,
        stack: &mut Vec<&'g Module>,
        state: &mut BTreeMap<&'g Module, bool>,
        found: &mut Vec<Vec<Module>>,
    ) {
        state.insert(at, false);
        stack.push(at);
        for next in self.edges.get(at).into_iter().flat_map(|t| t.keys()) {
            match state.get(next) {
                Some(false) => {
                    let from = stack.iter().position(|m| *m == next).unwrap_or(0);
                    let mut cycle: Vec<Module> = stack[from..].iter().map(|m| m.to_vec()).collect();
                    cycle.push(next.clone());
                    found.push(cycle);
                }
                Some(true) => {}
                None => self.visit(next, stack, state, found),
            }
        }
        stack.pop();
        state.insert(at, true);
    }

    /// A cycle as text, each edge with the line that makes it.
    pub fn describe(&self, cycle: &[Module]) -> String {
        let mut text = show(&cycle[0]);
        for pair in cycle.windows(2) {
            let (file, line) = &self.edges[&pair[0]][&pair[1]];
            text.push_str(&format!(" -> {} ({file}:{line})", show(&pair[1])));
        }
        text
    }
}

fn show(module: &[String]) -> String {
    module.join("::")
}

/// The module a file is: `a/b.rs` and `a/b/mod.rs` are `a::b`, `lib.rs`
/// and `main.rs` the root.
fn module_of(name: &str) -> Module {
    let mut parts: Module = name
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

fn walk(root: &Path, dir: &Path, skip: &[&str], files: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.strip_prefix(root).expect("below the root");
        let name = name.to_string_lossy().into_owned();
        if path.is_dir() && !skip.contains(&name.as_str()) {
            walk(root, &path, skip, files);
        } else if name.ends_with(".rs") {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            files.push((name, text));
        }
    }
}
