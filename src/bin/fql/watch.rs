//! `fql watch QUERY`, and the shell's `\watch`: a query's key-values,
//! then each change as it is committed (the library's `fql::watch`).

use std::io::{self, IsTerminal};
use std::time::Instant;

use fql::kv::AsKvError;
use fql::syntax::Sources;
use fql::watch::{Ended, Event, Options};

use crate::args::{Color, ExecArgs, Format, StoreArgs, WatchArgs};
use crate::error::{CliError, Exit};
use crate::print::Printer;
use crate::session::{Session, Settings, with_whole_plan};
use crate::store::{Missing, exit_of};

pub fn run(
    args: WatchArgs,
    exec: ExecArgs,
    store: &StoreArgs,
    color: Color,
) -> Result<(), CliError> {
    let own = ExecArgs {
        params: args.params.clone(),
        root: args.root.clone(),
        format: args.format,
        ..ExecArgs::default()
    };
    let settings = Settings::from_args(&exec.merged(own), color)?;
    let sources = Sources::single("QUERY", args.query.clone());
    with_whole_plan(
        &sources,
        &settings.params,
        &settings.root,
        settings.color,
        |_| Ok(()),
    )?;
    // A watch only reads: a missing database file is a mistake to report.
    let opened = crate::store::open_as(store, Missing::Refuse)?;
    let session = Session::new(opened.db, settings, false, opened.timeout);
    session.stop_on_interrupt();
    let options = Options {
        count: args.count,
        until: args.for_secs.map(|d| Instant::now() + d),
        ..Options::default()
    };
    let out = io::stdout();
    let by_line = out.is_terminal();
    let mut printer = Printer::new(
        out.lock(),
        session.settings.format,
        session.settings.bytes,
        session.settings.color_out,
        by_line,
    );
    watch(&session, &args.query, options, &mut printer)
}

/// Runs a watch in `session` until it ends, printing each event; a
/// watch Ctrl-C ended is [`Exit::Interrupted`].
pub fn watch<W: io::Write>(
    session: &Session,
    query: &str,
    options: Options,
    printer: &mut Printer<W>,
) -> Result<(), CliError> {
    let settings = &session.settings;
    if settings.format == Format::Json {
        return Err(CliError::Usage(
            "watch: --format json is one array, which a watch never closes; use --format jsonl"
                .to_string(),
        ));
    }
    let activity = session.activity.clone();
    let stop = move || activity.stopped();
    let mut sink = |event: Event| printer.print_event(&event).map_err(Failed::Output);
    let ended = fql::watch::watch(
        &session.engine,
        query,
        &settings.params,
        &settings.root,
        options,
        &stop,
        &mut sink,
    );
    match ended {
        Ok(Ended::Stopped) => Err(Exit::Interrupted.into()),
        Ok(Ended::Count | Ended::Time) => Ok(()),
        Err(Failed::Output(e)) => Err(CliError::output(e)),
        Err(Failed::Watch(_)) if session.activity.stopped() => Err(Exit::Interrupted.into()),
        Err(Failed::Watch(e)) => {
            let exit = match e.as_kv() {
                Some(kv) => exit_of(kv),
                None => Exit::Invalid,
            };
            let text = e.to_string();
            let shown = fql::syntax::printable(&text);
            Err(CliError::failed(exit, format!("watch: {shown}")))
        }
    }
}

/// Why a watch stopped early.
enum Failed {
    Output(io::Error),
    Watch(fql::watch::Error),
}

impl From<fql::watch::Error> for Failed {
    fn from(e: fql::watch::Error) -> Failed {
        Failed::Watch(e)
    }
}
