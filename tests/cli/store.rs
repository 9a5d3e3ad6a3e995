//! Opening the embedded database file: private files, plain paths, files
//! this user may not write or read, damaged files, and no home directory.
//!
//! Tests of permissions run `fql` as a user the permission bits apply to:
//! the test's own user, or, when the tests run as root (whom the bits do
//! not stop), uid and gid 65534.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::cargo::cargo_bin;

use super::text;
use crate::support::eventually::eventually_some;

fn fql(db: &Path) -> Command {
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.env_remove("FDB_CLUSTER_FILE").arg("--db").arg(db);
    cmd
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("fql runs")
}

/// Checks `out` exited 2, as every refusal to open a database does, and returns its standard error.
fn refused(out: Output) -> String {
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    text(&out.stderr)
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The modes of a database file and of the `-wal` and `-shm` files SQLite
/// keeps beside it, as whoever shares a database sets them.
fn chmod_database(db: &Path, mode: u32) {
    chmod(db, mode);
    for suffix in ["-wal", "-shm"] {
        let mut side = db.as_os_str().to_owned();
        side.push(suffix);
        if Path::new(&side).exists() {
            chmod(Path::new(&side), mode);
        }
    }
}

/// A database file in a fresh directory, holding `/a(1)=2`.
fn database() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let out = run(fql(&db).args(["-w", "-q", "/a(1)=2"]));
    assert!(out.status.success(), "{out:?}");
    (dir, db)
}

#[test]
fn a_new_database_and_the_directories_made_for_it_are_private() {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    let db = dir.path().join("a/b/fql.db");
    let out = run(fql(&db).args(["-w", "-q", "/a(1)=2"]));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(mode(&db), 0o600);
    assert_eq!(mode(&dir.path().join("a")), 0o700);
    assert_eq!(mode(&dir.path().join("a/b")), 0o700);
    assert_eq!(
        mode(dir.path()),
        0o755,
        "an existing directory is left as it is"
    );
    // SQLite's -wal and -shm files, which exist while the file is open,
    // take the database's mode.
    let open = fql::kv::embedded::Embedded::open(&db).unwrap();
    fql::kv::DatabaseExt::run(&open, |tx, _| tx.set(b"k", b"v")).unwrap();
    for suffix in ["-wal", "-shm"] {
        let file = dir.path().join(format!("a/b/fql.db{suffix}"));
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    // A watch makes the bell of its key, in a directory of bells beside
    // the file.
    let watch = fql::kv::DatabaseExt::run(&open, |tx, _| tx.watch(b"k")).unwrap();
    let bells = dir.path().join("a/b/fql.db-bells");
    let bell = eventually_some("a bell made", || {
        let made = std::fs::read_dir(&bells).ok().and_then(|mut d| d.next());
        made.map(|entry| entry.unwrap().path())
    });
    assert_eq!(mode(&bells), 0o700);
    assert_eq!(mode(&bell), 0o600, "{}", bell.display());
    drop(watch);
    drop(open);
    // An existing file keeps its mode.
    let shared = dir.path().join("shared.db");
    std::fs::write(&shared, b"").unwrap();
    chmod(&shared, 0o640);
    assert!(
        run(fql(&shared).args(["-w", "-q", "/a(1)=2"]))
            .status
            .success()
    );
    assert_eq!(mode(&shared), 0o640);
}

#[test]
fn db_is_a_plain_file_name_never_a_uri_or_memory() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        ":memory:",
        "file:x.db?immutable=1",
        "file::memory:?cache=shared",
    ] {
        let db = Path::new(name);
        let wrote = run(fql(db)
            .current_dir(dir.path())
            .args(["-w", "-q", "/a(1)=2"]));
        assert!(wrote.status.success(), "{name}: {wrote:?}");
        let read = run(fql(db).current_dir(dir.path()).args(["-q", "/a(<>)"]));
        assert!(read.status.success(), "{name}: {read:?}");
        assert_eq!(text(&read.stdout), "/a(1)=2\n", "{name}");
        assert!(
            dir.path().join(name).is_file(),
            "{name} is a file of that name"
        );
    }
    assert!(!dir.path().join("x.db").exists());
}

