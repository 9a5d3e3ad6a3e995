//! FoundationDB's own clients run against fql's `libfdb_c` (the `fdb-c`
//! crate): the `foundationdb` crate, through fql's FoundationDB backend in
//! the default build, and the official Python bindings.
//!
//! Each trial builds what it needs with cargo into `target/client`, a
//! target directory of its own (the outer `cargo test` holds `target`),
//! points the clients at a database file through a cluster file that
//! `fql cluster-file` wrote, and fails with the inner run's output. fql's
//! builds are the default ones, which load the client library at run
//! time: the trials hand them fql's `libfdb_c` through
//! `FDB_CLIENT_LIB_PATH` alone, as a cluster user would hand FDB's. A
//! trial whose tool is missing (python3 or its `foundationdb` package)
//! is listed as ignored with the reason printed first, so a machine
//! without it never passes it silently; CI installs them.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};
use std::sync::OnceLock;

use libtest_mimic::{Arguments, Failed, Trial};

mod faults;
#[path = "../support/mutex_show.rs"]
mod mutex_show;

/// The repository's root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where the inner builds go.
fn target() -> PathBuf {
    root().join("target").join("client")
}

/// The directory holding the built `libfdb_c.so`.
fn lib_dir() -> PathBuf {
    target().join("debug")
}

fn cargo() -> Command {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(root())
        .env("CARGO_TARGET_DIR", target())
        .env_remove("FDB_CLUSTER_FILE")
        .env_remove("FDB_CLIENT_LIB_PATH")
        .env_remove("RUSTFLAGS");
    cmd
}

fn ran(what: &str, out: std::io::Result<Output>) -> Result<Output, Failed> {
    let out = out.map_err(|e| format!("{what} did not start: {e}"))?;
    if out.status.success() {
        return Ok(out);
    }
    Err(format!(
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
    .into())
}

/// Builds the library once for every trial.
fn library() -> Result<PathBuf, Failed> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            ran(
                "cargo build -p fql-fdb-c",
                cargo().args(["build", "-q", "-p", "fql-fdb-c"]).output(),
            )
            .map(|_| lib_dir())
            .map_err(|e| e.message().unwrap_or("failed").to_string())
        })
        .clone()
        .map_err(Failed::from)
}

/// A database file and the cluster file that names it.
fn cluster_file(dir: &Path) -> Result<PathBuf, Failed> {
    let db = dir.join("client.db");
    let out = ran(
        "fql cluster-file",
        Command::new(env!("CARGO_BIN_EXE_fql"))
            .arg("--db")
            .arg(&db)
            .arg("cluster-file")
            .output(),
    )?;
    let path = dir.join("fdb.cluster");
    std::fs::write(&path, out.stdout).map_err(|e| e.to_string())?;
    Ok(path)
}

/// `cargo test --test TEST -- ARGS`, loading the library.
fn fdb_test(test: &str, args: &[&str]) -> Result<Command, Failed> {
    let lib = library()?;
    let mut cmd = cargo();
    cmd.args(["test", "-q", "-p", "fql", "--test", test])
        .arg("--")
        .args(args)
        .env("FDB_CLIENT_LIB_PATH", &lib);
    Ok(cmd)
}

/// fql's conformance suite through the `foundationdb` crate and the
/// library: its `fdb::` cases, each in a directory of a fresh database;
/// then, on another, its `fdb_whole::` cases, the adapter's own calls on
/// the whole keyspace, which they clear (so never beside the others).
fn conformance() -> Result<(), Failed> {
    for (filter, whole) in [("fdb::", false), ("fdb_whole::", true)] {
        conformance_cases(filter, whole)?;
    }
    Ok(())
}

