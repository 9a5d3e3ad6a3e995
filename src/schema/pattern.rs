//! One pattern of a schema, compiled to check stored key-values and to say
//! why one fails.

use crate::codec::{self, ElementFilter, ValueDecoder, type_of};
use crate::syntax::ast::*;
use crate::syntax::counted;

/// A read-shaped statement of a schema: the key-values it allows.
pub struct Pattern<'a> {
    /// Its place among the schema's patterns.
    pub index: usize,
    /// The statement as FQL, parameters substituted.
    pub text: String,
    /// Its key, whose place (directory pattern, root or raw prefix)
    /// says which key-values it checks.
    pub key_at: &'a Key<'a>,
    key: TupleCheck<'a>,
    value: ValueCheck<'a>,
    /// `[min:N]`: how many key-values it must match, at least, in each
    /// directory.
    pub min: Option<usize>,
    /// `[max:N]`: how many it may match, at most.
    pub max: Option<usize>,
}

/// Why a key-value fails a pattern, and how far it got: the pattern that
/// got furthest is the one a violation is explained by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub score: usize,
    pub reason: String,
    /// The key has a number of elements no arrangement of the pattern
    /// allows.
    pub length: bool,
}

enum ElemCheck<'a> {
    Any,
    Filter(ElementFilter, String),
    Const(&'a ElemKind<'a>),
    Tuple(TupleCheck<'a>),
}

struct TupleCheck<'a> {
    elems: Vec<ElemCheck<'a>>,
    rest: bool,
}

impl TupleCheck<'_> {
    fn length_ok(&self, len: usize) -> bool {
        if self.rest {
            len >= self.elems.len()
        } else {
            len == self.elems.len()
        }
    }
}

enum ValueCheck<'a> {
    Any,
    Decode(ValueDecoder, String),
    Tuple(TupleCheck<'a>),
    Equals(Vec<u8>, String),
}

impl<'a> Pattern<'a> {
    /// Compiles the key-value query `kv`; an encoding option that cannot
    /// hold is a codec error.
    pub fn new(
        index: usize,
        kv: &'a KeyValue<'a>,
        min: Option<usize>,
        max: Option<usize>,
    ) -> Result<Pattern<'a>, codec::Error> {
        let value = match &kv.value {
            // A schema holds reads only: a mutation is refused before.
            Value::Omitted | Value::Clear(_) | Value::Mutate(_) => ValueCheck::Any,
            Value::Data(e, opts) => match &e.kind {
                ElemKind::Var(v) if v.types.is_empty() => ValueCheck::Any,
                ElemKind::Var(v) => {
                    ValueCheck::Decode(ValueDecoder::new(v).map_err(first)?, types(v))
                }
                ElemKind::Tuple(t) if t.has_holes() => ValueCheck::Tuple(tuple(t)?),
                k => ValueCheck::Equals(codec::encode_value(e, opts)?.bytes, format!("{k}{opts}")),
            },
        };
        Ok(Pattern {
            index,
            text: kv.to_string(),
            key_at: &kv.key,
            key: tuple(&kv.key.tuple)?,
            value,
            min,
            max,
        })
    }

    /// Whether the key (decoded) and value (as stored) match, and if not,
    /// why.
    pub fn check(&self, key: &[Elem<'_>], value: &[u8]) -> Result<(), Mismatch> {
        let len = self.key.elems.len();
        if !self.key.length_ok(key.len()) {
            let expected = counted(len as u64, "element", "elements");
            let expected = if self.key.rest {
                format!("at least {expected}")
            } else {
                expected
            };
            return Err(Mismatch {
                score: 0,
                reason: format!("expected {expected}, found {}", key.len()),
                length: true,
            });
        }
        if let Err(failed) = check_tuple(&self.key, key) {
            return Err(Mismatch {
                score: failed.0[0],
                reason: at_path(failed),
                length: false,
            });
        }
        let failed = |reason: String| Mismatch {
            score: 1 + len + 1,
            reason: format!("value: {reason}"),
            length: false,
        };
        match &self.value {
            ValueCheck::Any => Ok(()),
            ValueCheck::Decode(d, types) => match d.decode(value) {
                Some(_) => Ok(()),
                None => Err(failed(format!(
                    "expected {types}, found {}",
                    describe_value(value)
                ))),
            },
            ValueCheck::Tuple(t) => match codec::decode_tuple(value) {
                None => Err(failed("not a valid tuple".into())),
                Some(elems) => {
                    if !t.length_ok(elems.len()) {
                        return Err(failed(format!(
                            "expected a tuple of {}, found {}",
                            counted(t.elems.len() as u64, "element", "elements"),
                            elems.len()
                        )));
                    }
                    check_tuple(t, &elems).map_err(|f| failed(at_path(f)))
                }
            },
            ValueCheck::Equals(want, text) => {
                if want == value {
                    Ok(())
                } else {
                    Err(failed(format!(
                        "expected {text}, found {}",
                        describe_value(value)
                    )))
                }
            }
        }
    }
}

