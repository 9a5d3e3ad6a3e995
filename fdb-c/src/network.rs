//! The network thread: the thread a client hands to `fdb_run_network`.
//!
//! FDB's client runs its event loop there and calls the callbacks of
//! futures that become ready later on that thread. The embedded store needs
//! no event loop (a read is a call into SQLite), so most futures are ready
//! when they are made; what remains for this thread is what happens later:
//! the callbacks of futures resolved after their callback was set (a watch
//! that fires, a versionstamp known at commit), `on_error`'s back-off
//! timers, transaction timeouts, and polling the store's watches. Those
//! arrive as tasks in one queue, or as timers, and run here in order.
//!
//! As in FDB, the network is set up once, runs once, and cannot be
//! restarted after `fdb_stop_network`; nothing queued runs before
//! `fdb_run_network` is called or after it returns.

use std::cell::Cell;
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};
use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::errors::{Code, NETWORK_ALREADY_SETUP, NETWORK_CANNOT_BE_RESTARTED, NETWORK_NOT_SETUP};
use crate::guard::lock;
use crate::option_codes::net;
use crate::types::FDBNetworkOption;

/// Work for the network thread.
pub type Task = Box<dyn FnOnce() + Send>;

/// A hook `fdb_add_network_thread_completion_hook` registered.
struct Hook {
    f: unsafe extern "C" fn(*mut c_void),
    param: *mut c_void,
}

// SAFETY: the hook and its parameter are the caller's, who registered
// them to be called on the network thread.
unsafe impl Send for Hook {}

struct Timer {
    at: Instant,
    seq: u64,
    task: Task,
}

