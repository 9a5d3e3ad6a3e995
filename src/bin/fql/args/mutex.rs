//! `fql mutex`'s subcommands and their flags.

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum MutexCommand {
    /// Take the mutex, waiting in line for it; prints the fencing token.
    ///
    /// Waits as long as it takes, unless --wait says otherwise. Exits 0
    /// holding the mutex, 1 when --wait passed first (the client then
    /// leaves the queue, as it does before SIGINT, SIGTERM or SIGHUP end
    /// it). A token that cannot be printed is handed back:
    /// exit 1 for a closed pipe, 4 for a failed write. The holder must
    /// beat (`fql mutex heartbeat`) at least every --stale seconds or the
    /// head of the queue (or a reaper) takes the mutex over.
    Acquire {
        #[command(flatten)]
        client: Client,
        #[command(flatten)]
        wait: WaitArgs,
    },
    /// Take the mutex only if it is free and nobody waits; prints the
    /// fencing token. Exits 1, having changed nothing, otherwise; a token
    /// that cannot be printed is handed back, as with acquire.
    TryAcquire {
        #[command(flatten)]
        client: Client,
    },
    /// Release the mutex to the longest-waiting client. Exits 1 if this
    /// client does not hold it.
    Release {
        #[command(flatten)]
        client: Client,
    },
    /// Beat as the owner. Exits 1 if this client no longer holds the mutex.
    Heartbeat {
        #[command(flatten)]
        client: Client,
    },
    /// Leave the queue. Exits 1 if this client is not waiting.
    Cancel {
        #[command(flatten)]
        client: Client,
    },
    /// Print the owner, the fencing token, heartbeats and the queue, from
    /// one snapshot, with each heartbeat's age in seconds and whether it
    /// is live or stale (older than --stale).
    ///
    /// Exits 1 when the directory does not exist: no mutex is there.
    Show {
        /// The mutex directory: a path such as `/locks/nightly`, or a tuple
        /// of names such as `("locks","nightly")`, as `-p dir=` takes.
        dir: String,
        /// `text` (the default): a line for each fact; `json` or `jsonl`:
        /// one JSON object.
        #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
        format: Option<super::Format>,
        #[command(flatten)]
        judge: JudgeArgs,
    },
    /// List every lock in and under a directory, from one snapshot: owner,
    /// token, heartbeat age and queue length of each.
    ///
    /// Directories that are no lock are counted, not listed. Exits 1 when
    /// the directory does not exist, 4 when the tree is too large to read
    /// within one transaction.
    List {
        /// The directory: a path such as `/locks`, or a tuple of names.
        dir: String,
        /// `text` (the default): a table; `json`: one JSON object; `jsonl`:
        /// one object per lock, then a summary.
        #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
        format: Option<super::Format>,
        #[command(flatten)]
        judge: JudgeArgs,
    },
    /// Break the mutex, for operators: clear its owner and hand it to the
    /// longest-waiting client, or leave it free, under a new fencing token.
    ///
    /// The previous holder's writes fenced with its token no longer
    /// commit, and its next heartbeat finds it no longer holds the mutex.
    /// One transaction; needs -w/--write. Exits 1 when the directory does
    /// not exist.
    Break {
        /// The mutex directory: a path such as `/locks/nightly`, or a tuple
        /// of names such as `("locks","nightly")`, as `-p dir=` takes.
        dir: String,
        /// Allow the write (also before the command: `fql -w mutex ...`).
        #[arg(short, long)]
        write: bool,
        /// `text` (the default) or `json`/`jsonl`: one JSON object.
        #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
        format: Option<super::Format>,
    },
    /// Hand on the mutex when its owner stops beating, and drop dead
    /// waiters; runs until interrupted.
    ///
    /// Judges by the timing and mode the mutex stores, which its clients
    /// share; --heartbeat, --stale and --compat apply to a mutex that
    /// stores none (one only Go clients use).
    Reap {
        /// The mutex directory: a path such as `/locks/nightly`, or a tuple
        /// of names such as `("locks","nightly")`, as `-p dir=` takes.
        dir: String,
        #[command(flatten)]
        timing: TimingArgs,
        /// `text` (the default): a line for each reap; `json` or `jsonl`:
        /// one JSON object for each.
        #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
        format: Option<super::Format>,
    },
    /// Run a command while holding the mutex.
    ///
    /// Acquires, waiting as long as it takes unless --wait says otherwise
    /// (exit 1 when it passes first, without running the command), beats
    /// while the command runs, and releases when it ends.
    /// The command gets the fencing token in FQL_MUTEX_TOKEN. If the mutex
    /// is lost (no heartbeat committed for --stale less --heartbeat), the
    /// command's process group gets SIGTERM, then SIGKILL after --grace
    /// seconds, and fql exits 75. SIGINT, SIGTERM and SIGHUP are passed on
    /// to it; the group has the terminal, and dies with fql. Exits with
    /// the command's status, 128+N if signal N ended it, 127 if it is not
    /// found, 126 if it is not executable.
    Run {
        #[command(flatten)]
        client: Client,
        #[command(flatten)]
        wait: WaitArgs,
        /// Seconds between SIGTERM and SIGKILL.
        #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
        grace: f64,
        /// At the end, print on standard error how long this client waited
        /// and held the mutex, how many heartbeats it made, and whether it
        /// lost the mutex (as JSON with --format json).
        #[arg(long)]
        stats: bool,
        /// The command and its arguments.
        #[arg(last = true, required = true, value_name = "CMD")]
        command: Vec<String>,
    },

    // Leader election and the task lock: built on the same keys.
    /// Campaign to lead: wait in line, print the leader and term once
    /// elected, lead until SIGINT, SIGTERM or SIGHUP, then resign.
    ///
    /// A candidate is a waiter of the mutex in DIR, the leader its owner,
    /// the term the fencing token of the grant. Prints `leader NAME term
    /// TOKEN` (with --format json, one JSON object) when elected; beats
    /// every --heartbeat while leading. Stopped, it leaves the queue or
    /// resigns, and exits 0; 1 when --wait passed first; 4 when the lead
    /// was lost (another candidate took over). With `-- CMD`, runs the
    /// command while leading, as `fql mutex run` does.
    Elect {
        #[command(flatten)]
        client: Client,
        #[command(flatten)]
        wait: WaitArgs,
        /// With a command: seconds between SIGTERM and SIGKILL.
        #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
        grace: f64,
        /// A command to run while leading, as `fql mutex run` runs it.
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Print who leads the election in DIR, then each change of leader
    /// or term, one line each, until interrupted.
    ///
    /// Waits on database watches of the owner and fence keys. Lines are
    /// `leader NAME term TOKEN` or `no leader`; with --format json or
    /// jsonl, one JSON object per line. Exits 0 after --count changes or
    /// --for seconds, 130 on Ctrl-C.
    Observe {
        /// The mutex directory: a path such as `/locks/nightly`, or a tuple
        /// of names such as `("locks","nightly")`, as `-p dir=` takes.
        dir: String,
        /// Stop after N changes (the leader found first is not a change).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        count: Option<u64>,
        /// Stop after this many seconds (a decimal, such as 0.5).
        #[arg(long = "for", value_name = "SECONDS", value_parser = super::seconds)]
        for_secs: Option<std::time::Duration>,
        /// `text` (the default), or `json`/`jsonl`: a JSON object per line.
        #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
        format: Option<super::Format>,
    },
    /// The state-transition task lock, with a lease: take, beat, finish.
    Task {
        #[command(subcommand)]
        command: TaskCommand,
    },
}

/// `fql mutex task`'s subcommands: the `lock/*-task` scripts, with a
/// taker that judges a running task's heartbeat on its own clock.
#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Take a task that waits or failed; prints its fencing token.
    ///
    /// A running task is taken over when its heartbeat stood still for
    /// --lease seconds, watched by this process (so a take of a running
    /// task waits that long); a task whose worker beat meanwhile, or that
    /// is done, missing or in another state, is refused: exit 1, nothing
    /// written.
    Take {
        #[command(flatten)]
        task: TaskArgs,
        /// Seconds a running task's heartbeat must stand still before the
        /// task is taken over.
        #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
        lease: f64,
    },
    /// Beat as the worker of a running task, so nobody takes it over.
    /// Exits 1 if the task is no longer this take's.
    Beat {
        #[command(flatten)]
        task: TaskArgs,
        /// The token `take` printed.
        #[arg(long, value_name = "TOKEN", value_parser = token)]
        token: fql::lock::Token,
    },
    /// Finish a running task as done or failed. Exits 1, writing nothing,
    /// if the task is no longer this take's.
    Finish {
        #[command(flatten)]
        task: TaskArgs,
        /// The token `take` printed.
        #[arg(long, value_name = "TOKEN", value_parser = token)]
        token: fql::lock::Token,
        /// `done`, or `failed` (another worker may take it again).
        #[arg(long, value_enum)]
        state: TaskState,
    },
}

