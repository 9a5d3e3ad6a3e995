//! Elements and what they are built from: tuples, variables, references and
//! option lists.

use super::hints::{TypeRole, long_int, with_fix};
use super::lex::{backtrack, excerpt, fail, hspace, peek, starts_statement, word};
use super::literal::{plain_string, small_int, starts_bytes};
use super::{PResult, Parser};
use crate::syntax::ast::{
    Cast, Elem, ElemKind, Elems, Ident, Int, Opt, OptArg, OptArgKind, OptName, Options, Reference,
    Span, ThinVec, Tuple, Type, TypeSpec, Value, Variable,
};
use crate::syntax::error::ParseError;
use crate::syntax::names::{is_name, is_name_start};

impl<'a> Parser<'a> {
    /// A data element or a hole, or a backtrack when nothing here starts one.
    pub(super) fn element(&mut self, i: &'a str) -> PResult<'a, Elem<'a>> {
        let mut slot = None;
        let rest = self.element_into(i, &mut slot)?;
        Ok((rest, slot.expect("an element was parsed")))
    }

    /// Parses an element into `sink`.
    ///
    /// Each kind of element is built whole, with its span, in the branch
    /// that parsed it, and handed straight to the sink: built as an
    /// `ElemKind` first and wrapped afterwards, it was copied twice more,
    /// each copy reading back stores that had not yet retired (a
    /// store-forwarding stall), and tuple elements are the most frequent
    /// node.
    #[inline(always)]
    pub(super) fn element_into(
        &mut self,
        i: &'a str,
        sink: &mut impl Sink<'a>,
    ) -> Result<&'a str, nom::Err<super::Fail>> {
        let start = self.pos(i);
        let (rest, kind) = match peek(i) {
            Some(b'(') => {
                let mut t = Box::default();
                let rest = self.tuple(i, &mut t)?;
                let span = self.span_from(start, rest);
                sink.put(Elem {
                    kind: ElemKind::Tuple(t),
                    span,
                });
                return Ok(rest);
            }
            Some(b'"') => {
                let (rest, text) = match plain_string(i) {
                    Some(ok) => ok,
                    None => self.string(i)?,
                };
                let span = self.span_from(start, rest);
                sink.put(Elem {
                    kind: ElemKind::Str(text),
                    span,
                });
                return Ok(rest);
            }
            Some(b'<') => {
                let (rest, v) = self.variable(i)?;
                let span = self.span_from(start, rest);
                sink.put(Elem {
                    kind: ElemKind::Var(v),
                    span,
                });
                return Ok(rest);
            }
            Some(b':') => {
                let (rest, r) = self.reference(i)?;
                let span = self.span_from(start, rest);
                sink.put(Elem {
                    kind: ElemKind::Ref(Box::new(r)),
                    span,
                });
                return Ok(rest);
            }
            Some(b'#') => self.vstamp(i),
            Some(b'0'..=b'9' | b'-') => match small_int(i) {
                Some((rest, n)) => (rest, ElemKind::Int(Int::Small(n))),
                None => self.numeric(i),
            },
            Some(b'.') if !i.starts_with("...") => self.number(i),
            // Escaped bytes, `b"..."`: no word is followed by a quote.
            Some(b'b') if i[1..].starts_with('"') => {
                let (rest, bytes) = self.bytes_literal(i)?;
                (rest, ElemKind::Bytes(bytes))
            }
            Some(b) if b.is_ascii_alphabetic() => match self.word(i) {
                Some(ok) => ok,
                None => return backtrack::<()>().map(|(rest, ())| rest),
            },
            _ => return backtrack::<()>().map(|(rest, ())| rest),
        };
        let span = self.span_from(start, rest);
        sink.put(Elem { kind, span });
        Ok(rest)
    }

    fn unclosed(&self, open: usize, c: char, close: char, i: &str) -> ParseError {
        ParseError::Unclosed {
            open: c,
            close,
            at: Span::new(open, open + 1),
            end: Span::at(self.pos(i)),
            help: None,
        }
    }

    /// `(` elements `)`, with any whitespace, line breaks and comments
    /// between elements, a trailing comma, and `...` last, into `out`, an
    /// empty tuple. The caller has seen the `(`.
    ///
    /// The tuple is parsed in place, where its caller keeps it (the key of
    /// a statement, the box of a nested tuple): with its inline elements
    /// it is too big to return cheaply. Always inlined: the elements are
    /// parsed by a call anyway, and the call of this small frame around
    /// them cost as much as its body.
    #[inline(always)]
    pub(super) fn tuple(
        &mut self,
        i: &'a str,
        out: &mut Tuple<'a>,
    ) -> Result<&'a str, nom::Err<super::Fail>> {
        let open = self.pos(i);
        if self.depth == super::MAX_DEPTH {
            return fail::<()>(ParseError::TooDeep {
                at: Span::new(open, open + 1),
                limit: super::MAX_DEPTH,
            })
            .map(|(rest, ())| rest);
        }
        self.depth += 1;
        let result = self.tuple_elems(open, &i[1..], &mut out.elems);
        self.depth -= 1;
        let (i, rest) = result?;
        let i = &i[1..];
        out.rest = rest;
        out.span = self.span_from(open, i);
        Ok(i)
    }

    /// The elements of a tuple after its `(`, up to its `)`, and the span of
    /// a final `...`.
    fn tuple_elems(
        &mut self,
        open: usize,
        mut i: &'a str,
        elems: &mut Elems<'a>,
    ) -> PResult<'a, Option<Span>> {
        let mut crossed;
        (i, crossed) = self.gap(i);
        let mut rest = None;
        loop {
            match peek(i) {
                Some(b')') => break,
                _ if tuple_ended(i, crossed) => return fail(self.unclosed(open, '(', ')', i)),
                Some(b',') => {
                    self.report(ParseError::EmptyElement {
                        at: self.span_of(&i[..1]),
                    });
                    (i, crossed) = self.gap(&i[1..]);
                    continue;
                }
                Some(b'.') if i.starts_with("...") => {
                    let at = self.span_of(&i[..3]);
                    rest = Some(at);
                    (i, crossed) = self.gap(&i[3..]);
                    if peek(i) == Some(b',') {
                        (i, crossed) = self.gap(&i[1..]);
                    }
                    match peek(i) {
                        Some(b')') => break,
                        _ if tuple_ended(i, crossed) => {
                            return fail(self.unclosed(open, '(', ')', i));
                        }
                        _ => {}
                    }
                    return match self.element(i) {
                        Ok((after, _)) => {
                            let next = self.span_from(self.pos(i), after);
                            fail(ParseError::RestNotLast { rest: at, next })
                        }
                        Err(nom::Err::Error(_)) => fail(self.expected(i, "`)`", None)),
                        Err(e) => Err(e),
                    };
                }
                Some(b'.')
                    if i.starts_with("..") && !i[2..].starts_with(|c: char| c.is_ascii_digit()) =>
                {
                    let help = "the rest of a tuple is three dots: write `...`";
                    return fail(self.expected(i, "an element or `)`", Some(help.into())));
                }
                _ => {}
            }
            i = match self.element_into(i, elems) {
                Ok(after) => after,
                Err(nom::Err::Error(_)) => {
                    return fail(self.expected_element(i, "an element or `)`", None));
                }
                Err(e) => return Err(e),
            };
            if peek(i) == Some(b'[') {
                let (after, opts) = self.options(i)?;
                self.report(ParseError::OptionsInTuple { at: opts.span });
                i = after;
            }
            let end = self.pos(i);
            (i, crossed) = self.gap(i);
            match peek(i) {
                Some(b',') => (i, crossed) = self.gap(&i[1..]),
                Some(b')') => break,
                _ if tuple_ended(i, crossed) => return fail(self.unclosed(open, '(', ')', i)),
                _ => {
                    let help = (end < self.pos(i)).then(|| {
                        let one_line = !self.src[open..end].contains('\n');
                        let fixed = one_line.then(|| self.line_edit(end, 0, ",")).flatten();
                        with_fix("elements are separated by `,`", fixed)
                    });
                    return fail(self.expected(i, "`,` or `)`", help));
                }
            }
        }
        Ok((i, rest))
    }

    /// `<>`, `<type|type>`, `<name:type|...>`, each type with its options.
    /// The caller has seen the `<`.
    pub(super) fn variable(&mut self, i: &'a str) -> PResult<'a, Variable<'a>> {
        let open = self.pos(i);
        let mut i = &i[1..];
        let mut var_name = None;
        let mut types = ThinVec::new();
        if peek(i) != Some(b'>') {
            let (after, first) = word(i);
            if !first.is_empty() && after != hspace(after) && hspace(after).starts_with(':') {
                let help = self.var_spaces(open, after);
                return fail(self.expected(after, "`:`", help));
            }
            if peek(after) == Some(b':') {
                let (after_name, text) = match self.name(i, "names") {
                    Ok(ok) => ok,
                    Err(_) => return fail(self.expected(i, "a name", None)),
                };
                var_name = Some(text);
                i = &after_name[1..];
                if !peek(i).is_some_and(is_name_start) {
                    if peek(i) != Some(b'>') {
                        return fail(self.expected(i, "a type", self.var_spaces(open, i)));
                    }
                    self.report(ParseError::UntypedName {
                        name: excerpt(text),
                        at: Span::new(open, self.pos(i) + 1),
                        help: format!("write `<{}:any>` to match any element", excerpt(text)),
                    });
                }
            } else if first.is_empty() {
                return fail(self.expected(i, "a type or `>`", self.var_spaces(open, i)));
            }
            while peek(i) != Some(b'>') {
                let role = match var_name {
                    _ if !types.is_empty() => TypeRole::Later,
                    None => TypeRole::MayBeName,
                    Some(name) if Type::from_name(name).is_some() => TypeRole::AfterTypeName(name),
                    Some(_) => TypeRole::Later,
                };
                let (after, spec) = self.type_spec(i, open, role)?;
                if let Some(spec) = spec {
                    // Most variables have one type: allocate for just that,
                    // without going through the vector's growth path.
                    if types.capacity() == 0 {
                        types = ThinVec::with_capacity(1);
                    }
                    types.push(spec);
                }
                i = after;
                match peek(i) {
                    Some(b'|') if i[1..].starts_with('>') => {
                        return fail(self.expected(&i[1..], "a type after `|`", None));
                    }
                    Some(b'|') => i = &i[1..],
                    Some(b'>') => {}
                    None | Some(b'\n' | b'\r') => return fail(self.unclosed(open, '<', '>', i)),
                    _ => return fail(self.expected(i, "`|` or `>`", self.var_spaces(open, i))),
                }
            }
        }
        let i = &i[1..];
        let span = self.span_from(open, i);
        Ok((
            i,
            Variable {
                name: var_name,
                types,
                span,
            },
        ))
    }

    /// A type name and its options, in the variable that opens at `open`.
    /// Unknown names are reported and dropped.
    fn type_spec(
        &mut self,
        i: &'a str,
        open: usize,
        role: TypeRole,
    ) -> PResult<'a, Option<TypeSpec<'a>>> {
        let start = self.pos(i);
        let (after, text) = word(i);
        if text.is_empty() {
            return fail(self.expected(i, "a type", self.var_spaces(open, i)));
        }
        let ty = Type::from_name(text);
        if ty.is_none() {
            let help = match role {
                // `<int:x>`: the name and the type the wrong way round.
                TypeRole::AfterTypeName(ty) if is_name(text) => {
                    let tail = after.find(['>', '\n']).map_or("", |n| &after[..n]);
                    Some(format!(
                        "a variable's name comes before its types: write `<{}:{ty}{}>`",
                        excerpt(text),
                        excerpt(tail)
                    ))
                }
                TypeRole::MayBeName if Type::suggest(text).is_none() && is_name(text) => {
                    Some(format!(
                        "to name a variable, give it a type: `<{}:any>`",
                        excerpt(text)
                    ))
                }
                _ => Type::suggest(text),
            };
            self.report(ParseError::UnknownType {
                name: excerpt(text),
                at: self.span_of(text),
                help,
            });
        }
        let (after, options) = if peek(after) == Some(b'[') {
            self.options(after)?
        } else {
            (after, Options::default())
        };
        let span = self.span_from(start, after);
        Ok((after, ty.map(|ty| TypeSpec { ty, options, span })))
    }

    /// `:name` or `:name!type`. The caller has seen the `:`.
    pub(super) fn reference(&mut self, i: &'a str) -> PResult<'a, Reference<'a>> {
        let start = self.pos(i);
        let (mut i, text) = match self.name(&i[1..], "names") {
            Ok(ok) => ok,
            Err(_) => return fail(self.expected(&i[1..], "a name after `:`", None)),
        };
        let name = Ident {
            name: text,
            span: self.span_of(text),
        };
        let mut cast = None;
        if let Some(after_bang) = i.strip_prefix('!') {
            let (after, text) = word(after_bang);
            if text.is_empty() {
                return fail(self.expected(after_bang, "a type after `!`", None));
            }
            let span = self.span_of(text);
            match Type::from_name(text) {
                Some(ty) => cast = Some(Cast { ty, span }),
                None => {
                    let help = Type::suggest(text);
                    self.report(ParseError::UnknownType {
                        name: excerpt(text),
                        at: span,
                        help,
                    });
                }
            }
            i = after;
        }
        let span = self.span_from(start, i);
        Ok((i, Reference { name, cast, span }))
    }

    /// `[name, name:arg, ...]`. Unknown option names are reported and
    /// dropped. The caller has seen the `[`.
    pub(super) fn options(&mut self, i: &'a str) -> PResult<'a, Options<'a>> {
        let open = self.pos(i);
        let mut i = &i[1..];
        let mut items = ThinVec::new();
        loop {
            let (after, opt) = self.option(hspace(i))?;
            let bare = opt.as_ref().is_some_and(|o| o.arg.is_none());
            items.extend(opt);
            i = hspace(after);
            match peek(i) {
                Some(b',') => i = &i[1..],
                Some(b']') => break,
                None | Some(b'\n' | b'\r') => return fail(self.unclosed(open, '[', ']', i)),
                _ => {
                    let help = self.option_gap_help(after, i, bare);
                    return fail(self.expected(i, "`,` or `]`", help));
                }
            }
        }
        let i = &i[1..];
        let span = self.span_from(open, i);
        Ok((i, Options { items, span }))
    }

    /// One option: a name and, after `:`, a name, int or string.
    fn option(&mut self, i: &'a str) -> PResult<'a, Option<Opt<'a>>> {
        let start = self.pos(i);
        let (after, text) = match self.name(i, "option names") {
            Ok(ok) => ok,
            Err(_) => return fail(self.expected(i, "an option", None)),
        };
        let name = OptName::from_name(text);
        if name.is_none() {
            self.report(ParseError::UnknownOption {
                name: excerpt(text),
                at: self.span_of(text),
                help: OptName::suggest(text),
            });
        }
        let (after, arg) = match after.strip_prefix(':') {
            Some(at) => {
                let (rest, kind) = match peek(at) {
                    Some(b'"') => {
                        let (rest, s) = self.string(at)?;
                        (rest, OptArgKind::Str(s))
                    }
                    Some(b'0' | b'b') if starts_bytes(at) => {
                        let errors = self.errors.len();
                        let (after, bytes) = self.bytes_literal(at)?;
                        let bytes = (self.errors.len() == errors).then_some(bytes);
                        return fail(self.bytes_argument(text, at, after, bytes));
                    }
                    Some(b'-' | b'0'..=b'9') if long_int(at) => {
                        return fail(self.long_argument(at));
                    }
                    Some(b'-' | b'0'..=b'9') => match self.int(at) {
                        Some((rest, n)) => (rest, OptArgKind::Int(n)),
                        None => return fail(self.expected(at, "a name, int or string", None)),
                    },
                    Some(b) if is_name_start(b) => {
                        let (rest, w) = word(at);
                        (rest, OptArgKind::Name(w))
                    }
                    Some(b' ' | b'\t') => {
                        let space = at.len() - hspace(at).len();
                        let fixed = self.line_edit(self.pos(at), space, "");
                        let help = with_fix("FQL allows no spaces around `:`", fixed);
                        return fail(self.expected(at, "a name, int or string", Some(help)));
                    }
                    _ => return fail(self.expected(at, "a name, int or string", None)),
                };
                let span = self.span_from(self.pos(at), rest);
                (rest, Some(OptArg { kind, span }))
            }
            None => (after, None),
        };
        let span = self.span_from(start, after);
        Ok((after, name.map(|name| Opt { name, arg, span })))
    }
}

/// Where [`Parser::element_into`] puts an element.
pub(super) trait Sink<'a> {
    fn put(&mut self, elem: Elem<'a>);
}

impl<'a> Sink<'a> for Elems<'a> {
    #[inline(always)]
    fn put(&mut self, elem: Elem<'a>) {
        self.push(elem);
    }
}

impl<'a> Sink<'a> for Value<'a> {
    #[inline(always)]
    fn put(&mut self, elem: Elem<'a>) {
        *self = Value::Data(elem, Options::default());
    }
}

impl<'a> Sink<'a> for Option<Elem<'a>> {
    #[inline(always)]
    fn put(&mut self, elem: Elem<'a>) {
        *self = Some(elem);
    }
}

/// Whether the text of a tuple has run out: the input ended, or a line break
/// led to a line that starts the next statement.
fn tuple_ended(i: &str, crossed: bool) -> bool {
    i.is_empty() || (crossed && starts_statement(i))
}
