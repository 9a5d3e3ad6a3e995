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

use std::ops::Range;

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

/// The pieces of `text` that [`commits`] lines end: each runs through
/// such a line, the last to the end of the text. A text with no such line
/// is one piece; an empty text is none.
pub fn pieces(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n + 1);
            let line = &bytes[at..end];
            at = end;
            if commits(line) {
                let piece = start..end;
                start = end;
                return Some(piece);
            }
        }
        (start < bytes.len()).then(|| {
            let piece = start..bytes.len();
            start = bytes.len();
            piece
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::{Item, MetaKind};

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
        let parts: Vec<&str> = pieces(text).map(|r| &text[r]).collect();
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
        assert_eq!(pieces("").count(), 0);
        assert_eq!(
            pieces("@commit")
                .map(|r| (r.start, r.end))
                .collect::<Vec<_>>(),
            [(0, 7)]
        );
    }
}
