//! A script read one transaction at a time, as many times as it is run
//! over: once to check and plan it as a whole, once to run it.
//!
//! Files stay open and are read again from where they started; standard
//! input that is not a file (a pipe, `generate | fql -w`) is first copied
//! to a private temporary file, unlinked from the start, so that it too
//! can be read twice. Each reading holds one transaction's text at a time:
//! the text up to and including an `@commit` line ([`split::commits`]).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use fql::syntax::{Sources, split};

use super::io_reason;
use crate::args;
use crate::output::Exit;

/// A script's inputs in order, read a transaction at a time.
pub struct Script {
    inputs: Vec<Input>,
    /// Whether the inputs are one transaction (`-1`), read as one text.
    single: bool,
}

struct Input {
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
        }
    }

    /// The inputs of a whole text, each its own transaction.
    pub fn from_sources(sources: &Sources) -> Script {
        let inputs = sources
            .pieces()
            .map(|(name, range)| Input {
                name: name.to_string(),
                text: Text::Memory(sources.text()[range].into()),
            })
            .collect();
        Script {
            inputs,
            single: false,
        }
    }

    /// The inputs of `fql -q ... -f ...`, each its own transaction unless
    /// `single`. Files are opened now, and read later.
    pub fn open(inputs: &[args::Input], single: bool) -> Result<Script, Exit> {
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
                args::Input::File(path) => open(Some(path))?,
            });
        }
        Ok(Script {
            inputs: opened,
            single,
        })
    }

    /// A script file, or standard input for `-` or no path.
    pub fn file(path: Option<&Path>) -> Result<Script, Exit> {
        Ok(Script {
            inputs: vec![open(path)?],
            single: false,
        })
    }

    /// Whether the script is one transaction, whatever it says.
    pub fn single(&self) -> bool {
        self.single
    }

    /// A name for all the inputs: the one name, or how many there are.
    pub fn name(&self) -> String {
        match &self.inputs[..] {
            [input] => input.name.clone(),
            inputs => format!("{} inputs", inputs.len()),
        }
    }

    /// The script's text from the start, a transaction at a time: each
    /// piece ends after an `@commit` line or at the end of its input
    /// (with `-1`, all the inputs are one piece). Reading problems are
    /// reported on standard error as they are met.
    pub fn pieces(&self) -> impl Iterator<Item = Result<Sources, Exit>> + '_ {
        let mut inputs = self.inputs.iter();
        let mut reading: Option<Reader<'_>> = None;
        let mut whole = self.single.then_some(());
        let mut failed = false;
        std::iter::from_fn(move || {
            if failed {
                return None;
            }
            if self.single {
                return whole.take().map(|()| self.whole());
            }
            loop {
                if let Some(reader) = &mut reading {
                    match reader.next() {
                        Some(piece) => {
                            failed = piece.is_err();
                            return Some(piece);
                        }
                        None => reading = None,
                    }
                }
                match Reader::new(inputs.next()?) {
                    Ok(reader) => reading = Some(reader),
                    Err(exit) => {
                        failed = true;
                        return Some(Err(exit));
                    }
                }
            }
        })
    }

    /// Every input whole, joined into one text.
    fn whole(&self) -> Result<Sources, Exit> {
        let mut texts = Vec::with_capacity(self.inputs.len());
        for input in &self.inputs {
            let text = Reader::new(input)?.read_to_end()?;
            texts.push((input.name.clone(), text));
        }
        Ok(Sources::joined(texts, "\n"))
    }

    /// Refuses to run a file that changed since it was opened and
    /// checked: what runs must be what was checked.
    pub fn unchanged(&self) -> Result<(), Exit> {
        for input in &self.inputs {
            if let Text::File {
                file,
                stamp: Some(stamp),
                ..
            } = &input.text
                && file.metadata().ok().map(|m| stamp_of(&m)) != Some(*stamp)
            {
                eprintln!(
                    "fql: {} changed while it was checked; nothing ran",
                    input.name
                );
                return Err(Exit::Usage);
            }
        }
        Ok(())
    }
}

