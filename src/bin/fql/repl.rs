//! The interactive shell: rustyline for editing, history, completion and
//! highlighting; every query goes through the same [`Session`] as scripts.

mod files;
mod habits;
mod helper;
mod lister;
mod meta;
mod pager;
pub(crate) mod path;
mod results;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use fql::kv::Transaction;
use fql::plan::Root;
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config, Editor, EventHandler, KeyEvent};

use crate::args::{Color, ExecArgs, ReplArgs, StoreArgs};
use crate::error::{CliError, Exit, warn};
use crate::session::{Failure, Session, Settings};
use crate::source::{Script, Typed};
use helper::{FqlHelper, NewLine};
use results::Results;

/// The shell's current directory, shared with the completer.
type Cwd = Arc<Mutex<Vec<String>>>;

/// The line editor, with the shell's helper.
type LineEditor = Editor<FqlHelper, FileHistory>;

/// The shell's state between lines.
pub struct Repl {
    session: Session,
    /// The root the shell started at (`--root`), where `\cd` alone
    /// goes back to; the current one is in the session's settings.
    home: Root,
    /// The transaction `\begin` opened.
    tx: Option<Box<dyn Transaction>>,
    /// When the open transaction ran its first statement: it lives
    /// 5 seconds from about then, which the prompt counts.
    tx_since: Option<Instant>,
    history_writes: bool,
    quit: bool,
    /// Why the shell ended early: standard output closed or failing.
    ended: Option<Exit>,
    /// Where results go: the terminal, the pager, `\o`'s file.
    results: Results,
    /// The last FQL entry, for `\e`.
    last: Option<String>,
    /// The entry `\e` ran, for the history.
    edited: Option<String>,
    /// The name and typed text of the FQL the next query runs, when it is
    /// an entry the shell rewrote, for its reports.
    pending: Option<(String, Typed)>,
    /// Whether the last query failed, for `\i` to stop at.
    failed: bool,
    /// How many `\i` files are running, one inside another.
    depth: usize,
}

pub fn run(
    store_args: &StoreArgs,
    exec: &ExecArgs,
    repl_args: &ReplArgs,
    color: Color,
) -> Result<(), CliError> {
    let mut settings = Settings::from_args(exec, color)?;
    settings.write_hint = "use \\writemode on to allow writes";
    settings.supply = fql::plan::Supply::Shell;
    let opened = crate::store::open(store_args)?;
    let session = Session::new(opened.db, settings, exec.split_reads, opened.timeout);
    session.stop_on_interrupt();
    let history = history(repl_args);
    let (mut editor, cwd, newline) = editor(&session)?;
    if let Some(path) = &history {
        // A first run has no history yet.
        let _ = editor.load_history(path);
    }

    warn(format_args!(
        "fql {} on the {}\nType \\help for help, \\quit or Ctrl-D to leave.{}",
        env!("CARGO_PKG_VERSION"),
        session.db.describe(),
        if session.settings.write {
            ""
        } else {
            " Writes are off: \\writemode on allows them."
        }
    ));
    let home = session.settings.root.clone();
    let mut repl = Repl {
        session,
        home,
        tx: None,
        tx_since: None,
        history_writes: repl_args.history_writes,
        quit: false,
        ended: None,
        results: Results::default(),
        last: None,
        edited: None,
        pending: None,
        failed: false,
        depth: 0,
    };
    repl.route();
    while let Some(entry) = repl.next_entry(&mut editor, &cwd, &newline) {
        if repl.keeps(&entry) {
            let _ = editor.add_history_entry(entry.as_str());
        }
        repl.line(&entry);
        // What `\e` ran is recalled as typed entries are.
        if let Some(edited) = repl.edited.take()
            && repl.keeps(&edited)
        {
            let _ = editor.add_history_entry(edited.as_str());
        }
    }
    if repl.tx.is_some() {
        warn("the open transaction was rolled back");
    }
    if let Some(path) = &history {
        save_history(&mut editor, path);
    }
    repl.ended.map_or(Ok(()), |exit| Err(exit.into()))
}

