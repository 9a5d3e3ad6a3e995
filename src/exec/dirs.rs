//! Finding the directories a query names: a path, or a pattern with `<>`
//! for one name and a trailing `...` for any number.

use crate::codec::ElementFilter;
use crate::directory::{DirectoryLayer, show};
use crate::kv::Transaction;
use crate::syntax::ast::{DirElem, Directory, ElemKind};

use super::Error;

/// The names of a directory path without holes.
pub fn path(dir: &Directory) -> Vec<String> {
    dir.elems
        .iter()
        .filter_map(|e| match e {
            DirElem::Name { name, .. } => Some(name.to_string()),
            _ => None,
        })
        .collect()
}

/// Every existing directory that `pattern` matches, parent before
/// children, children in name order. The root itself is never a match.
pub fn matching(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    pattern: &Directory,
) -> Result<Vec<Vec<String>>, Error> {
    let mut found: Vec<Vec<String>> = vec![Vec::new()];
    for elem in &pattern.elems {
        let mut next = Vec::new();
        for parent in found {
            match elem {
                DirElem::Name { name, .. } => {
                    let mut child = parent;
                    child.push(name.to_string());
                    if layer.exists(tx, &child)? {
                        next.push(child);
                    }
                }
                DirElem::Var(v) => {
                    let filter = ElementFilter::new(v).unwrap_or_default();
                    for name in layer.list(tx, &parent)? {
                        if filter.accepts(&ElemKind::Str(name.as_str().into())) {
                            let mut child = parent.clone();
                            child.push(name);
                            next.push(child);
                        }
                    }
                }
                // Substituted by the planner.
                DirElem::Ref(_) => {}
            }
        }
        found = next;
    }
    if pattern.rest.is_some() {
        let mut all = Vec::new();
        for p in found {
            descendants(tx, layer, p, &mut all)?;
        }
        found = all;
    }
    found.retain(|p| !p.is_empty());
    Ok(found)
}

/// `path` and everything under it, in order.
fn descendants(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    path: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> Result<(), Error> {
    let children = layer.list(tx, &path)?;
    out.push(path.clone());
    for name in children {
        let mut child = path.clone();
        child.push(name);
        descendants(tx, layer, child, out)?;
    }
    Ok(())
}

/// The path as FQL, for messages and output.
pub fn display(path: &[String]) -> String {
    show(path)
}

/// The directories a key query reads: its path when it has no holes (read
/// or not, it may be missing), else every match.
pub fn matching_or_path(
    tx: &mut dyn Transaction,
    layer: &DirectoryLayer,
    pattern: &Directory,
) -> Result<Vec<Vec<String>>, Error> {
    if pattern.has_holes() {
        matching(tx, layer, pattern)
    } else {
        Ok(vec![path(pattern)])
    }
}

/// The values of the named variables of `pattern` in a matching `path`.
pub fn captures(pattern: &Directory, path: &[String], out: &mut Vec<(String, ElemKind)>) {
    for (elem, name) in pattern.elems.iter().zip(path) {
        if let DirElem::Var(v) = elem
            && let Some(n) = &v.name
        {
            out.push((n.name.to_string(), ElemKind::Str(name.as_str().into())));
        }
    }
}
