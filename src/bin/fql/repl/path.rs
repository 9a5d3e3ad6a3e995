//! Relative paths: after `\cd /app`, `users(42)` means `/app/users(42)`.

use fql::syntax::ast::{DirElem, Query};
use fql::syntax::is_open;

/// `text` with every statement that does not start with `/` put under
/// `cwd`. A statement starts at the beginning of a line that is not inside
/// an open tuple or string, after any options.
pub fn resolve(text: &str, cwd: &[String]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        if is_open(&out) {
            out.push_str(line);
            continue;
        }
        let body = skip_options(line);
        let at = line.len() - body.len();
        out.push_str(&line[..at]);
        match body.chars().next() {
            None | Some('/' | '%' | '@' | '\\' | '\n' | '\r') => {}
            // A raw key names no directory: no bare name starts with a digit.
            Some('0') if body.starts_with("0x") => {}
            Some('(') => out.push_str(&absolute(cwd)),
            Some(_) => {
                out.push_str(&absolute(cwd));
                if !cwd.is_empty() {
                    out.push('/');
                }
            }
        }
        out.push_str(body);
    }
    out
}

/// `cwd` as FQL: `/` for the root.
fn absolute(cwd: &[String]) -> String {
    fql::directory::show(cwd)
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

/// The directory `arg` names, from `cwd`: absolute (`/a/b`), relative
/// (`b/c`), with `..` for a parent; names are FQL directory elements, so a
/// name that is not bare is quoted (`"my dir"`).
pub fn directory(arg: &str, cwd: &[String]) -> Result<Vec<String>, String> {
    let arg = arg.trim();
    let mut path: Vec<String> = if arg.starts_with('/') {
        Vec::new()
    } else {
        cwd.to_vec()
    };
    let mut fql = String::new();
    for part in arg.split('/').filter(|p| !p.is_empty()) {
        match part {
            "." => {}
            ".." => {
                if !fql.is_empty() {
                    // `..` after names given here: drop the last of them.
                    let cut = fql.rfind('/').unwrap_or(0);
                    fql.truncate(cut);
                } else {
                    path.pop();
                }
            }
            name => {
                fql.push('/');
                fql.push_str(name);
            }
        }
    }
    if fql.is_empty() {
        return Ok(path);
    }
    let script =
        fql::syntax::parse(&fql).map_err(|_| format!("`{arg}` is not a directory path"))?;
    let Some(fql::syntax::ast::Item::Statement(statement)) = script.items.first() else {
        return Err(format!("`{arg}` is not a directory path"));
    };
    let Query::Directory(dir) = &statement.query else {
        return Err(format!("`{arg}` is not a directory path"));
    };
    if dir.rest.is_some() {
        return Err(format!("`{arg}` must name one directory, without `...`"));
    }
    for elem in &dir.elems {
        match elem {
            DirElem::Name { name, .. } => path.push(name.to_string()),
            _ => return Err(format!("`{arg}` must name one directory, without holes")),
        }
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> Vec<String> {
        vec!["app".into()]
    }

    #[test]
    fn relative_statements_go_under_the_directory() {
        assert_eq!(resolve("users(42)", &app()), "/app/users(42)");
        assert_eq!(resolve("(1)=2", &app()), "/app(1)=2");
        assert_eq!(resolve("[limit:2] users", &app()), "[limit:2] /app/users");
        assert_eq!(resolve("/abs(1)", &app()), "/abs(1)");
        assert_eq!(
            resolve("users(1,\n2)\nx", &app()),
            "/app/users(1,\n2)\n/app/x"
        );
        assert_eq!(resolve("users", &[]), "/users");
        assert_eq!(resolve("[system] 0xff02...", &app()), "[system] 0xff02...");
    }

    #[test]
    fn directory_arguments() {
        assert_eq!(directory("users", &app()).unwrap(), ["app", "users"]);
        assert_eq!(directory("/x/y", &app()).unwrap(), ["x", "y"]);
        assert_eq!(directory("..", &app()).unwrap(), Vec::<String>::new());
        assert_eq!(directory("\"my dir\"", &[]).unwrap(), ["my dir"]);
        assert!(directory("<>", &[]).is_err());
    }
}