/// Tells the user what is wrong with an entry, or what failed, as every
/// error of fql is told ([`crate::error::report`]); the shell goes on.
fn tell(message: String) {
    crate::error::report(&CliError::Usage(message));
}

/// The history file, unless `--no-history`; says so when there is
/// none to keep.
fn history(args: &ReplArgs) -> Option<PathBuf> {
    if args.no_history {
        return None;
    }
    let path = args.history_file.clone().or_else(crate::paths::history);
    if path.is_none() {
        tell("keeping no history: neither XDG_STATE_HOME nor HOME is an absolute path; --history-file PATH keeps one".into());
    }
    path
}

/// The line editor, with the shell's helper; the current directory the
/// helper completes relative paths from; and the flag Alt-Enter raises
/// to end a line but not the entry.
fn editor(session: &Session) -> Result<(LineEditor, Cwd, Arc<AtomicBool>), CliError> {
    let usage = |e: ReadlineError| CliError::Usage(e.to_string());
    let config = Config::builder()
        .auto_add_history(false)
        .history_ignore_dups(true)
        .map_err(usage)?
        .max_history_size(10_000)
        .map_err(usage)?
        .build();
    let mut editor = Editor::with_config(config)
        .map_err(|e| CliError::Usage(format!("cannot start the shell: {e}")))?;
    let helper = FqlHelper::new(
        session.db.clone(),
        session.engine.retry_options(),
        session.settings.color_out,
    );
    let cwd = helper.cwd.clone();
    editor.set_helper(Some(helper));
    let newline = Arc::new(AtomicBool::new(false));
    let handler = Box::new(NewLine(newline.clone()));
    editor.bind_sequence(KeyEvent::alt('\r'), EventHandler::Conditional(handler));
    Ok((editor, cwd, newline))
}

/// The prompt of the lines after an entry's first: as wide as `prompt`,
/// so that the lines stand one under the other.
fn continuation(prompt: &str) -> String {
    format!("{:>width$}", "...> ", width = prompt.chars().count())
}

/// Saves the history, private, as it can hold keys and values: rustyline
/// creates the file itself with mode 0600, and the directories made for
/// it are 0700.
fn save_history(editor: &mut Editor<FqlHelper, FileHistory>, path: &Path) {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = crate::store::private_dirs(dir);
    }
    if let Err(e) = editor.save_history(path) {
        tell(format!(
            "cannot save the history to {}: {e}",
            path.display()
        ));
    }
}

impl Repl {
    fn prompt(&self) -> String {
        let root = &self.session.settings.root;
        let cwd = if root.names().is_empty() {
            String::new()
        } else {
            format!(" {root}")
        };
        // An open transaction, and how long since its first statement,
        // since it dies 5 seconds after.
        let tx = match (&self.tx, self.tx_since) {
            (None, _) => String::new(),
            (Some(_), None) => "*".into(),
            (Some(_), Some(since)) => format!("* {}s/5s", since.elapsed().as_secs()),
        };
        format!("fql{cwd}{tx}> ")
    }

    /// The next entry: its lines, each read after its prompt, up to the
    /// one that ends it; `None` when the shell ends.
    fn next_entry(
        &mut self,
        editor: &mut LineEditor,
        cwd: &Cwd,
        newline: &AtomicBool,
    ) -> Option<String> {
        // The lines typed so far, each ended by a line feed.
        let mut entry = String::new();
        while !self.quit {
            *cwd.lock().unwrap_or_else(|e| e.into_inner()) =
                self.session.settings.root.names().to_vec();
            if self.tx.is_none() {
                self.tx_since = None;
            }
            let prompt = match entry.is_empty() {
                true => self.prompt(),
                false => continuation(&self.prompt()),
            };
            match editor.readline(&prompt) {
                Ok(line) => {
                    entry.push_str(&line);
                    let more = newline.swap(false, Ordering::Relaxed);
                    if (more && !entry.trim_start().starts_with('\\')) || helper::continues(&entry)
                    {
                        entry.push('\n');
                    } else if entry.trim().is_empty() {
                        entry.clear();
                    } else {
                        return Some(entry);
                    }
                }
                // Ctrl-C at the prompt drops the entry, all its lines.
                Err(ReadlineError::Interrupted) => {
                    entry.clear();
                    newline.store(false, Ordering::Relaxed);
                }
                Err(ReadlineError::Eof) => return None,
                // The prompt goes to standard output: a full disk there
                // ends up here, as does a terminal that cannot be read.
                Err(e) => {
                    self.end(CliError::failed(
                        Exit::Failed,
                        format!("the shell cannot use the terminal: {e}"),
                    ));
                }
            }
        }
        None
    }

