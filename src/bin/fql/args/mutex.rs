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
    /// one snapshot.
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
    },
    /// Hand on the mutex when its owner stops beating, and drop dead
    /// waiters; runs until interrupted.
    Reap {
        /// The mutex directory: a path such as `/locks/nightly`, or a tuple
        /// of names such as `("locks","nightly")`, as `-p dir=` takes.
        dir: String,
        #[command(flatten)]
        timing: TimingArgs,
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