/// Opens a script file, or standard input for `-` or no path. A file
/// that cannot be read again from where it starts (a pipe, a device) is
/// copied to a temporary file.
fn open(path: Option<&Path>) -> Result<Input, Exit> {
    let path = path.filter(|p| p.as_os_str() != "-");
    let (name, file) = match path {
        None => {
            let stdin = io::stdin();
            let fd = std::os::fd::AsFd::as_fd(&stdin).try_clone_to_owned();
            (STDIN.to_string(), fd.map(File::from))
        }
        Some(p) => (p.display().to_string(), File::open(p)),
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

/// What standard input is called.
const STDIN: &str = "<stdin>";

/// Says that the input called `name` cannot be read, and why.
fn unreadable(name: &str, e: io::Error) -> Exit {
    match name {
        STDIN => eprintln!("fql: cannot read standard input: {}", io_reason(&e)),
        name => eprintln!("fql: cannot read {name}: {}", io_reason(&e)),
    }
    Exit::Usage
}

fn no_spool(name: &str, e: io::Error) -> Exit {
    eprintln!(
        "fql: cannot hold {name} in a temporary file: {}",
        io_reason(&e)
    );
    Exit::Usage
}

/// Copies a script that can be read only once to `spool`.
fn copy(from: &mut File, spool: &mut File, name: &str) -> Result<(), Exit> {
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
struct Reader<'s> {
    input: &'s Input,
    source: Source<'s>,
    /// Bytes and lines of the input before the next piece.
    offset: usize,
    lines: usize,
    done: bool,
}

enum Source<'s> {
    Memory(&'s str),
    File(BufReader<&'s File>),
}

impl<'s> Reader<'s> {
    /// A reading from the start of `input`.
    fn new(input: &'s Input) -> Result<Reader<'s>, Exit> {
        let source = match &input.text {
            Text::Memory(text) => Source::Memory(text),
            Text::File { file, start, .. } => {
                let mut file: &File = file;
                file.seek(SeekFrom::Start(*start))
                    .map_err(|e| unreadable(&input.name, e))?;
                Source::File(BufReader::with_capacity(1 << 16, file))
            }
        };
        Ok(Reader {
            input,
            source,
            offset: 0,
            lines: 0,
            done: false,
        })
    }

    /// The next piece: through the next `@commit` line, or the rest.
    fn next(&mut self) -> Option<Result<Sources, Exit>> {
        if self.done {
            return None;
        }
        let bytes = match &mut self.source {
            Source::Memory(text) => {
                let rest = &text[self.offset..];
                let end = split::pieces(rest).next().map_or(0, |r| r.end);
                rest.as_bytes()[..end].to_vec()
            }
            Source::File(reader) => match read_piece(reader) {
                Ok(bytes) => bytes,
                Err(e) => {
                    self.done = true;
                    return Some(Err(unreadable(&self.input.name, e)));
                }
            },
        };
        if bytes.is_empty() {
            self.done = true;
            return None;
        }
        let line = self.lines + 1;
        Some(
            self.decode(bytes)
                .map(|text| Sources::part(self.input.name.clone(), text, line)),
        )
    }

    /// The rest of the input as one text.
    fn read_to_end(&mut self) -> Result<String, Exit> {
        let bytes = match &mut self.source {
            Source::Memory(text) => text.as_bytes()[self.offset..].to_vec(),
            Source::File(reader) => {
                let mut bytes = Vec::new();
                if let Err(e) = io::Read::read_to_end(reader, &mut bytes) {
                    return Err(unreadable(&self.input.name, e));
                }
                bytes
            }
        };
        self.decode(bytes)
    }

    /// Scripts are UTF-8; say where they are not, counting from the start
    /// of the input.
    fn decode(&mut self, bytes: Vec<u8>) -> Result<String, Exit> {
        let len = bytes.len();
        let lines = memchr::memchr_iter(b'\n', &bytes).count();
        match String::from_utf8(bytes) {
            Ok(text) => {
                self.offset += len;
                self.lines += lines;
                Ok(text)
            }
            Err(e) => {
                self.done = true;
                let valid = e.utf8_error().valid_up_to();
                let before = &e.as_bytes()[..valid];
                let at = self.offset + valid;
                let line = self.lines + memchr::memchr_iter(b'\n', before).count() + 1;
                eprintln!(
                    "fql: {} is not UTF-8: invalid byte at offset {at} (line {line})",
                    self.input.name
                );
                Err(Exit::Usage)
            }
        }
    }
}

/// The bytes through the next `@commit` line, or to the end.
fn read_piece(reader: &mut BufReader<&File>) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    loop {
        let start = bytes.len();
        if reader.read_until(b'\n', &mut bytes)? == 0 || split::commits(&bytes[start..]) {
            return Ok(bytes);
        }
    }
}
