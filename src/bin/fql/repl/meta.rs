//! The shell's own commands, `\name [argument]`.

use fql::directory::DirectoryLayer;
use fql::kv::DatabaseExt;
use fql::plan::Root;
use fql::syntax::Sources;

use super::Repl;
use super::path;
use super::tell;
use crate::args::{BytesShown, Format};
use crate::error::{CliError, Exit, report, warn};

/// Every command with its one-line description, for `\help` and
/// completion. The first word is what completes.
pub const COMMANDS: &[(&str, &str)] = &[
    (
        "help",
        "[TOPIC]  help on commands, or a topic: syntax, types, options",
    ),
    (
        "begin",
        "open a transaction, until \\commit or \\rollback; it lives 5 s from its first query (the prompt shows its age)",
    ),
    ("commit", "commit the open transaction"),
    ("rollback", "drop the open transaction and its writes"),
    ("writemode", "on|off  allow sets, clears and removals"),
    (
        "ls",
        "[PATH]  list the directories under PATH (default: the current one)",
    ),
    (
        "cd",
        "[PATH]  make PATH the root relative queries start from (alone: back to --root)",
    ),
    ("pwd", "print the current root"),
    (
        "set",
        "[NAME VALUE]  give :NAME a value for later entries, read as -p reads one (alone: list them)",
    ),
    ("unset", "NAME  forget the value of :NAME"),
    (
        "timing",
        "[on|off]  print each query's time and result count",
    ),
    (
        "format",
        "[text|json|jsonl]  how results print (alone: say which)",
    ),
    (
        "bytes",
        "[full|len|escaped]  print bytes in full, as their length, or escaped as fdbcli prints keys (alone: say which)",
    ),
    (
        "explain",
        "[analyze] QUERY  print the plan of a query without running it; with analyze, run it (writes need \\writemode on) and print what each statement cost",
    ),
    (
        "watch",
        "QUERY  print what QUERY reads, then each change as it is committed, until Ctrl-C",
    ),
    (
        "validate",
        "SCHEMA  check the data against a schema; its relative paths start at the current root",
    ),
    (
        "infer",
        "[PATH]  print the shapes of the data in PATH (default: the current one) as a schema",
    ),
    (
        "tree",
        "[PATH] [DEPTH]  draw the directories under PATH (default: the current one) as a tree, DEPTH levels deep",
    ),
    (
        "pager",
        "[on|off]  page results longer than the screen through $PAGER (default: on)",
    ),
    (
        "o",
        "[FILE]  send results to FILE, emptied first (alone: back to the terminal)",
    ),
    (
        "i",
        "FILE  run the entries and commands in FILE; stops at the first failure",
    ),
    ("e", "edit the last entry in $EDITOR, then run it"),
    ("quit", "leave (also \\q, Ctrl-D)"),
];

/// Topics of `\help TOPIC`.
pub const TOPICS: &[(&str, &str)] = &[
    ("commands", ""),
    (
        "syntax",
        "A query looks like the key-value it reads or writes:\n\
         \x20 /app/users(42,\"ann\")=\"x\"     set a key-value\n\
         \x20 /app/users(42,<str>)=<>      read every key that matches\n\
         \x20 /app/users(42,...)=clear     clear a range\n\
         \x20 /app/users                   list a directory; /app/users=remove removes it\n\
         Relative queries (`./users(1)`, `../x(1)`, or just `users(1)`) start\n\
         \x20 from the root \\cd chose (--root at first).\n\
         Enter goes on to a new line while a tuple is open, or after a line of\n\
         \x20 options alone; Alt-Enter starts a new line anyway. An entry of several\n\
         \x20 lines is one script: `<id:int>` in one statement feeds `:id` in the next.\n\
         \x20 \\set NAME VALUE gives `:NAME` a value for every entry after.\n\
         See docs/language.md for the whole language.",
    ),
    (
        "types",
        "Holes match elements: <> any, <int|str> one of, <id:int> named (binds :id),\n\
         ... any number of elements. Types: any nil bool int num str bytes uuid vstamp tuple.\n\
         Aggregates: count sum min max avg append, e.g. /app/users(...)=<count>.",
    ),
    (
        "options",
        "Query options stand before a query: [reverse,limit:10,snapshot,strict,mode:want_all].\n\
         Value options follow a value or a type: 7[i64,be], <int[i64]>, \"x\"[raw].\n\
         [system] before a raw key (0xff02...) opens the system keys; [prefix] /app/<>\n\
         lists directories with the raw range of their keys.",
    ),
];

