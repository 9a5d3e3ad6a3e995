//! Reads the EBNF dialect of `grammar/fql.ebnf` into rules the recognizer
//! runs.
//!
//! Anything the reader does not understand is an error that names its line,
//! and so is an undefined, unused or left-recursive rule: a slip in the
//! grammar fails the tests rather than quietly changing the language.

mod read;

use std::collections::HashMap;

use read::{Def, Syn};

/// A set of characters. Beyond ASCII the grammar names only the C1
/// controls (U+0080 to U+009F, as a whole) and the byte-order mark
/// (U+FEFF), so beyond ASCII a set holds each of those and every other
/// character, or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CharSet {
    ascii: u128,
    /// Of the non-ASCII characters: [`C1`], [`BOM`], [`OTHER`].
    wide: u8,
}

const C1: u8 = 1;
const BOM: u8 = 2;
const OTHER: u8 = 4;

impl CharSet {
    pub(super) const NONE: CharSet = CharSet { ascii: 0, wide: 0 };
    pub(super) const ANY: CharSet = CharSet {
        ascii: u128::MAX,
        wide: C1 | BOM | OTHER,
    };
    /// The control characters: C0, DEL and C1.
    pub(super) const CONTROL: CharSet = CharSet {
        ascii: 0xffff_ffff | 1 << 0x7f,
        wide: C1,
    };
    /// The byte-order mark, U+FEFF.
    pub(super) const BOM: CharSet = CharSet {
        ascii: 0,
        wide: BOM,
    };

    pub(super) const fn one(c: char) -> CharSet {
        CharSet {
            ascii: 1 << c as u32,
            wide: 0,
        }
    }

    pub(super) fn union(self, o: CharSet) -> CharSet {
        CharSet {
            ascii: self.ascii | o.ascii,
            wide: self.wide | o.wide,
        }
    }

    pub(super) fn minus(self, o: CharSet) -> CharSet {
        CharSet {
            ascii: self.ascii & !o.ascii,
            wide: self.wide & !o.wide,
        }
    }

    pub fn contains(self, c: char) -> bool {
        match c {
            _ if c.is_ascii() => self.ascii >> u32::from(c) & 1 == 1,
            '\u{80}'..='\u{9f}' => self.wide & C1 != 0,
            '\u{feff}' => self.wide & BOM != 0,
            _ => self.wide & OTHER != 0,
        }
    }
}

/// A compiled right-hand side.
#[derive(Clone, Debug)]
pub enum Expr {
    Text(Vec<char>),
    /// One character: what a rule of single-character alternatives, a
    /// special sequence or an exception compiles to.
    Class(CharSet),
    Rule(usize),
    Seq(Vec<Expr>),
    /// `first` numbers the first branch among all branches of the grammar,
    /// so coverage can be kept per branch.
    Alt {
        first: usize,
        branches: Vec<Expr>,
    },
    Opt(Box<Expr>),
    Rep(Box<Expr>),
}

#[derive(Debug)]
pub struct Rule {
    pub name: String,
    pub line: usize,
    pub expr: Expr,
    /// Matches exactly one character; such rules are inlined where used.
    pub is_class: bool,
}

/// A side condition on the text a rule matches, for limits that are not
/// syntax.
pub type Check = fn(&str) -> bool;

pub struct Grammar {
    /// The start rule first.
    pub rules: Vec<Rule>,
    pub branches: usize,
    pub checks: Vec<Option<Check>>,
}

/// Rules by name, while compiling.
struct Scope<'a> {
    defs: &'a [Def],
    index: HashMap<&'a str, usize>,
}