/// A task and its worker.
#[derive(Debug, clap::Args)]
pub struct TaskArgs {
    /// The tasks' directory: a path such as `/jobs/hourly`, or a tuple of
    /// names, as `-p dir=` takes.
    pub dir: String,
    /// The task's name: the second element of its `("task", TASK)` key.
    pub task: String,
    /// This worker's name.
    #[arg(long)]
    pub name: String,
}

/// A state a worker finishes a task in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TaskState {
    Done,
    Failed,
}

/// A fencing token as fql prints it: 24 hex digits.
fn token(text: &str) -> Result<fql::lock::Token, String> {
    let text = text.strip_prefix("0x").unwrap_or(text);
    let mut token = [0; 12];
    const_hex::decode_to_slice(text, &mut token)
        .map(|()| fql::lock::Token(token))
        .map_err(|_| {
            format!(
                "`{}` is not a token: 24 hex digits, as take prints",
                fql::syntax::printable(text)
            )
        })
}

/// A client of a mutex.
#[derive(Debug, clap::Args)]
pub struct Client {
    /// The mutex directory: a path such as `/locks/nightly`, or a tuple
    /// of names such as `("locks","nightly")`, as `-p dir=` takes.
    pub dir: String,
    /// This client's name, unique among the clients of the mutex:
    /// acquire, try-acquire and run with the name of a client that holds
    /// it or waits for it are refused (exit 1); release, heartbeat and
    /// cancel act for the client of this name.
    #[arg(long)]
    pub name: String,
    #[command(flatten)]
    pub timing: TimingArgs,
    #[command(flatten)]
    pub kind: KindArgs,
    /// `text` (the default) or `json`/`jsonl`: one JSON object.
    #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
    pub format: Option<super::Format>,
}

