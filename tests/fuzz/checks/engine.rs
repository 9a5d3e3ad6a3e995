//! Scripts built from the input, run through parse, checks, plan and the
//! engine on an in-memory store: nothing panics, every failure is one of
//! the engine's typed errors with a message, and what runs prints as FQL.
//!
//! The input picks each part of each statement from pieces of valid FQL
//! (directories, elements of every type, holes, references, options,
//! aggregates, atomic operations, raw keys, `@commit`), so most scripts
//! parse and many run, and a few bytes of the input are pasted raw to
//! reach the errors between.

use std::collections::HashMap;
use std::sync::Arc;

use fql::exec::{Engine, Output, QueryError};
use fql::kv::embedded::Embedded;
use fql::syntax::ast::{Elem, ElemKind, Int};

/// Reads choices from the input; zeros once it runs out.
pub struct Choices<'a>(&'a [u8]);

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        *first
    }

    /// One of `n` choices.
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    fn pick<'p>(&mut self, pieces: &[&'p str]) -> &'p str {
        pieces[self.below(pieces.len())]
    }

    fn done(&self) -> bool {
        self.0.is_empty()
    }
}

const DIRS: &[&str] = &[
    "/a",
    "/a/b",
    "/b",
    "/people",
    "/\"odd name\"",
    "/a/<>",
    "/<d:str>",
    "/:d",
    "/<>",
    "./a",
    "./<d:str>/b",
    "../a",
    "../../b",
    ".",
    "..",
    "./...",
];
const DATA: &[&str] = &[
    "0",
    "1",
    "-1",
    "255",
    "-256",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "0.5",
    "-0.0",
    "1e308",
    "nan",
    "-nan",
    "inf",
    "f32(1.5)",
    "f32(-nan)",
    "#0102030405060708090a",
    "user(0x40,0xaa00)",
    "\"\"",
    "\"x\"",
    "\"a\\\"b\\\\\"",
    "true",
    "false",
    "nil",
    "0x",
    "0x00ff",
    "b\"\\x00\\xffa\\\"\"",
    "5a5ebefd-2193-47e2-8def-f464fc698e31",
    "#0102030405060708090a:0b0c",
    "(1,\"x\")",
    "()",
    "((nil))",
];
const HOLES: &[&str] = &[
    "<>",
    "<int>",
    "<str>",
    "<int|str>",
    "<id:int>",
    "<s:str>",
    "<num>",
    "<bytes>",
    "<tuple>",
    "<uuid>",
    "<vstamp>",
    "<f32>",
    "<vstamp80>",
    "<user>",
    "<bool|nil>",
];
/// References: to parameters (`:n`, `:d`) or to names an earlier
/// statement binds (`<id:int>`, `<s:str>`), or to nothing.
const REFS: &[&str] = &[":id", ":s", ":n", ":d"];
const VALUES: &[&str] = &[
    "clear",
    "<sum>",
    "<count>",
    "<min>",
    "<max>",
    "<avg>",
    "<append>",
    "<v:append[sep:\",\"]>",
    "5[i16]",
    "-1[i64,be]",
    "1.5[f32]",
    "1.5[f80,be]",
    "\"s\"[raw]",
    "<int[u8]>",
    "<num[f32,be]>",
    "<num[f80]>",
    "(1,<int>,...)",
];
/// Atomic operations: operands each takes, operands it refuses (a
/// tuple-encoded int, a negative `min`), and operands a reference
/// supplies, judged only when the statement runs.
const MUTATIONS: &[&str] = &[
    "add(1[i64])",
    "add(-1[i8])",
    "add(:n[i64])",
    "add(1)",
    "bit_and(0x0f)",
    "bit_or(:d[u8])",
    "bit_xor(255[u8,be])",
    "min(-1[i64])",
    "min(7[u32])",
    "max(0x0100)",
    "byte_min(\"x\")",
    "byte_max((1,\"x\"))",
    "byte_max(1[u64])",
    "append_if_fits(0x01)",
    "append_if_fits(\"x\"[raw])",
    "compare_and_clear(1)",
    "compare_and_clear(:id)",
    "compare_and_clear(#:0001)",
];
const OPTIONS: &[&str] = &[
    "[strict] ",
    "[reverse] ",
    "[limit:2] ",
    "[absent] ",
    "[exists] ",
    "[max:1] ",
    "[min:1] ",
    "[reverse,limit:1] ",
    "[reverse]\n% the newest first\n",
    "[limit:2] % two\n  % at most\n",
];
/// Keys as bytes: among the directories' keys (their prefixes are small
/// ints, `0x15` and a byte), beside them, the empty prefix, and the
/// system and special keys, with and without `[system]`; and a listing
/// with its prefixes.
const RAW_KEYS: &[&str] = &[
    "0x1501",
    "0x150115",
    "0x1501ff",
    "0x1501...",
    "b\"\\x15\\x01\"...",
    "0x15...",
    "0x...",
    "0x01..0x16",
    "b\"\\x01\"..0x16",
    "0x16..0x15",
    "0xff02",
    "0xff...",
    "[system] 0xff02",
    "[system] 0xff...",
    "0xffff2f7374617475732f6a736f6e",
    "0xffff...",
    "[prefix] /...",
];
const META: &[&str] = &[
    "@commit",
    "/a=remove",
    "/a/b=remove",
    "/...",
    "/a/...",
    "/...=remove",
    "% a comment",
];

