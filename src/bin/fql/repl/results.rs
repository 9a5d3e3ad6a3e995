//! Where the shell's results go: the terminal, through the pager when
//! they are longer than the screen (`\pager`), or a file (`\o`).

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::rc::Rc;
use std::sync::Arc;

use super::Repl;
use super::pager::{self, Paged};
use super::tell;
use crate::error::{CliError, report, warn};
use crate::session::{Destination, Target};

/// The shell's choice of where results go.
pub struct Results {
    pub pager: bool,
    /// `\o`'s file, and its name as messages show it.
    file: Option<(String, Arc<File>)>,
    /// Why the last result was ended on purpose: set by its writer.
    stopped: Rc<Cell<Option<Stop>>>,
    /// The pager reports being quit here.
    quit: Rc<Cell<bool>>,
}

/// Why a writer ended a result early, which is no reason to end the shell
/// as a closed standard output is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// `\o`'s file could not be written: results go back to the terminal.
    File,
}

impl Default for Results {
    fn default() -> Results {
        Results {
            pager: true,
            file: None,
            stopped: Rc::default(),
            quit: Rc::default(),
        }
    }
}

impl Results {
    /// The session's destination for the current choice.
    fn destination(&self) -> Option<Box<dyn Destination>> {
        if let Some((name, file)) = &self.file {
            return Some(Box::new(ToFile {
                name: name.clone(),
                file: file.clone(),
                stopped: self.stopped.clone(),
            }));
        }
        let command = pager::command().filter(|_| self.pager)?;
        Some(Box::new(ToPager {
            command,
            quit: self.quit.clone(),
        }))
    }
}

/// Results through the pager when they fill the screen.
struct ToPager {
    command: String,
    quit: Rc<Cell<bool>>,
}

impl Destination for ToPager {
    fn open(&self) -> Target {
        let Some(rows) = pager::rows() else {
            // No terminal, or one that does not tell its height.
            let stdout = io::stdout();
            let by_line = stdout.is_terminal();
            return Target {
                out: Box::new(stdout.lock()),
                by_line,
                color: true,
            };
        };
        let paged = Paged::new(self.command.clone(), rows, self.quit.clone());
        Target {
            out: Box::new(paged),
            by_line: true,
            color: true,
        }
    }
}

/// Results into `\o`'s file.
struct ToFile {
    name: String,
    file: Arc<File>,
    stopped: Rc<Cell<Option<Stop>>>,
}

impl Destination for ToFile {
    fn open(&self) -> Target {
        let out = FileOut {
            name: self.name.clone(),
            file: self.file.clone(),
            stopped: self.stopped.clone(),
        };
        Target {
            out: Box::new(BufWriter::with_capacity(1 << 16, out)),
            by_line: false,
            color: false,
        }
    }
}

/// Writes to `\o`'s file; a failure is said once, in the file's name,
/// and ends the result.
struct FileOut {
    name: String,
    file: Arc<File>,
    stopped: Rc<Cell<Option<Stop>>>,
}

impl Write for FileOut {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = (&*self.file).write(buf);
        written.map_err(|e| self.failed(&e))
    }

    fn flush(&mut self) -> io::Result<()> {
        (&*self.file).flush().map_err(|e| self.failed(&e))
    }
}

impl FileOut {
    fn failed(&self, e: &io::Error) -> io::Error {
        if self.stopped.get().is_none() {
            tell(format!(
                "cannot write to {}: {}; results go to the terminal again",
                self.name,
                crate::error::io_reason(e)
            ));
            self.stopped.set(Some(Stop::File));
        }
        io::ErrorKind::BrokenPipe.into()
    }
}

/// Writes a piece of a result to `target`, else to standard output. A
/// target's failure is said by its writer ([`Repl::settle`] tells it).
pub(super) fn write_to(target: &mut Option<Target>, text: &str) -> Result<(), CliError> {
    match target {
        None => crate::output::print(text),
        Some(target) => target
            .out
            .write_all(text.as_bytes())
            .map_err(|_| CliError::Told(crate::error::Exit::Closed)),
    }
}

impl Repl {
    /// Points the session's results where the shell's choice says.
    pub(super) fn route(&mut self) {
        self.session.destination = self.results.destination();
    }

    /// After a run: whether its writer ended it on purpose (the pager was
    /// quit, `\o`'s file failed), which ends the result and not the shell.
    pub(super) fn settle(&mut self) -> bool {
        let quit = self.results.quit.take();
        match self.results.stopped.take() {
            Some(Stop::File) => {
                self.results.file = None;
                self.route();
                true
            }
            None => quit,
        }
    }

    /// Prints the output of a command that is a result (`\explain`,
    /// `\infer`) where results go.
    pub(super) fn result(&mut self, text: &str) {
        let Some(destination) = &self.session.destination else {
            return self.print(text);
        };
        let mut target = destination.open();
        let written = target.out.write_all(text.as_bytes());
        let _ = written.and_then(|()| target.out.flush());
        drop(target);
        self.settle();
    }

    /// `\pager [on|off]`.
    pub(super) fn pager(&mut self, arg: &str) {
        match arg {
            "" => {}
            "on" => self.results.pager = true,
            "off" => self.results.pager = false,
            _ => return tell(format!("\\pager takes on or off, not `{arg}`")),
        }
        self.route();
        let command = pager::command();
        match (self.results.pager, command) {
            (false, _) => warn("the pager is off"),
            (true, None) => warn("the pager is on, but PAGER is empty: results print directly"),
            (true, Some(command)) => warn(format_args!(
                "the pager is on: results longer than the screen go through `{}`",
                fql::syntax::printable(&command)
            )),
        }
    }

    /// `\o [FILE]`: results into FILE, emptied first, created private;
    /// alone, back to the terminal.
    pub(super) fn output_to(&mut self, arg: &str) {
        use std::os::unix::fs::OpenOptionsExt;

        if arg.is_empty() {
            if self.results.file.take().is_some() {
                warn("results go to the terminal");
            }
            return self.route();
        }
        let name = fql::syntax::printable(arg).into_owned();
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(arg);
        match opened {
            Ok(file) => {
                warn(format_args!(
                    "results go to {name}; \\o alone sends them back to the terminal"
                ));
                self.results.file = Some((name, Arc::new(file)));
                self.route();
            }
            Err(error) => report(&CliError::Io {
                doing: "write to",
                name,
                error,
            }),
        }
    }
}
