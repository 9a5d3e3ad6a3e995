//! `fql man`: the manual page. clap_mangen writes the parts that come
//! from the command's definition (name, synopsis, description, options);
//! the rest is written here: the commands, named as they are typed
//! (`fql run`) since they have no pages of their own to refer to, and the
//! exit status, environment and files a manual page is expected to have.

use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use crate::error::CliError;
use crate::output;

/// The exit statuses of [`Exit`], with what each means.
const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "Success, reads that find nothing included; also when standard output is closed by \
         its reader (fql ... | head) and nothing failed before.",
    ),
    (
        "1",
        "A check found things not as required: fmt --check a script not in canonical form, \
         a guard the database, validate data that does not conform or no key to check (without --allow-empty), fql mutex a mutex not \
         acquired (within --wait), held or waited for, mutex show a directory that does not exist, \
         dir rm without --force a directory that is not empty.",
    ),
    (
        "2",
        "A usage error: a bad flag or argument, a file that cannot be read or written, a \
         database file that cannot be opened (or that does not exist, for a command that only reads), a write without -w or to a read-only or \
         damaged database.",
    ),
    (
        "3",
        "The script does not parse, fails a static check, or cannot be planned.",
    ),
    (
        "4",
        "The script or command failed while running, or standard output could not be \
         written.",
    ),
    (
        "5",
        "The database cannot be reached, or a transaction did not commit within --timeout.",
    ),
    (
        "130",
        "Interrupted by Ctrl-C, which is how fql watch is usually ended; the open transaction was rolled back.",
    ),
    (
        "75",
        "fql mutex run lost the mutex while its command ran, and stopped the command.",
    ),
    (
        "126, 127",
        "fql mutex run's command is not an executable file (126) or was not found (127), as \
         in a shell; it did not run.",
    ),
    (
        "N",
        "fql mutex run exits with the status of the command it ran, or 128+N if signal N \
         ended it. A waiting fql mutex acquire or run that signal N ends leaves the queue, \
         then ends by that signal (128+N in a shell).",
    ),
];

/// The environment variables fql reads, and those it sets for a command.
const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "FDB_CLUSTER_FILE",
        "Selects FoundationDB, through this cluster file, unless --db or --memory is given.",
    ),
    (
        "XDG_DATA_HOME",
        "The default database is $XDG_DATA_HOME/fql/fql.db; when it is unset or not an \
         absolute path, ~/.local/share/fql/fql.db.",
    ),
    (
        "XDG_STATE_HOME",
        "The shell's history is $XDG_STATE_HOME/fql/history; when it is unset or not an \
         absolute path, ~/.local/state/fql/history.",
    ),
    (
        "HOME",
        "The home directory of the defaults above; one that is not an absolute path is \
         ignored, and without it the user's entry in the password database gives it.",
    ),
    (
        "FQL_HISTORY",
        "The shell's history file, before the default.",
    ),
    (
        "PAGER",
        "The program the shell shows results longer than the screen through (less -FRX \
         when unset; set and empty, none).",
    ),
    (
        "LINES",
        "The screen's height the shell's pager starts past, instead of the terminal's.",
    ),
    (
        "EDITOR, VISUAL",
        "The editor the shell's \\e opens the last entry in (EDITOR first, then VISUAL, \
         else vi).",
    ),
    (
        "NO_COLOR",
        "Any value but the empty one turns color off, unless --color always is given.",
    ),
    (
        "CLICOLOR_FORCE, FORCE_COLOR",
        "Color output that is not a terminal, under --color auto.",
    ),
    ("TERM", "Unset or dumb: no color under --color auto."),
    (
        "COLUMNS",
        "The width error reports wrap at, instead of the terminal's.",
    ),
    (
        "TMPDIR",
        "Where the temporary files of a join's rows and of a script read from a pipe go.",
    ),
    (
        "FQL_FAULTS",
        "Makes the embedded database fail as a FoundationDB cluster can, for tests.",
    ),
    (
        "FQL_MUTEX_TOKEN, FQL_MUTEX_DIR, FQL_MUTEX_NAME",
        "Set by fql mutex run for its command: the fencing token, the mutex directory and \
         the client's name.",
    ),
];

