//! `-p` flags: each one parameter, read as written and never guessed, and
//! every mistake named by its flag.
//!
//! `-p NAME=VALUE` reads VALUE as [`Param::parse`] does: a path, FQL data,
//! or a plain word as a string. `-p NAME:str=TEXT` takes TEXT as a string
//! whatever it holds. That form was chosen over quoting (`-p
//! 'name="02134"'`, FQL already, and still accepted) because it needs no
//! second layer of shell quotes, and over a flag of its own
//! (`--param-str`) because it keeps every parameter in one flag and reads
//! like FQL's typed variables (`<name:str>`).

use fql::plan::{Param, ParamError, Params, Root};
use fql::syntax::{Sources, printable};

use crate::error::{CliError, Exit};
use crate::output;

/// The parameters the flags give, relative paths read from `root`; the
/// first flag that is not one, or that names a parameter given already,
/// is a usage error.
pub fn params(flags: &[String], root: &Root, color: bool) -> Result<Params, CliError> {
    let mut out = Params::new();
    let mut given: Vec<(String, &str)> = Vec::new();
    for flag in flags {
        let (name, value) = one(flag, root, color)?;
        if let Some((_, first)) = given.iter().find(|(n, _)| *n == name) {
            return Err(CliError::Usage(format!(
                "-p {} gives `{name}` again after -p {}; give each parameter once",
                printable(flag),
                printable(first)
            )));
        }
        given.push((name.clone(), flag));
        out.insert(name, value);
    }
    Ok(out)
}

/// One `-p` flag.
fn one(flag: &str, root: &Root, color: bool) -> Result<(String, Param), CliError> {
    let usage = |why: String| Err(CliError::Usage(format!("-p {}: {why}", printable(flag))));
    let Some((left, value)) = flag.split_once('=') else {
        return usage("a parameter is NAME=VALUE, or NAME:str=TEXT for a string".into());
    };
    let (name, string) = match left.split_once(':') {
        None => (left, false),
        Some((name, "str")) => (name, true),
        Some((_, other)) => {
            return usage(format!(
                "`:{}` is no form of -p: NAME=VALUE reads FQL data or a directory path, NAME:str=TEXT takes TEXT as a string",
                printable(other)
            ));
        }
    };
    if !fql::syntax::is_name(name) {
        return usage(format!(
            "`{}` is not a parameter's name: a name starts with a letter or `_` and goes on with letters, digits, `_`, `-` and `.`, as `:NAME` in a script",
            printable(name)
        ));
    }
    if string {
        return Ok((name.to_string(), Param::string(value)));
    }
    match Param::parse(value, root) {
        Ok(param) => Ok((name.to_string(), param)),
        Err(ParamError::Empty) => usage(format!(
            "the value is empty; for the empty string write -p {name}:str="
        )),
        Err(e) => {
            let sources = Sources::single(format!("-p {name}"), value.to_string());
            let shown = fql::syntax::render(&e, &sources, color, output::width());
            let what = match e {
                ParamError::Path(_) => "a directory path",
                _ => "FQL data",
            };
            let hint = CliError::Usage(format!(
                "-p {}: not {what}; to pass the text as a string, write -p {name}:str={}",
                printable(flag),
                printable(value)
            ));
            Err(CliError::Diagnostics {
                text: shown + &hint.render(),
                exit: Exit::Usage,
            })
        }
    }
}

/// Refuses parameters that no statement uses: most likely a typo, which
/// would otherwise leave the parameter meant unset or at a value given
/// elsewhere. `wanted` is what the planner found the script takes.
pub fn all_used(params: &Params, wanted: &[String]) -> Result<(), CliError> {
    let mut unused: Vec<&String> = params.keys().filter(|k| !wanted.contains(k)).collect();
    if unused.is_empty() {
        return Ok(());
    }
    unused.sort();
    let takes = match wanted {
        [] => "the script takes no parameters".to_string(),
        names => {
            let names: Vec<String> = names.iter().map(|n| format!("`:{n}`")).collect();
            format!("the script's parameters are {}", names.join(", "))
        }
    };
    Err(CliError::lines(
        Exit::Usage,
        unused
            .iter()
            .map(|name| format!("-p {name}: no statement uses `:{name}`; {takes}")),
    ))
}
