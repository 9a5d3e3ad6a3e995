//! `fql mutex`'s subcommands and their flags.

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum MutexCommand {
    /// Take the mutex, waiting in line for it; prints the fencing token.
    ///
    /// Waits as long as it takes, unless --wait says otherwise. Exits 0
    /// holding the mutex, 1 when --wait passed first (the client then
    /// leaves the queue). A token that cannot be printed is handed back:
    /// exit 1 for a closed pipe, 4 for a failed write. The holder must
    /// beat (`fql mutex heartbeat`) at least every --stale seconds or a
    /// reaper hands the mutex on.
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
    /// is lost, the command's process group gets SIGTERM, then SIGKILL
    /// after --grace seconds. SIGINT, SIGTERM and SIGHUP are passed on to
    /// it. Exits with the command's status, or 128+N if signal N ended it.
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
}

/// A client of a mutex.
#[derive(Debug, clap::Args)]
pub struct Client {
    /// The mutex directory: a path such as `/locks/nightly`, or a tuple
    /// of names such as `("locks","nightly")`, as `-p dir=` takes.
    pub dir: String,
    /// This client's name; unique among the clients of the mutex.
    #[arg(long)]
    pub name: String,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// `text` (the default) or `json`/`jsonl`: one JSON object.
    #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
    pub format: Option<super::Format>,
}

/// The timing a mutex's clients use, which their heartbeats are judged
/// by.
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
    /// Seconds a heartbeat may stand still before the owner is reaped (L,
    /// at least 3h).
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub stale: f64,
}
