//! The dialect's text: tokens, then rules as written.
//!
//! ISO 14977, with concatenation by juxtaposition: `a = x [ y ] { z } ;`,
//! `'t'` or `"t"` terminals without escapes, `n * x`, `x - y`, `? name ?`
//! and `(* comments *)`.

use super::CharSet;

/// The rules of a file, in order.
pub fn defs(src: &str) -> Result<Vec<Def>, String> {
    Reader {
        toks: tokenize(src)?,
        at: 0,
    }
    .defs()
}

/// A rule as written.
pub struct Def {
    pub name: String,
    pub line: usize,
    pub syn: Syn,
}

/// A right-hand side as written, names unresolved.
#[derive(Clone, Debug)]
pub enum Syn {
    Text(String),
    Special(CharSet),
    /// A rule, and the line that names it.
    Name(String, usize),
    Seq(Vec<Syn>),
    Alt(Vec<Syn>),
    Opt(Box<Syn>),
    Rep(Box<Syn>),
    Times(usize, Box<Syn>),
    /// `x - y`, and the line of the `-`.
    Except(Box<Syn>, Box<Syn>, usize),
}

/// The special sequences the grammar may use, and what they match.
const SPECIALS: [(&str, CharSet); 6] = [
    ("LF", CharSet::one('\n')),
    ("CR", CharSet::one('\r')),
    ("TAB", CharSet::one('\t')),
    ("BOM", CharSet::BOM),
    ("control character", CharSet::CONTROL),
    ("any character", CharSet::ANY),
];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Int(usize),
    Text(String),
    Special(String),
    Sym(char),
}

fn tokenize(src: &str) -> Result<Vec<(Tok, usize)>, String> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        let start = line;
        match c {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            '(' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                loop {
                    match chars.next() {
                        None => return Err(format!("line {start}: unclosed comment")),
                        Some(')') if prev == '*' => break,
                        Some(c) => {
                            line += usize::from(c == '\n');
                            prev = c;
                        }
                    }
                }
            }
            '\'' | '"' | '?' => {
                let mut text = String::new();
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\n') | None => {
                            return Err(format!("line {start}: unclosed {c}"));
                        }
                        Some(ch) => text.push(ch),
                    }
                }
                out.push((
                    match c {
                        '?' => Tok::Special(text.trim().to_string()),
                        _ if text.is_empty() => return Err(format!("line {line}: empty terminal")),
                        _ => Tok::Text(text),
                    },
                    line,
                ));
            }
            c if c.is_ascii_alphabetic() => {
                let mut name = c.to_string();
                while let Some(&n) = chars
                    .peek()
                    .filter(|n| n.is_ascii_alphanumeric() || **n == '_')
                {
                    name.push(n);
                    chars.next();
                }
                out.push((Tok::Name(name), line));
            }
            c if c.is_ascii_digit() => {
                let mut n = c.to_digit(10).unwrap_or(0) as usize;
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    n = n * 10 + d as usize;
                    chars.next();
                }
                out.push((Tok::Int(n), line));
            }
            '=' | ';' | '|' | '[' | ']' | '{' | '}' | '(' | ')' | '-' | '*' => {
                out.push((Tok::Sym(c), line));
            }
            c => return Err(format!("line {line}: unexpected {c:?}")),
        }
    }
    Ok(out)
}

/// Recursive descent over the tokens of one file.
struct Reader {
    toks: Vec<(Tok, usize)>,
    at: usize,
}

impl Reader {
    fn line(&self) -> usize {
        self.toks
            .get(self.at)
            .or(self.toks.last())
            .map_or(0, |t| t.1)
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|t| &t.0)
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(&Tok::Sym(c));
        self.at += usize::from(hit);
        hit
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("line {}: expected `{c}`", self.line()))
        }
    }

    fn defs(&mut self) -> Result<Vec<Def>, String> {
        let mut out = Vec::new();
        while let Some(tok) = self.peek().cloned() {
            let line = self.line();
            let Tok::Name(name) = tok else {
                return Err(format!("line {line}: expected a rule name"));
            };
            self.at += 1;
            self.expect('=')?;
            let body = self.alt()?;
            self.expect(';')?;
            out.push(Def {
                name,
                line,
                syn: body,
            });
        }
        Ok(out)
    }

    fn alt(&mut self) -> Result<Syn, String> {
        let mut branches = vec![self.seq()?];
        while self.eat('|') {
            branches.push(self.seq()?);
        }
        Ok(if branches.len() == 1 {
            branches.remove(0)
        } else {
            Syn::Alt(branches)
        })
    }

    fn seq(&mut self) -> Result<Syn, String> {
        let mut items = Vec::new();
        while matches!(
            self.peek(),
            Some(Tok::Name(_) | Tok::Int(_) | Tok::Text(_) | Tok::Special(_))
                | Some(Tok::Sym('(' | '[' | '{'))
        ) {
            items.push(self.term()?);
        }
        match items.len() {
            0 => Err(format!("line {}: empty alternative", self.line())),
            1 => Ok(items.remove(0)),
            _ => Ok(Syn::Seq(items)),
        }
    }

    fn term(&mut self) -> Result<Syn, String> {
        let factor = self.factor()?;
        let line = self.line();
        if self.eat('-') {
            let except = self.factor()?;
            return Ok(Syn::Except(Box::new(factor), Box::new(except), line));
        }
        Ok(factor)
    }

    fn factor(&mut self) -> Result<Syn, String> {
        if let Some(Tok::Int(n)) = self.peek() {
            let n = *n;
            self.at += 1;
            self.expect('*')?;
            return Ok(Syn::Times(n, Box::new(self.primary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Syn, String> {
        let line = self.line();
        let tok = self.peek().cloned();
        self.at += 1;
        Ok(match tok {
            Some(Tok::Name(n)) => Syn::Name(n, line),
            Some(Tok::Text(t)) => Syn::Text(t),
            Some(Tok::Special(s)) => match SPECIALS.iter().find(|(name, _)| *name == s) {
                Some((_, set)) => Syn::Special(*set),
                None => return Err(format!("line {line}: unknown special sequence ? {s} ?")),
            },
            Some(Tok::Sym(open @ ('(' | '[' | '{'))) => {
                let inner = self.alt()?;
                match open {
                    '(' => {
                        self.expect(')')?;
                        inner
                    }
                    '[' => {
                        self.expect(']')?;
                        Syn::Opt(Box::new(inner))
                    }
                    _ => {
                        self.expect('}')?;
                        Syn::Rep(Box::new(inner))
                    }
                }
            }
            _ => return Err(format!("line {line}: expected a term")),
        })
    }
}
