//! What users of fdbcli and psql type out of habit: `quit`, `begin`,
//! `get KEY`, `writemode on`. As FQL these would list a directory named
//! `quit` or fail to parse with a `./` nobody typed, so the shell answers
//! them with the fql way instead and runs nothing. Only a whole entry in
//! one of these forms is taken: a directory named `quit` is still listed
//! by `./quit` or `/quit`.

use fql::syntax::escaped_bytes_literal;

/// The answer to `entry` when it is one of those habits.
pub fn hint(entry: &str) -> Option<String> {
    let entry = entry.trim();
    // psql ends its commands with `;`.
    let entry = entry.strip_suffix(';').unwrap_or(entry).trim_end();
    let (word, rest) = entry
        .split_once(char::is_whitespace)
        .map_or((entry, ""), |(w, r)| (w, r.trim_start()));
    let args = words(rest)?;
    let word = word.to_ascii_lowercase();
    let word = word.as_str();
    match (word, args.as_slice()) {
        ("quit" | "exit" | "q", []) => Some("to leave, type \\quit or Ctrl-D".into()),
        ("help", []) => {
            Some("type \\help for the shell's commands, \\help syntax for how a query looks".into())
        }
        ("begin" | "commit" | "rollback", []) => Some(format!(
            "the shell's transactions are commands: \\{word} (\\begin, \\commit, \\rollback)"
        )),
        ("status", [] | [_]) => Some(
            "`fql status`, run from the system's shell, prints the state of the database".into(),
        ),
        ("writemode", [on]) if matches!(on.as_slice(), b"on" | b"off") => Some(format!(
            "writes are turned {0} by the command \\writemode {0}",
            String::from_utf8_lossy(on)
        )),
        ("get", [key]) => Some(raw(
            word,
            "read the raw key",
            &Raw::key(key),
            "/dir(1,\"a\")",
        )),
        ("getrange" | "getrangekeys", [begin, rest @ ..]) if rest.len() <= 2 => {
            let mut query = Raw::range(begin, rest.first().map(Vec::as_slice));
            if let Some(limit) = rest.get(1) {
                // A number, or not fdbcli's form (and nothing to echo).
                let limit: u64 = std::str::from_utf8(limit).ok()?.parse().ok()?;
                query.options.push(format!("limit:{limit}"));
            }
            Some(raw(
                word,
                "read the raw keys in a range",
                &query,
                "/dir(1,...)",
            ))
        }
        ("set", [key, value]) => {
            let mut query = Raw::key(key);
            query
                .text
                .push_str(&format!("={}", escaped_bytes_literal(value)));
            Some(raw(word, "write a raw key", &query, "/dir(1)=\"v\""))
        }
        ("clear", [key]) => {
            let mut query = Raw::key(key);
            query.text.push_str("=clear");
            Some(raw(word, "clear a raw key", &query, "/dir(1)=clear"))
        }
        ("clearrange", [begin, end]) => {
            let mut query = Raw::range(begin, Some(end));
            query.text.push_str("=clear");
            Some(raw(
                word,
                "clear the raw keys in a range",
                &query,
                "/dir(1,...)=clear",
            ))
        }
        _ => None,
    }
}

/// The FQL of an fdbcli command on raw keys, its bytes escaped as fdbcli
/// writes them (`b"\x02app\x00"`), so the answer reads as what was typed.
struct Raw {
    /// Its query options: `system` for a key from `0xff` on.
    options: Vec<String>,
    /// The keys, and the value.
    text: String,
}

impl Raw {
    /// One key.
    fn key(key: &[u8]) -> Raw {
        Raw {
            options: system(key.first() == Some(&0xff)),
            text: escaped_bytes_literal(key),
        }
    }

    /// The keys from `begin` up to `end`, or up to the system keys.
    fn range(begin: &[u8], end: Option<&[u8]>) -> Raw {
        let end = end.unwrap_or(b"\xff");
        // The range stops before `end`: `0xff` itself reaches no system key.
        let reaches = begin.first() == Some(&0xff) || (end.first() == Some(&0xff) && end.len() > 1);
        Raw {
            options: system(reaches),
            text: format!(
                "{}..{}",
                escaped_bytes_literal(begin),
                escaped_bytes_literal(end)
            ),
        }
    }
}

/// The `system` option when the keys need it.
fn system(needed: bool) -> Vec<String> {
    if needed {
        vec!["system".into()]
    } else {
        Vec::new()
    }
}

/// The hint for an fdbcli command on raw keys: the same in FQL, and the
/// usual form on tuple keys under a directory.
fn raw(word: &str, what: &str, query: &Raw, tuple: &str) -> String {
    let options = match query.options.as_slice() {
        [] => String::new(),
        options => format!("[{}] ", options.join(",")),
    };
    format!(
        "FQL has no `{word}`: a query is the key it reads or writes. To {what}: {options}{}\n\
         Keys under a directory are tuples: {tuple}; \\help syntax shows more.",
        query.text
    )
}

/// The arguments as fdbcli reads them: separated by spaces, `"..."` to
/// hold spaces, `\xNN` for any byte and `\\` for a backslash. `None` for
/// text that is not arguments (an unclosed quote, another escape).
fn words(text: &str) -> Option<Vec<Vec<u8>>> {
    let mut words = Vec::new();
    let mut bytes = text.bytes().peekable();
    while let Some(&b) = bytes.peek() {
        if b.is_ascii_whitespace() {
            bytes.next();
            continue;
        }
        let mut word = Vec::new();
        let mut quoted = false;
        while let Some(b) = bytes.next() {
            match b {
                b'"' => quoted = !quoted,
                b if b.is_ascii_whitespace() && !quoted => break,
                b'\\' => match bytes.next()? {
                    b'\\' => word.push(b'\\'),
                    b'x' => {
                        let digits = [bytes.next()?, bytes.next()?];
                        let digits = std::str::from_utf8(&digits).ok()?;
                        word.push(u8::from_str_radix(digits, 16).ok()?);
                    }
                    _ => return None,
                },
                b => word.push(b),
            }
        }
        if quoted {
            return None;
        }
        words.push(word);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fdbcli_keys_become_bytes() {
        assert_eq!(
            words(r#"a "b c" \x00\\"#).unwrap(),
            [&b"a"[..], b"b c", b"\0\\"]
        );
        assert!(words("\"open").is_none());
        assert!(words(r"\q").is_none());
        assert_eq!(escaped_bytes_literal(b"k\xff"), r#"b"k\xff""#);
    }

    #[test]
    fn only_whole_entries_in_the_known_forms() {
        assert!(hint("quit").is_some());
        assert!(hint(" COMMIT; ").is_some());
        assert!(hint("get k").unwrap().contains(r#"b"k""#));
        assert!(
            hint(r"get \x02app\x00")
                .unwrap()
                .contains(": b\"\\x02app\\x00\"\n")
        );
        assert!(
            hint("getrange a b 3")
                .unwrap()
                .contains(r#"[limit:3] b"a"..b"b""#)
        );
        assert!(hint("set k \"v w\"").unwrap().contains(r#"b"k"=b"v w""#));
        for not in [
            "quit(1)",
            "./quit",
            "/quit",
            "get",
            "set k",
            "writemode maybe",
            "users",
            r"getrange a b \x1b[2J",
        ] {
            assert!(hint(not).is_none(), "{not}");
        }
    }
}