    /// Whether an entry goes into the history: not one that writes (or
    /// turns writes on), unless asked, so that it cannot be re-run by a
    /// stray arrow key and Enter. An entry that does not parse may be a
    /// write with a typo, which the recalled and corrected entry would
    /// run: it is kept only without a `=`, which every write has.
    fn keeps(&self, entry: &str) -> bool {
        if self.history_writes {
            return true;
        }
        let entry = entry.trim();
        if let Some(command) = entry.strip_prefix('\\') {
            let mut words = command.split_whitespace();
            return !(words.next() == Some("writemode") && words.next() == Some("on"));
        }
        // Read as it runs: `users(1)=2` is the write `./users(1)=2`.
        match fql::syntax::parse(&path::resolve(entry)) {
            Ok(script) => !script.items.iter().any(|item| match item {
                fql::syntax::ast::Item::Statement(s) => s.kind().writes(),
                fql::syntax::ast::Item::Meta(_) => false,
            }),
            Err(_) => !entry.contains('='),
        }
    }

    /// Writes a command's output; output that cannot be written ends the
    /// shell.
    fn print(&mut self, text: &str) {
        if let Err(error) = crate::output::print(text) {
            self.end(error);
        }
    }

    /// Ends the shell because standard output is closed or failing: with
    /// nowhere to show results, going on would only lose them. `error`
    /// is told now, so the status is all that is left for the end.
    fn end(&mut self, error: CliError) {
        self.ended = Some(error.tell());
        self.quit = true;
    }

    /// Runs one entry: a meta-command or FQL, or answers a command of
    /// fdbcli or psql with the fql way, running nothing.
    fn line(&mut self, line: &str) {
        let trimmed = line.trim();
        if let Some(command) = trimmed.strip_prefix('\\') {
            self.meta(command);
            return;
        }
        if let Some(hint) = habits::hint(trimmed) {
            warn(format_args!("{hint}"));
            return;
        }
        let (text, added) = path::resolve_marked(line);
        self.pending = Some(("<input>".to_string(), Typed::new(line, &text, added)));
        self.last = Some(line.to_string());
        self.query(&text);
    }

    /// Runs FQL text in the open transaction, or in its own.
    fn query(&mut self, text: &str) {
        let script = match self.pending.take() {
            Some((name, typed)) => Script::rewritten(name, text, typed),
            None => Script::text("<input>", text),
        };
        let start = Instant::now();
        let result = self
            .session
            .run(&script, self.tx.as_deref_mut().map(|t| t as _));
        let stopped = self.settle();
        // The clock starts with the first statement that ran in it.
        let ran = !matches!(
            result,
            Err(Failure {
                exit: Exit::Invalid | Exit::Usage,
                ..
            })
        );
        if ran && self.tx.is_some() && self.tx_since.is_none() {
            self.tx_since = Some(start);
        }
        if let Err(Failure {
            output: Some(exit), ..
        }) = result
            && !stopped
        {
            self.end(exit.into());
        }
        self.failed = result.is_err();
        if let Err(Failure { exit, .. }) = result
            && self.tx.is_some()
            && matches!(exit, Exit::Failed | Exit::Unreachable | Exit::Interrupted)
        {
            self.tx = None;
            warn("the transaction was rolled back");
        }
        self.session.activity.restart();
    }
}
