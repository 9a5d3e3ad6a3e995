//! `\i FILE`, which runs a file of entries, and `\e`, which edits the last
//! entry in the user's editor.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use fql::syntax::{is_open, printable};

use super::Repl;
use super::tell;
use crate::error::{CliError, io_reason, report, warn};

/// How deep `\i` runs files that run files: past this, a file is most
/// likely running itself.
const DEPTH: usize = 16;

impl Repl {
    /// `\i FILE`: its FQL runs as typed entries do (relative paths from
    /// the current root), each stretch between two commands as one
    /// script; its lines that start with `\` are commands. It stops at
    /// the first stretch that fails.
    pub(super) fn include(&mut self, arg: &str) {
        if arg.is_empty() {
            tell("\\i takes a file to run".into());
            return;
        }
        if self.depth >= DEPTH {
            tell(format!(
                "\\i {}: files run files {DEPTH} deep; does one run itself?",
                printable(arg)
            ));
            self.failed = true;
            return;
        }
        let name = printable(arg).into_owned();
        let text = match std::fs::read_to_string(Path::new(arg)) {
            Ok(text) => text,
            Err(e) => {
                report(&CliError::Io {
                    doing: "read",
                    name,
                    error: e,
                });
                self.failed = true;
                return;
            }
        };
        self.depth += 1;
        self.include_text(&name, &text);
        self.depth -= 1;
    }

    /// Runs the entries of the file called `name`.
    fn include_text(&mut self, name: &str, text: &str) {
        self.failed = false;
        // The FQL since the last command, after a blank line for each
        // line before it, so that reports give the file's lines.
        let mut fql = String::new();
        for line in text.split_inclusive('\n') {
            let command = line.trim_start().strip_prefix('\\');
            match command {
                Some(command) if !is_open(&fql) => {
                    if !self.run_stretch(name, &mut fql) {
                        break;
                    }
                    self.meta(command.trim_end());
                    fql.push('\n');
                }
                _ => fql.push_str(line),
            }
            if self.quit {
                return;
            }
        }
        if !self.failed {
            self.run_stretch(name, &mut fql);
        }
        if self.failed && !self.quit {
            tell(format!("{name} stopped at its first failure"));
        }
    }

    /// Runs the FQL of a file collected so far, if any, and leaves its
    /// lines blank; says whether the file goes on.
    fn run_stretch(&mut self, name: &str, fql: &mut String) -> bool {
        if !fql.trim().is_empty() {
            let (text, added) = super::path::resolve_marked(fql);
            let typed = crate::source::Typed::new(fql, &text, added);
            self.pending = Some((name.to_string(), typed));
            self.query(&text);
            *fql = "\n".repeat(fql.matches('\n').count());
        }
        !self.failed && !self.quit
    }

    /// `\e`: the last entry in `$EDITOR` (else `$VISUAL`, else `vi`), in a
    /// private temporary file; what the editor leaves there runs as an
    /// entry when it exits with success.
    pub(super) fn edit(&mut self, arg: &str) {
        if !arg.is_empty() {
            tell("\\e takes no argument: it edits the last entry".into());
            return;
        }
        let editor = ["EDITOR", "VISUAL"]
            .iter()
            .find_map(|name| std::env::var(name).ok().filter(|e| !e.trim().is_empty()))
            .unwrap_or_else(|| "vi".to_string());
        let Some(text) = edited(&editor, self.last.as_deref().unwrap_or_default()) else {
            return;
        };
        let entry = text.trim_end();
        if entry.trim().is_empty() {
            warn("the entry is empty; nothing ran");
            return;
        }
        self.edited = Some(entry.to_string());
        self.line(entry);
    }
}

/// `text` as `editor` leaves it, or `None` after saying why there is
/// nothing to run.
fn edited(editor: &str, text: &str) -> Option<String> {
    let shown = printable(editor);
    let file = tempfile::Builder::new()
        .prefix("fql-")
        .suffix(".fql")
        .tempfile()
        .and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.write_all(b"\n")?;
            Ok(f)
        });
    let file = match file {
        Ok(file) => file,
        Err(e) => {
            tell(format!("cannot make a file to edit: {}", io_reason(&e)));
            return None;
        }
    };
    // Through the shell, as EDITOR may hold arguments (`code -w`).
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file.path())
        .status();
    match status {
        Err(e) => {
            tell(format!(
                "cannot start the editor `{shown}`: {}",
                io_reason(&e)
            ));
            None
        }
        Ok(status) if !status.success() => {
            tell(format!(
                "the editor `{shown}` ended with {status}; nothing ran"
            ));
            None
        }
        // Read by its name: editors often write a new file over it.
        Ok(_) => match std::fs::read_to_string(file.path()) {
            Ok(text) => Some(text),
            Err(e) => {
                tell(format!("cannot read the edited entry: {}", io_reason(&e)));
                None
            }
        },
    }
}
