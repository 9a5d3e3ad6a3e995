//! The root that relative paths start from.
//!
//! A script that writes `./users(42)` runs the same in any directory: the
//! command line's `--root DIR` (or the shell's `\cd`) says which, and the
//! planner puts the path under it. One rule serves both: [`Root::change`]
//! reads `--root` and `\cd` with the same parser as a script's paths, and
//! [`Root::resolve`] turns a script's relative path into an absolute one.

use std::borrow::Cow;
use std::fmt;

use crate::syntax::ParseError;
use crate::syntax::ast::{DirElem, DirElems, Directory, Item, Query, Relative, Span};

use super::Error;

/// An absolute directory path, names only; empty is `/`, the top of the
/// directory layer and the default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Root(Vec<String>);

/// Why a root cannot be changed to the path given.
#[derive(Clone, Debug, PartialEq, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum RootError {
    /// The text is not FQL.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Parse(#[from] ParseError),
    /// It is FQL, but more than the path of one directory.
    #[error("a root is one directory, named in full")]
    #[diagnostic(
        code(fql::bad_root),
        help(
            "write a path of names, such as `/app/tests` or `../other`: no tuple, variable, reference, `...`, options or second statement"
        )
    )]
    NotOneDirectory {
        /// What is more than a path.
        #[label("not part of a directory path")]
        at: Span,
    },
    /// A bare name, `app/tests`: in a script that is no statement, and
    /// said here in terms of paths.
    #[error("`{text}` is not a directory path")]
    #[diagnostic(
        code(fql::bad_root),
        help(
            "a path starts with `/` (`/{text}`), or with `./` or `../` to start at the current root"
        )
    )]
    Unanchored {
        /// The text.
        text: String,
        /// All of it.
        #[label("a path starts with `/`, `./` or `../`")]
        at: Span,
    },
    /// `..` above the top.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Resolve(#[from] Error),
}

impl Root {
    /// The root at `names`, top first.
    pub fn new(names: Vec<String>) -> Root {
        Root(names)
    }

    /// The names of its path, top first; none for `/`.
    pub fn names(&self) -> &[String] {
        &self.0
    }

    /// The root `text` names from this one: `/` or an absolute path
    /// (`/app/tests`) stand for themselves; a relative one (`./x`, `..`,
    /// `../y`, `.`) starts here. `--root` is a change from `/`, `\cd`
    /// one from the shell's current root.
    pub fn change(&self, text: &str) -> Result<Root, RootError> {
        match text.as_bytes().first() {
            None | Some(b'/' | b'.') if text == "/" => return Ok(Root::default()),
            None | Some(b'/' | b'.') => {}
            Some(_) => {
                return Err(RootError::Unanchored {
                    text: text.to_string(),
                    at: Span::new(0, text.len()),
                });
            }
        }
        let script = crate::syntax::parse(text).map_err(|mut errors| errors.swap_remove(0))?;
        let whole = Span::new(0, text.len());
        let [Item::Statement(statement)] = script.items.as_slice() else {
            return Err(RootError::NotOneDirectory { at: whole });
        };
        let dir = match &statement.query {
            Query::Directory(dir) if statement.options.is_empty() => dir,
            Query::Directory(_) => {
                return Err(RootError::NotOneDirectory {
                    at: statement.options.span,
                });
            }
            other => {
                // A raw key has no directory: all of it is too much.
                let from = other.dir().map_or(statement.span.start, |d| d.span.end);
                let at = Span::new(from as usize, statement.span.end as usize);
                return Err(RootError::NotOneDirectory { at });
            }
        };
        if let Some(rest) = dir.rest {
            return Err(RootError::NotOneDirectory { at: rest });
        }
        let mut names = self.base(dir.relative)?;
        for elem in &dir.elems {
            match elem {
                DirElem::Name { name, .. } => names.push(name.to_string()),
                DirElem::Var(v) => return Err(RootError::NotOneDirectory { at: v.span }),
                DirElem::Ref(r) => return Err(RootError::NotOneDirectory { at: r.span }),
            }
        }
        Ok(Root(names))
    }

    /// The names a path with this head starts from: none for an absolute
    /// path, the root's for `.`, fewer for each `..`.
    fn base(&self, relative: Option<Relative>) -> Result<Vec<String>, Error> {
        let Some(relative) = relative else {
            return Ok(Vec::new());
        };
        let up = relative.up as usize;
        if up > self.0.len() {
            return Err(Error::AboveRoot {
                root: self.to_string(),
                depth: self.0.len(),
                at: relative.step(self.0.len() as u32),
            });
        }
        Ok(self.0[..self.0.len() - up].to_vec())
    }

