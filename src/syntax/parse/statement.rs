//! Statements and scripts: directories, keys, values, query options, meta
//! statements, and recovery after an error.

use super::hints::with_fix;
use super::lex::{excerpt, fail, failure, hspace, junk, line_break, peek, recover, word};
use super::literal::starts_bytes;
use super::{PResult, Parser};
use std::borrow::Cow;

use crate::syntax::ast::{
    AtomicOp, DirElem, Directory, Elem, ElemKind, Item, Key, KeyValue, Meta, MetaKind, Mutation,
    Options, Query, RawKey, RawKeyKind, RawKeyValue, Relative, Span, Statement, Tuple, Value,
};
use crate::syntax::error::ParseError;
use crate::syntax::items::Items;
use crate::syntax::names::{is_name_byte, is_name_start};

impl<'a> Parser<'a> {
    /// Every item of the script; errors, comments and blank lines are
    /// collected on the way.
    pub(super) fn script(&mut self, i: &'a str) -> Items<Item<'a>> {
        let mut i = self.skip_lines(i);
        if i.is_empty() {
            return Items::default();
        }
        // A long script is sized by its lines (at most one item each), so
        // a million statements are not copied again and again as the list
        // grows; a short one starts empty, and a lone query goes in a box
        // of its own (see `Items`).
        let capacity = if i.len() > 4096 {
            memchr::memchr_iter(b'\n', i.as_bytes()).count() + 1
        } else {
            1
        };
        // The items are gathered apart from the parser, which the item
        // parsers borrow.
        let mut items = Items::with_capacity(capacity);
        loop {
            let (errors_before, items_before) = (self.errors.len(), items.len());
            let result = self.item(i, &mut items);
            // A statement with an error is left out, so the checker does not
            // report what follows from it; an unknown meta statement stays,
            // as the boundary it was meant to be.
            let flawed = self.errors.len() != errors_before
                && matches!(items.last(), Some(Item::Statement(_)));
            if result.is_err() || flawed {
                items.truncate(items_before);
            }
            match result {
                Ok(rest) => i = rest,
                Err(nom::Err::Error(f) | nom::Err::Failure(f)) => {
                    let error = match f.error {
                        Some(e) => *e,
                        None => self.expected(i, "a statement", None),
                    };
                    self.report(error);
                    i = recover(i);
                }
                Err(nom::Err::Incomplete(_)) => unreachable!("complete parsers only"),
            }
            i = self.skip_lines(i);
            if i.is_empty() {
                return items;
            }
        }
    }

    /// A statement (with its query options) or a meta statement, through
    /// the end of its line, pushed onto `items`.
    fn item(
        &mut self,
        i: &'a str,
        items: &mut Items<Item<'a>>,
    ) -> Result<&'a str, nom::Err<super::Fail>> {
        match peek(i) {
            Some(b'@') => {
                let (rest, meta) = self.meta(i)?;
                let (rest, ()) = self.end_of_line(rest, "the end of the line")?;
                items.push(Item::Meta(meta));
                Ok(rest)
            }
            Some(b'/' | b'.') => {
                let rest = self.statement(i, self.pos(i), Options::default(), items)?;
                let (rest, ()) = self.end_of_line(rest, "the end of the statement")?;
                Ok(rest)
            }
            Some(b'0' | b'b') if starts_bytes(i) => {
                let rest = self.raw_statement(i, self.pos(i), Options::default(), items)?;
                let (rest, ()) = self.end_of_line(rest, "the end of the statement")?;
                Ok(rest)
            }
            Some(b'[') => {
                let start = self.pos(i);
                let (after, opts) = self.options(i)?;
                let j = self.query_start(after);
                if peek(j) == Some(b'[') {
                    return Err(failure(self.second_list(&self.src[opts.span.range()], j)));
                }
                let rest = match peek(j) {
                    Some(b'/' | b'.') => self.statement(j, start, opts, items)?,
                    Some(b'0' | b'b') if starts_bytes(j) => {
                        self.raw_statement(j, start, opts, items)?
                    }
                    _ => return Err(failure(ParseError::DanglingOptions { at: opts.span })),
                };
                let (rest, ()) = self.end_of_line(rest, "the end of the statement")?;
                Ok(rest)
            }
            _ => Err(failure(ParseError::ExpectedStatement {
                at: self.span_of(junk(i)),
            })),
        }
    }