/// A database deleted without its `-wal` and `-shm` files (which fql
/// keeps when it closes): a new database at the path is refused, naming
/// them, since a process that still had the old one open would share
/// them with it; once they are deleted too, a new database is made.
#[test]
fn a_database_deleted_without_its_wal_is_not_made_again_over_it() {
    let (dir, db) = database();
    let beside = |suffix: &str| dir.path().join(format!("fql.db{suffix}"));
    assert!(beside("-wal").exists() && beside("-shm").exists());
    std::fs::remove_file(&db).unwrap();
    assert_eq!(
        refused(run(fql(&db).args(["-w", "-q", "/b(1)=2"]))),
        format!(
            "fql: cannot create the database {db}: {db}-wal and {db}-shm of a deleted database \
             are still there; delete them too, once no process has the deleted database open\n",
            db = db.display()
        )
    );
    assert!(!db.exists(), "no database was made");
    // One left is named alone.
    std::fs::remove_file(beside("-wal")).unwrap();
    let err = refused(run(fql(&db).args(["-w", "-q", "/b(1)=2"])));
    assert!(
        err.contains(&format!("{}-shm of a deleted database is", db.display())),
        "{err}"
    );
    std::fs::remove_file(beside("-shm")).unwrap();
    let out = run(fql(&db).args(["-w", "-q", "/b(1)=2"]));
    assert!(out.status.success(), "{out:?}");
    let read = run(fql(&db).args(["-q", "/b(<>)"]));
    assert_eq!(text(&read.stdout), "/b(1)=2\n", "{read:?}");
}

#[test]
fn an_empty_db_path_is_refused() {
    let err = refused(run(fql(Path::new("")).args(["-q", "/a(<>)"])));
    assert!(err.contains("--db"), "{err}");
    let err = fql::kv::embedded::Embedded::open("")
        .unwrap_err()
        .to_string();
    assert!(err.contains("path is empty"), "{err}");
}

/// The uid and gid to run `fql` as so that permission bits stop it, or
/// `None` to run it as this user; `Err` says why that is impossible here.
fn other_user(dir: &Path) -> Result<Option<(u32, u32)>, String> {
    if std::fs::metadata(dir).unwrap().uid() != 0 {
        return Ok(None);
    }
    let nobody = (65534, 65534);
    let probe = Command::new(cargo_bin("fql"))
        .arg("--version")
        .uid(nobody.0)
        .gid(nobody.1)
        .output();
    match probe {
        Ok(out) if out.status.success() => {}
        other => {
            return Err(format!(
                "uid 65534 cannot run {:?}: {other:?}",
                cargo_bin("fql")
            ));
        }
    }
    for up in dir.ancestors().skip(1) {
        if mode(up) & 0o001 == 0 {
            return Err(format!("uid 65534 cannot enter {}", up.display()));
        }
    }
    Ok(Some(nobody))
}

/// `fql --db db ARGS` as [`other_user`].
fn as_user(user: Option<(u32, u32)>, db: &Path, args: &[&str]) -> Output {
    let mut cmd = fql(db);
    cmd.args(args);
    if let Some((uid, gid)) = user {
        cmd.uid(uid).gid(gid);
    }
    run(&mut cmd)
}

macro_rules! user_or_skip {
    ($dir:expr) => {
        match other_user($dir) {
            Ok(user) => user,
            Err(why) => {
                eprintln!("SKIPPED: this test needs a user permission bits apply to: {why}");
                return;
            }
        }
    };
}

#[test]
fn a_file_this_user_may_not_write_is_read_and_writes_are_refused() {
    // The directory writable (SQLite makes its -wal and -shm files), and
    // not (the file is read as it is).
    for dir_mode in [0o777, 0o555] {
        let (dir, db) = database();
        let user = user_or_skip!(dir.path());
        chmod_database(&db, 0o444);
        chmod(dir.path(), dir_mode);
        let read = as_user(user, &db, &["-q", "/a(<>)"]);
        assert!(read.status.success(), "{dir_mode:o}: {read:?}");
        assert_eq!(text(&read.stdout), "/a(1)=2\n");
        let write = as_user(user, &db, &["-w", "-q", "/a(2)=3"]);
        assert_eq!(write.status.code(), Some(2), "{dir_mode:o}: {write:?}");
        let stderr = text(&write.stderr);
        assert!(
            stderr.contains(&format!("the database {} is read-only", db.display())),
            "{stderr}"
        );
        assert!(stderr.contains("permission denied"), "{stderr}");
        let status = as_user(user, &db, &["status"]);
        assert!(
            text(&status.stdout).contains("access: read-only"),
            "{status:?}"
        );
        chmod(dir.path(), 0o755);
        chmod_database(&db, 0o644);
        let after = run(fql(&db).args(["-q", "/a(<>)"]));
        assert_eq!(text(&after.stdout), "/a(1)=2\n", "nothing was written");
    }
}

