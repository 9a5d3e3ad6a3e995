//! Random scripts drawn from the grammar itself.
//!
//! The examples only use what their authors thought of; a derivation picked
//! at random combines every construct with every other, in every place the
//! grammar allows whitespace and comments. Each must parse, and a few edits
//! away from it the grammar and the parser must still agree.

use proptest::prelude::*;

use super::ebnf::{Expr, Grammar};
use super::mutations::{apply, config, edit};
use super::{GRAMMAR, Verdict, parser_errors};

/// Below this depth choices are random; beyond it each takes the way out
/// that nests least, so every derivation ends.
const DEPTH: usize = 24;

/// Characters a class may produce: all of ASCII, and a few beyond it.
const WIDE: [char; 6] = [
    '\u{e9}',
    '\u{2603}',
    '\u{1f600}',
    '\u{feff}',
    '\u{85}',
    '\u{a0}',
];

struct Generator<'g> {
    grammar: &'g Grammar,
    /// For each rule, the least nesting of rules it can be derived with.
    height: Vec<usize>,
    state: u64,
}

impl<'g> Generator<'g> {
    fn new(grammar: &'g Grammar, seed: u64) -> Generator<'g> {
        let mut height = vec![usize::MAX; grammar.rules.len()];
        loop {
            let next: Vec<usize> = grammar
                .rules
                .iter()
                .map(|r| least(&r.expr, &height))
                .collect();
            if next == height {
                break;
            }
            height = next;
        }
        assert!(
            height.iter().all(|&h| h < usize::MAX),
            "a rule of the grammar derives no text"
        );
        Generator {
            grammar,
            height,
            state: seed,
        }
    }

    /// splitmix64: small, and the same seed gives the same script.
    fn next(&mut self, n: usize) -> usize {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }

    fn rule(&mut self, r: usize, depth: usize, out: &mut String) {
        let grammar = self.grammar;
        let start = out.len();
        for _ in 0..100 {
            self.expr(&grammar.rules[r].expr, depth + 1, out);
            match grammar.checks[r] {
                Some(check) if !check(&out[start..]) => out.truncate(start),
                _ => return,
            }
        }
        panic!("no text of `{}` passes its check", grammar.rules[r].name);
    }

    fn expr(&mut self, e: &Expr, depth: usize, out: &mut String) {
        let free = depth < DEPTH;
        match e {
            Expr::Text(t) => out.extend(t),
            Expr::Class(set) => {
                let chars: Vec<char> = (0..128u8)
                    .map(char::from)
                    .chain(WIDE)
                    .filter(|&c| set.contains(c))
                    .collect();
                out.push(chars[self.next(chars.len())]);
            }
            Expr::Rule(r) => self.rule(*r, depth, out),
            Expr::Seq(items) => items.iter().for_each(|x| self.expr(x, depth, out)),
            Expr::Alt { branches, .. } => {
                // Free choices favour the branches that nest deeper, where
                // most of the grammar is.
                let pick = if free {
                    let weights: Vec<usize> = branches
                        .iter()
                        .map(|b| least(b, &self.height) + 1)
                        .collect();
                    let mut n = self.next(weights.iter().sum());
                    weights
                        .iter()
                        .position(|&w| {
                            let hit = n < w;
                            n = n.saturating_sub(w);
                            hit
                        })
                        .unwrap_or(0)
                } else {
                    (0..branches.len())
                        .min_by_key(|&b| least(&branches[b], &self.height))
                        .unwrap_or(0)
                };
                self.expr(&branches[pick], depth, out);
            }
            Expr::Opt(x) => {
                if free && self.next(3) > 0 {
                    self.expr(x, depth, out);
                }
            }
            Expr::Rep(x) => {
                let times = if free { self.next(5) } else { 0 };
                for _ in 0..times {
                    self.expr(x, depth, out);
                }
            }
        }
    }
}

/// The least nesting of rules `e` can be derived with, given that of each
/// rule.
fn least(e: &Expr, height: &[usize]) -> usize {
    match e {
        Expr::Text(_) | Expr::Class(_) | Expr::Opt(_) | Expr::Rep(_) => 0,
        Expr::Rule(r) => height[*r].saturating_add(1),
        Expr::Seq(xs) => xs.iter().map(|x| least(x, height)).max().unwrap_or(0),
        Expr::Alt { branches, .. } => branches.iter().map(|x| least(x, height)).min().unwrap_or(0),
    }
}

/// A script the grammar derives; the same seed gives the same script.
pub fn script(seed: u64) -> String {
    let mut out = String::new();
    Generator::new(&GRAMMAR, seed).rule(0, 0, &mut out);
    out
}

proptest! {
    #![proptest_config(config(500))]

    #[test]
    fn generated_scripts_parse(seed in any::<u64>()) {
        let text = script(seed);
        prop_assert!(GRAMMAR.accepts(&text), "{:?}", text);
        let parser = Verdict::of_parser(&text);
        prop_assert_eq!(parser, Verdict::Accept, "{:?}: {}", text, parser_errors(&text));
    }

    #[test]
    fn mutated_generated_scripts_are_judged_alike(
        seed in any::<u64>(),
        edits in prop::collection::vec(edit(), 1..=3),
    ) {
        let text = apply(&script(seed), &edits);
        let grammar = Verdict::of_grammar(&GRAMMAR, &text);
        let parser = Verdict::of_parser(&text);
        prop_assert_eq!(grammar, parser, "{:?}: {}", text, parser_errors(&text));
    }
}
