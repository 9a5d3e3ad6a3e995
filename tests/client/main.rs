//! FoundationDB's own clients run against fql's `libfdb_c` (the `fdb-c`
//! crate): the `foundationdb` crate, through fql's `fdb` backend, and the
//! official Python bindings.
//!
//! Each trial builds what it needs with cargo into `target/client`, a
//! target directory of its own (the outer `cargo test` holds `target`),
//! points the clients at a database file through a cluster file that
//! `fql cluster-file` wrote, and fails with the inner run's output. A
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
        // The linker finds the library here too: foundationdb-sys's build
        // script passes FDB_CLIENT_LIB_PATH on only when it runs, and a
        // build made without it is not run again when it is set.
        .env("LIBRARY_PATH", lib_dir())
        .env_remove("FDB_CLUSTER_FILE")
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

/// `cargo test --features fdb --test TEST -- ARGS`, linked to the library
/// and loading it.
fn fdb_test(test: &str, args: &[&str]) -> Result<Command, Failed> {
    let lib = library()?;
    let mut cmd = cargo();
    cmd.args([
        "test",
        "-q",
        "-p",
        "fql",
        "--features",
        "fdb",
        "--test",
        test,
    ])
    .arg("--")
    .args(args)
    .env("FDB_CLIENT_LIB_PATH", &lib)
    .env("LD_LIBRARY_PATH", &lib);
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
    let what = format!("cargo test --features fdb --test conformance -- {filter}");
    let out = ran(&what, cmd.output())?;
    let report = String::from_utf8_lossy(&out.stdout);
    if !report.contains(" passed;") || report.contains(" 0 passed;") {
        return Err(format!("no {filter} case ran:\n{report}").into());
    }
    Ok(())
}

/// The release `fql` with the `fdb` feature, as users install it, built
/// once for every trial.
fn release_fql() -> Result<PathBuf, Failed> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let lib = library().map_err(|e| e.message().unwrap_or("failed").to_string())?;
            ran(
                "cargo build --release --features fdb --bin fql",
                cargo()
                    .args(["build", "-q", "--release", "-p", "fql", "--features", "fdb"])
                    .args(["--bin", "fql"])
                    .env("FDB_CLIENT_LIB_PATH", &lib)
                    .output(),
            )
            .map(|_| target().join("release").join("fql"))
            .map_err(|e| e.message().unwrap_or("failed").to_string())
        })
        .clone()
        .map_err(Failed::from)
}

/// The executable of test `test` built with the `fdb` feature: run
/// directly, since `cargo test` would point `CARGO_BIN_EXE_fql` at its own
/// debug build.
fn fdb_test_exe(test: &str) -> Result<PathBuf, Failed> {
    let lib = library()?;
    let out = ran(
        &format!("cargo test --no-run --features fdb --test {test}"),
        cargo()
            .args(["test", "--no-run", "-q", "-p", "fql", "--features", "fdb"])
            .args(["--test", test, "--message-format", "json"])
            .env("FDB_CLIENT_LIB_PATH", &lib)
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
/// when it is the module's path and `::`), run by the release `fql` built with
/// the `fdb` feature: those on a fresh database file reach it through the
/// `foundationdb` crate and the library (tests/support/reach.rs); the rest
/// run as they always do.
fn with_release_fql(test: &str, args: &[&str]) -> Result<(), Failed> {
    let fql = release_fql()?;
    let exe = fdb_test_exe(test)?;
    let out = ran(
        &format!("{test} {args:?} with the release fql"),
        Command::new(exe)
            .args(args)
            .current_dir(root())
            .env("CARGO_BIN_EXE_fql", fql)
            .env("LD_LIBRARY_PATH", lib_dir())
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

/// Why the `fdb` feature cannot be built here, if it cannot: bindgen, in
/// the `foundationdb` crate's build, needs a libclang.
fn libclang_missing() -> Option<String> {
    if std::env::var_os("LIBCLANG_PATH").is_some() {
        return None;
    }
    let listed = Command::new("ldconfig").arg("-p").output();
    let found = listed.is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("libclang"));
    (!found).then(|| "no libclang for bindgen (Debian: apt-get install libclang1-14)".to_string())
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
    let no_clang = libclang_missing();
    if let Some(why) = &no_clang {
        eprintln!("fdb_backend: skipped: {why}");
    }
    let no_python = python_missing();
    if let Some(why) = &no_python {
        eprintln!("python: skipped: {why}");
    }
    let backend = [
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
    let mut trials: Vec<Trial> = backend
        .into_iter()
        .map(|t| t.with_ignored_flag(no_clang.is_some()))
        .collect();
    trials.push(Trial::test("python::interop", python).with_ignored_flag(no_python.is_some()));
    trials.extend(
        python_faults()
            .into_iter()
            .map(|t| t.with_ignored_flag(no_python.is_some())),
    );
    libtest_mimic::run(&args, trials).exit_code()
}
