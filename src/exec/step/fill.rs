//! A joined statement's query with its references filled from one row of
//! its driver at a time.
//!
//! The query is copied once per run of the statement, and where its
//! references are is found once; each row then only writes its values
//! into those places. Copying the whole query for each of a million rows
//! cost more than the rest of a point read.

use crate::codec;
use crate::directory::push_value;
use crate::plan::cast_holds;
use crate::syntax::ast::{Cast, DirElem, DirElems, Elem, ElemKind, Query, Reference};

use super::super::Error;
use super::super::bindings::RowSet;

/// A query whose join references take each row's values in turn.
pub struct Filled<'q, 'a> {
    template: &'q Query<'a>,
    query: Query<'a>,
    /// Each reference in the key and the value: where it is (the index of
    /// its element among the key's elements and the value, then within
    /// nested tuples), and where its value is in a row.
    slots: Vec<(Vec<usize>, usize)>,
    /// Where the value of each reference in the directory path is in a
    /// row, in path order; `None` when the path has none.
    dir: Option<Vec<Option<usize>>>,
    /// The casts of the references filled, with where their values are in
    /// a row: each must hold for every row.
    casts: Vec<(usize, &'q Reference<'a>)>,
    /// The buffer each row is decoded into, kept from row to row, empty
    /// between them: its elements borrow the row.
    values: Vec<Elem<'static>>,
}

impl<'q, 'a> Filled<'q, 'a> {
    /// `template` filled from rows of `driver`. A reference to a name the
    /// rows do not hold stays as it is, and fails as a hole would.
    pub fn new(template: &'q Query<'a>, driver: &RowSet) -> Filled<'q, 'a> {
        let mut slots = Vec::new();
        let mut casts = Vec::new();
        for (n, e) in template.elems().enumerate() {
            find(e, &mut vec![n], driver, &mut slots, &mut casts);
        }
        let refs: Vec<Option<usize>> = template
            .dir()
            .into_iter()
            .flat_map(|d| &d.elems)
            .filter_map(|e| match e {
                DirElem::Ref(r) => {
                    let at = driver.position(r.name.name);
                    if let (Some(at), Some(_)) = (at, &r.cast) {
                        casts.push((at, r));
                    }
                    Some(at)
                }
                _ => None,
            })
            .collect();
        Filled {
            template,
            query: template.clone(),
            slots,
            dir: (!refs.is_empty()).then_some(refs),
            casts,
            values: Vec::new(),
        }
    }

    /// The query with the values of `row`, a row of the driver.
    pub fn fill(&mut self, row: &[u8]) -> Result<&Query<'a>, Error> {
        let mut values = recycle(std::mem::take(&mut self.values));
        let decoded = codec::decode_key_into(&[], row, &mut values);
        let filled = decoded.then(|| {
            self.check_casts(&values)?;
            self.fill_from(&values);
            Ok(())
        });
        self.values = recycle(values);
        match filled {
            Some(Ok(())) => Ok(&self.query),
            Some(Err(e)) => Err(e),
            None => Err(Error::Spill {
                reason: "a row read back does not decode".into(),
            }),
        }
    }

    /// Whether each cast holds for the value the row gives its reference:
    /// a cast is checked before the script runs against the types the
    /// variable allows, and here against the value it took.
    fn check_casts(&self, values: &[Elem<'_>]) -> Result<(), Error> {
        for (at, r) in &self.casts {
            let Some(cast) = &r.cast else { continue };
            cast_failed(r.name.name, &values[*at].kind, cast).map_or(Ok(()), Err)?;
        }
        Ok(())
    }

    /// Writes the values of a row, decoded, into the query.
    fn fill_from(&mut self, values: &[Elem<'_>]) {
        let value = |n: usize| codec::to_owned(&values[n].kind);
        for (path, at) in &self.slots {
            *slot(&mut self.query, path) = value(*at);
        }
        if let Some(refs) = &self.dir {
            let mut elems = DirElems::new();
            let mut refs = refs.iter();
            let template = self
                .template
                .dir()
                .expect("a query with directory references");
            for e in &template.elems {
                let at = match e {
                    DirElem::Ref(_) => refs.next().copied().flatten(),
                    _ => None,
                };
                match (e, at) {
                    (DirElem::Ref(r), Some(at)) => push_value(&mut elems, value(at), r.span),
                    _ => elems.push(e.clone()),
                }
            }
            if let Some(dir) = self.query.dir_mut() {
                dir.elems = elems;
            }
        }
    }
}

/// `v` emptied, its memory kept for elements of another lifetime: the
/// elements have the same layout whatever they borrow, so collecting
/// an empty vector's iterator into one reuses its allocation.
fn recycle<'x>(mut v: Vec<Elem<'_>>) -> Vec<Elem<'x>> {
    v.clear();
    v.into_iter().map(|_| unreachable!("empty")).collect()
}