    /// Where the query after query options ending at `i` starts: on the
    /// same line, or on the next line that is not a comment line (a
    /// comment is whitespace), after any comment on the options' line.
    fn query_start(&mut self, i: &'a str) -> &'a str {
        let mut j = hspace(i);
        loop {
            if peek(j) == Some(b'%') {
                j = self.comment(j);
            }
            let Some(next) = line_break(j) else {
                return j;
            };
            j = hspace(next);
            if peek(j) != Some(b'%') {
                return j;
            }
        }
    }

    /// `@` and a word.
    fn meta(&mut self, i: &'a str) -> PResult<'a, Meta> {
        let (after, w) = word(&i[1..]);
        let span = self.span_from(self.pos(i), after);
        match MetaKind::from_name(w) {
            Some(kind) => Ok((after, Meta { kind, span })),
            None if w.is_empty() => {
                fail(self.expected(after, "a meta statement such as `@commit`", None))
            }
            None => {
                self.report(ParseError::UnknownMeta {
                    name: excerpt(w),
                    at: span,
                    help: MetaKind::suggest(w),
                });
                Ok((
                    after,
                    Meta {
                        kind: MetaKind::Commit,
                        span,
                    },
                ))
            }
        }
    }

    /// A query: a directory, `dir=remove`, or a key-value. `start` is
    /// where its options began, if it has any.
    ///
    /// The statement is parsed in place, into an item pushed onto `items`
    /// first: with its inline directory and key tuple a statement is
    /// hundreds of bytes, and built apart and moved there it was copied
    /// five times over. An error leaves the item half filled; the script
    /// parser takes it away again.
    fn statement(
        &mut self,
        i: &'a str,
        start: usize,
        options: Options<'a>,
        items: &mut Items<Item<'a>>,
    ) -> Result<&'a str, nom::Err<super::Fail>> {
        let item = items.push_with(|| {
            Item::Statement(Statement {
                options,
                query: Query::KeyValue(KeyValue {
                    key: Key {
                        dir: Directory::default(),
                        prefix: None,
                        tuple: Tuple::default(),
                    },
                    value: Value::Omitted,
                }),
                span: Span::default(),
            })
        });
        let Item::Statement(statement) = item else {
            unreachable!("a statement was pushed")
        };
        self.statement_into(i, start, statement)
    }

    /// [`Parser::statement`] into `out`, which holds an empty key-value.
    #[inline(always)]
    fn statement_into(
        &mut self,
        i: &'a str,
        start: usize,
        out: &mut Statement<'a>,
    ) -> Result<&'a str, nom::Err<super::Fail>> {
        let Query::KeyValue(kv) = &mut out.query else {
            unreachable!("the statement starts as a key-value")
        };
        let i = self.directory(i, &mut kv.key.dir)?;
        let i = match peek(i) {
            Some(b'(') => {
                let i = self.tuple(i, &mut kv.key.tuple)?;
                match i.strip_prefix('=') {
                    Some(v) => self.value(v, &mut kv.value)?,
                    None => i,
                }
            }
            Some(b'=') => {
                let at = &i[1..];
                let (after, w) = word(at);
                if w != "remove" || peek(after).is_some_and(is_name_byte) {
                    let help = match w {
                        "clear" => "to clear every key in the directory, write `/dir(...)=clear`",
                        _ => {
                            "a value needs a key: write a tuple after the directory, as in `/dir(1)=2`"
                        }
                    };
                    return Err(failure(self.expected(at, "`remove`", Some(help.into()))));
                }
                let keyword = self.span_of(w);
                let dir = std::mem::take(&mut kv.key.dir);
                replace_empty_key_value(&mut out.query, Query::Remove { dir, keyword });
                after
            }
            _ => {
                let dir = std::mem::take(&mut kv.key.dir);
                replace_empty_key_value(&mut out.query, Query::Directory(dir));
                i
            }
        };
        out.span = self.span_from(start, i);
        Ok(i)
    }

