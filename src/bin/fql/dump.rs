//! `fql dump` and `fql load`: the library's dump writer and loader, with
//! files, progress and resume points around them.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fql::dump::{Dumped, Error, LoadOptions, Loaded};
use fql::kv::{Activity, Database, Observed, RetryOptions};
use fql::plan::Root;

use crate::args::{DumpArgs, LoadArgs, StoreArgs};
use crate::error::{CliError, Exit, io_reason, warn};
use crate::store::{self, Missing};

mod resume;

use resume::Point;

pub fn dump(args: &DumpArgs, store_args: &StoreArgs, color: bool) -> Result<(), CliError> {
    // `/` alone is the whole database, as `--all`.
    let all = args.all || args.dirs == ["/"];
    if args.system && !all {
        return Err(CliError::Usage(
            "--system dumps the system keys of a whole dump: give --all".to_string(),
        ));
    }
    let dirs = args
        .dirs
        .iter()
        .filter(|_| !all)
        .map(|d| crate::schema::directory(d, &Root::default(), color))
        .collect::<Result<Vec<_>, _>>()?;
    let opened = store::open_as(store_args, Missing::Refuse)?;
    let retry = RetryOptions::default().with_timeout(opened.timeout);
    let (db, activity) = stoppable(opened.db);
    let run = |out: &mut dyn Write| match all {
        true => fql::dump::dump_all(&db, args.system, retry, out),
        false => fql::dump::dump(&db, &dirs, retry, out),
    };
    let dumped = match &args.output {
        Some(path) => to_file(path, run),
        None => {
            let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
            run(&mut out).map_err(|e| match e {
                Error::Io(e) => CliError::output(e),
                e => failed(None, &e),
            })
        }
    };
    let dumped = dumped.map_err(|error| interrupted(&activity).unwrap_or(error))?;
    notes(&dumped, all);
    Ok(())
}

/// Writes the dump to a private file beside `path`, put in its place
/// only once the dump is whole.
fn to_file(
    path: &Path,
    run: impl FnOnce(&mut dyn Write) -> Result<Dumped, Error>,
) -> Result<Dumped, CliError> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let partial = path.with_file_name(format!(
        ".{}.partial{}",
        name.unwrap_or_default(),
        std::process::id()
    ));
    let cannot = |exit: Exit, e: io::Error| {
        let path = path.display().to_string();
        let shown = fql::syntax::printable(&path);
        CliError::failed(exit, format!("cannot write {shown}: {}", io_reason(&e)))
    };
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&partial)
        // A file that cannot be made is a usage error, as one that cannot
        // be read; one that fails while written, a failure.
        .map_err(|e| cannot(Exit::Usage, e))?;
    let mut out = BufWriter::with_capacity(1 << 16, file);
    let result = run(&mut out).and_then(|d| {
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok(d)
    });
    let result = result.and_then(|d| Ok(std::fs::rename(&partial, path).map(|()| d)?));
    result.map_err(|e| {
        let _ = std::fs::remove_file(&partial);
        match e {
            Error::Io(e) => cannot(Exit::Failed, e),
            e => failed(None, &e),
        }
    })
}

/// What a user should know about a dump that is not what it seems.
fn notes(dumped: &Dumped, whole: bool) {
    if dumped.versions.len() > 1 {
        let versions: Vec<String> = dumped.versions.iter().map(u64::to_string).collect();
        warn(format_args!(
            "fql: the dump took {} transactions (read versions {}): it is not one snapshot; \
             each `% read version` line in it starts the next",
            dumped.versions.len(),
            versions.join(", ")
        ));
    }
    if whole {
        // Most raw lines of a whole dump are the directory layer's nodes.
        return;
    }
    if dumped.raw > 0 {
        warn(format_args!(
            "fql: {} {} not {}, written as `% raw` lines: `fql load` writes them, \
             `fql -w -f` skips them",
            dumped.raw,
            if dumped.raw == 1 {
                "key is"
            } else {
                "keys are"
            },
            if dumped.raw == 1 { "a tuple" } else { "tuples" }
        ));
    }
}

