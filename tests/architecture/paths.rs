//! The module paths a file names through `crate::`, `super::` and `self::`,
//! use trees (`use crate::{a::b, c}`) expanded, each made absolute from
//! the module (inline `mod tests { .. }` blocks included) it is written in.

use super::lex::Tok;

/// An absolute path from the crate root, and the line that names it.
#[derive(Debug, PartialEq)]
pub struct Named {
    pub path: Vec<String>,
    pub line: usize,
}

/// Every path `toks` name, read in the file module `module`.
pub fn named(toks: &[(Tok, usize)], module: &[String]) -> Vec<Named> {
    let mut out = Vec::new();
    let mut scope = module.to_vec();
    // Inline modules open: the brace depth each closes at.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Ident(m) if m == "mod" => {
                if let (Some((Tok::Ident(name), _)), Some((Tok::Open, _))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    scope.push(name.clone());
                    inline.push(depth);
                    depth += 1;
                    i += 3;
                    continue;
                }
            }
            Tok::Open => depth += 1,
            Tok::Close => {
                depth -= 1;
                if inline.last() == Some(&depth) {
                    inline.pop();
                    scope.pop();
                }
            }
            Tok::Ident(w) if is_start(w) && matches!(toks.get(i + 1), Some((Tok::Sep, _))) => {
                let line = toks[i].1;
                let mut paths = Vec::new();
                i = tree(toks, i, Vec::new(), &mut paths);
                out.extend(
                    paths
                        .into_iter()
                        .filter_map(|p| absolute(&scope, p))
                        .map(|path| Named { path, line }),
                );
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn is_start(word: &str) -> bool {
    matches!(word, "crate" | "super" | "self")
}

/// Reads the path or use tree at `i`, each full path appended to `prefix`
/// and pushed on `out`; returns the index after it.
fn tree(
    toks: &[(Tok, usize)],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::Ident(seg)) if seg != "as" => prefix.push(seg.clone()),
            Some(Tok::Open) => return group(toks, i + 1, &prefix, out),
            _ => break,
        }
        i += 1;
        if !matches!(toks.get(i), Some((Tok::Sep, _))) {
            break;
        }
        i += 1;
    }
    out.push(prefix);
    i
}

/// Reads the trees of a `{ .. }` group from just after its brace.
fn group(
    toks: &[(Tok, usize)],
    mut i: usize,
    prefix: &[String],
    out: &mut Vec<Vec<String>>,
) -> usize {
    while let Some((tok, _)) = toks.get(i) {
        match tok {
            Tok::Close => return i + 1,
            Tok::Comma => i += 1,
            Tok::Ident(w) if w == "self" => {
                out.push(prefix.to_vec());
                i += 1;
            }
            Tok::Ident(_) | Tok::Open => i = tree(toks, i, prefix.to_vec(), out),
            // `*`, and an alias's name after `as`.
            _ => i += 1,
        }
        if let Some((Tok::Ident(w), _)) = toks.get(i)
            && w == "as"
        {
            i += 2;
        }
    }
    i
}

/// `path` from the crate root, read in `scope`; `None` for a path that
/// climbs above the root.
fn absolute(scope: &[String], path: Vec<String>) -> Option<Vec<String>> {
    let mut base = scope.to_vec();
    let mut rest = path.into_iter().peekable();
    match rest.peek().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest.next();
        }
        Some("self") => {
            rest.next();
        }
        _ => {}
    }
    while rest.peek().map(String::as_str) == Some("super") {
        base.pop()?;
        rest.next();
    }
    base.extend(rest);
    Some(base)
}