impl Repl {
    /// Runs `\command argument`.
    pub(super) fn meta(&mut self, line: &str) {
        let (name, arg) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(n, a)| (n, a.trim()));
        match name {
            "help" | "?" | "h" => {
                if let Some(text) = help(arg) {
                    self.print(&text);
                }
            }
            "q" | "quit" | "exit" => self.quit = true,
            "begin" | "commit" | "rollback" => self.transaction(name),
            "writemode" | "timing" | "format" | "bytes" => self.setting(name, arg),
            "set" => self.set(arg),
            "unset" => self.unset(arg),
            "pwd" => self.print(&format!("{}\n", self.session.settings.root)),
            "cd" if arg.is_empty() => self.session.settings.root = self.home.clone(),
            "cd" => {
                if let Some(dir) = self.directory(name, arg) {
                    match self.exists(dir.names()) {
                        Ok(true) => self.session.settings.root = dir,
                        Ok(false) => {
                            report(&CliError::missing_directory(Exit::Failed, dir.names()))
                        }
                        Err(e) => tell(e.to_string()),
                    }
                }
            }
            "ls" => {
                if let Some(dir) = self.directory(name, arg).filter(|d| self.listable(d)) {
                    let text = match dir.names() {
                        [] => "/<>".to_string(),
                        _ => format!("{dir}/<>"),
                    };
                    self.query(&text);
                }
            }
            "explain" => self.explain(arg),
            "watch" => self.watch(arg),
            "validate" => self.validate(arg),
            "infer" => self.infer(arg),
            "tree" => self.tree(arg),
            "pager" => self.pager(arg),
            "o" => self.output_to(arg),
            "i" => self.include(arg),
            "e" => self.edit(arg),
            _ => tell(format!("unknown command \\{name}; \\help lists them")),
        }
    }

    /// `\begin`, `\commit`, `\rollback`.
    fn transaction(&mut self, name: &str) {
        match name {
            "begin" => {
                if self.tx.is_some() {
                    warn("a transaction is already open; \\commit or \\rollback it first");
                    return;
                }
                match self.session.db.create_trx() {
                    Ok(tx) => {
                        self.tx = Some(tx);
                        warn("transaction open; \\commit or \\rollback");
                    }
                    Err(e) => tell(format!("cannot open a transaction: {e}")),
                }
            }
            "commit" => match self.tx.take() {
                None => warn("no transaction is open; \\begin opens one"),
                Some(mut tx) => match tx.commit() {
                    Ok(_) => warn("committed"),
                    Err(e) => {
                        tell(format!("the commit failed, nothing was written: {e}"));
                        if e == fql::kv::Error::TransactionTooOld {
                            warn(
                                "a transaction lives 5 seconds from its first query; \\begin a new one and commit sooner",
                            );
                        }
                    }
                },
            },
            _ => match self.tx.take() {
                None => warn("no transaction is open"),
                Some(_) => warn("rolled back"),
            },
        }
    }

    /// `\writemode`, `\timing`, `\format`, `\bytes`.
    fn setting(&mut self, name: &str, arg: &str) {
        let settings = &mut self.session.settings;
        match name {
            "writemode" => {
                if let Some(on) = switch(arg, settings.write) {
                    settings.write = on;
                    warn(format_args!("writes are {}", if on { "on" } else { "off" }));
                }
            }
            "timing" => {
                if let Some(on) = switch(arg, !settings.timing) {
                    settings.timing = on;
                    warn(format_args!("timing is {}", if on { "on" } else { "off" }));
                }
            }
            "format" => match arg {
                "text" => settings.format = Format::Text,
                "json" => settings.format = Format::Json,
                "jsonl" => settings.format = Format::Jsonl,
                "" => warn(format_args!("format is {}", format_name(settings.format))),
                _ => warn("\\format takes text, json or jsonl"),
            },
            _ => match arg {
                "full" => settings.bytes = BytesShown::Full,
                "len" => settings.bytes = BytesShown::Len,
                "escaped" => settings.bytes = BytesShown::Escaped,
                "" => warn(format_args!("bytes are {}", bytes_name(settings.bytes))),
                _ => warn("\\bytes takes full, len or escaped"),
            },
        }
    }

    /// `\set NAME VALUE`: `:NAME` has the value in every later entry,
    /// read by the rules of `-p NAME=VALUE`, as joins across statements
    /// typed one entry at a time need. `\set` alone lists them, as the
    /// commands that set them again.
    fn set(&mut self, arg: &str) {
        if arg.is_empty() {
            return self.list_params();
        }
        let (name, value) = arg
            .split_once(char::is_whitespace)
            .map_or((arg, ""), |(n, v)| (n, v.trim()));
        let shown = fql::syntax::plain_or_quoted(name);
        if value.is_empty() {
            tell(format!(
                "\\set {shown} needs a value: \\set NAME VALUE (\\unset NAME forgets one)"
            ));
            return;
        }
        if name.contains('=') {
            tell(format!(
                "`{shown}` is not a parameter name: \\set NAME VALUE"
            ));
            return;
        }
        let settings = &self.session.settings;
        let flag = [format!("{name}={value}")];
        match crate::session::params(&flag, &settings.root, settings.color) {
            Ok(params) => self.session.settings.params.extend(params),
            Err(e) => report(&e),
        }
    }

    /// `\set` alone: each value as the command that sets it.
    fn list_params(&mut self) {
        let mut params: Vec<_> = self.session.settings.params.iter().collect();
        if params.is_empty() {
            warn("no parameters are set; \\set NAME VALUE sets one");
            return;
        }
        params.sort_by(|a, b| a.0.cmp(b.0));
        let text: String = params
            .iter()
            .map(|(name, value)| {
                let name = fql::syntax::plain_or_quoted(name);
                format!("\\set {name} {value}\n")
            })
            .collect();
        self.print(&text);
    }

    /// `\unset NAME...`: the names have no value any more.
    fn unset(&mut self, arg: &str) {
        if arg.is_empty() {
            tell("\\unset takes the NAME of a parameter; \\set lists them".into());
            return;
        }
        for name in arg.split_whitespace() {
            if self.session.settings.params.remove(name).is_none() {
                let name = fql::syntax::plain_or_quoted(name);
                tell(format!("`:{name}` has no value; \\set lists those set"));
            }
        }
    }

    /// `\watch QUERY`: what `fql watch QUERY` prints, on the terminal
    /// (an endless result has no place in a pager or a file), until
    /// Ctrl-C brings the prompt back.
    fn watch(&mut self, arg: &str) {
        if arg.is_empty() {
            tell("\\watch takes a query, such as \\watch /app/users(<int>)=<>".into());
            return;
        }
        if self.tx.is_some() {
            tell("\\watch runs its own transactions; \\commit or \\rollback first".into());
            return;
        }
        let (text, added) = path::resolve_marked(arg);
        let typed = crate::source::Typed::new(arg, &text, added);
        let sources = Sources::single("<input>", text.clone());
        let settings = &self.session.settings;
        let planner = fql::plan::Planner::new(&settings.params)
            .with_root(settings.root.clone())
            .with_supply(settings.supply);
        let color = settings.color;
        let checked =
            crate::session::with_plan_typed(&sources, Some(&typed), planner, color, |_| Ok(()));
        if let Err(e) = checked {
            return report(&e);
        }
        self.session.activity.restart();
        let out = std::io::stdout();
        let mut printer = crate::print::Printer::new(
            out.lock(),
            settings.format,
            settings.bytes,
            settings.color_out,
            true,
        );
        let options = fql::watch::Options::default();
        let result = crate::watch::watch(&self.session, &text, options, &mut printer);
        drop(printer);
        self.session.activity.restart();
        if let Err(e) = result {
            let exit = e.tell();
            if matches!(exit, Exit::Closed | Exit::Output) {
                self.end(exit.into());
            }
        }
    }

    /// `\validate SCHEMA`: violations as FQL with a comment, then counts.
    /// `\explain QUERY`, and `\explain analyze QUERY`, which runs it.
    fn explain(&mut self, arg: &str) {
        let (analyze, arg) = match arg.split_once(char::is_whitespace) {
            Some(("analyze", query)) => (true, query.trim()),
            _ => (arg == "analyze", if arg == "analyze" { "" } else { arg }),
        };
        if analyze && arg.is_empty() {
            return tell("\\explain analyze takes a query to run and measure".into());
        }
        if analyze && self.tx.is_some() {
            return tell("\\explain analyze runs the query in transactions of its own; \\commit or \\rollback the open one first".into());
        }
        let (text, added) = path::resolve_marked(arg);
        let typed = crate::source::Typed::new(arg, &text, added);
        let sources = Sources::single("<input>", text);
        let session = &self.session;
        let settings = &session.settings;
        let planner = fql::plan::Planner::new(&settings.params)
            .with_root(settings.root.clone())
            .with_supply(settings.supply);
        let shown = crate::session::with_plan_typed(
            &sources,
            Some(&typed),
            planner,
            settings.color,
            |plan| {
                if !analyze {
                    return Ok(plan.to_string());
                }
                crate::session::refuse_writes(settings, &sources, plan)?;
                // A failure is reported on standard error; the figures
                // up to it are shown all the same.
                let (report, _) = crate::analyze::analyze(session, plan, &sources, Some(&typed));
                Ok(report)
            },
        );
        match shown {
            Ok(shown) => self.result(&shown),
            Err(e) => report(&e),
        }
    }

    fn validate(&mut self, arg: &str) {
        if arg.is_empty() {
            tell("\\validate takes a schema file or a named script".into());
            return;
        }
        let path = std::path::Path::new(arg);
        let source = match fql::scripts::find(arg).filter(|_| !path.exists()) {
            Some(named) => named.source.to_string(),
            None => match crate::source::read_source(Some(path)) {
                Ok((_, text)) => text,
                Err(e) => return report(&e),
            },
        };
        let settings = &self.session.settings;
        // Output that cannot be written stops the scan.
        let activity = self.session.activity.clone();
        let mut unwritten = None;
        // Violations are results: to `\o`'s file, or through the pager.
        let mut target = self.session.destination.as_ref().map(|d| d.open());
        let result = fql::schema::validate_in(
            &*self.session.db,
            self.session.engine.retry_options(),
            &source,
            &settings.params,
            &settings.root,
            None,
            &mut |v| {
                let line = format!("{} % {}\n", v.key, v.reason);
                if unwritten.is_none()
                    && let Err(error) = super::results::write_to(&mut target, &line)
                {
                    unwritten = Some(error);
                    activity.stop();
                }
            },
        );
        // Ends the result: the pager, if one started, has shown it all.
        drop(target);
        let stopped = self.settle();
        self.session.activity.restart();
        if let Some(error) = unwritten {
            // A pager quit or a file that failed ends the result alone.
            if !stopped {
                self.end(error);
            }
            return;
        }
        match result {
            Ok(s) => {
                warn(format_args!("{}", s.headline()));
                if let Some(empty) = crate::schema::nothing_checked(&s, &*self.session.db) {
                    warn(format_args!("fql: warning: {empty}"));
                }
            }
            Err(e) => tell(e.to_string()),
        }
    }

    /// `\infer [PATH]`: the shapes of the data in PATH, as `fql infer`
    /// prints them, relative to the current root by the same rule.
    fn infer(&mut self, arg: &str) {
        let Some(dir) = self.directory("infer", arg) else {
            return;
        };
        if dir.names().is_empty() {
            tell(
                "`/` is the top of the directory layer; \\infer reads a directory under it".into(),
            );
            return;
        }
        let retry = self.session.engine.retry_options();
        match fql::schema::infer(&*self.session.db, retry, dir.names(), 0, None) {
            Ok(shapes) => {
                let spelled = path::spelled(arg);
                let root = &self.session.settings.root;
                let text =
                    crate::schema::shapes_text(&shapes, crate::schema::relative(&spelled, root));
                self.result(&text);
            }
            Err(e) => tell(e.to_string()),
        }
    }

    /// `\tree [PATH] [DEPTH]`: the directories under PATH as `fql tree`
    /// draws them, in the current format.
    fn tree(&mut self, arg: &str) {
        let (path, depth) = match arg.rsplit_once(char::is_whitespace) {
            Some((p, d)) if d.parse::<usize>().is_ok() => (p.trim(), d.parse().ok()),
            _ if arg.parse::<usize>().is_ok() => ("", arg.parse().ok()),
            _ => (arg, None),
        };
        let Some(dir) = self.directory("tree", path) else {
            return;
        };
        let retry = self.session.engine.retry_options();
        match DirectoryLayer::new().tree(&*self.session.db, retry, dir.names(), depth) {
            Ok(node) => {
                let format = self.session.settings.format;
                self.result(&crate::dirs::tree_output(&node, format));
            }
            Err(e) => tell(e.to_string()),
        }
    }

    /// The directory `\cd` or `\ls` names from the current root, or
    /// `None` after showing why there is none.
    fn directory(&self, command: &str, arg: &str) -> Option<Root> {
        // No argument: the current root itself.
        let text = path::spelled(if arg.is_empty() { "." } else { arg });
        let settings = &self.session.settings;
        match settings.root.change(&text) {
            Ok(dir) => Some(dir),
            Err(e) => {
                let sources = Sources::single(format!("\\{command}"), text.into_owned());
                let width = crate::output::width();
                report(&CliError::Diagnostics {
                    text: fql::syntax::render(&e, &sources, settings.color, width),
                    exit: Exit::Usage,
                });
                None
            }
        }
    }

    /// Whether `\ls` can list `dir`, after saying why not: one that does
    /// not exist is reported as `\cd` reports it.
    fn listable(&self, dir: &Root) -> bool {
        match self.exists(dir.names()) {
            Ok(true) => true,
            Ok(false) => {
                report(&CliError::missing_directory(Exit::Failed, dir.names()));
                false
            }
            Err(e) => {
                tell(e.to_string());
                false
            }
        }
    }

    fn exists(&self, dir: &[String]) -> Result<bool, fql::directory::Error> {
        if dir.is_empty() {
            return Ok(true);
        }
        let layer = DirectoryLayer::new();
        let retry = self.session.engine.retry_options();
        let (exists, _) = self
            .session
            .db
            .run_with(retry, |tx, _| layer.exists(tx, dir))?;
        Ok(exists)
    }
}

