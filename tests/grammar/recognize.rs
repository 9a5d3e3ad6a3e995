//! Whether a grammar accepts a text.
//!
//! Every expression maps a start position to the set of positions where it
//! can end, following every alternative. Unlike a PEG, nothing depends on
//! the order of alternatives or on a greedy repetition, so the recognizer
//! decides the context-free language the grammar denotes, not a parser's
//! reading of it. Rules are memoized per start position, which keeps the
//! work polynomial.

use std::collections::HashSet;
use std::rc::Rc;

use super::ebnf::{Expr, Grammar};

/// Where a match may end: sorted, without duplicates.
type Ends = Vec<usize>;

enum Slot {
    Todo,
    Busy,
    Done(Rc<Ends>),
}

pub struct Recognizer<'g> {
    grammar: &'g Grammar,
    input: Vec<char>,
    memo: Vec<Slot>,
}

/// The rules (by index) and alternatives (by branch number) that some
/// derivation of a whole text uses. A part that only matched on the way to
/// a dead end, as `'tup'` does inside `tuple`, does not count.
pub struct Coverage {
    pub rules: Vec<bool>,
    pub branches: Vec<bool>,
}

impl Grammar {
    pub fn accepts(&self, text: &str) -> bool {
        Recognizer::new(self, text).accepts()
    }
}

impl<'g> Recognizer<'g> {
    pub fn new(grammar: &'g Grammar, text: &str) -> Recognizer<'g> {
        let input: Vec<char> = text.chars().collect();
        let memo = (0..grammar.rules.len() * (input.len() + 1))
            .map(|_| Slot::Todo)
            .collect();
        Recognizer {
            grammar,
            input,
            memo,
        }
    }

    /// Whether the start rule matches the whole text.
    pub fn accepts(&mut self) -> bool {
        let n = self.input.len();
        self.rule(0, 0).binary_search(&n).is_ok()
    }

    fn rule(&mut self, r: usize, pos: usize) -> Rc<Ends> {
        let slot = r * (self.input.len() + 1) + pos;
        match &self.memo[slot] {
            Slot::Done(ends) => return ends.clone(),
            Slot::Busy => panic!("`{}` is left-recursive", self.grammar.rules[r].name),
            Slot::Todo => {}
        }
        self.memo[slot] = Slot::Busy;
        let grammar = self.grammar;
        let mut ends = self.eval(&grammar.rules[r].expr, pos);
        if let Some(check) = grammar.checks[r] {
            ends.retain(|&end| check(&self.input[pos..end].iter().collect::<String>()));
        }
        let ends = Rc::new(ends);
        self.memo[slot] = Slot::Done(ends.clone());
        ends
    }

    fn eval(&mut self, e: &'g Expr, pos: usize) -> Ends {
        match e {
            Expr::Text(t) => {
                let hit = self.input.get(pos..pos + t.len()) == Some(t.as_slice());
                if hit { vec![pos + t.len()] } else { vec![] }
            }
            Expr::Class(set) => match self.input.get(pos) {
                Some(&c) if set.contains(c) => vec![pos + 1],
                _ => vec![],
            },
            Expr::Rule(r) => self.rule(*r, pos).as_ref().clone(),
            Expr::Seq(items) => {
                let mut at = vec![pos];
                for item in items {
                    let mut next = Vec::new();
                    for p in at {
                        next.extend(self.eval(item, p));
                    }
                    at = normalize(next);
                    if at.is_empty() {
                        break;
                    }
                }
                at
            }
            Expr::Alt { branches, .. } => {
                let mut out = Vec::new();
                for b in branches {
                    out.extend(self.eval(b, pos));
                }
                normalize(out)
            }
            Expr::Opt(x) => {
                let mut out = self.eval(x, pos);
                out.push(pos);
                normalize(out)
            }
            Expr::Rep(x) => {
                let mut seen = vec![pos];
                let mut todo = vec![pos];
                while let Some(p) = todo.pop() {
                    for end in self.eval(x, p) {
                        if !seen.contains(&end) {
                            seen.push(end);
                            todo.push(end);
                        }
                    }
                }
                normalize(seen)
            }
        }
    }
}

/// Walking derivations back from where they end, to see what they use.
impl<'g> Recognizer<'g> {
    /// What the derivations of the whole text use, if there are any.
    pub fn coverage(&mut self) -> Option<Coverage> {
        if !self.accepts() {
            return None;
        }
        let mut cov = Coverage {
            rules: vec![false; self.grammar.rules.len()],
            branches: vec![false; self.grammar.branches],
        };
        let mut done = HashSet::new();
        self.mark_rule(0, 0, self.input.len(), &mut cov, &mut done);
        Some(cov)
    }

