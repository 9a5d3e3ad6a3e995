//! A script read one transaction at a time, as many times as it is run
//! over: once to check and plan it as a whole, once to run it.
//!
//! Files stay open and are read again from where they started; standard
//! input that is not a file (a pipe, `generate | fql -w`) is first copied
//! to a private temporary file, unlinked from the start, so that it too
//! can be read twice. Each reading holds one transaction's text at a time:
//! the text up to and including an `@commit` line ([`split::pieces`]).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use fql::syntax::{Sources, split};

use super::Typed;
use crate::args;
use crate::error::{CliError, io_reason};

/// A script's inputs in order, read a transaction at a time.
pub struct Script {
    inputs: Vec<Input>,
    /// Whether the inputs are one transaction (`-1`), read as one text.
    single: bool,
    /// What the user typed, when the text is the shell's rewriting of it.
    typed: Option<Arc<Typed>>,
}

/// One input: its name, made printable, for every message about it.
pub struct Input {
    name: String,
    text: Text,
}

enum Text {
    /// Text given whole: a `-q` query, a named script, a line of the shell.
    Memory(Arc<str>),
    /// A file, read from `start`.
    File {
        file: File,
        start: u64,
        /// Its length and time of change when opened; `None` for a copy
        /// of standard input, which nothing else can change.
        stamp: Option<(u64, Option<SystemTime>)>,
    },
}

impl Script {
    /// A script given whole.
    pub fn text(name: impl Into<String>, text: impl Into<Arc<str>>) -> Script {
        Script {
            inputs: vec![Input {
                name: name.into(),
                text: Text::Memory(text.into()),
            }],
            single: false,
            typed: None,
        }
    }

    /// A script given whole that is the shell's rewriting of what the
    /// user typed: reports show `typed`.
    pub fn rewritten(name: impl Into<String>, text: impl Into<Arc<str>>, typed: Typed) -> Script {
        Script {
            typed: Some(Arc::new(typed)),
            ..Script::text(name, text)
        }
    }

    /// What the user typed, when the script is a rewriting of it.
    pub fn shown(&self) -> Option<Arc<Typed>> {
        self.typed.clone()
    }

    /// The inputs of `fql -q ... -f ...`, each its own transaction unless
    /// `single`. Files are opened now, and read later.
    pub fn open(inputs: &[args::Input], single: bool) -> Result<Script, CliError> {
        let mut opened = Vec::with_capacity(inputs.len());
        let mut queries = 0;
        for input in inputs {
            opened.push(match input {
                args::Input::Query(q) => {
                    queries += 1;
                    Input {
                        name: format!("<query {queries}>"),
                        text: Text::Memory(q.as_str().into()),
                    }
                }
                args::Input::File(path) => Input::open(Some(path))?,
            });
        }
        Ok(Script {
            inputs: opened,
            single,
            typed: None,
        })
    }

    /// A script file, or standard input for `-` or no path.
    pub fn file(path: Option<&Path>) -> Result<Script, CliError> {
        Ok(Script {
            inputs: vec![Input::open(path)?],
            single: false,
            typed: None,
        })
    }

    /// Whether the script is one transaction, whatever it says.
    pub fn single(&self) -> bool {
        self.single
    }

    /// A name for all the inputs, as reports name them: the one name, or
    /// how many there are.
    pub fn name(&self) -> String {
        let names = self.inputs.iter().map(|input| (input.name.as_str(), ""));
        Sources::joined(names, "").name()
    }

    /// The script's text from the start, a transaction at a time: each
    /// piece ends after an `@commit` line or at the end of its input
    /// (with `-1`, all the inputs are one piece). Reading problems are
    /// reported on standard error as they are met, and end the pieces.
    pub fn pieces(&self) -> Box<dyn Iterator<Item = Result<Sources, CliError>> + '_> {
        if self.single {
            return Box::new(std::iter::once_with(|| self.whole()));
        }
        Box::new(until_error(self.inputs.iter().flat_map(Input::pieces)))
    }

    /// Every input whole, joined into one text.
    fn whole(&self) -> Result<Sources, CliError> {
        let texts: Result<Vec<_>, CliError> = self
            .inputs
            .iter()
            .map(|input| Ok((input.name.as_str(), input.read_to_string()?)))
            .collect();
        Ok(Sources::joined(texts?, "\n"))
    }

    /// Refuses to run a file that changed since it was opened and
    /// checked: what runs must be what was checked.
    pub fn unchanged(&self) -> Result<(), CliError> {
        for input in &self.inputs {
            if let Text::File {
                file,
                stamp: Some(stamp),
                ..
            } = &input.text
                && file.metadata().ok().map(|m| stamp_of(&m)) != Some(*stamp)
            {
                return Err(CliError::Usage(format!(
                    "{} changed while it was checked; nothing ran",
                    input.name
                )));
            }
        }
        Ok(())
    }
}

/// `items` up to and including the first error: nothing after it is
/// read.
fn until_error<T>(
    mut items: impl Iterator<Item = Result<T, CliError>>,
) -> impl Iterator<Item = Result<T, CliError>> {
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed {
            return None;
        }
        let item = items.next()?;
        failed = item.is_err();
        Some(item)
    })
}

