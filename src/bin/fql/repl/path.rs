//! Relative paths in the shell. The library resolves them: `./users(42)`
//! starts at the shell's root, which `--root` sets and `\cd` moves. The
//! shell adds one shorthand, a statement without its `./` (`users(42)`),
//! and `\cd users` for `\cd ./users`, as a file system shell reads them.

use std::borrow::Cow;

use fql::plan::{Root, RootError};
use fql::syntax::is_open;

/// `text` with `./` put before every statement that starts with a name
/// (`.` before one that starts with a tuple), so the planner puts it
/// under the root. A statement starts at the beginning of a line that is
/// not inside an open tuple or string, after any options.
pub fn resolve(text: &str) -> String {
    resolve_marked(text).0
}

/// [`resolve`], and each run of text it added: its offset in the result
/// and its length, so that reports can show the text as typed.
pub fn resolve_marked(text: &str) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(text.len() + 16);
    let mut added = Vec::new();
    for line in text.split_inclusive('\n') {
        if is_open(&out) {
            out.push_str(line);
            continue;
        }
        let body = skip_options(line);
        let at = line.len() - body.len();
        out.push_str(&line[..at]);
        let head = match body.chars().next() {
            None | Some('/' | '.' | '%' | '@' | '\\' | '\n' | '\r') => "",
            // A raw key names no directory: `0x` or `b"` starts no name.
            Some('0' | 'b') if fql::syntax::starts_bytes(body) => "",
            Some('(') => ".",
            Some(_) => "./",
        };
        if !head.is_empty() {
            added.push((out.len(), head.len()));
            out.push_str(head);
        }
        out.push_str(body);
    }
    (out, added)
}

/// The line after leading blanks and a `[...]` options group.
fn skip_options(line: &str) -> &str {
    let rest = line.trim_start_matches([' ', '\t']);
    if rest.starts_with('[')
        && let Some(end) = rest.find(']')
    {
        return rest[end + 1..].trim_start_matches([' ', '\t']);
    }
    rest
}

/// A `\cd` or `\ls` argument as a path: `./` before one that starts
/// with a name, so `\cd users` is `\cd ./users`.
pub fn spelled(arg: &str) -> Cow<'_, str> {
    match arg.chars().next() {
        None | Some('/' | '.') => Cow::Borrowed(arg),
        Some(_) => Cow::Owned(format!("./{arg}")),
    }
}

/// The directory `arg` names from `root`, by the rule `--root` follows;
/// `root` itself for no argument.
pub fn directory(arg: &str, root: &Root) -> Result<Root, RootError> {
    let arg = arg.trim();
    if arg.is_empty() {
        return Ok(root.clone());
    }
    root.change(&spelled(arg))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> Root {
        Root::new(vec!["app".into()])
    }

    #[test]
    fn statements_without_a_path_head_get_one() {
        assert_eq!(resolve("users(42)"), "./users(42)");
        assert_eq!(resolve("(1)=2"), ".(1)=2");
        assert_eq!(resolve("[limit:2] users"), "[limit:2] ./users");
        assert_eq!(resolve("/abs(1)"), "/abs(1)");
        assert_eq!(resolve("../x(1)"), "../x(1)");
        assert_eq!(resolve("users(1,\n2)\nx"), "./users(1,\n2)\n./x");
        assert_eq!(resolve("[system] 0xff02..."), "[system] 0xff02...");
        assert_eq!(resolve(r#"b"\x02app\x00"..."#), r#"b"\x02app\x00"..."#);
        assert_eq!(resolve("b(1)"), "./b(1)");
        let (text, added) = resolve_marked("users(1,\n2)\n [limit:1] (3)");
        assert_eq!(text, "./users(1,\n2)\n [limit:1] .(3)");
        assert_eq!(added, [(0, 2), (25, 1)]);
    }

    #[test]
    fn directory_arguments() {
        let names = |arg: &str| directory(arg, &app()).map(|r| r.names().to_vec());
        assert_eq!(names("users").unwrap(), ["app", "users"]);
        assert_eq!(names("./users").unwrap(), ["app", "users"]);
        assert_eq!(names("/x/y").unwrap(), ["x", "y"]);
        assert_eq!(names("..").unwrap(), Vec::<String>::new());
        assert_eq!(names("").unwrap(), ["app"]);
        assert_eq!(names("\"my dir\"").unwrap(), ["app", "my dir"]);
        assert!(names("<>").is_err());
        assert!(names("../..").is_err(), "never clamped at `/`");
    }
}