/// `on`/`off`, or `default` for no argument; complains about anything else.
fn switch(arg: &str, default: bool) -> Option<bool> {
    match arg {
        "" => Some(default),
        "on" => Some(true),
        "off" => Some(false),
        _ => {
            tell(format!("expected on or off, not `{arg}`"));
            None
        }
    }
}

/// How `\format` names a format.
fn format_name(format: Format) -> &'static str {
    match format {
        Format::Text => "text",
        Format::Json => "json",
        Format::Jsonl => "jsonl",
    }
}

/// How `\bytes` names what bytes show.
fn bytes_name(bytes: BytesShown) -> &'static str {
    match bytes {
        BytesShown::Full => "full",
        BytesShown::Len => "len",
        BytesShown::Escaped => "escaped",
    }
}

/// The text of `\help TOPIC`; `None`, after saying so, for no such topic.
fn help(topic: &str) -> Option<String> {
    match TOPICS.iter().find(|(name, _)| *name == topic) {
        Some((_, text)) if !text.is_empty() => Some(format!("{text}\n")),
        _ if topic.is_empty() || topic == "commands" => {
            let mut out = String::from("FQL queries run as typed. Commands:\n");
            for (name, what) in COMMANDS {
                let (args, what) = match what.split_once("  ") {
                    Some((args, what)) => (args, what),
                    None => ("", *what),
                };
                out.push_str(&format!("  \\{:<22} {what}\n", format!("{name} {args}")));
            }
            let topics: Vec<_> = TOPICS.iter().map(|(n, _)| *n).collect();
            out.push_str(&format!(
                "Help topics: \\help {}\n",
                topics.join(", \\help ")
            ));
            Some(out)
        }
        _ => {
            tell(format!("no help on `{topic}`; \\help lists the topics"));
            None
        }
    }
}
