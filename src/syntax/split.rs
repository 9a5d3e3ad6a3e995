//! Where a script's transactions end, found line by line without parsing,
//! so that a script too large to hold is read one transaction at a time.
//!
//! A line that holds `@commit` alone (with spaces, a comment and a line
//! break after it) ends a transaction, and it is always read as the meta
//! statement it looks like: a string cannot span lines, a comment ends
//! with its line, and a statement never goes on over a line that starts
//! with `@`. Such a line in the middle of a tuple ends the tuple with an
//! error, whether the script is read whole or in pieces; parsed apart, each
//! piece parses as the same text does inside the whole script.

use std::io::{self, BufRead};

/// Whether `line`, a line of a script with or without its line break,
/// is an `@commit` that ends a transaction.
pub fn commits(line: &[u8]) -> bool {
    let hspace = |b: &[u8]| {
        let n = b.iter().position(|&c| c != b' ' && c != b'\t');
        n.unwrap_or(b.len())
    };
    let line = &line[hspace(line)..];
    let Some(rest) = line.strip_prefix(b"@commit") else {
        return false;
    };
    let rest = &rest[hspace(rest)..];
    matches!(rest, [] | [b'\n'] | [b'\r', b'\n'] | [b'%', ..])
}

/// The pieces of what `reader` reads, a piece at a time: each runs
/// through a [`commits`] line, the last to the end. Input with no such
/// line is one piece; empty input is none. The same reading serves a
/// script in memory (`&[u8]` is [`BufRead`]) and a file read again and
/// again; the caller stops at the first error.
pub fn pieces<R: BufRead>(reader: R) -> Pieces<R> {
    Pieces { reader }
}

/// The iterator of [`pieces`].
pub struct Pieces<R> {
    reader: R,
}

impl<R: BufRead> Iterator for Pieces<R> {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<io::Result<Vec<u8>>> {
        let mut bytes = Vec::new();
        loop {
            let start = bytes.len();
            match self.reader.read_until(b'\n', &mut bytes) {
                Err(e) => return Some(Err(e)),
                Ok(0) => return (!bytes.is_empty()).then_some(Ok(bytes)),
                Ok(_) if commits(&bytes[start..]) => return Some(Ok(bytes)),
                Ok(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::{Item, MetaKind};

    /// The pieces of `text`, as text.
    fn split(text: &str) -> Vec<String> {
        pieces(text.as_bytes())
            .map(|piece| String::from_utf8(piece.unwrap()).unwrap())
            .collect()
    }

    /// Whether the parser reads `text` as one `@commit` and nothing more.
    fn parses_as_commit(text: &str) -> bool {
        matches!(
            crate::syntax::parse(text).as_ref().map(|s| s.items.as_slice()),
            Ok([Item::Meta(m)]) if m.kind == MetaKind::Commit
        )
    }

    /// A line ends a transaction exactly when the parser reads it as an
    /// `@commit`, and never inside a string or a comment.
    #[test]
    fn agrees_with_the_parser() {
        let lines = [
            "@commit",
            "@commit\n",
            "@commit\r\n",
            "  \t@commit  \n",
            "@commit % done\n",
            "@commit% done\r\n",
            "@commit\r",
            "@commitx\n",
            "@commit.x\n",
            "@ commit\n",
            "@commit /a(1)\n",
            "@comit\n",
            "@read\n",
            "% @commit\n",
            "/a(\"@commit\")\n",
            "x@commit\n",
            "\r@commit\n",
            "@COMMIT\n",
        ];
        for line in lines {
            assert_eq!(commits(line.as_bytes()), parses_as_commit(line), "{line:?}");
        }
    }

    /// Each piece ends after its `@commit`; text after the last one is a
    /// piece of its own, and parsing the pieces apart finds what parsing
    /// the whole finds.
    #[test]
    fn pieces_end_after_each_commit() {
        let text = "/a(1)=1\n% @commit\n/b(\"@commit\")=2\n  @commit\n@commit\n/c(1,\n@commit\n/d";
        let parts = split(text);
        assert_eq!(
            parts,
            [
                "/a(1)=1\n% @commit\n/b(\"@commit\")=2\n  @commit\n",
                "@commit\n",
                "/c(1,\n@commit\n",
                "/d"
            ]
        );
        assert_eq!(parts.concat(), text);
        let whole = crate::syntax::parse(text).unwrap_err();
        let apart: Vec<_> = parts
            .iter()
            .filter_map(|piece| crate::syntax::parse(piece).err())
            .flatten()
            .collect();
        let messages = |errors: &[crate::syntax::ParseError]| {
            errors.iter().map(ToString::to_string).collect::<Vec<_>>()
        };
        assert_eq!(messages(&whole), messages(&apart));
        assert!(split("").is_empty());
        assert_eq!(split("@commit"), ["@commit"]);
    }
}