    fn mark_rule(&mut self, r: usize, p: usize, q: usize, cov: &mut Coverage, done: &mut Done) {
        if done.insert((r, p, q)) {
            cov.rules[r] = true;
            let grammar = self.grammar;
            self.mark(&grammar.rules[r].expr, p, q, cov, done);
        }
    }

    /// Marks what `e` uses to match from `p` to `q`, which it does.
    fn mark(&mut self, e: &'g Expr, p: usize, q: usize, cov: &mut Coverage, done: &mut Done) {
        match e {
            Expr::Text(_) | Expr::Class(_) => {}
            Expr::Rule(r) => self.mark_rule(*r, p, q, cov, done),
            Expr::Alt { first, branches } => {
                for (n, b) in branches.iter().enumerate() {
                    if self.eval(b, p).contains(&q) {
                        cov.branches[first + n] = true;
                        self.mark(b, p, q, cov, done);
                    }
                }
            }
            Expr::Opt(x) => {
                if self.eval(x, p).contains(&q) {
                    self.mark(x, p, q, cov, done);
                }
            }
            // Where each item may start, going forward; then, going back
            // from `q`, the starts from which an item reaches a place the
            // rest of the sequence continues from.
            Expr::Seq(items) => {
                let mut starts = vec![vec![p]];
                for item in items {
                    let mut next = Vec::new();
                    for &s in starts.last().into_iter().flatten() {
                        next.extend(self.eval(item, s));
                    }
                    starts.push(normalize(next));
                }
                let mut targets = vec![q];
                for (item, from) in items.iter().zip(starts).rev() {
                    let mut used = Vec::new();
                    for s in from {
                        let ends = self.eval(item, s);
                        for &t in targets.iter().filter(|t| ends.contains(t)) {
                            self.mark(item, s, t, cov, done);
                            used.push(s);
                        }
                    }
                    targets = normalize(used);
                }
            }
            Expr::Rep(x) => {
                let reach = self.eval(e, p);
                let mut targets = vec![q];
                let mut seen = vec![q];
                while let Some(t) = targets.pop() {
                    for &s in &reach {
                        if self.eval(x, s).contains(&t) {
                            self.mark(x, s, t, cov, done);
                            if !seen.contains(&s) {
                                seen.push(s);
                                targets.push(s);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The (rule, start, end) matches already walked.
type Done = HashSet<(usize, usize, usize)>;

fn normalize(mut ends: Ends) -> Ends {
    ends.sort_unstable();
    ends.dedup();
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Alternatives that a PEG would commit to too early, and a repetition
    /// that a greedy matcher would run too far.
    #[test]
    fn follows_every_alternative() {
        let g = Grammar::read("s = ( 'a' | 'ab' ) 'c' | x 'b' ;\nx = { 'a' | 'b' } ;").unwrap();
        for (text, accepted) in [
            ("ac", true),
            ("abc", true),
            ("ab", true),
            ("abab", true),
            ("b", true),
            ("a", false),
            ("abcc", false),
        ] {
            assert_eq!(g.accepts(text), accepted, "{text}");
        }
    }

    #[test]
    fn checks_filter_matches() {
        let mut g = Grammar::read("s = n [ '.' ] ;\nn = { '1' } ;").unwrap();
        g.check("n", |t| t.len() == 2);
        assert!(g.accepts("11") && g.accepts("11."));
        assert!(!g.accepts("1") && !g.accepts("111"));
    }

    #[test]
    fn coverage_counts_only_whole_derivations() {
        let g = Grammar::read("s = t 'x' | 'tuple' ;\nt = 'tup' ;").unwrap();
        let cov = Recognizer::new(&g, "tuple").coverage().unwrap();
        assert_eq!(cov.branches, [false, true]);
        assert_eq!(cov.rules, [true, false]);
        assert!(Recognizer::new(&g, "tupx").coverage().is_some());
        assert!(Recognizer::new(&g, "tup").coverage().is_none());
    }
}