pub fn load(args: &LoadArgs, store_args: &StoreArgs, color: bool) -> Result<(), CliError> {
    let stdin = args.file == Path::new("-");
    if stdin && args.resume {
        return Err(CliError::Usage(
            "--resume needs a FILE: a load from standard input keeps no resume point".to_string(),
        ));
    }
    let to = args
        .to
        .as_deref()
        .map(|t| crate::schema::directory(t, &Root::default(), color))
        .transpose()?;
    let name = if stdin {
        "standard input".to_string()
    } else {
        fql::syntax::printable(&args.file.display().to_string()).into_owned()
    };
    let mut options = LoadOptions {
        to,
        force: args.force,
        batch_bytes: args.batch_bytes as usize,
        batch_keys: args.batch_keys as usize,
        ..LoadOptions::default()
    };
    // A file is checked whole first, so a bad line writes nothing.
    let checked = match stdin {
        true => None,
        false => Some(
            fql::dump::check(open(&args.file, &name)?, &options)
                .map_err(|e| failed(Some(&name), &e))?,
        ),
    };
    let point = Point::new(&args.file, &options, checked.as_ref());
    if args.resume {
        options.after = point.recorded(&name)?;
    }
    let opened = store::open(store_args)?;
    options.retry = RetryOptions::default().with_timeout(opened.timeout);
    let (db, activity) = stoppable(opened.db);
    let input: Box<dyn BufRead> = match stdin {
        true => Box::new(io::stdin().lock()),
        false => Box::new(open(&args.file, &name)?),
    };
    let total = checked.as_ref().map(|c| c.lines);
    let mut shown = Shown::new(total, io::stderr().is_terminal());
    let mut committed = options.after;
    let result = fql::dump::load(&db, input, &options, &mut |loaded| {
        committed = loaded.line;
        if !stdin {
            point.record(loaded.line);
        }
        shown.show(loaded);
    });
    shown.wipe();
    match result {
        Ok(loaded) => {
            point.remove();
            summary(&loaded);
            Ok(())
        }
        Err(e) => {
            let error = interrupted(&activity).unwrap_or_else(|| failed(Some(&name), &e));
            // Told before the way on from it.
            let exit = error.tell();
            if committed > 0 && !stdin {
                warn(format_args!(
                    "fql: {name} is loaded through line {committed}; \
                     `fql load {name} --resume` goes on after it"
                ));
            }
            Err(exit.into())
        }
    }
}

/// The database with its operations stoppable by Ctrl-C: the first
/// stops the dump or load at its next operation, with nothing more
/// written (a dump's file is not put in place, a load's transaction rolls
/// back, its resume point kept).
fn stoppable(db: Box<dyn Database>) -> (Observed<Box<dyn Database>>, Arc<Activity>) {
    let activity = Arc::new(Activity::default());
    crate::interrupt::stop_on_interrupt(activity.clone());
    (Observed::new(db, activity.clone()), activity)
}

/// Exit 130, with why, when Ctrl-C stopped the work.
fn interrupted(activity: &Activity) -> Option<CliError> {
    activity.stopped().then(CliError::interrupted)
}

fn open(path: &PathBuf, name: &str) -> Result<BufReader<File>, CliError> {
    File::open(path)
        .map(|f| BufReader::with_capacity(1 << 16, f))
        .map_err(|error| CliError::Io {
            doing: "read",
            name: name.to_string(),
            error,
        })
}

fn summary(loaded: &Loaded) {
    warn(format_args!(
        "fql: loaded {} key-value{} and {} director{} in {} transaction{}",
        loaded.key_values,
        if loaded.key_values == 1 { "" } else { "s" },
        loaded.directories,
        if loaded.directories == 1 { "y" } else { "ies" },
        loaded.transactions,
        if loaded.transactions == 1 { "" } else { "s" },
    ));
}

/// Why a dump or load failed, and with what status.
fn failed(name: Option<&str>, e: &Error) -> CliError {
    // Ctrl-C's, said by the caller.
    if fql::kv::AsKvError::as_kv(e) == Some(&fql::kv::Error::TransactionCancelled) {
        return Exit::Interrupted.into();
    }
    let message = match name {
        Some(name) => format!("{name}: {e}"),
        None => e.to_string(),
    };
    let exit = match e {
        Error::Io(_) => Exit::Usage,
        Error::NotADump | Error::Line { .. } | Error::Outside { .. } | Error::Truncated(_) => {
            Exit::Invalid
        }
        Error::NotEmpty(_)
        | Error::NotFound(_)
        | Error::Nested { .. }
        | Error::ManyRoots(_)
        | Error::WholeTo => Exit::Usage,
        e => fql::kv::AsKvError::as_kv(e).map_or(Exit::Failed, store::exit_of),
    };
    CliError::failed(exit, message)
}

/// The progress line of a load on a terminal, redrawn after each
/// commit.
struct Shown {
    total: Option<u64>,
    on: bool,
    drawn: bool,
}

impl Shown {
    fn new(total: Option<u64>, on: bool) -> Shown {
        Shown {
            total,
            on,
            drawn: false,
        }
    }

    fn show(&mut self, loaded: &Loaded) {
        if !self.on {
            return;
        }
        // Lines, not key-values: a resumed load's count starts after
        // the lines it passes over.
        let of = match self.total {
            Some(t) if t > 0 => format!(" of {t} ({:.0}%)", loaded.line as f64 * 100.0 / t as f64),
            _ => String::new(),
        };
        let mut err = io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[Kloaded {} key-values, through line {}{of}",
            loaded.key_values, loaded.line
        );
        let _ = err.flush();
        self.drawn = true;
    }

    fn wipe(&mut self) {
        if self.drawn {
            let _ = write!(io::stderr().lock(), "\r\x1b[K");
            self.drawn = false;
        }
    }
}
