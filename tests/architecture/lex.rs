//! Just enough of Rust's lexical syntax to find module paths: comments,
//! strings and character literals are skipped, so a path quoted in a doc
//! comment or a message is no import.

/// A token the path reader looks at, with its line.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Open,
    Close,
    Comma,
    /// Any other punctuation, or a number.
    Punct(char),
}

/// The tokens of `text`, each with its line (from 1).
pub fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let start = i;
        let tok = next(&chars, &mut i);
        line += chars[start..i].iter().filter(|&&c| c == '\n').count();
        if let Some(tok) = tok {
            out.push((tok, line));
        }
    }
    out
}

/// The token at `*i`, moving past it; `None` for what the reader skips.
fn next(c: &[char], i: &mut usize) -> Option<Tok> {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    let ch = c[*i];
    *i += 1;
    match ch {
        _ if ch.is_whitespace() => None,
        '/' if at(*i) == '/' => skip_while(c, i, |ch| ch != '\n'),
        '/' if at(*i) == '*' => block_comment(c, i),
        '"' => string(c, i),
        'r' | 'b' if raw_start(c, *i - 1).is_some() => raw_string(c, i),
        'b' if at(*i) == '"' => {
            *i += 1;
            string(c, i)
        }
        '\'' => quote(c, i),
        ':' if at(*i) == ':' => {
            *i += 1;
            Some(Tok::Sep)
        }
        '{' => Some(Tok::Open),
        '}' => Some(Tok::Close),
        ',' => Some(Tok::Comma),
        _ if ch == '_' || ch.is_alphabetic() => {
            let start = *i - 1;
            skip_while(c, i, |ch| ch == '_' || ch.is_alphanumeric());
            Some(Tok::Ident(c[start..*i].iter().collect()))
        }
        _ if ch.is_ascii_digit() => {
            skip_while(c, i, |ch| ch == '_' || ch == '.' || ch.is_alphanumeric());
            Some(Tok::Punct('0'))
        }
        _ => Some(Tok::Punct(ch)),
    }
}

fn skip_while(c: &[char], i: &mut usize, keep: impl Fn(char) -> bool) -> Option<Tok> {
    while *i < c.len() && keep(c[*i]) {
        *i += 1;
    }
    None
}

/// Past a `/* */` comment, which nests; `*i` is just after the `/`.
fn block_comment(c: &[char], i: &mut usize) -> Option<Tok> {
    let mut depth = 0;
    while *i < c.len() {
        match (c[*i], c.get(*i + 1)) {
            ('/', Some('*')) => depth += 1,
            ('*', Some('/')) => depth -= 1,
            _ => {
                *i += 1;
                continue;
            }
        }
        *i += 2;
        if depth == 0 {
            break;
        }
    }
    None
}

/// Past a string's escapes and closing quote; `*i` is just after `"`.
fn string(c: &[char], i: &mut usize) -> Option<Tok> {
    while *i < c.len() {
        *i += 1;
        match c[*i - 1] {
            '\\' => *i += 1,
            '"' => break,
            _ => {}
        }
    }
    None
}

/// The number of `#` of a raw string starting at `k` (`r"`, `r#"`, `br"`).
fn raw_start(c: &[char], k: usize) -> Option<usize> {
    let k = if c[k] == 'b' { k + 1 } else { k };
    if c.get(k) != Some(&'r') {
        return None;
    }
    let hashes = c[k + 1..].iter().take_while(|&&ch| ch == '#').count();
    (c.get(k + 1 + hashes) == Some(&'"')).then_some(hashes)
}

/// Past a raw string; `*i` is just after its first letter.
fn raw_string(c: &[char], i: &mut usize) -> Option<Tok> {
    let hashes = raw_start(c, *i - 1).unwrap_or(0);
    *i += usize::from(c[*i - 1] == 'b') + hashes + 1;
    while *i < c.len() {
        let closed = c[*i] == '"'
            && c[*i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&h| h == '#')
                .count()
                == hashes;
        *i += 1;
        if closed {
            *i += hashes;
            break;
        }
    }
    None
}

/// Past a character literal, or past the quote of a lifetime or label.
fn quote(c: &[char], i: &mut usize) -> Option<Tok> {
    match (c.get(*i), c.get(*i + 1)) {
        (Some('\\'), _) => {
            *i += 1;
            skip_while(c, i, |ch| ch != '\'');
            *i += 1;
        }
        (Some(_), Some('\'')) => *i += 2,
        _ => {}
    }
    None
}