/// Which kind of lock the directory holds, when it is not a plain mutex:
/// a read-write lock (`--read`, `--write`) or a semaphore (`--permits
/// N`). The kind, the number of permits and the timing are stored in the
/// lock when it is first used; a client that asks for others is refused.
#[derive(Debug, Clone, Copy, clap::Args)]
#[group(multiple = false)]
pub struct KindArgs {
    /// Use a read-write lock, taking it for reading: beside other
    /// readers, after every writer queued before.
    #[arg(long, help_heading = "Lock kind")]
    pub read: bool,
    /// Use a read-write lock, taking it for writing: alone.
    #[arg(long, help_heading = "Lock kind")]
    pub write: bool,
    /// Use a semaphore of N permits: up to N holders at once.
    #[arg(long, value_name = "N", help_heading = "Lock kind")]
    pub permits: Option<u32>,
}

/// The timing a mutex's clients use, which their heartbeats are judged
/// by when the mutex stores none (it stores its clients' while it is
/// held or waited for).
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct JudgeArgs {
    /// Seconds between the clients' heartbeats (h).
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub heartbeat: f64,
    /// Seconds after which a heartbeat that stood still is stale (L, at
    /// least 3h).
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub stale: f64,
}

/// How long to wait in line for the mutex. Its own flag, since the
/// global `--timeout` bounds each transaction, and waiting in line is
/// not a transaction.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct WaitArgs {
    /// Give up waiting for the mutex after this many seconds [default:
    /// wait as long as it takes].
    #[arg(long, value_name = "SECONDS")]
    pub wait: Option<f64>,
}

/// The timing and mode of a client. The mutex stores those of the client
/// that takes it; while it is held or waited for, a client with others is
/// refused (exit 2), and reap judges by the stored ones.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct TimingArgs {
    /// Write only what the Go client janderland/fdb-mutex writes, so Go
    /// clients can share the mutex (no fencing token; waiters wake at
    /// every heartbeat).
    #[arg(long)]
    pub compat: bool,
    /// Seconds between heartbeats (h).
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub heartbeat: f64,
    /// Seconds a heartbeat may stand still before the owner is taken over
    /// (L, at least 3h).
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub stale: f64,
}