/// The files fql keeps by default.
const FILES: &[(&str, &str)] = &[
    (
        "$XDG_DATA_HOME/fql/fql.db, else ~/.local/share/fql/fql.db",
        "The default embedded database, with the -wal and -shm files beside it.",
    ),
    (
        "$XDG_STATE_HOME/fql/history, else ~/.local/state/fql/history",
        "The shell's history.",
    ),
];

/// Prints the manual page.
pub fn run() -> Result<(), CliError> {
    match render() {
        Ok(page) => output::print(&page),
        Err(e) => Err(CliError::Usage(format!("cannot render the manual: {e}"))),
    }
}

/// The manual page, as roff.
fn render() -> std::io::Result<String> {
    let cmd = crate::args::command();
    let mut ours = Roff::new();
    commands(&mut ours, &cmd);
    examples(&mut ours, &cmd);
    table(&mut ours, "EXIT STATUS", EXIT_STATUS);
    table(&mut ours, "ENVIRONMENT", ENVIRONMENT);
    table(&mut ours, "FILES", FILES);
    let man = Man::new(cmd);
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    page.extend(ours.render().as_bytes());
    man.render_version_section(&mut page)?;
    Ok(without_repeated_preambles(&String::from_utf8_lossy(&page)))
}

/// Every command, and every command of a command (`fql mutex acquire`),
/// with what it does; `fql COMMAND --help` gives its options.
fn commands(roff: &mut Roff, cmd: &clap::Command) {
    roff.control("SH", ["COMMANDS"]);
    roff.text([
        roman("Each command takes the options above; "),
        bold("fql COMMAND --help"),
        roman(" lists its own."),
    ]);
    let mut stack: Vec<(String, &clap::Command)> = vec![];
    let visible = |c: &clap::Command| !c.is_hide_set() && c.get_name() != "help";
    for sub in cmd.get_subcommands().filter(|c| visible(c)) {
        stack.push((format!("fql {}", sub.get_name()), sub));
        while let Some((name, c)) = stack.pop() {
            roff.control("TP", []);
            roff.text([bold(name.as_str())]);
            if let Some(about) = c.get_about() {
                roff.text([roman(about.to_string())]);
            }
            let mut inner: Vec<_> = c
                .get_subcommands()
                .filter(|c| visible(c))
                .map(|s| (format!("{name} {}", s.get_name()), s))
                .collect();
            inner.reverse();
            stack.extend(inner);
        }
    }
}

/// The examples of `--help`, as they are typed.
fn examples(roff: &mut Roff, cmd: &clap::Command) {
    let Some(text) = cmd.get_after_help().map(ToString::to_string) else {
        return;
    };
    roff.control("SH", ["EXAMPLES"]);
    roff.control("nf", []);
    for line in text.lines().filter(|l| l.starts_with(' ')) {
        roff.text([roman(line.trim())]);
    }
    roff.control("fi", []);
}

/// A section of terms, each with its meaning.
fn table(roff: &mut Roff, title: &str, rows: &[(&str, &str)]) {
    roff.control("SH", [title]);
    for (term, meaning) in rows {
        roff.control("TP", []);
        roff.text([bold(*term)]);
        roff.text([roman(*meaning)]);
    }
}

/// The lines roff puts before every rendering, which the page needs once.
fn preamble() -> String {
    Roff::new().render()
}

/// The page with the preamble only at its top: clap_mangen renders each
/// section on its own, each with a preamble of its own.
fn without_repeated_preambles(page: &str) -> String {
    let preamble = preamble();
    match page.strip_prefix(preamble.as_str()) {
        Some(rest) => format!("{preamble}{}", rest.replace(preamble.as_str(), "")),
        None => page.to_string(),
    }
}
