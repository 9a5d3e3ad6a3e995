//! `fql fmt`: scripts in canonical form, printed, checked, or rewritten
//! in place.

use std::io::Write;
use std::path::Path;

use fql::check;
use fql::syntax::{self, Diagnostics};

use crate::args::FmtArgs;
use crate::error::{CliError, Exit};
use crate::output;
use crate::source::read_source;

/// What `fmt` does with each script's canonical form.
#[derive(Clone, Copy)]
enum Mode {
    /// Print it.
    Print,
    /// `--check`: print nothing; exit 1 if it differs from the script.
    Check,
    /// `--write`: put it in the script's place.
    Write,
}

/// Formats each script in turn, going on past one that fails, so that one
/// file that does not parse holds up none of the others; the exit status
/// is that of the worst.
pub fn run(args: &FmtArgs, color: bool) -> Result<(), CliError> {
    let mode = match (args.check, args.write) {
        (true, _) => Mode::Check,
        (false, true) => Mode::Write,
        (false, false) => Mode::Print,
    };
    let files: Vec<Option<&Path>> = if args.files.is_empty() {
        vec![None]
    } else {
        args.files.iter().map(|f| Some(f.as_path())).collect()
    };
    let mut worst = None;
    for file in files {
        let Err(error) = one(file, mode, color) else {
            continue;
        };
        // Told as it happens: the next file's output follows.
        let exit = error.tell();
        worst = worst.max(Some(exit));
        // Output nobody reads, or that cannot be written: printing the
        // rest would fail the same way.
        if matches!(exit, Exit::Closed | Exit::Output) {
            break;
        }
    }
    worst.map_or(Ok(()), |exit| Err(CliError::Told(exit)))
}

/// Formats one script: a file, or standard input for `None` or `-`.
fn one(file: Option<&Path>, mode: Mode, color: bool) -> Result<(), CliError> {
    let stdin = file.is_none_or(|f| f == Path::new("-"));
    if stdin && matches!(mode, Mode::Write) {
        return Err(CliError::Usage(
            "fmt --write rewrites files; standard input has no file to rewrite".to_string(),
        ));
    }
    let (name, src) = read_source(file)?;
    let formatted = canonical(&name, &src, color)?;
    match (mode, file) {
        (Mode::Print, _) => output::print(&formatted),
        _ if formatted == src => Ok(()),
        (Mode::Check, _) => Err(Exit::Unmet.into()),
        (Mode::Write, Some(path)) => write_in_place(path, &name, &formatted),
        // Refused above: standard input has no file to rewrite.
        (Mode::Write, None) => Err(Exit::Usage.into()),
    }
}

/// The script in canonical form, or every error printed and exit 3.
fn canonical(name: &str, src: &str, color: bool) -> Result<String, CliError> {
    match check::load(src) {
        Ok(script) => Ok(syntax::format(&script)),
        Err(errors) => {
            let diagnostics = Diagnostics::new(name.to_string(), src.to_string(), errors);
            Err(CliError::invalid(
                diagnostics.render(color, output::width()),
            ))
        }
    }
}

/// Replaces the file at `path` with `text` all at once: the text goes to
/// a temporary file in the same directory, with the file's permissions,
/// which is then renamed over it. A reader sees the old script or the new
/// one, never part of either, and a failure leaves the file as it was.
/// A symbolic link is followed, so the link stays and its target changes.
fn write_in_place(path: &Path, name: &str, text: &str) -> Result<(), CliError> {
    let failed = |error| CliError::Io {
        doing: "rewrite",
        name: name.to_string(),
        error,
    };
    let target = std::fs::canonicalize(path).map_err(failed)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let permissions = std::fs::metadata(&target).map_err(failed)?.permissions();
    let mut temp = tempfile::Builder::new()
        .prefix(".fql-fmt-")
        .tempfile_in(dir)
        .map_err(failed)?;
    temp.write_all(text.as_bytes()).map_err(failed)?;
    temp.as_file()
        .set_permissions(permissions)
        .map_err(failed)?;
    temp.as_file().sync_all().map_err(failed)?;
    temp.persist(&target).map_err(|e| failed(e.error))?;
    Ok(())
}