    /// A statement on raw keys: `0x15ff`, `0x15ff...` or `0x15..0x16`,
    /// then optionally `=` and a value, pushed onto `items`. `start` is
    /// where its options began, if it has any.
    fn raw_statement(
        &mut self,
        i: &'a str,
        start: usize,
        options: Options<'a>,
        items: &mut Items<Item<'a>>,
    ) -> Result<&'a str, nom::Err<super::Fail>> {
        let (i, key) = self.raw_key(i)?;
        if peek(i) == Some(b'(') {
            return match key.kind {
                RawKeyKind::Key(prefix) => {
                    self.prefixed_statement(i, start, options, (prefix, key.span), items)
                }
                _ => {
                    let help = "a tuple follows the bytes of a prefix alone, as in `0x0261707000(1)`; a range of raw keys is its bytes alone";
                    Err(failure(self.expected(
                        i,
                        "`=` or the end of the statement",
                        Some(help.into()),
                    )))
                }
            };
        }
        let mut value = Value::Omitted;
        let i = match i.strip_prefix('=') {
            Some(v) => self.value(v, &mut value)?,
            None => i,
        };
        items.push(Item::Statement(Statement {
            options,
            query: Query::Raw(RawKeyValue { key, value }),
            span: self.span_from(start, i),
        }));
        Ok(i)
    }

    /// A key-value whose tuple follows raw bytes, `0x0261707000(1)=2`:
    /// the keys of a subspace that is no directory. `i` is at the `(`.
    fn prefixed_statement(
        &mut self,
        i: &'a str,
        start: usize,
        options: Options<'a>,
        (prefix, at): (Vec<u8>, Span),
        items: &mut Items<Item<'a>>,
    ) -> Result<&'a str, nom::Err<super::Fail>> {
        let mut kv = KeyValue {
            key: Key {
                dir: Directory {
                    span: at,
                    ..Directory::default()
                },
                prefix: Some(prefix.into()),
                tuple: Tuple::default(),
            },
            value: Value::Omitted,
        };
        let i = self.tuple(i, &mut kv.key.tuple)?;
        let i = match i.strip_prefix('=') {
            Some(v) => self.value(v, &mut kv.value)?,
            None => i,
        };
        items.push(Item::Statement(Statement {
            options,
            query: Query::KeyValue(kv),
            span: self.span_from(start, i),
        }));
        Ok(i)
    }

    /// `0x15ff`, `0x15ff...` or `0x15..0x16`, each key in either form of
    /// bytes (`b"\x15\xff"`).
    fn raw_key(&mut self, i: &'a str) -> PResult<'a, RawKey> {
        let start = self.pos(i);
        let (rest, first) = self.bytes_literal(i)?;
        let (rest, kind) = if let Some(after) = rest.strip_prefix("...") {
            (after, RawKeyKind::Prefix(first))
        } else if let Some(after) = rest.strip_prefix("..") {
            if !starts_bytes(after) {
                let help = "a range of raw keys is written `0x15..0x16`: its first key, `..`, and the key it ends before";
                return fail(self.expected(after, "bytes such as `0x16`", Some(help.into())));
            }
            let (after, end) = self.bytes_literal(after)?;
            (after, RawKeyKind::Range(first, end))
        } else {
            (rest, RawKeyKind::Key(first))
        };
        let span = self.span_from(start, rest);
        Ok((rest, RawKey { kind, span }))
    }

    /// What follows `=` after a key: `clear`, an atomic operation, or an
    /// element and its options, written into `out`.
    ///
    /// The element is parsed straight into the statement's value: returned
    /// instead, it was moved through three frames on its way there.
    fn value(&mut self, i: &'a str, out: &mut Value<'a>) -> Result<&'a str, nom::Err<super::Fail>> {
        // Only a word starting with `c` or `r` can be `clear` or `remove`;
        // other values are not scanned twice.
        if matches!(peek(i), Some(b'c' | b'r')) {
            let (after, w) = word(i);
            if !peek(after).is_some_and(|b| is_name_byte(b) || b == b'-') {
                match w {
                    "clear" => {
                        *out = Value::Clear(self.span_of(w));
                        return Ok(after);
                    }
                    "remove" => {
                        let help = "`remove` removes a directory: write the directory alone, as in `/dir=remove`";
                        return Err(failure(self.expected(
                            i,
                            "a value or `clear`",
                            Some(help.into()),
                        )));
                    }
                    _ => {}
                }
            }
        }
        // A word right before `(` is an atomic operation, unless it is one
        // of the typed literals (`f32(1.5)`, `user(0x40,0xaa)`): no other
        // value is a word followed by a tuple.
        if peek(i).is_some_and(|b| b.is_ascii_alphabetic()) {
            let (after, w) = word(i);
            if peek(after) == Some(b'(') && !super::typed::TYPED_LITERALS.contains(&w) {
                let mutation = self.mutation(i, w, &after[1..])?;
                let rest = &i[mutation.span.len()..];
                *out = Value::Mutate(Box::new(mutation));
                return Ok(rest);
            }
        }
        if i.starts_with("...") {
            let help = "`...` may stand only last in a tuple or a directory path; a value matching anything is `<>`";
            return Err(failure(self.expected(
                i,
                "a value or `clear`",
                Some(help.into()),
            )));
        }
        let i = match self.element_into(i, out) {
            Ok(rest) => rest,
            Err(nom::Err::Error(_)) => {
                let space = i.len() - hspace(i).len();
                let help = (space > 0).then(|| {
                    with_fix(
                        "FQL allows no spaces around `=`",
                        self.line_edit(self.pos(i), space, ""),
                    )
                });
                return Err(failure(self.expected_element(
                    i,
                    "a value or `clear`",
                    help,
                )));
            }
            Err(e) => return Err(e),
        };
        if peek(i) != Some(b'[') {
            return Ok(i);
        }
        let (i, opts) = self.options(i)?;
        let Value::Data(elem, options) = out else {
            unreachable!("an element was parsed")
        };
        if let ElemKind::Var(var) = &elem.kind {
            let help = self.options_inside(elem, !var.types.is_empty(), &opts);
            self.report(ParseError::OptionsOnVariable {
                at: opts.span,
                help,
            });
        }
        *options = opts;
        Ok(i)
    }

    /// An atomic operation: its name `w`, which starts `i`, then `(`, an
    /// operand and its options, and `)`; `inner` is the text after `(`.
    fn mutation(
        &mut self,
        i: &'a str,
        w: &'a str,
        inner: &'a str,
    ) -> Result<Mutation<'a>, nom::Err<super::Fail>> {
        let start = self.pos(i);
        let op_span = self.span_of(w);
        let Some(op) = AtomicOp::from_name(w) else {
            let names: Vec<&str> = AtomicOp::ALL.iter().map(|o| o.name()).collect();
            let known = format!("the atomic operations are {}", names.join(", "));
            let help = match AtomicOp::suggest(w) {
                Some(hint) => format!("{hint} ({known})"),
                None => known,
            };
            return Err(failure(ParseError::Expected {
                expected: "a value, `clear` or an atomic operation".into(),
                found: format!("`{}(`", excerpt(w)),
                at: op_span,
                help: Some(help),
            }));
        };
        let example = op.example();
        let mut operand = None;
        let rest = match self.element_into(inner, &mut operand) {
            Ok(rest) => rest,
            Err(nom::Err::Error(_)) => {
                let help = match peek(inner) {
                    Some(b' ' | b'\t') => {
                        format!("no spaces inside `{op}(...)`: write `{example}`")
                    }
                    _ => format!("`{op}` takes one value, as in `{example}`"),
                };
                return Err(failure(self.expected(inner, "an operand", Some(help))));
            }
            Err(e) => return Err(e),
        };
        let operand: Elem<'a> = operand.expect("an element was parsed");
        if let ElemKind::Var(_) = operand.kind {
            return Err(failure(ParseError::Expected {
                expected: "data".into(),
                found: "a variable".into(),
                at: operand.span,
                help: Some(format!(
                    "an atomic operation writes without reading, so its operand is data, as in `{example}`"
                )),
            }));
        }
        let (rest, options) = if peek(rest) == Some(b'[') {
            self.options(rest)?
        } else {
            (rest, Options::default())
        };
        let Some(after) = rest.strip_prefix(')') else {
            let help = match peek(rest) {
                Some(b',') => format!(
                    "`{op}` takes one operand; a tuple stands in parentheses of its own, as in `{op}((1,2))`"
                ),
                _ => format!("close the operation, as in `{example}`"),
            };
            return Err(failure(self.expected(rest, "`)`", Some(help))));
        };
        Ok(Mutation {
            op,
            op_span,
            operand,
            options,
            span: self.span_from(start, after),
        })
    }

    /// The fix for `<int>[i64]`: `<int[i64]>`.
    fn options_inside(&self, elem: &Elem, typed: bool, opts: &Options) -> String {
        let var_text = &self.src[elem.span.range()];
        let opts_text = &self.src[opts.span.range()];
        if typed {
            format!("write `{}{opts_text}>`", &var_text[..var_text.len() - 1])
        } else {
            format!("give the variable a type and put them after it, as in `<int{opts_text}>`")
        }
    }

    /// `/` elements: names, quoted strings, variables, references, and a
    /// final `...`, into `out`, an empty directory.
    fn directory(
        &mut self,
        i: &'a str,
        out: &mut Directory<'a>,
    ) -> Result<&'a str, nom::Err<super::Fail>> {
        let start = self.pos(i);
        let mut i = self.relative(i, out)?;
        // Every element goes through the one push below: with a push in each
        // branch, the vector's push was left out of line, a call per element.
        while let Some(at) = i.strip_prefix('/') {
            // `/(`: a key at the root of the keyspace, outside every
            // directory (the root directory's prefix is empty).
            if peek(at) == Some(b'(') && out.elems.is_empty() && out.relative.is_none() {
                i = at;
                break;
            }
            let (after, elem) = match peek(at) {
                Some(b) if is_name_start(b) => {
                    let (after, name) = word(at);
                    let span = self.span_of(name);
                    let name = Cow::Borrowed(name);
                    (after, DirElem::Name { name, span })
                }
                Some(b'"') => {
                    let (after, name) = self.string(at)?;
                    let span = self.span_from(self.pos(at), after);
                    (after, DirElem::Name { name, span })
                }
                Some(b'<') => {
                    let (after, v) = self.variable(at)?;
                    (after, DirElem::Var(Box::new(v)))
                }
                Some(b':') => {
                    let (after, r) = self.reference(at)?;
                    (after, DirElem::Ref(Box::new(r)))
                }
                Some(b'.') if dot_name(at) => return Err(failure(self.dot_in_path(at))),
                Some(b'.') if at.starts_with("...") => {
                    let span = self.span_of(&at[..3]);
                    let after = &at[3..];
                    if let Some(next) = after.strip_prefix('/') {
                        let next = Span::new(self.pos(after), self.pos(next) + junk(next).len());
                        return Err(failure(ParseError::RestNotLast { rest: span, next }));
                    }
                    out.rest = Some(span);
                    i = after;
                    break;
                }
                None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'(' | b'=' | b'/' | b'%') => {
                    let help = self.slash_help(&self.src[start..self.pos(i)], at);
                    return Err(failure(self.expected(at, "a directory name", Some(help))));
                }
                Some(_) => return Err(failure(self.invalid_dir_name(dir_junk(at)))),
            };
            if !matches!(
                peek(after),
                None | Some(b'/' | b'(' | b'=' | b' ' | b'\t' | b'\r' | b'\n' | b'%')
            ) {
                let bare = !at.starts_with('"');
                let named = matches!(elem, DirElem::Name { .. });
                if bare && named && peek(after) != Some(b'[') {
                    return Err(failure(self.invalid_dir_name(dir_junk(at))));
                }
                let help = "a directory element ends at `/`, `(`, `=` or the end of the statement; quote all of it if it is one name";
                return Err(failure(self.expected(
                    after,
                    "`/`, `(` or the end of the statement",
                    Some(help.into()),
                )));
            }
            out.elems.push(elem);
            i = after;
        }
        out.span = self.span_from(start, i);
        Ok(i)
    }

    /// The head of a relative path, `.` or `..` repeated (`../..`), into
    /// `out`; the text after it. An absolute path has none.
    fn relative(
        &mut self,
        i: &'a str,
        out: &mut Directory<'a>,
    ) -> Result<&'a str, nom::Err<super::Fail>> {
        if peek(i) != Some(b'.') {
            return Ok(i);
        }
        if i.starts_with("...") {
            let help = "`...` stands last in a path: `/...` is every directory, `./...` the root and every directory under it";
            return Err(failure(self.expected(
                i,
                "`/`, `./` or `../`",
                Some(help.into()),
            )));
        }
        let start = self.pos(i);
        let (mut rest, mut up) = match i.strip_prefix("..") {
            Some(after) if !after.starts_with('.') => (after, 1),
            _ if !dot_name(i) => return Err(failure(self.dot_in_path(i))),
            _ => (&i[1..], 0),
        };
        while up > 0 && rest.starts_with("/..") && dot_name(&rest[1..]) {
            rest = &rest[3..];
            up += 1;
        }
        if !matches!(
            peek(rest),
            None | Some(b'/' | b'(' | b'=' | b' ' | b'\t' | b'\r' | b'\n' | b'%')
        ) {
            return Err(failure(self.dot_in_path(i)));
        }
        out.relative = Some(Relative {
            up,
            span: self.span_from(start, rest),
        });
        Ok(rest)
    }

    /// The error for `.` or `..` where a directory name should be (`/a/./b`),
    /// or a `.` that starts neither.
    fn dot_in_path(&self, at: &str) -> ParseError {
        let text = dir_junk(at);
        let help = if dot_name(at) {
            format!(
                "`.` and `..` may only begin a path, as in `./b` or `../b`; a directory named `{text}` is written as a string: /\"{text}\""
            )
        } else {
            "a relative path begins with `./` or `../`, as in `./users(1)`; a bare directory name starts with a letter or `_`".to_string()
        };
        ParseError::InvalidName {
            text: excerpt(text),
            at: self.span_of(text),
            help: Some(help),
        }
    }

    /// The error for a directory name that must be quoted.
    fn invalid_dir_name(&self, text: &str) -> ParseError {
        let quoted = crate::syntax::print::quote(&excerpt(text));
        ParseError::InvalidName {
            text: excerpt(text),
            at: self.span_of(text),
            help: Some(format!(
                "a bare directory name is letters, digits, `_`, `-` and `.`, starting with a letter or `_`; quote any other: /{quoted}"
            )),
        }
    }
}