/// A database shared by its file's mode alone, its `-wal` file still
/// private: the error names the file the user may not read.
#[test]
fn an_unreadable_wal_file_is_named() {
    let (dir, db) = database();
    let user = user_or_skip!(dir.path());
    chmod(&db, 0o444);
    let err = refused(as_user(user, &db, &["-q", "/a(<>)"]));
    assert!(
        err.contains(&format!(
            "cannot open the database {}: permission denied on {}-wal",
            db.display(),
            db.display()
        )),
        "{err}"
    );
}

#[test]
fn a_file_this_user_may_not_read_says_permission_denied_once() {
    let (dir, db) = database();
    let user = user_or_skip!(dir.path());
    chmod(dir.path(), 0o755);
    chmod(&db, 0o000);
    let out = as_user(user, &db, &["-q", "/a(<>)"]);
    chmod(&db, 0o600);
    assert_eq!(
        refused(out),
        format!(
            "fql: cannot open the database {}: permission denied\n",
            db.display()
        )
    );
    // Nor may it create one in a directory it may not write.
    let new = dir.path().join("new.db");
    assert_eq!(
        refused(as_user(user, &new, &["-w", "-q", "/a(1)=2"])),
        format!(
            "fql: cannot create the database {}: permission denied\n",
            new.display()
        )
    );
    assert!(!new.exists());
}

#[test]
fn read_only_opens_for_reading_on_purpose() {
    let (dir, db) = database();
    let before = std::fs::read(&db).unwrap();
    let read = run(fql(&db).args(["--read-only", "-q", "/a(<>)"]));
    assert!(read.status.success(), "{read:?}");
    assert_eq!(text(&read.stdout), "/a(1)=2\n");
    let err = refused(run(fql(&db).args(["--read-only", "-w", "-q", "/a(2)=3"])));
    assert!(err.contains("is read-only: it was opened read-only"));
    assert_eq!(std::fs::read(&db).unwrap(), before, "nothing was written");
    // A missing file is not created.
    let missing = dir.path().join("missing.db");
    let err = refused(run(fql(&missing).args(["--read-only", "-q", "/a(<>)"])));
    assert!(err.contains("no such file"), "{err}");
    assert!(!missing.exists());
    // It is for the embedded file only.
    refused(run(Command::new(cargo_bin("fql")).args([
        "--read-only",
        "--memory",
        "status",
    ])));
}

/// The database's kv table: its root page number and the page size.
fn kv_root_page(db: &Path) -> (usize, usize) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let root: i64 = conn
        .query_row(
            "SELECT rootpage FROM sqlite_schema WHERE name = 'kv'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let size: i64 = conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    (root as usize, size as usize)
}

fn version(db: &Path) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("SELECT value FROM meta WHERE name = 'version'", [], |r| {
        r.get(0)
    })
    .unwrap()
}

#[test]
fn a_damaged_page_is_reported_and_no_later_run_writes() {
    let (_dir, db) = database();
    let (root, size) = kv_root_page(&db);
    let mut bytes = std::fs::read(&db).unwrap();
    let page = (root - 1) * size..root * size;
    bytes[page].fill(0xab);
    std::fs::write(&db, &bytes).unwrap();

    let err = refused(run(fql(&db).args(["-q", "/a(<>)"])));
    assert!(
        err.contains(&format!("the database {} is corrupt", db.display())),
        "{err}"
    );
    assert!(err.contains("Restore it from a backup"), "{err}");
    // A later run knows without reading the damaged page: status reads
    // only the header and the meta table.
    let status = run(fql(&db).arg("status"));
    assert_eq!(status.status.code(), Some(2), "{status:?}");
    assert!(
        text(&status.stdout).contains("access: corrupt"),
        "{status:?}"
    );
    let err = refused(run(fql(&db).args(["-w", "-q", "/b(1)=2"])));
    assert!(err.contains("is corrupt"), "{err}");
}

#[test]
fn a_value_of_the_wrong_type_is_damage_and_no_later_run_writes() {
    let (_dir, db) = database();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        // The user's key sorts before the directory layer's (0xfe...).
        let changed = conn
            .execute(
                "UPDATE kv SET value = CAST(value AS TEXT) WHERE key = (SELECT min(key) FROM kv)",
                [],
            )
            .unwrap();
        assert_eq!(changed, 1);
    }
    let before = version(&db);
    let err = refused(run(fql(&db).args(["-q", "/a(<>)"])));
    assert!(err.contains("is corrupt"), "{err}");
    assert!(err.contains("wrong type"), "{err}");
    // This write touches none of the damage, yet is refused.
    let err = refused(run(fql(&db).args(["-w", "-q", "/b(1)=2"])));
    assert!(err.contains("is corrupt"), "{err}");
    assert_eq!(version(&db), before, "nothing was written");
}