fn conformance_cases(filter: &str, whole: bool) -> Result<(), Failed> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let cluster = cluster_file(dir.path())?;
    let mut cmd = fdb_test("conformance", &[filter, "--include-ignored"])?;
    cmd.env("FDB_CLUSTER_FILE", &cluster);
    if whole {
        cmd.env("FQL_CONFORMANCE_WHOLE_KEYSPACE", "1");
    }
    let what = format!("cargo test --test conformance -- {filter}");
    let out = ran(&what, cmd.output())?;
    let report = String::from_utf8_lossy(&out.stdout);
    if !report.contains(" passed;") || report.contains(" 0 passed;") {
        return Err(format!("no {filter} case ran:\n{report}").into());
    }
    Ok(())
}

/// The release `fql` of the default build, as users install it, built
/// once for every trial.
fn release_fql() -> Result<PathBuf, Failed> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            ran(
                "cargo build --release --bin fql",
                cargo()
                    .args(["build", "-q", "--release", "-p", "fql", "--bin", "fql"])
                    .output(),
            )
            .map(|_| target().join("release").join("fql"))
            .map_err(|e| e.message().unwrap_or("failed").to_string())
        })
        .clone()
        .map_err(Failed::from)
}

/// The executable of test `test`: run directly, since `cargo test` would
/// point `CARGO_BIN_EXE_fql` at its own debug build.
fn test_exe(test: &str) -> Result<PathBuf, Failed> {
    let out = ran(
        &format!("cargo test --no-run --test {test}"),
        cargo()
            .args(["test", "--no-run", "-q", "-p", "fql"])
            .args(["--test", test, "--message-format", "json"])
            .output(),
    )?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|msg| msg["target"]["name"] == test)
        .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| format!("cargo named no executable for test {test}").into())
}

/// Test `test`'s cases matching `args` (a filter: every case of a module
/// when it is the module's path and `::`), run by the default release
/// `fql`: those on a fresh database file reach it through the
/// `foundationdb` crate and the library (tests/support/reach.rs); the rest
/// run as they always do.
fn with_release_fql(test: &str, args: &[&str]) -> Result<(), Failed> {
    let lib = library()?;
    let fql = release_fql()?;
    let exe = test_exe(test)?;
    let out = ran(
        &format!("{test} {args:?} with the release fql"),
        Command::new(exe)
            .args(args)
            .current_dir(root())
            .env("CARGO_BIN_EXE_fql", fql)
            .env("FDB_CLIENT_LIB_PATH", lib)
            .env("FQL_TEST_VIA_CLIENT", "1")
            .env_remove("FDB_CLUSTER_FILE")
            .output(),
    )?;
    // A filter that matches no case would pass.
    let report = String::from_utf8_lossy(&out.stdout);
    if !report.contains(" passed;") || report.contains(" 0 passed;") {
        return Err(format!("no case of {test} {args:?} ran:\n{report}").into());
    }
    Ok(())
}

/// The `fql` binary's tests (tests/cli/).
fn cli() -> Result<(), Failed> {
    with_release_fql("integration", &["cli::"])
}

/// The mutex's tests with real processes: no two holders, FIFO grants,
/// exit codes.
fn mutex_processes() -> Result<(), Failed> {
    with_release_fql("integration", &["mutex::processes::"])
}