impl PartialEq for Timer {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Timer {}

impl PartialOrd for Timer {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timer {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

#[derive(Default)]
struct State {
    setup: bool,
    started: bool,
    stopped: bool,
    tasks: VecDeque<Task>,
    timers: BinaryHeap<Reverse<Timer>>,
    seq: u64,
    hooks: Vec<Hook>,
    client: Client,
}

/// What the multi-version client options chose, which FDB's client
/// decides before its network starts: the one thing of them a
/// transaction sees is whether `use_grv_cache` may be set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Client {
    /// Nothing chosen: the multi-version client in place, as FDB's is
    /// once the client is given an external library (which FDB's own
    /// test runs give it); this library is its own, and the state the
    /// read version cache lives in is there.
    #[default]
    Default,
    /// `disable_multi_version_client_api` or `external_client`: the
    /// bypass, on purpose.
    Bypassed,
    /// `disable_client_bypass`: the multi-version client stays, with the
    /// database state the read version cache lives in.
    BypassDisabled,
}

struct Network {
    state: Mutex<State>,
    wake: Condvar,
}

static NETWORK: Network = Network {
    state: Mutex::new(State {
        setup: false,
        started: false,
        stopped: false,
        tasks: VecDeque::new(),
        timers: BinaryHeap::new(),
        seq: 0,
        hooks: Vec::new(),
        client: Client::Default,
    }),
    wake: Condvar::new(),
};

thread_local! {
    static ON_NETWORK_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is running `fdb_run_network`.
pub fn on_network_thread() -> bool {
    ON_NETWORK_THREAD.with(Cell::get)
}

/// Whether `fdb_setup_network` has been called.
pub fn is_setup() -> bool {
    lock(&NETWORK.state).setup
}

/// Whether the multi-version client is in place, which FDB's
/// `use_grv_cache` needs: unless `disable_multi_version_client_api` or
/// `external_client` bypassed it.
pub fn multi_version_client() -> bool {
    lock(&NETWORK.state).client != Client::Bypassed
}

/// The multi-version client's options, as FDB's client takes them: they
/// choose once, before the network is set up, and the two choices
/// exclude each other: `invalid_option` after the set-up (where FDB's
/// `disable_client_bypass` fails an assertion) or against the other.
fn choose_client(option: FDBNetworkOption) -> Result<(), Code> {
    let wanted = match option {
        net::DISABLE_CLIENT_BYPASS => Client::BypassDisabled,
        net::DISABLE_MULTI_VERSION_CLIENT_API | net::EXTERNAL_CLIENT => Client::Bypassed,
        _ => return Ok(()),
    };
    let mut state = lock(&NETWORK.state);
    if state.setup {
        return Err(crate::errors::INVALID_OPTION);
    }
    match (state.client, wanted) {
        (Client::Bypassed, Client::BypassDisabled) | (Client::BypassDisabled, Client::Bypassed) => {
            Err(crate::errors::INVALID_OPTION)
        }
        _ => {
            state.client = wanted;
            Ok(())
        }
    }
}

/// `fdb_setup_network`: allowed once.
pub fn setup() -> Result<(), Code> {
    let mut state = lock(&NETWORK.state);
    if state.setup {
        return Err(NETWORK_ALREADY_SETUP);
    }
    state.setup = true;
    Ok(())
}

/// `fdb_stop_network`: the loop ends once the task it runs returns.
pub fn stop() -> Result<(), Code> {
    let mut state = lock(&NETWORK.state);
    if !state.setup {
        return Err(NETWORK_NOT_SETUP);
    }
    state.stopped = true;
    NETWORK.wake.notify_all();
    Ok(())
}

/// `fdb_add_network_thread_completion_hook`.
pub fn add_hook(f: unsafe extern "C" fn(*mut c_void), param: *mut c_void) -> Result<(), Code> {
    let mut state = lock(&NETWORK.state);
    if !state.setup {
        return Err(NETWORK_NOT_SETUP);
    }
    state.hooks.push(Hook { f, param });
    Ok(())
}

/// Queues `task` for the network thread.
pub fn spawn(task: Task) {
    let mut state = lock(&NETWORK.state);
    if state.stopped {
        // Dropped once the lock is released: a task may own what queues
        // more work when dropped.
        drop(state);
        drop(task);
        return;
    }
    state.tasks.push_back(task);
    NETWORK.wake.notify_all();
}

/// Queues `task` to run on the network thread once `delay` has passed.
pub fn after(delay: Duration, task: Task) {
    at(Instant::now() + delay, task);
}

/// Queues `task` to run on the network thread at `when`.
pub fn at(when: Instant, task: Task) {
    let mut state = lock(&NETWORK.state);
    if state.stopped {
        drop(state);
        drop(task);
        return;
    }
    state.seq += 1;
    let seq = state.seq;
    state.timers.push(Reverse(Timer {
        at: when,
        seq,
        task,
    }));
    NETWORK.wake.notify_all();
}

/// `fdb_run_network`: runs tasks and timers until `fdb_stop_network`, then
/// the completion hooks.
pub fn run() -> Result<(), Code> {
    {
        let mut state = lock(&NETWORK.state);
        if !state.setup {
            return Err(NETWORK_NOT_SETUP);
        }
        if state.started {
            return Err(NETWORK_CANNOT_BE_RESTARTED);
        }
        state.started = true;
    }
    ON_NETWORK_THREAD.with(|c| c.set(true));
    while let Some(task) = next_task() {
        // A task that panics is a bug of this library; the loop goes on
        // so that other futures still complete.
        let _ = catch_unwind(AssertUnwindSafe(task));
    }
    ON_NETWORK_THREAD.with(|c| c.set(false));
    let hooks = std::mem::take(&mut lock(&NETWORK.state).hooks);
    for hook in hooks {
        // SAFETY: the caller registered the hook to be called so.
        let _ = catch_unwind(AssertUnwindSafe(|| unsafe { (hook.f)(hook.param) }));
    }
    Ok(())
}

/// The next task to run, waiting for one; `None` once stopped.
fn next_task() -> Option<Task> {
    let mut state = lock(&NETWORK.state);
    loop {
        if state.stopped {
            // Dropped once the lock is released, as in `spawn`.
            let tasks = std::mem::take(&mut state.tasks);
            let timers = std::mem::take(&mut state.timers);
            drop(state);
            drop((tasks, timers));
            return None;
        }
        let now = Instant::now();
        if state.timers.peek().is_some_and(|t| t.0.at <= now) {
            let Reverse(timer) = state.timers.pop().expect("peeked");
            return Some(timer.task);
        }
        if let Some(task) = state.tasks.pop_front() {
            return Some(task);
        }
        state = match state.timers.peek().map(|t| t.0.at) {
            Some(at) => {
                let wait = at.saturating_duration_since(now);
                NETWORK
                    .wake
                    .wait_timeout(state, wait)
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .0
            }
            None => NETWORK
                .wake
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        };
    }
}

/// The network options of fdb_c_options.g.h (`ENABLE_RUN_LOOP_PROFILING`
/// stands for its older name, `ENABLE_SLOW_TASK_PROFILING`, of the same
/// code). None changes how the
/// embedded store behaves (they configure tracing, TLS, knobs and the
/// multi-version client), so a known option is accepted and ignored, but
/// for the multi-version client's choice, which `use_grv_cache` depends
/// on (see [`choose_client`]); an unknown code is `invalid_option`.
const NETWORK_OPTIONS: &[FDBNetworkOption] = &[
    net::LOCAL_ADDRESS,
    net::CLUSTER_FILE,
    net::TRACE_ENABLE,
    net::TRACE_ROLL_SIZE,
    net::TRACE_MAX_LOGS_SIZE,
    net::TRACE_LOG_GROUP,
    net::TRACE_FORMAT,
    net::TRACE_CLOCK_SOURCE,
    net::TRACE_FILE_IDENTIFIER,
    net::TRACE_SHARE_AMONG_CLIENT_THREADS,
    net::TRACE_INITIALIZE_ON_SETUP,
    net::TRACE_PARTIAL_FILE_SUFFIX,
    net::KNOB,
    net::TLS_PLUGIN,
    net::TLS_CERT_BYTES,
    net::TLS_CERT_PATH,
    net::TLS_KEY_BYTES,
    net::TLS_KEY_PATH,
    net::TLS_VERIFY_PEERS,
    net::BUGGIFY_ENABLE,
    net::BUGGIFY_DISABLE,
    net::BUGGIFY_SECTION_ACTIVATED_PROBABILITY,
    net::BUGGIFY_SECTION_FIRED_PROBABILITY,
    net::TLS_CA_BYTES,
    net::TLS_CA_PATH,
    net::TLS_PASSWORD,
    net::DISABLE_MULTI_VERSION_CLIENT_API,
    net::CALLBACKS_ON_EXTERNAL_THREADS,
    net::EXTERNAL_CLIENT_LIBRARY,
    net::EXTERNAL_CLIENT_DIRECTORY,
    net::DISABLE_LOCAL_CLIENT,
    net::CLIENT_THREADS_PER_VERSION,
    net::FUTURE_VERSION_CLIENT_LIBRARY,
    net::RETAIN_CLIENT_LIBRARY_COPIES,
    net::IGNORE_EXTERNAL_CLIENT_FAILURES,
    net::FAIL_INCOMPATIBLE_CLIENT,
    net::DISABLE_CLIENT_STATISTICS_LOGGING,
    net::ENABLE_RUN_LOOP_PROFILING,
    net::DISABLE_CLIENT_BYPASS,
    net::CLIENT_BUGGIFY_ENABLE,
    net::CLIENT_BUGGIFY_DISABLE,
    net::CLIENT_BUGGIFY_SECTION_ACTIVATED_PROBABILITY,
    net::CLIENT_BUGGIFY_SECTION_FIRED_PROBABILITY,
    net::DISTRIBUTED_CLIENT_TRACER,
    net::CLIENT_TMP_DIR,
    net::SUPPORTED_CLIENT_VERSIONS,
    net::EXTERNAL_CLIENT,
    net::EXTERNAL_CLIENT_TRANSPORT_ID,
];

/// The network options whose parameter is an 8-byte integer.
const INT_NETWORK_OPTIONS: &[FDBNetworkOption] = &[
    net::TRACE_ROLL_SIZE,
    net::TRACE_MAX_LOGS_SIZE,
    net::BUGGIFY_SECTION_ACTIVATED_PROBABILITY,
    net::BUGGIFY_SECTION_FIRED_PROBABILITY,
    net::CLIENT_THREADS_PER_VERSION,
    net::CLIENT_BUGGIFY_SECTION_ACTIVATED_PROBABILITY,
    net::CLIENT_BUGGIFY_SECTION_FIRED_PROBABILITY,
    net::EXTERNAL_CLIENT_TRANSPORT_ID,
];

fn set_option(option: FDBNetworkOption, value: Option<&[u8]>) -> Result<(), Code> {
    crate::api::selected()?;
    if !NETWORK_OPTIONS.contains(&option) {
        return Err(crate::errors::INVALID_OPTION);
    }
    if INT_NETWORK_OPTIONS.contains(&option) && value.is_none_or(|v| v.len() != 8) {
        return Err(crate::errors::INVALID_OPTION_VALUE);
    }
    choose_client(option)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_network_set_option(
    option: FDBNetworkOption,
    value: *const u8,
    value_length: std::ffi::c_int,
) -> crate::types::FdbError {
    crate::guard::code(|| {
        // SAFETY: the caller's option value.
        let value = unsafe { crate::guard::option_value(value, value_length) }?;
        set_option(option, value)
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fdb_setup_network() -> crate::types::FdbError {
    crate::guard::code(|| {
        crate::api::selected()?;
        setup()
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fdb_run_network() -> crate::types::FdbError {
    crate::guard::code(run)
}

#[unsafe(no_mangle)]
pub extern "C" fn fdb_stop_network() -> crate::types::FdbError {
    crate::guard::code(stop)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fdb_add_network_thread_completion_hook(
    hook: Option<unsafe extern "C" fn(*mut c_void)>,
    hook_parameter: *mut c_void,
) -> crate::types::FdbError {
    crate::guard::code(|| {
        let hook = hook.ok_or(crate::errors::CLIENT_INVALID_OPERATION)?;
        add_hook(hook, hook_parameter)
    })
}