impl Input {
    /// Opens a script file, or standard input for `-` or no path. A file
    /// that cannot be read again from where it starts (a pipe, a device)
    /// is copied to a temporary file.
    pub fn open(path: Option<&Path>) -> Result<Input, CliError> {
        let path = path.filter(|p| p.as_os_str() != "-");
        let (name, file) = match path {
            None => {
                let stdin = io::stdin();
                let fd = std::os::fd::AsFd::as_fd(&stdin).try_clone_to_owned();
                (STDIN.to_string(), fd.map(File::from))
            }
            Some(p) => (name_of(p), File::open(p)),
        };
        let mut file = file.map_err(|e| unreadable(&name, e))?;
        let meta = file.metadata().map_err(|e| unreadable(&name, e))?;
        let text = if meta.is_file() {
            let start = file.stream_position().map_err(|e| unreadable(&name, e))?;
            Text::File {
                file,
                start,
                stamp: Some(stamp_of(&meta)),
            }
        } else {
            let mut spool = tempfile::tempfile().map_err(|e| no_spool(&name, e))?;
            copy(&mut file, &mut spool, &name)?;
            Text::File {
                file: spool,
                start: 0,
                stamp: None,
            }
        };
        Ok(Input { name, text })
    }

    /// Its name in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its text from the start, whole.
    pub fn read_to_string(&self) -> Result<String, CliError> {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut self.reader()?, &mut bytes)
            .map_err(|e| unreadable(&self.name, e))?;
        decode(&self.name, bytes, Place::default())
    }

    /// Its text from the start, a transaction at a time.
    fn pieces(&self) -> Box<dyn Iterator<Item = Result<Sources, CliError>> + '_> {
        match self.reader() {
            Ok(reader) => Box::new(Pieces {
                name: &self.name,
                pieces: split::pieces(reader),
                at: Place::default(),
            }),
            Err(exit) => Box::new(std::iter::once(Err(exit))),
        }
    }

    /// A reading from the start.
    fn reader(&self) -> Result<Box<dyn BufRead + '_>, CliError> {
        match &self.text {
            Text::Memory(text) => Ok(Box::new(text.as_bytes())),
            Text::File { file, start, .. } => {
                let mut file: &File = file;
                file.seek(SeekFrom::Start(*start))
                    .map_err(|e| unreadable(&self.name, e))?;
                Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
            }
        }
    }
}

/// A path as messages name it: a name is chosen by whoever made the
/// file, so its control characters, line feeds included, are shown as
/// escapes.
fn name_of(path: &Path) -> String {
    let name = path.display().to_string();
    fql::syntax::printable(&name).replace('\n', "\\x0a")
}

/// What standard input is called.
const STDIN: &str = "<stdin>";

/// That the input called `name` cannot be read, and why.
fn unreadable(name: &str, error: io::Error) -> CliError {
    let name = match name {
        STDIN => "standard input".to_string(),
        name => name.to_string(),
    };
    CliError::Io {
        doing: "read",
        name,
        error,
    }
}

fn no_spool(name: &str, e: io::Error) -> CliError {
    CliError::Usage(format!(
        "cannot hold {name} in a temporary file: {}",
        io_reason(&e)
    ))
}

/// Copies a script that can be read only once to `spool`.
fn copy(from: &mut File, spool: &mut File, name: &str) -> Result<(), CliError> {
    let mut buf = vec![0; 1 << 16];
    loop {
        let n = match io::Read::read(from, &mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(unreadable(name, e)),
        };
        io::Write::write_all(spool, &buf[..n]).map_err(|e| no_spool(name, e))?;
    }
}

fn stamp_of(meta: &std::fs::Metadata) -> (u64, Option<SystemTime>) {
    (meta.len(), meta.modified().ok())
}

/// One reading of one input, a transaction at a time.
struct Pieces<'s> {
    name: &'s str,
    pieces: split::Pieces<Box<dyn BufRead + 's>>,
    /// Where the next piece starts in the input.
    at: Place,
}

/// A place in an input: the bytes and lines before it.
#[derive(Clone, Copy, Default)]
struct Place {
    offset: usize,
    lines: usize,
}

impl Iterator for Pieces<'_> {
    type Item = Result<Sources, CliError>;

    /// The next piece: through the next `@commit` line, or the rest.
    fn next(&mut self) -> Option<Result<Sources, CliError>> {
        let bytes = match self.pieces.next()? {
            Ok(bytes) => bytes,
            Err(e) => return Some(Err(unreadable(self.name, e))),
        };
        let at = self.at;
        self.at = Place {
            offset: at.offset + bytes.len(),
            lines: at.lines + memchr::memchr_iter(b'\n', &bytes).count(),
        };
        Some(decode(self.name, bytes, at).map(|text| Sources::part(self.name, text, at.lines + 1)))
    }
}

/// Scripts are UTF-8; say where they are not, counting from the start of
/// the input, `at` being where `bytes` start.
fn decode(name: &str, bytes: Vec<u8>, at: Place) -> Result<String, CliError> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..valid];
        let offset = at.offset + valid;
        let line = at.lines + memchr::memchr_iter(b'\n', before).count() + 1;
        CliError::Usage(format!(
            "{name} is not UTF-8: invalid byte at offset {offset} (line {line})"
        ))
    })
}
