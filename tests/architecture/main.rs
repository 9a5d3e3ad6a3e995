//! No import cycle between the modules of the library, nor between those
//! of the `fql` binary: each layer names only what is below it, so each can
//! be read, tested and replaced without the others.
//!
//! A file's module is its path (`src/exec/found.rs` is `exec::found`); an
//! import is any path through `crate::`, `super::` or `self::`, use trees
//! expanded, and it counts between the two sibling modules that hold the
//! importing file and the imported item (`exec::found` naming
//! `crate::codec::Error` is `exec -> codec`). Paths through `fql::` leave
//! the binary for the library and make no edge.

mod graph;
mod layers;
mod lex;
mod paths;

use std::path::Path;

use graph::Graph;

/// Panics with every cycle of the crate rooted in `dir`.
fn assert_acyclic(dir: &str, skip: &[&str]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let graph = Graph::read(&dir, skip);
    assert!(
        !graph.edges.is_empty(),
        "no import found under {}",
        dir.display()
    );
    let cycles: Vec<String> = graph.cycles().iter().map(|c| graph.describe(c)).collect();
    assert!(
        cycles.is_empty(),
        "import cycles under {}:\n{}",
        dir.display(),
        cycles.join("\n")
    );
}

#[test]
fn the_library_has_no_import_cycle() {
    assert_acyclic("src", &["bin"]);
}

#[test]
fn the_binary_has_no_import_cycle() {
    assert_acyclic("src/bin/fql", &[]);
}

mod detector {
    use super::graph::Graph;

    fn graph(files: &[(&str, &str)]) -> Graph {
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        Graph::of(&files)
    }

    fn cycles(files: &[(&str, &str)]) -> Vec<String> {
        let g = graph(files);
        g.cycles().iter().map(|c| g.describe(c)).collect()
    }

    #[test]
    fn a_cycle_between_siblings_is_found_with_its_lines() {
        let found = cycles(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;"),
            ("a.rs", "use crate::b::B;"),
            ("b.rs", "// crate::c\nfn f() { super::a::g() }"),
            ("c.rs", "use crate::a;"),
        ]);
        assert_eq!(found, ["a -> b (a.rs:1) -> a (b.rs:2)"]);
    }

    #[test]
    fn edges_are_lifted_to_siblings() {
        let found = cycles(&[
            ("a.rs", "mod x;"),
            ("a/x.rs", "use crate::b::y::Y;"),
            ("b/mod.rs", "mod y;"),
            ("b/y.rs", "/// [`crate::a`]\nuse super::super::a::x::X;"),
        ]);
        assert_eq!(found, ["a -> b (a/x.rs:1) -> a (b/y.rs:2)"]);
    }

    #[test]
    fn use_trees_are_expanded() {
        let found = cycles(&[
            ("p/a.rs", "use crate::{q, p::{self as me, b::{B, C}}};"),
            ("p/b.rs", "pub(crate) use super::{c::*, a as x};"),
        ]);
        assert_eq!(found, ["p::a -> p::b (p/a.rs:1) -> p::a (p/b.rs:1)"]);
    }

    #[test]
    fn what_names_no_module_makes_no_edge() {
        let g = graph(&[
            (
                "a.rs",
                "mod tests {\n use super::helper;\n}\nuse self::inner::X;\nfn f() { fql::b::run() }",
            ),
            ("a/inner.rs", "use super::X; use crate::a::Y;"),
            (
                "b.rs",
                "const S: &str = \"crate::a\"; const R: &str = r#\"super::a\"#; const C: char = '\"'; fn g<'a>(x: &'a str) { crate::a::f() }",
            ),
        ]);
        let edges: Vec<_> = g
            .edges
            .iter()
            .flat_map(|(f, t)| t.keys().map(move |t| (f.join("::"), t.join("::"))))
            .collect();
        assert_eq!(edges, [("b".to_string(), "a".to_string())]);
    }

    #[test]
    fn the_source_tree_is_read() {
        let g = Graph::read(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &["bin"],
        );
        let exec = vec!["exec".to_string()];
        assert!(
            g.edges[&exec].contains_key(&vec!["kv".to_string()]),
            "{:?}",
            g.edges[&exec]
        );
    }
}
