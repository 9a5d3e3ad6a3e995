//! Long results through a pager on a terminal.
//!
//! Results stream: the first rows of a read print while the rest are
//! still being read, and a result may never end. So a result is held
//! back until it fills the screen; one that ends first prints as it is,
//! and one that fills it starts the pager (`$PAGER`, else `less -FRX`)
//! with what was held, and streams the rest into it. A pager the user
//! quits ends the result: the read stops, and the shell goes on. The
//! pager is a plain child process with a pipe on its standard input, as
//! shells and version control tools run theirs.

use super::tell;
use std::cell::Cell;
use std::io::{self, IsTerminal, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::rc::Rc;

/// The pager when `PAGER` is not set: `-F` quits at once on a result
/// that fits after all, `-R` shows colours, `-X` leaves the result on the
/// screen.
pub const DEFAULT: &str = "less -FRX";

/// The pager command: `$PAGER`, else [`DEFAULT`]; `None` when `PAGER`
/// is set but empty, which asks for none.
pub fn command() -> Option<String> {
    match std::env::var("PAGER") {
        Ok(pager) if pager.trim().is_empty() => None,
        Ok(pager) => Some(pager),
        Err(_) => Some(DEFAULT.to_string()),
    }
}

/// How many rows the terminal on standard output has: `LINES` when set,
/// else what the terminal says; `None` when neither tells, or standard
/// output is no terminal.
pub fn rows() -> Option<usize> {
    if !io::stdout().is_terminal() {
        return None;
    }
    let lines = std::env::var("LINES").ok().and_then(|l| l.parse().ok());
    let terminal = || terminal_size::terminal_size_of(io::stdout()).map(|(_, h)| usize::from(h.0));
    lines.filter(|&n| n > 0).or_else(terminal)
}

/// How many columns the terminal on standard output has, for lines that
/// wrap: `COLUMNS` when set, else what the terminal says, else 80.
fn columns() -> usize {
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
    let terminal = || terminal_size::terminal_size_of(io::stdout()).map(|(w, _)| usize::from(w.0));
    columns.filter(|&n| n > 0).or_else(terminal).unwrap_or(80)
}

/// One result on its way to the terminal or the pager; flushing it ends
/// the result.
pub struct Paged {
    command: String,
    rows: usize,
    columns: usize,
    state: State,
    /// Set when the user quit the pager before the result ended.
    quit: Rc<Cell<bool>>,
    /// The SIGINTs acted on when the pager started
    /// ([`crate::interrupt::await_handled`]).
    interrupts: u64,
}

enum State {
    /// Held back until the screen is full: the text, the rows it takes,
    /// and the characters of its last, unfinished line.
    Held {
        text: Vec<u8>,
        rows: usize,
        column: usize,
    },
    /// Straight to standard output: the pager could not start.
    Direct,
    /// Into the pager.
    Piped { child: Child, stdin: ChildStdin },
    /// The pager ended before the result did.
    Quit(Child),
}

impl State {
    fn held() -> State {
        State::Held {
            text: Vec::new(),
            rows: 0,
            column: 0,
        }
    }
}

impl Paged {
    pub fn new(command: String, rows: usize, quit: Rc<Cell<bool>>) -> Paged {
        Paged {
            command,
            rows,
            columns: columns(),
            state: State::held(),
            quit,
            interrupts: 0,
        }
    }

    /// Holds `buf` back, and starts the pager once the screen is full.
    fn hold(&mut self, buf: &[u8]) -> io::Result<()> {
        let State::Held { text, rows, column } = &mut self.state else {
            return Ok(());
        };
        text.extend_from_slice(buf);
        for &b in buf {
            match b {
                b'\n' => {
                    *rows += column.div_ceil(self.columns).max(1);
                    *column = 0;
                }
                // Counts characters, not their continuation bytes.
                b if b & 0xc0 != 0x80 => *column += 1,
                _ => {}
            }
        }
        // A result as tall as the screen would push its first line off
        // with the prompt under it.
        if *rows >= self.rows {
            let text = std::mem::take(text);
            return self.start(&text);
        }
        Ok(())
    }

    /// Starts the pager with `text`, or prints `text` straight away,
    /// saying why, when it cannot start.
    fn start(&mut self, text: &[u8]) -> io::Result<()> {
        match spawn(&self.command) {
            Ok((child, stdin)) => {
                self.interrupts = crate::interrupt::handled();
                crate::interrupt::paging(true);
                self.state = State::Piped { child, stdin };
                self.pipe(text)
            }
            Err(e) => {
                tell(format!(
                    "cannot start the pager `{}`: {}; printing directly (\\pager off turns it off)",
                    fql::syntax::printable(&self.command),
                    crate::error::io_reason(&e)
                ));
                self.state = State::Direct;
                io::stdout().write_all(text)
            }
        }
    }

    /// Writes to the pager; a pager that has ended ends the result.
    fn pipe(&mut self, buf: &[u8]) -> io::Result<()> {
        let State::Piped { stdin, .. } = &mut self.state else {
            return Err(io::ErrorKind::BrokenPipe.into());
        };
        if stdin.write_all(buf).is_ok() {
            return Ok(());
        }
        if let State::Piped { child, .. } = std::mem::replace(&mut self.state, State::Direct) {
            self.state = State::Quit(child);
        }
        self.quit.set(true);
        Err(io::ErrorKind::BrokenPipe.into())
    }

    /// Ends the result: prints what is held, or closes the pager's input
    /// and waits for the user to leave it.
    fn end(&mut self) -> io::Result<()> {
        match std::mem::replace(&mut self.state, State::held()) {
            State::Held { text, .. } => {
                let mut out = io::stdout().lock();
                out.write_all(&text).and_then(|()| out.flush())
            }
            State::Direct => io::stdout().flush(),
            State::Piped { child, stdin } => {
                drop(stdin);
                self.wait(child);
                Ok(())
            }
            State::Quit(child) => {
                self.wait(child);
                Ok(())
            }
        }
    }

    /// Waits for the pager to end; Ctrl-C meanwhile is the pager's (see
    /// [`crate::interrupt::paging`]).
    fn wait(&self, mut child: Child) {
        match child.wait() {
            // Ctrl-C ended it: it reached fql too, and must stop this
            // result, not the next.
            Ok(status) if status.signal() == Some(nix::libc::SIGINT) => {
                crate::interrupt::await_handled(self.interrupts);
            }
            Ok(status) if status.success() || status.code().is_none() => {}
            Ok(status) => tell(format!(
                "the pager `{}` ended with {status}",
                fql::syntax::printable(&self.command)
            )),
            Err(e) => tell(format!("lost the pager: {e}")),
        }
        crate::interrupt::paging(false);
    }
}

impl Write for Paged {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.state {
            State::Held { .. } => self.hold(buf)?,
            State::Direct => io::stdout().write_all(buf)?,
            State::Piped { .. } | State::Quit(_) => self.pipe(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.end()
    }
}

impl Drop for Paged {
    fn drop(&mut self) {
        let _ = self.end();
    }
}

/// Starts `command` with a pipe on its standard input: through `sh -c`
/// when it uses the shell's syntax, else as its words, so that a pager
/// that does not exist is known at once.
fn spawn(command: &str) -> io::Result<(Child, ChildStdin)> {
    let shell = command.contains(|c: char| "|&;<>()$`\\\"'*?[]#~=%{}\n".contains(c));
    let mut cmd = if shell {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(command);
        cmd
    } else {
        let mut words = command.split_whitespace();
        let mut cmd = Command::new(words.next().unwrap_or_default());
        cmd.args(words);
        cmd
    };
    let mut child = cmd.stdin(Stdio::piped()).spawn()?;
    let stdin = child.stdin.take().ok_or(io::ErrorKind::BrokenPipe)?;
    Ok((child, stdin))
}