    /// The path `path` (names, top first) as a relative path from this
    /// root, the inverse of [`Root::change`]: `./users` below it, `..`
    /// or `../other` beside or above it, `.` for the root itself.
    pub fn relative(&self, path: &[String]) -> String {
        let common = self.0.iter().zip(path).take_while(|(a, b)| a == b).count();
        let up = self.0.len() - common;
        let mut out = match up {
            0 => ".".to_string(),
            n => vec![".."; n].join("/"),
        };
        if common < path.len() {
            out.push_str(&crate::directory::show(&path[common..]));
        }
        out
    }

    /// Makes a relative `dir` absolute, under this root. A path that
    /// climbs above `/`, or that names `/` itself where a directory is
    /// needed, is an error.
    pub fn resolve(&self, dir: &mut Directory<'_>) -> Result<(), Error> {
        let Some(relative) = dir.relative else {
            return Ok(());
        };
        let base = self.base(Some(relative))?;
        if base.is_empty() && dir.elems.is_empty() && dir.rest.is_none() {
            return Err(Error::TopPath { at: dir.span });
        }
        let mut elems = DirElems::new();
        for name in base {
            elems.push(DirElem::Name {
                name: Cow::Owned(name),
                span: relative.span,
            });
        }
        for elem in std::mem::take(&mut dir.elems) {
            elems.push(elem);
        }
        dir.elems = elems;
        dir.relative = None;
        Ok(())
    }
}

/// As FQL writes it: `/` or `/app/tests`.
impl fmt::Display for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::directory::show(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(text: &str) -> Root {
        Root::default().change(text).expect("a root")
    }

    fn code(result: Result<Root, RootError>) -> String {
        let e = result.expect_err("an error");
        miette::Diagnostic::code(&e).unwrap().to_string()
    }

    #[test]
    fn changes_follow_one_rule() {
        let app = root("/app/tests");
        assert_eq!(app.names(), ["app", "tests"]);
        assert_eq!(app.to_string(), "/app/tests");
        assert_eq!(app.change("..").unwrap(), root("/app"));
        assert_eq!(app.change("../..").unwrap(), Root::default());
        assert_eq!(app.change(".").unwrap(), app);
        assert_eq!(app.change("./x").unwrap(), root("/app/tests/x"));
        assert_eq!(app.change("../y/\"z w\"").unwrap(), root("/app/y/\"z w\""));
        assert_eq!(app.change("/other").unwrap(), root("/other"));
        assert_eq!(app.change("/").unwrap(), Root::default());
        assert_eq!(root("./a"), root("/a"), "from `/`");
    }

    #[test]
    fn bad_roots_are_errors() {
        let app = root("/app");
        assert_eq!(code(app.change("../..")), "fql::above_root");
        assert_eq!(code(app.change("/a(1)")), "fql::bad_root");
        assert_eq!(code(app.change("/a/<>")), "fql::bad_root");
        assert_eq!(code(app.change("/a/:x")), "fql::bad_root");
        assert_eq!(code(app.change("/a/...")), "fql::bad_root");
        assert_eq!(code(app.change("[reverse] /a")), "fql::bad_root");
        assert_eq!(code(app.change("/a\n/b")), "fql::bad_root");
        assert_eq!(code(app.change("a")), "fql::bad_root");
        assert_eq!(code(app.change("/a(")), "fql::unclosed");
        assert_eq!(code(app.change("/a/./b")), "fql::invalid_name");
        assert_eq!(code(app.change("")), "fql::bad_root");
    }

    /// A path written relative to a root and read back from it is the
    /// same path.
    #[test]
    fn relative_paths_read_back_as_written() {
        let app = root("/app/tests");
        for (path, text) in [
            ("/app/tests/users", "./users"),
            ("/app/tests/a/b", "./a/b"),
            ("/app/tests", "."),
            ("/app", ".."),
            ("/app/other", "../other"),
            ("/x/\"y z\"", "../../x/\"y z\""),
        ] {
            let names = root(path).names().to_vec();
            assert_eq!(app.relative(&names), text, "{path}");
            assert_eq!(app.change(text).unwrap().names(), names, "{text}");
        }
        assert_eq!(Root::default().relative(&["a".into()]), "./a");
    }

    /// The `..` that climbs too far is the one pointed at.
    #[test]
    fn the_step_above_the_top_is_pointed_at() {
        let Err(RootError::Resolve(e)) = root("/a").change("../../x") else {
            panic!("an error");
        };
        assert_eq!(e.span().range(), 3..5);
    }
}