/// `fql --version` and `fql -C ... status` of the default release build
/// name the library `FDB_CLIENT_LIB_PATH` gave them, as a file or as its
/// directory, and the version it reports.
fn names_the_library() -> Result<(), Failed> {
    let dir = library()?;
    let fql = release_fql()?;
    let file = std::path::absolute(dir.join("libfdb_c.so")).map_err(|e| e.to_string())?;
    let version = "7.3.27,fql-embedded,fdb00b073000000";
    let described = format!("{}, version {version}", file.display());
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let cluster = cluster_file(tmp.path())?;
    for given in [&dir, &file] {
        let run = |args: &[&std::ffi::OsStr]| {
            ran(
                &format!("fql {args:?}"),
                Command::new(&fql)
                    .args(args)
                    .env("FDB_CLIENT_LIB_PATH", given)
                    .env_remove("FDB_CLUSTER_FILE")
                    .output(),
            )
            .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let shown = run(&["--version".as_ref()])?;
        let want = format!(
            "fql {}\nFoundationDB client: {described}\n",
            env!("CARGO_PKG_VERSION")
        );
        if shown != want {
            return Err(format!("--version with {}: {shown:?}", given.display()).into());
        }
        let status = run(&["-C".as_ref(), cluster.as_os_str(), "status".as_ref()])?;
        if !status.ends_with(&format!("client library: {described}\n")) {
            return Err(format!("status with {}: {status:?}", given.display()).into());
        }
    }
    Ok(())
}

/// Why the Python bindings cannot run here, if they cannot.
fn python_missing() -> Option<String> {
    let probe = Command::new("python3")
        .args(["-c", "import fdb, fdb.tuple"])
        .output();
    match probe {
        Err(e) => Some(format!("python3 did not start: {e}")),
        Ok(out) if !out.status.success() => Some(format!(
            "python3 has no `foundationdb` package (pip install 'foundationdb>=7.3,<7.4'): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Ok(_) => None,
    }
}

/// tests/python/interop.py: the bindings' tuple and directory layers and
/// fql, each reading what the other wrote, and creating directories at
/// once.
fn python() -> Result<(), Failed> {
    interop(None, &[])
}

/// interop.py's `tests` (all when empty), with the library injecting
/// `faults`.
fn interop(faults: Option<&str>, tests: &[&str]) -> Result<(), Failed> {
    let lib = library()?;
    let mut cmd = Command::new("python3");
    cmd.current_dir(root())
        .args(["tests/python/interop.py", "-v"])
        .args(tests)
        .env("FQL_BIN", env!("CARGO_BIN_EXE_fql"))
        .env("LD_LIBRARY_PATH", &lib)
        .env_remove("FDB_CLUSTER_FILE")
        .env_remove("FQL_FAULTS");
    if let Some(plan) = faults {
        cmd.env("FQL_FAULTS", plan);
    }
    ran("python3 tests/python/interop.py", cmd.output()).map(|_| ())
}

/// The bindings' retry loop under each plan, one process a plan (the
/// library reads `FQL_FAULTS` once).
fn python_faults() -> Vec<Trial> {
    [
        ("not_committed", "1020:0.2,1007:0.1,1037:0.1;seed=3"),
        ("unknown_idempotent", "1021:0.5;seed=4"),
        ("unknown_applied", "1021-applied:1"),
        ("unknown_not_applied", "1021-unapplied:1"),
    ]
    .into_iter()
    .map(|(name, plan)| {
        Trial::test(format!("python::faults::{name}"), move || {
            interop(Some(plan), &["Faults"])
        })
    })
    .collect()
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let no_python = python_missing();
    if let Some(why) = &no_python {
        eprintln!("python: skipped: {why}");
    }
    let mut trials = vec![
        Trial::test("fdb_backend::names_the_library", names_the_library),
        Trial::test("fdb_backend::conformance", conformance),
        Trial::test("fdb_backend::cli", cli),
        Trial::test("fdb_backend::mutex_processes", mutex_processes),
        Trial::test(
            "fdb_backend::faults::retried_as_on_error",
            faults::retried_as_on_error,
        ),
        Trial::test(
            "fdb_backend::faults::unknown_results_land_once",
            faults::unknown_results_land_once,
        ),
        Trial::test(
            "fdb_backend::faults::mutex_answers_what_happened",
            faults::mutex_answers_what_happened,
        ),
    ];
    trials.push(Trial::test("python::interop", python).with_ignored_flag(no_python.is_some()));
    trials.extend(
        python_faults()
            .into_iter()
            .map(|t| t.with_ignored_flag(no_python.is_some())),
    );
    libtest_mimic::run(&args, trials).exit_code()
}