impl Scope<'_> {
    fn def(&self, name: &str, line: usize) -> Result<usize, String> {
        self.index
            .get(name)
            .copied()
            .ok_or_else(|| format!("line {line}: `{name}` is not defined"))
    }

    /// The characters `syn` matches, if it matches exactly one character.
    fn class(&self, syn: &Syn, depth: usize) -> Result<Option<CharSet>, String> {
        Ok(match syn {
            Syn::Text(t) if t.chars().count() == 1 => {
                let c = t.chars().next().unwrap_or('\0');
                c.is_ascii().then(|| CharSet::one(c))
            }
            Syn::Special(set) => Some(*set),
            Syn::Name(name, line) if depth < self.defs.len() => {
                let n = self.def(name, *line)?;
                self.class(&self.defs[n].syn, depth + 1)?
            }
            Syn::Alt(branches) => {
                let mut set = Some(CharSet::NONE);
                for b in branches {
                    set = match (set, self.class(b, depth)?) {
                        (Some(a), Some(b)) => Some(a.union(b)),
                        _ => None,
                    };
                }
                set
            }
            Syn::Except(a, b, line) => match (self.class(a, depth)?, self.class(b, depth)?) {
                (Some(a), Some(b)) => Some(a.minus(b)),
                _ => return Err(format!("line {line}: `-` needs single characters")),
            },
            _ => None,
        })
    }

    fn compile(&self, syn: &Syn, branches: &mut usize) -> Result<Expr, String> {
        if let Some(set) = self.class(syn, 0)? {
            return Ok(Expr::Class(set));
        }
        Ok(match syn {
            Syn::Text(t) => Expr::Text(t.chars().collect()),
            Syn::Special(set) => Expr::Class(*set),
            Syn::Name(name, line) => Expr::Rule(self.def(name, *line)?),
            Syn::Seq(items) => Expr::Seq(
                items
                    .iter()
                    .map(|i| self.compile(i, branches))
                    .collect::<Result<_, _>>()?,
            ),
            Syn::Alt(alts) => {
                let first = *branches;
                *branches += alts.len();
                Expr::Alt {
                    first,
                    branches: alts
                        .iter()
                        .map(|a| self.compile(a, branches))
                        .collect::<Result<_, _>>()?,
                }
            }
            Syn::Opt(x) => Expr::Opt(Box::new(self.compile(x, branches)?)),
            Syn::Rep(x) => Expr::Rep(Box::new(self.compile(x, branches)?)),
            // The copies share their branch numbers: covering one covers all.
            Syn::Times(n, x) => Expr::Seq(vec![self.compile(x, branches)?; *n]),
            Syn::Except(_, _, line) => {
                return Err(format!("line {line}: `-` needs single characters"));
            }
        })
    }
}

impl Grammar {
    /// Reads a grammar.
    pub fn read(src: &str) -> Result<Grammar, String> {
        let defs = read::defs(src)?;
        let mut index = HashMap::new();
        for (n, def) in defs.iter().enumerate() {
            if index.insert(def.name.as_str(), n).is_some() {
                return Err(format!(
                    "line {}: `{}` is defined twice",
                    def.line, def.name
                ));
            }
        }
        let scope = Scope { defs: &defs, index };
        let mut branches = 0;
        let mut rules = Vec::new();
        for def in &defs {
            rules.push(Rule {
                name: def.name.clone(),
                line: def.line,
                is_class: scope.class(&def.syn, 0)?.is_some(),
                expr: scope.compile(&def.syn, &mut branches)?,
            });
        }
        let grammar = Grammar {
            checks: vec![None; rules.len()],
            rules,
            branches,
        };
        grammar.all_used(&defs, &scope)?;
        grammar.no_left_recursion()?;
        Ok(grammar)
    }

    /// Attaches a side condition to the text `rule` matches.
    pub fn check(&mut self, rule: &str, check: Check) {
        let n = self.rule(rule);
        self.checks[n] = Some(check);
    }

    pub fn rule(&self, name: &str) -> usize {
        self.rules
            .iter()
            .position(|r| r.name == name)
            .unwrap_or_else(|| panic!("the grammar has no rule `{name}`"))
    }

