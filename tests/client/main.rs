//! FoundationDB's own clients run against fql's `libfdb_c` (the `fdb-c`
//! crate): the `foundationdb` crate, through fql's FoundationDB backend in
//! the default build, and the official Python bindings.
//!
//! The trials run what the outer `cargo test` built (the library, the
//! test executables, `fql`; see [`Artifacts`]), point the clients at a
//! database file through a cluster file that `fql cluster-file` wrote,
//! and fail with the inner run's output. fql's builds are the default ones, which load the client library at run
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

/// What the trials run: fql's `libfdb_c`, the test executables that reach
/// it, and `fql`. They are the outer `cargo test`'s own builds, found by
/// asking cargo for them in its target directory (it holds no lock while
/// tests run), so the suite builds nothing twice: when the outer run
/// built them this is a no-op, and when only this suite was built it
/// builds the rest, never running a stale copy.
struct Artifacts {
    /// The directory holding `libfdb_c.so`.
    lib_dir: PathBuf,
    /// Test executables by test target name.
    tests: Vec<(String, PathBuf)>,
}

/// The target directory and profile this suite was built in: its
/// executable is `TARGET/PROFILE/deps/client-HASH`.
fn built_in() -> (PathBuf, bool) {
    let exe = std::env::current_exe().expect("the running test's path");
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("TARGET/PROFILE/deps");
    let release = profile.file_name().is_some_and(|p| p == "release");
    let target = profile.parent().expect("TARGET/PROFILE").to_path_buf();
    (target, release)
}

/// Asks cargo once, for every trial.
fn artifacts() -> Result<&'static Artifacts, Failed> {
    static BUILT: OnceLock<Result<Artifacts, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| build().map_err(|e| e.message().unwrap_or("failed").to_string()))
        .as_ref()
        .map_err(|e| Failed::from(e.as_str()))
}

/// `cargo test --no-run` over fql and fdb-c, as the outer run builds
/// them (the same packages, so the same features), reading what it
/// names.
fn build() -> Result<Artifacts, Failed> {
    let (target, release) = built_in();
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(root())
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .args(["test", "--no-run", "-q", "--message-format", "json"])
        .args(["-p", "fql", "-p", "fql-fdb-c"]);
    if release {
        cmd.arg("--release");
    }
    let out = ran("cargo test --no-run", cmd.output())?;
    let messages: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let cdylib = messages
        .iter()
        .filter(|m| of_kind(m, "cdylib"))
        .flat_map(|m| m["filenames"].as_array().into_iter().flatten())
        .filter_map(|f| f.as_str().map(PathBuf::from))
        .find(|f| f.file_name().is_some_and(|n| n == "libfdb_c.so"))
        .ok_or("cargo named no libfdb_c.so")?;
    let tests = messages
        .iter()
        .filter(|m| of_kind(m, "test"))
        .filter_map(|m| {
            let name = m["target"]["name"].as_str()?;
            Some((name.to_string(), PathBuf::from(m["executable"].as_str()?)))
        })
        .collect();
    let lib_dir = cdylib.parent().ok_or("libfdb_c.so in no directory")?;
    Ok(Artifacts {
        lib_dir: lib_dir.to_path_buf(),
        tests,
    })
}

/// Whether cargo's artifact message `m` is of a target of `kind`.
fn of_kind(m: &serde_json::Value, kind: &str) -> bool {
    m["target"]["kind"]
        .as_array()
        .is_some_and(|k| k.iter().any(|k| k == kind))
}

/// The directory holding fql's `libfdb_c.so`.
fn library() -> Result<PathBuf, Failed> {
    Ok(artifacts()?.lib_dir.clone())
}

/// The `fql` of the default build, as users install it (this suite's
/// cargo built it, with the same features a release build has).
fn fql() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fql"))
}

/// The executable of test `test`, run directly: `cargo test` would run
/// every test binary it names.
fn test_exe(test: &str) -> Result<PathBuf, Failed> {
    artifacts()?
        .tests
        .iter()
        .find(|(name, _)| name == test)
        .map(|(_, exe)| exe.clone())
        .ok_or_else(|| format!("cargo named no executable for test {test}").into())
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

/// Test `test`'s executable with `args`, loading the library.
fn fdb_test(test: &str, args: &[&str]) -> Result<Command, Failed> {
    let mut cmd = Command::new(test_exe(test)?);
    cmd.args(args)
        .current_dir(root())
        .env("FDB_CLIENT_LIB_PATH", library()?)
        .env_remove("FDB_CLUSTER_FILE");
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
    let what = format!("conformance {filter}");
    let out = ran(&what, cmd.output())?;
    let report = String::from_utf8_lossy(&out.stdout);
    if !report.contains(" passed;") || report.contains(" 0 passed;") {
        return Err(format!("no {filter} case ran:\n{report}").into());
    }
    Ok(())
}

/// Test `test`'s cases matching `args` (a filter: every case of a module
/// when it is the module's path and `::`), run by the default `fql`: those on a fresh database file reach it through the
/// `foundationdb` crate and the library (tests/support/reach.rs); the rest
/// run as they always do.
fn via_client(test: &str, args: &[&str]) -> Result<(), Failed> {
    let mut cmd = fdb_test(test, args)?;
    let out = ran(
        &format!("{test} {args:?} through the library"),
        cmd.env("FQL_TEST_VIA_CLIENT", "1").output(),
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
    via_client("integration", &["cli::"])
}

/// The mutex's tests with real processes: no two holders, FIFO grants,
/// exit codes.
fn mutex_processes() -> Result<(), Failed> {
    via_client("integration", &["mutex::processes::"])
}

/// `fql --version` and `fql -C ... status` of the default build
/// name the library `FDB_CLIENT_LIB_PATH` gave them, as a file or as its
/// directory, and the version it reports.
fn names_the_library() -> Result<(), Failed> {
    let dir = library()?;
    let fql = fql();
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