/// Puts `query` where the statement's key-value was, when the key-value
/// holds nothing: its directory was taken, its tuple is empty and it has no
/// value. Such a key-value owns nothing, and it is forgotten rather than
/// dropped, which costs a call and a walk of its empty lists.
fn replace_empty_key_value<'a>(at: &mut Query<'a>, query: Query<'a>) {
    let old = std::mem::replace(at, query);
    debug_assert!(
        matches!(&old, Query::KeyValue(kv) if kv.key.dir.elems.is_empty()
            && kv.key.tuple.elems.is_empty()
            && kv.value == Value::Omitted)
    );
    std::mem::forget(old);
}

/// Whether the text at `i` is `.` or `..` as a whole directory element.
fn dot_name(i: &str) -> bool {
    let len = if i.starts_with("..") { 2 } else { 1 };
    i.starts_with('.')
        && !i[len..].starts_with('.')
        && matches!(
            peek(&i[len..]),
            None | Some(b'/' | b'(' | b'=' | b' ' | b'\t' | b'\r' | b'\n' | b'%')
        )
}

/// The run of text at `i` that was meant as one directory element: up to
/// the next `/`, `(`, `=`, whitespace or comment.
fn dir_junk(i: &str) -> &str {
    let end = i
        .find(|c: char| c.is_whitespace() || matches!(c, '/' | '(' | '=' | '%'))
        .unwrap_or(i.len());
    &i[..end.max(i.chars().next().map_or(0, char::len_utf8))]
}