    /// Every rule must be reachable from the start rule: a rule nothing
    /// uses is a rule whose meaning nothing tests.
    fn all_used(&self, defs: &[Def], scope: &Scope) -> Result<(), String> {
        fn names<'a>(syn: &'a Syn, out: &mut Vec<&'a str>) {
            match syn {
                Syn::Name(n, _) => out.push(n),
                Syn::Seq(xs) | Syn::Alt(xs) => xs.iter().for_each(|x| names(x, out)),
                Syn::Opt(x) | Syn::Rep(x) | Syn::Times(_, x) => names(x, out),
                Syn::Except(a, b, _) => {
                    names(a, out);
                    names(b, out);
                }
                Syn::Text(_) | Syn::Special(_) => {}
            }
        }
        let mut seen = vec![false; defs.len()];
        let mut todo = vec![0];
        while let Some(n) = todo.pop() {
            if std::mem::replace(&mut seen[n], true) {
                continue;
            }
            let mut used = Vec::new();
            names(&defs[n].syn, &mut used);
            for name in used {
                todo.push(scope.def(name, defs[n].line)?);
            }
        }
        match seen.iter().position(|s| !s) {
            Some(n) => Err(format!(
                "line {}: `{}` is never used",
                defs[n].line, defs[n].name
            )),
            None => Ok(()),
        }
    }

    /// The recognizer follows every alternative, so it would loop on a rule
    /// that reaches itself without consuming input.
    fn no_left_recursion(&self) -> Result<(), String> {
        let mut nullable = vec![false; self.rules.len()];
        loop {
            let next: Vec<bool> = self
                .rules
                .iter()
                .map(|r| self.nullable(&r.expr, &nullable))
                .collect();
            if next == nullable {
                break;
            }
            nullable = next;
        }
        let corners: Vec<Vec<usize>> = self
            .rules
            .iter()
            .map(|r| {
                let mut out = Vec::new();
                self.corners(&r.expr, &nullable, &mut out);
                out
            })
            .collect();
        // Depth-first search for a cycle: 1 = on the stack, 2 = done.
        fn visit(n: usize, corners: &[Vec<usize>], state: &mut [u8]) -> Option<usize> {
            match state[n] {
                1 => return Some(n),
                2 => return None,
                _ => {}
            }
            state[n] = 1;
            for &m in &corners[n] {
                if let Some(c) = visit(m, corners, state) {
                    return Some(c);
                }
            }
            state[n] = 2;
            None
        }
        let mut state = vec![0; self.rules.len()];
        for n in 0..self.rules.len() {
            if let Some(c) = visit(n, &corners, &mut state) {
                let r = &self.rules[c];
                return Err(format!("line {}: `{}` is left-recursive", r.line, r.name));
            }
        }
        Ok(())
    }

    fn nullable(&self, e: &Expr, rules: &[bool]) -> bool {
        match e {
            Expr::Text(_) | Expr::Class(_) => false,
            Expr::Rule(r) => rules[*r],
            Expr::Seq(xs) => xs.iter().all(|x| self.nullable(x, rules)),
            Expr::Alt { branches, .. } => branches.iter().any(|x| self.nullable(x, rules)),
            Expr::Opt(_) | Expr::Rep(_) => true,
        }
    }

    /// The rules `e` may call before it has consumed anything.
    fn corners(&self, e: &Expr, nullable: &[bool], out: &mut Vec<usize>) {
        match e {
            Expr::Text(_) | Expr::Class(_) => {}
            Expr::Rule(r) => out.push(*r),
            Expr::Seq(xs) => {
                for x in xs {
                    self.corners(x, nullable, out);
                    if !self.nullable(x, nullable) {
                        break;
                    }
                }
            }
            Expr::Alt { branches, .. } => {
                branches.iter().for_each(|x| self.corners(x, nullable, out));
            }
            Expr::Opt(x) | Expr::Rep(x) => self.corners(x, nullable, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_reports_mistakes_by_line() {
        let cases = [
            ("a = b ;", "line 1: `b` is not defined"),
            ("a = 'x' ;\nb = 'y' ;", "line 2: `b` is never used"),
            ("a = a 'x' | 'y' ;", "line 1: `a` is left-recursive"),
            ("a = [ 'x' ] a 'y' | 'z' ;", "line 1: `a` is left-recursive"),
            ("a = 'x' ;\na = 'y' ;", "line 2: `a` is defined twice"),
            ("a = ? BEL ? ;", "line 1: unknown special sequence ? BEL ?"),
            ("a = 'xy' - 'x' ;", "line 1: `-` needs single characters"),
            ("a = 'x'\n", "line 1: expected `;`"),
        ];
        for (src, error) in cases {
            assert_eq!(Grammar::read(src).err().as_deref(), Some(error), "{src}");
        }
    }

    #[test]
    fn character_rules_become_classes() {
        let g = Grammar::read(
            "s = { c } ;\nc = d | ? any character ? - ( 'x' | d ) ;\nd = '0' | '1' ;",
        )
        .unwrap();
        let Expr::Class(set) = g.rules[g.rule("c")].expr else {
            panic!("not a class: {:?}", g.rules[1].expr);
        };
        assert!(set.contains('0') && set.contains('é') && !set.contains('x'));
    }
}