/// The error of a cast that does not hold for `value`, if it does not.
fn cast_failed(name: &str, value: &ElemKind<'_>, cast: &Cast) -> Option<Error> {
    (!cast_holds(value, cast.ty)).then(|| Error::CastFailed {
        name: name.to_string(),
        value: crate::plan::describe(value),
        cast: cast.ty,
        at: cast.span,
    })
}

/// Notes where the references in `e` are, `path` leading to it, and
/// those with a cast.
fn find<'q, 'a>(
    e: &'q Elem<'a>,
    path: &mut Vec<usize>,
    driver: &RowSet,
    out: &mut Vec<(Vec<usize>, usize)>,
    casts: &mut Vec<(usize, &'q Reference<'a>)>,
) {
    match &e.kind {
        ElemKind::Ref(r) => {
            if let Some(at) = driver.position(r.name.name) {
                out.push((path.clone(), at));
                if r.cast.is_some() {
                    casts.push((at, r));
                }
            }
        }
        ElemKind::Tuple(t) => {
            for (n, inner) in t.elems.iter().enumerate() {
                path.push(n);
                find(inner, path, driver, out, casts);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The element of `query` at `path`.
fn slot<'x, 'a>(query: &'x mut Query<'a>, path: &[usize]) -> &'x mut ElemKind<'a> {
    let elem = query
        .elems_mut()
        .nth(path[0])
        .expect("the path was found in the same query");
    let mut kind = &mut elem.kind;
    for &n in &path[1..] {
        let ElemKind::Tuple(t) = kind else {
            unreachable!("the path was found in the same query")
        };
        kind = &mut t.elems[n].kind;
    }
    kind
}

#[cfg(test)]
mod tests {
    use super::super::super::bindings::{Bindings, Fed};
    use super::*;
    use crate::syntax::ast::{Int, Item};

    /// Each row's values take the places of the references, in the key,
    /// the value and the path, and the rows are decoded into one buffer.
    #[test]
    fn rows_fill_one_query_through_one_buffer() {
        let script = crate::check::load("/:d(:x,(:y))=:x").unwrap();
        let Item::Statement(stmt) = &script.items[0] else {
            panic!("a statement")
        };
        let base = Bindings::default();
        let mut fed = Fed::new(&base);
        let mut built = fed.builder(None);
        for n in 0..3 {
            let mut captures = vec![
                ("d".to_string(), ElemKind::Str(format!("dir{n}").into())),
                ("x".to_string(), ElemKind::Int(Int::Small(n))),
                ("y".to_string(), ElemKind::Str("y".into())),
            ];
            built.push(&[], &mut captures).unwrap();
        }
        fed.insert(0, built).unwrap();
        let set = fed.get(0).unwrap();
        let mut filled = Filled::new(&stmt.query, set);
        let mut shown = Vec::new();
        let mut buffers = Vec::new();
        set.try_for_each(|row| {
            shown.push(filled.fill(row)?.to_string());
            assert!(filled.values.is_empty());
            buffers.push(filled.values.as_ptr());
            Ok(())
        })
        .unwrap();
        assert_eq!(
            shown,
            [
                "/dir0(0,(\"y\"))=0",
                "/dir1(1,(\"y\"))=1",
                "/dir2(2,(\"y\"))=2"
            ]
        );
        assert!(filled.values.capacity() >= 3);
        assert!(buffers.windows(2).all(|w| w[0] == w[1]), "one buffer");
    }
}