/// A relative `HOME` is no home: the default would depend on the current
/// directory. (With no `HOME` at all, the home is the password database's.)
#[test]
fn with_no_absolute_home_there_is_no_default_database() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.current_dir(dir.path())
        .env_remove("FDB_CLUSTER_FILE")
        .env("HOME", "relative/home")
        .env("XDG_DATA_HOME", "relative/data")
        .args(["-w", "-q", "/a(1)=2"]);
    let err = refused(run(&mut cmd));
    assert!(
        err.contains("--db PATH") && err.contains("--memory"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing made here"
    );

    // A relative XDG_DATA_HOME is ignored for HOME's default.
    let home = dir.path().join("home");
    let out = run(cmd.env("HOME", &home));
    assert!(out.status.success(), "{out:?}");
    assert!(home.join(".local/share/fql/fql.db").is_file());
    assert!(!dir.path().join("relative").exists());
}

/// The shell's default history goes under `HOME` when `XDG_STATE_HOME`
/// is relative (the XDG Base Directory specification calls that invalid),
/// and nowhere when `HOME` is relative too: never under the current
/// directory. Seen through a real shell, on a pseudo-terminal.
#[test]
fn the_history_file_ignores_a_relative_state_home() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    for absolute_home in [true, false] {
        let mut cmd = Command::new(cargo_bin("fql"));
        cmd.current_dir(dir.path())
            .arg("--db")
            .arg(dir.path().join("fql.db"))
            .args(["--color", "never"])
            .env("TERM", "xterm")
            .env("XDG_STATE_HOME", "relative/state")
            .env_remove("FQL_HISTORY");
        if absolute_home {
            cmd.env("HOME", &home);
        } else {
            cmd.env("HOME", "relative/home");
        }
        let mut p = rexpect::session::spawn_command(cmd, Some(20_000)).unwrap();
        p.exp_string("fql> ").unwrap();
        p.send_line("/h(<int>)").unwrap();
        p.exp_string("fql> ").unwrap();
        p.send_line("\\quit").unwrap();
        p.exp_eof().unwrap();
        assert!(!dir.path().join("relative").exists(), "{absolute_home}");
    }
    assert!(home.join(".local/state/fql/history").is_file());
}

/// How many fresh files the first-open race runs on: `FQL_OPEN_SOAK`
/// (e.g. 334, for about 2,000 process starts), else a number that keeps
/// `cargo test` quick.
fn open_rounds() -> usize {
    std::env::var("FQL_OPEN_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16)
}

#[test]
fn processes_that_start_at_once_on_a_new_file_all_open_it() {
    const AT_ONCE: usize = 6;
    let rounds = open_rounds();
    let mut failures = Vec::new();
    for round in 0..rounds {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("fql.db");
        let children: Vec<_> = (0..AT_ONCE)
            .map(|k| {
                fql(&db)
                    .args(["mutex", "run", "/locks/first", "--name"])
                    .arg(format!("p{k}"))
                    .args(["--", "true"])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("fql starts")
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().expect("fql ends");
            if !out.status.success() || !out.stderr.is_empty() {
                failures.push(format!(
                    "round {round}: {:?} {}",
                    out.status,
                    text(&out.stderr)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} starts failed:\n{}",
        failures.len(),
        rounds * AT_ONCE,
        failures.join("")
    );
}

/// `fql cluster-file` prints the one line that names the database, its
/// path made absolute, and creates the database it names; it refuses
/// memory, a cluster, and a path no one-line file can hold.
#[test]
fn cluster_file_names_the_database_by_its_absolute_path() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(fql(Path::new("sub/x.db"))
        .current_dir(dir.path())
        .arg("cluster-file"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = text(&out.stdout);
    let named = fql::kv::embedded::parse_cluster_line(&line).expect("an embedded cluster line");
    assert_eq!(named, dir.path().join("sub/x.db"));
    assert_eq!(line, format!("fql:embedded@{}\n", named.display()));
    assert_eq!(mode(&named), 0o600);

    let refused = [
        (vec!["--memory"], "in-memory"),
        (
            vec!["-C", "/nonexistent/fdb.cluster"],
            "FoundationDB cluster",
        ),
        (vec!["--db", "a\nb.db"], "line break"),
    ];
    for (args, why) in refused {
        let out = run(Command::new(cargo_bin("fql"))
            .current_dir(dir.path())
            .env_remove("FDB_CLUSTER_FILE")
            .args(&args)
            .arg("cluster-file"));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            text(&out.stderr).contains(why),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // Nothing was created for the refused path.
    assert!(!dir.path().join("a\nb.db").exists());
}
