//! `fql mutex task`: the state-transition task lock with a lease
//! (`fql::lock::task::Task`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fql::kv::Database;
use fql::lock::task::{Finish, Taken, Task};
use fql::syntax::plain_or_quoted;

use crate::args::{TaskArgs, TaskCommand, TaskState};
use crate::error::{CliError, Exit};

pub fn run(db: Arc<dyn Database>, command: TaskCommand, timeout: Duration) -> Result<(), CliError> {
    match command {
        TaskCommand::Take { task, lease } => {
            let lease = super::seconds(lease, "--lease")?;
            take(&handle(db, &task, timeout)?, &task, lease)
        }
        TaskCommand::Beat { task, token } => {
            let beat = handle(db, &task, timeout)?.beat(token);
            done(beat.map_err(super::failed)?, &task)
        }
        TaskCommand::Finish { task, token, state } => {
            let state = match state {
                TaskState::Done => Finish::Done,
                TaskState::Failed => Finish::Failed,
            };
            let finish = handle(db, &task, timeout)?.finish(token, state);
            done(finish.map_err(super::failed)?, &task)
        }
    }
}

fn handle(db: Arc<dyn Database>, args: &TaskArgs, timeout: Duration) -> Result<Task, CliError> {
    let dir = super::directory(&args.dir)?;
    Task::new(db, dir, &args.task, &args.name)
        .map(|t| t.timeout(timeout))
        .map_err(|e| CliError::Usage(e.to_string()))
}

/// Takes the task and prints its token; says why not, exit 1, otherwise.
fn take(task: &Task, args: &TaskArgs, lease: Duration) -> Result<(), CliError> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(signal, stop.clone());
    }
    let stopped = || stop.load(Ordering::SeqCst);
    let name = plain_or_quoted(&args.task);
    let why = match task.take(lease, &stopped).map_err(super::failed)? {
        Taken::Took(token) => {
            // A token nobody saw: the task stays running until its lease
            // runs out and another worker takes it over.
            return crate::output::print(&format!("{token}\n"));
        }
        Taken::Stopped => return Err(Exit::Interrupted.into()),
        Taken::Missing => format!("there is no task {name}"),
        Taken::Done => format!("task {name} is done"),
        Taken::Running => format!(
            "task {name} is running, and its worker beat within the lease (or another worker took it over)"
        ),
        Taken::Unleased => format!(
            "task {name} is running with no heartbeat to judge (taken before tasks had leases); finish it, or set its state by hand"
        ),
        Taken::Other(value) => format!(
            "task {name} is {}, not a state a task is taken from (waiting or failed)",
            shown(&value)
        ),
    };
    Err(CliError::failed(
        Exit::Unmet,
        format!("{why}; nothing was written"),
    ))
}

/// A task's stored state as FQL prints a value: a quoted string, or the
/// bytes.
fn shown(value: &[u8]) -> String {
    match foundationdb_tuple::unpack::<String>(value) {
        Ok(s) => fql::syntax::quote(&s),
        Err(_) if value.is_empty() => "nil".into(),
        Err(_) => format!("0x{}", const_hex::encode(value)),
    }
}

fn done(held: bool, args: &TaskArgs) -> Result<(), CliError> {
    if held {
        return Ok(());
    }
    Err(CliError::failed(
        Exit::Unmet,
        format!(
            "{} does not hold task {} under this token (finished, taken over, or never taken); nothing was written",
            plain_or_quoted(&args.name),
            plain_or_quoted(&args.task)
        ),
    ))
}
