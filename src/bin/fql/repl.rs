//! The interactive shell: rustyline for editing, history, completion and
//! highlighting; every query goes through the same [`Session`] as scripts.

mod files;
mod helper;
mod lister;
mod meta;
mod pager;
pub(crate) mod path;
mod results;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use fql::kv::Transaction;
use fql::plan::Root;
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config, Editor};

use crate::args::{Color, ExecArgs, ReplArgs, StoreArgs};
use crate::output::Exit;
use crate::session::{Failure, Session, Settings};
use crate::source::{Script, Typed};
use helper::FqlHelper;
use results::Results;

/// The shell's current directory, shared with the completer.
type Cwd = Arc<Mutex<Vec<String>>>;

/// The shell's state between lines.
pub struct Repl {
    session: Session,
    /// The root the shell started at (`--root`), where `\cd` alone
    /// goes back to; the current one is in the session's settings.
    home: Root,
    /// The transaction `\begin` opened.
    tx: Option<Box<dyn Transaction>>,
    history_writes: bool,
    quit: bool,
    /// Why the shell ended early: standard output closed or failing.
    ended: Option<Exit>,
    /// Where results go: the terminal, the pager, `\o`'s file.
    results: Results,
    /// The last FQL entry, for `\e`.
    last: Option<String>,
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
) -> Result<(), Exit> {
    let mut settings = Settings::from_args(exec, color)?;
    settings.write_hint = "use \\writemode on to allow writes";
    let opened = crate::store::open(store_args)?;
    let session = Session::new(opened.db, settings, exec.split_reads, opened.timeout);
    session.stop_on_interrupt();
    let history = history(repl_args);
    let (mut editor, cwd) = editor(&session)?;
    if let Some(path) = &history {
        // A first run has no history yet.
        let _ = editor.load_history(path);
    }

    eprintln!(
        "fql {} on the {}\nType \\help for help, \\quit or Ctrl-D to leave.{}",
        env!("CARGO_PKG_VERSION"),
        session.db.describe(),
        if session.settings.write {
            ""
        } else {
            " Writes are off: \\writemode on allows them."
        }
    );
    let home = session.settings.root.clone();
    let mut repl = Repl {
        session,
        home,
        tx: None,
        history_writes: repl_args.history_writes,
        quit: false,
        ended: None,
        results: Results::default(),
        last: None,
        pending: None,
        failed: false,
        depth: 0,
    };
    repl.route();
    while !repl.quit {
        *cwd.lock().unwrap_or_else(|e| e.into_inner()) =
            repl.session.settings.root.names().to_vec();
        match editor.readline(&repl.prompt()) {
            Ok(line) => {
                if line.trim().is_empty() {
                    continue;
                }
                if repl.keeps(&line) {
                    let _ = editor.add_history_entry(line.as_str());
                }
                repl.line(&line);
            }
            // Ctrl-C at the prompt drops the line.
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            // The prompt goes to standard output: a full disk there
            // ends up here, as does a terminal that cannot be read.
            Err(e) => {
                eprintln!("fql: the shell cannot use the terminal: {e}");
                repl.end(Exit::Failed);
            }
        }
    }
    if repl.tx.is_some() {
        eprintln!("the open transaction was rolled back");
    }
    if let Some(path) = &history {
        save_history(&mut editor, path);
    }
    repl.ended.map_or(Ok(()), Err)
}

/// The history file, unless `--no-history`; says so when there is
/// none to keep.
fn history(args: &ReplArgs) -> Option<PathBuf> {
    if args.no_history {
        return None;
    }
    let path = args.history_file.clone().or_else(crate::paths::history);
    if path.is_none() {
        eprintln!(
            "fql: keeping no history: neither XDG_STATE_HOME nor HOME is an absolute path; --history-file PATH keeps one"
        );
    }
    path
}

/// The line editor, with the shell's helper, and the current directory
/// the helper completes relative paths from.
fn editor(session: &Session) -> Result<(Editor<FqlHelper, FileHistory>, Cwd), Exit> {
    let usage = |e: ReadlineError| {
        eprintln!("fql: {e}");
        Exit::Usage
    };
    let config = Config::builder()
        .auto_add_history(false)
        .history_ignore_dups(true)
        .map_err(usage)?
        .max_history_size(10_000)
        .map_err(usage)?
        .build();
    let mut editor = Editor::with_config(config).map_err(|e| {
        eprintln!("fql: cannot start the shell: {e}");
        Exit::Usage
    })?;
    let helper = FqlHelper::new(
        session.db.clone(),
        session.engine.retry_options(),
        session.settings.color_out,
    );
    let cwd = helper.cwd.clone();
    editor.set_helper(Some(helper));
    Ok((editor, cwd))
}

/// Saves the history, private, as it can hold keys and values: rustyline
/// creates the file itself with mode 0600, and the directories made for
/// it are 0700.
fn save_history(editor: &mut Editor<FqlHelper, FileHistory>, path: &Path) {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = crate::store::private_dirs(dir);
    }
    if let Err(e) = editor.save_history(path) {
        eprintln!("fql: cannot save the history to {}: {e}", path.display());
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
        let tx = if self.tx.is_some() { "*" } else { "" };
        format!("fql{cwd}{tx}> ")
    }

    /// Whether a line goes into the history: not one that writes (or
    /// turns writes on), unless asked, so that it cannot be re-run by a
    /// stray arrow key and Enter.
    fn keeps(&self, line: &str) -> bool {
        if self.history_writes {
            return true;
        }
        let line = line.trim();
        if let Some(command) = line.strip_prefix('\\') {
            return !command.starts_with("writemode on");
        }
        // Read as it runs: `users(1)=2` is the write `./users(1)=2`.
        match fql::syntax::parse(&path::resolve(line)) {
            Ok(script) => !script.items.iter().any(|item| match item {
                fql::syntax::ast::Item::Statement(s) => s.kind().writes(),
                fql::syntax::ast::Item::Meta(_) => false,
            }),
            Err(_) => true,
        }
    }

    /// Writes a command's output; output that cannot be written ends the
    /// shell.
    fn print(&mut self, text: &str) {
        if let Err(exit) = crate::output::print(text) {
            self.end(exit);
        }
    }

    /// Ends the shell because standard output is closed or failing: with
    /// nowhere to show results, going on would only lose them.
    fn end(&mut self, exit: Exit) {
        self.ended = Some(exit);
        self.quit = true;
    }

    /// Runs one entry: a meta-command or FQL.
    fn line(&mut self, line: &str) {
        let trimmed = line.trim();
        if let Some(command) = trimmed.strip_prefix('\\') {
            self.meta(command);
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
        let result = self
            .session
            .run(&script, self.tx.as_deref_mut().map(|t| t as _));
        let stopped = self.settle();
        if let Err(Failure {
            output: Some(exit), ..
        }) = result
            && !stopped
        {
            self.end(exit);
        }
        self.failed = result.is_err();
        if let Err(Failure { exit, .. }) = result
            && self.tx.is_some()
            && matches!(exit, Exit::Failed | Exit::Unreachable | Exit::Interrupted)
        {
            self.tx = None;
            eprintln!("the transaction was rolled back");
        }
        self.session.activity.restart();
    }
}