/// The script `input` builds: up to 8 lines. (One line that does not
/// parse or check stops the whole script, so it is short.)
pub fn script(input: &[u8]) -> String {
    let mut c = Choices(input);
    let mut lines = Vec::new();
    while !c.done() && lines.len() < 8 {
        lines.push(line(&mut c));
    }
    lines.join("\n")
}

fn line(c: &mut Choices) -> String {
    match c.below(40) {
        0..4 => c.pick(META).to_string(),
        5..8 => {
            let key = c.pick(RAW_KEYS);
            let value = match c.below(4) {
                0 => String::new(),
                1 => format!("={}", c.pick(DATA)),
                2 => format!("={}", c.pick(HOLES)),
                _ => format!("={}", c.pick(VALUES)),
            };
            format!("{key}{value}")
        }
        4 => {
            // Raw input, as long as it is text: the errors between pieces.
            let n = c.below(8);
            (0..n)
                .map(|_| char::from(c.byte() & 0x7f))
                .filter(|ch| *ch != '\n')
                .collect()
        }
        k => {
            let opts = if k < 9 { c.pick(OPTIONS) } else { "" };
            let dir = c.pick(DIRS);
            let tuple = tuple(c);
            let value = match c.below(5) {
                0 => String::new(),
                1 => format!("={}", c.pick(DATA)),
                2 => format!("={}", c.pick(HOLES)),
                3 => format!("={}", c.pick(MUTATIONS)),
                _ => format!("={}", c.pick(VALUES)),
            };
            format!("{opts}{dir}{tuple}{value}")
        }
    }
}

fn tuple(c: &mut Choices) -> String {
    let n = c.below(4);
    let mut elems: Vec<&str> = (0..n)
        .map(|_| match c.below(8) {
            // Few values, so that reads find what writes wrote.
            0..2 => c.pick(&["1", "\"x\""]),
            2..4 => c.pick(DATA),
            4..7 => c.pick(HOLES),
            _ => c.pick(REFS),
        })
        .collect();
    if c.below(3) == 0 {
        elems.push("...");
    }
    format!("({})", elems.join(","))
}

/// Runs the script `input` builds on a fresh in-memory store.
pub fn check(input: &[u8]) {
    let script = script(input);
    // Two levels deep, so that `../a` resolves and `../../..` does not.
    let root = fql::plan::Root::new(vec!["r".into(), "s".into()]);
    let engine = Engine::new(Arc::new(Embedded::memory())).root(root);
    let params = HashMap::from([
        ("n".to_string(), int(7).into()),
        ("d".to_string(), int(1).into()),
    ]);
    let outcome = engine.run_text(&script, &params, &mut |row: Output| {
        assert!(!row.to_string().is_empty(), "{script}");
        Ok(())
    });
    if let Err(e) = outcome {
        typed(&e, &script);
    }
}

fn int(n: i64) -> Elem<'static> {
    Elem {
        kind: ElemKind::Int(Int::Small(n)),
        span: Default::default(),
    }
}

/// A failure the engine reports: a kind the caller can match on, with a
/// message.
fn typed(e: &QueryError, script: &str) {
    let message = e.to_string();
    assert!(
        !message.trim().is_empty(),
        "{e:?} has no message, from:\n{script}"
    );
    match e {
        QueryError::Invalid(errors) => assert!(!errors.is_empty(), "{script}"),
        QueryError::Plan(errors) => assert!(!errors.is_empty(), "{script}"),
        QueryError::Run(fql::exec::Error::Spill { .. }) => panic!("{e:?} from:\n{script}"),
        QueryError::Run(_) => {}
        #[allow(unreachable_patterns)]
        _ => {}
    }
}