fn first(mut errors: Vec<codec::Error>) -> codec::Error {
    errors.remove(0)
}

fn tuple<'a>(t: &'a Tuple<'a>) -> Result<TupleCheck<'a>, codec::Error> {
    let elems = t
        .elems
        .iter()
        .map(|e| {
            Ok(match &e.kind {
                ElemKind::Var(v) if v.types.is_empty() => ElemCheck::Any,
                ElemKind::Var(v) => {
                    ElemCheck::Filter(ElementFilter::new(v).map_err(first)?, types(v))
                }
                ElemKind::Tuple(t) if t.has_holes() => ElemCheck::Tuple(tuple(t)?),
                k => ElemCheck::Const(k),
            })
        })
        .collect::<Result<_, codec::Error>>()?;
    Ok(TupleCheck {
        elems,
        rest: t.rest.is_some(),
    })
}

/// The path of the first element that fails (each step counted from 1)
/// and why: `([3, 1], "expected str, found int 7")`.
fn check_tuple(t: &TupleCheck<'_>, elems: &[Elem<'_>]) -> Result<(), (Vec<usize>, String)> {
    for (n, (check, e)) in t.elems.iter().zip(elems).enumerate() {
        let here = |why: String| Err((vec![n + 1], why));
        match check {
            ElemCheck::Any => {}
            ElemCheck::Filter(f, types) => {
                if !f.accepts(&e.kind) {
                    return here(format!("expected {types}, found {}", describe(&e.kind)));
                }
            }
            ElemCheck::Const(c) => {
                if **c != e.kind {
                    return here(format!("expected {c}, found {}", describe(&e.kind)));
                }
            }
            ElemCheck::Tuple(inner) => match &e.kind {
                ElemKind::Tuple(found) => {
                    if !inner.length_ok(found.elems.len()) {
                        return here(format!(
                            "expected a tuple of {}, found {}",
                            counted(inner.elems.len() as u64, "element", "elements"),
                            found.elems.len()
                        ));
                    }
                    if let Err((mut path, why)) = check_tuple(inner, &found.elems) {
                        path.insert(0, n + 1);
                        return Err((path, why));
                    }
                }
                other => return here(format!("expected a tuple, found {}", describe(other))),
            },
        }
    }
    Ok(())
}

/// `element 3.1: why`.
fn at_path((path, why): (Vec<usize>, String)) -> String {
    let path: Vec<String> = path.iter().map(usize::to_string).collect();
    format!("element {}: {why}", path.join("."))
}

/// `int 7`, `str "x"`.
fn describe(kind: &ElemKind<'_>) -> String {
    match type_of(kind) {
        Some(t) => format!("{t} {kind}"),
        None => kind.to_string(),
    }
}

/// A stored value as the untyped read shows it.
fn describe_value(bytes: &[u8]) -> String {
    describe(&codec::decode_untyped(bytes))
}

/// `int|str`.
fn types(v: &Variable<'_>) -> String {
    v.types
        .iter()
        .map(|t| format!("{}{}", t.ty, t.options))
        .collect::<Vec<_>>()
        .join("|")
}
