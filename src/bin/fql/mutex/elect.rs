//! `fql mutex elect` and `fql mutex observe`: leader election on the
//! mutex (`fql::lock::election::Election`), and who leads as it changes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fql::kv::Database;
use fql::lock::election::{Campaign, Election, Leader, Observe, Term};
use fql::watch::Ended;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::args::{Client, Format, WaitArgs};
use crate::error::{CliError, Exit};

/// Campaigns, prints the leader and term once elected, and leads until a
/// signal asks it to resign; with a command, runs it while leading, as
/// `fql mutex run` does.
pub fn elect(
    db: Arc<dyn Database>,
    client: &Client,
    wait: WaitArgs,
    (format, grace): (Option<Format>, f64),
    command: &[String],
    timeout: Duration,
) -> Result<(), CliError> {
    if !command.is_empty() {
        let how = super::Holding {
            wait,
            grace,
            stats: None,
        };
        let holder = |db| client.mutex(db, timeout);
        return super::holding(holder, (&db, timeout), client, how, command);
    }
    let wait = wait.duration()?;
    if client.timing.compat {
        return Err(CliError::Usage("an election's terms are fencing tokens, which --compat does not keep; elect without it (or run a command with `fql mutex run --compat`)".to_string()));
    }
    let dir = super::directory(&client.dir)?;
    let election = Election::new(db, dir, &client.name, client.timing.timing()?, timeout)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    // Caught from before the campaign starts, so none is lost.
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])
        .map_err(|e| CliError::failed(Exit::Failed, format!("cannot handle signals: {e}")))?;
    let handle = signals.handle();
    let stopper = election.stopper();
    std::thread::spawn(move || {
        for _ in signals.forever() {
            stopper.stop();
        }
    });
    let ended = campaign_and_lead(&election, wait, format.unwrap_or_default());
    handle.close();
    ended
}

fn campaign_and_lead(
    election: &Election,
    wait: Option<Duration>,
    format: Format,
) -> Result<(), CliError> {
    let term = match election.campaign(wait).map_err(super::failed)? {
        Campaign::Elected(term) => term,
        Campaign::Stopped => return Ok(()),
        Campaign::TimedOut => {
            return Err(CliError::failed(
                Exit::Unmet,
                "not elected within --wait".to_string(),
            ));
        }
    };
    let leader = Leader {
        name: election.name().to_string(),
        term: Some(term),
    };
    if let Err(unprinted) = crate::output::print(&line(Some(&leader), format)) {
        // Nobody saw who leads: lead no further.
        let resigning = CliError::failed(Exit::Unmet, "the leader and term went unseen; resigning");
        let exit = unprinted.tell().max(resigning.tell());
        let _ = election.resign();
        return Err(exit.into());
    }
    match election.lead().map_err(super::failed)? {
        Term::Resigned => Ok(()),
        Term::Lost => Err(CliError::failed(
            Exit::Failed,
            "lost the lead: another candidate leads now".to_string(),
        )),
    }
}

/// Prints the leader of the election in `dir`, then each change, until
/// `count` changes, `for_secs` or a signal.
pub fn observe(
    db: &Arc<dyn Database>,
    dir: &[String],
    (count, for_secs): (Option<u64>, Option<Duration>),
    format: Option<Format>,
    timeout: Duration,
) -> Result<(), CliError> {
    let engine = fql::exec::Engine::new(db.clone()).timeout(timeout);
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        let _ = signal_hook::flag::register(signal, stop.clone());
    }
    let options = Observe {
        count,
        until: for_secs.map(|d| Instant::now() + d),
        ..Observe::default()
    };
    let format = format.unwrap_or_default();
    let stopped = || stop.load(Ordering::SeqCst);
    let mut sink = |leader: Option<&Leader>| {
        crate::output::print(&line(leader, format)).map_err(Failed::Output)
    };
    match fql::lock::election::observe(&engine, dir, options, &stopped, &mut sink) {
        Ok(Ended::Stopped) => Err(Exit::Interrupted.into()),
        Ok(Ended::Count | Ended::Time) => Ok(()),
        Err(Failed::Output(error)) => Err(error),
        Err(Failed::Mutex(e)) => Err(super::failed(e)),
    }
}

/// Why observing stopped early.
enum Failed {
    Output(CliError),
    Mutex(fql::lock::mutex::Error),
}

impl From<fql::lock::mutex::Error> for Failed {
    fn from(e: fql::lock::mutex::Error) -> Failed {
        Failed::Mutex(e)
    }
}

/// One line: `leader NAME term TOKEN` or `no leader`, the name quoted
/// and escaped unless plain; or the same as a JSON object.
fn line(leader: Option<&Leader>, format: Format) -> String {
    let term = |l: &Leader| l.term.map(|t| t.to_string());
    match format {
        Format::Text => match leader {
            Some(l) => format!(
                "leader {} term {}\n",
                fql::syntax::plain_or_quoted(&l.name),
                term(l).as_deref().unwrap_or("none")
            ),
            None => "no leader\n".into(),
        },
        Format::Json | Format::Jsonl => {
            let object = serde_json::json!({
                "leader": leader.map(|l| l.name.as_str()),
                "term": leader.and_then(term),
            });
            format!("{}\n", fql::exec::json::to_string(&object))
        }
    }
}
