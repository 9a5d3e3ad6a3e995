//! `fql mutex` on a directory that is not a mutex: every command refuses
//! it, names the directory and a key that does not belong, and changes
//! nothing.

use std::ffi::OsStr;
use std::fmt::Debug;

use super::{assert_free, fql, outputs, stderr, stderr_writing_to, stdout};

/// A user's directory that happens to hold keys shaped like a mutex's
/// beside its own.
const USERS: &str = r#"/users("owner","bob")="x"
/users("hb","bob")="y"
/users("email","bob")="bob@example.com"
"#;

/// A database file in a directory of its own, named as `--db` takes it: one for each test.
fn fresh_db() -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("fql.db").to_str().unwrap().to_owned();
    (tmp, db)
}

/// What `dir` holds, to check that a refused command changed nothing.
fn dump(db: &str, dir: &str) -> String {
    stdout(fql().args(["--db", db, "-q", &format!("{dir}(...)")]))
}

/// Runs `fql --db db ARGS` on `dir` and checks it is refused: every test here asks the same.
fn assert_refused<S: AsRef<OsStr> + Debug>(db: &str, dir: &str, args: &[S], holds: &str) {
    let before = dump(db, dir);
    let (out, err) = outputs(
        fql()
            .args(["--db", db])
            .args(args)
            .timeout(std::time::Duration::from_secs(60)),
        4,
    );
    let message = format!("{dir} is not a mutex: it holds {holds}");
    assert!(err.contains(&message), "{args:?}, {message:?}: {err}");
    assert!(out.is_empty(), "{args:?}, {message:?}");
    assert_eq!(
        dump(db, dir),
        before,
        "{args:?} changed {dir} ({message:?})"
    );
}

/// Every mutex command, plain and compatible, on `dir`.
fn every_command(dir: &str) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    for compat in [false, true] {
        let client = |op: &str| {
            let mut args = vec!["mutex".to_string(), op.into(), dir.into()];
            args.extend(["--name".into(), "bob".into()]);
            args.extend(compat.then(|| "--compat".to_string()));
            args
        };
        all.push([client("acquire"), vec!["--wait".into(), "1".into()]].concat());
        for op in ["try-acquire", "release", "heartbeat", "cancel"] {
            all.push(client(op));
        }
        all.push([client("run"), vec!["--".into(), "true".into()]].concat());
        let mut reap = vec!["mutex".to_string(), "reap".into(), dir.into()];
        reap.extend(compat.then(|| "--compat".to_string()));
        all.push(reap);
    }
    all.push(vec!["mutex".into(), "show".into(), dir.into()]);
    all.push(vec![
        "mutex".into(),
        "break".into(),
        "-w".into(),
        dir.into(),
    ]);
    all
}

#[test]
fn every_mutex_command_refuses_a_directory_that_is_not_a_mutex() {
    let (_tmp, db) = fresh_db();
    let db = db.as_str();
    fql()
        .args(["--db", db, "-w", "-f", "-"])
        .write_stdin(USERS)
        .assert()
        .success();
    let email = r#"/users("email","bob")="bob@example.com""#;
    for args in every_command("/users") {
        assert_refused(db, "/users", &args, email);
    }
}

#[test]
fn keys_of_a_mutex_family_with_the_wrong_shape_are_refused_too() {
    let (_tmp, db) = fresh_db();
    let db = db.as_str();
    for (key, shown) in [
        (r#"/l("owner",42)=nil"#, r#"/l("owner",42)"#),
        (r#"/l("owner","a")=nil"#, r#"/l("owner","b")"#),
        (r#"/l("hb",7)=0x01"#, r#"/l("hb",7)"#),
        (r#"/l("queue","x")="y""#, r#"/l("queue","x")"#),
        (r#"/l("fence",1)=0x01"#, r#"/l("fence",1)"#),
    ] {
        fql()
            .args(["--db", db, "-w", "-q", "/l(...)=clear", "-q", key])
            .assert()
            .success();
        if key.contains(r#""a""#) {
            // A second owner beside the first.
            fql()
                .args(["--db", db, "-w", "-q", r#"/l("owner","b")=nil"#])
                .assert()
                .success();
        }
        assert_refused(db, "/l", &["mutex", "release", "/l", "--name", "a"], shown);
    }
}

#[test]
fn an_empty_or_missing_directory_is_a_fresh_mutex() {
    let (_tmp, db) = fresh_db();
    let db = db.as_str();
    let write = ["-w", "-q", "/empty(1)=1", "-q", "/empty(1)=clear"];
    fql().args(["--db", db]).args(write).assert().success();
    for dir in ["/empty", "/missing"] {
        fql()
            .args(["--db", db, "mutex", "try-acquire", dir, "--name", "ann"])
            .assert()
            .success();
        fql()
            .args(["--db", db, "mutex", "release", dir, "--name", "ann"])
            .assert()
            .success();
    }
}

/// `acquire` and `try-acquire` with standard output a pipe nobody reads:
/// the token cannot be printed, so nobody could use or release the grant.
/// It is handed back at once, and the status says the mutex is not held.
#[test]
fn a_grant_printed_to_a_closed_pipe_is_handed_back() {
    let (_tmp, db) = fresh_db();
    let db = db.as_str();
    for op in [&["acquire", "--wait", "10"][..], &["try-acquire"][..]] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let args = [
            &["--db", db, "mutex", op[0], "/m", "--name", "ann"],
            &op[1..],
        ]
        .concat();
        let err = stderr_writing_to(writer.into(), &args, 1);
        assert!(
            err.contains("standard output is closed") && err.contains("handing the mutex back"),
            "{op:?}: {err}"
        );
        assert_free(db, "/m", &format!("{op:?}"));
    }
}

/// `fql mutex show --format json`'s document.
fn shown_json(db: &str, dir: &str) -> serde_json::Value {
    let out = stdout(fql().args(["--db", db, "mutex", "show", dir, "--format", "json"]));
    assert!(!out.contains('\u{1b}'), "{out}");
    assert_eq!(out.lines().count(), 1, "{out}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("one JSON object: {e}: {out}"))
}

#[test]
fn show_prints_one_json_object_with_what_the_text_shows() {
    let (_tmp, db) = fresh_db();
    let owner = "ann\u{1b}[31m";
    let token = stdout(fql().args([
        "--db",
        &db,
        "mutex",
        "try-acquire",
        "/locks/a",
        "--name",
        owner,
    ]));
    stdout(
        fql()
            .args(["--db", &db, "run", "mutex/enqueue", "-w"])
            .args(["-p", "dir=(\"locks\",\"a\")", "-p", "name=bob"]),
    );
    let shown = shown_json(&db, "/locks/a");
    assert_eq!(shown["path"], serde_json::json!(["locks", "a"]));
    assert_eq!(shown["owner"]["name"], owner);
    assert!(shown["owner"]["heartbeat_age_s"].is_f64(), "{shown}");
    assert_eq!(shown["owner"]["verdict"], "live", "{shown}");
    assert_eq!(shown["token"], token.trim());
    let queue = shown["queue"].as_array().expect("the queue");
    assert_eq!(queue.len(), 1, "{shown}");
    assert_eq!(queue[0]["name"], "bob");
    assert!(queue[0]["heartbeat_age_s"].is_f64(), "{shown}");
    assert!(queue[0]["waited_s"].is_f64(), "{shown}");
    assert_eq!(shown["queue_depth"], 1);
    assert_eq!(queue[0]["queued_at"].as_str().map(str::len), Some(24));
    // The text shows the same facts, the name escaped.
    let text = stdout(fql().args(["--db", &db, "mutex", "show", "/locks/a"]));
    assert!(
        text.starts_with("owner: \"ann\\x1b[31m\" (live, last beat "),
        "{text}"
    );
    assert!(text.contains(&format!("token: {}", token.trim())), "{text}");
    assert!(
        text.contains("queue: 1 waiting\n  1. bob (live, last beat "),
        "{text}"
    );
    let version = shown["read_version"].as_u64().expect("a read version");
    assert!(
        text.ends_with(&format!("read version: {version}\n")),
        "{text}"
    );
    // Released to bob, then free: no owner, the last grant's token.
    for name in [owner, "bob"] {
        stdout(fql().args(["--db", &db, "mutex", "release", "/locks/a", "--name", name]));
    }
    let shown = shown_json(&db, "/locks/a");
    assert_eq!(shown["owner"], serde_json::Value::Null);
    assert_eq!(shown["queue"], serde_json::json!([]));
    assert!(shown["token"].is_string(), "{shown}");
}

#[test]
fn show_of_a_directory_that_does_not_exist_says_so() {
    let (_tmp, db) = fresh_db();
    stdout(fql().args(["--db", &db, "-w", "-q", "/locks/other(1)=2"]));
    for format in ["text", "json"] {
        let (out, err) = outputs(
            fql().args([
                "--db",
                &db,
                "mutex",
                "show",
                "/locks/nightly",
                "--format",
                format,
            ]),
            1,
        );
        assert_eq!(out, "");
        assert_eq!(err, "fql: directory /locks/nightly does not exist\n");
    }
}

/// `fql --db DB ARGS --format json`'s one JSON object, and its exit code.
fn json_of(db: &str, args: &[&str], code: i32) -> serde_json::Value {
    let (out, _) = outputs(
        fql()
            .args(["--db", db])
            .args(args)
            .args(["--format", "json"]),
        code,
    );
    assert_eq!(out.lines().count(), 1, "{args:?}: {out}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

#[test]
fn every_client_command_answers_in_json() {
    let (_tmp, db) = fresh_db();
    let client = |op: &'static str, name: &'static str| ["mutex", op, "/m", "--name", name];
    let got = json_of(&db, &client("try-acquire", "ann"), 0);
    assert_eq!(got["acquired"], true);
    assert_eq!(got["dir"], "/m");
    assert_eq!(got["name"], "ann");
    let token = got["token"].as_str().expect("a token").to_string();
    let got = json_of(&db, &client("try-acquire", "bob"), 1);
    assert_eq!(got["acquired"], false);
    assert_eq!(got["token"], serde_json::Value::Null);
    let got = json_of(
        &db,
        &[&client("acquire", "bob")[..], &["--wait", "0.2"]].concat(),
        1,
    );
    assert_eq!(got["acquired"], false);
    assert_eq!(json_of(&db, &client("heartbeat", "ann"), 0)["held"], true);
    assert_eq!(json_of(&db, &client("heartbeat", "bob"), 1)["held"], false);
    assert_eq!(
        json_of(&db, &client("cancel", "bob"), 1)["cancelled"],
        false
    );
    assert_eq!(
        json_of(&db, &client("release", "bob"), 1)["released"],
        false
    );
    assert_eq!(json_of(&db, &client("release", "ann"), 0)["released"], true);
    let got = json_of(&db, &client("acquire", "bob"), 0);
    assert!(got["token"].as_str().unwrap() > token.as_str(), "{got}");
    // `--format` before `mutex` counts too.
    let (out, _) = outputs(
        fql().args([
            "--db", &db, "--format", "json", "mutex", "release", "/m", "--name", "bob",
        ]),
        0,
    );
    assert_eq!(out, "{\"dir\":\"/m\",\"name\":\"bob\",\"released\":true}\n");
}

#[test]
fn show_judges_a_heartbeat_by_its_age_in_seconds() {
    let (_tmp, db) = fresh_db();
    // The mutex stores its clients' timing, which `show` judges by rather
    // than its own flags (the defaults, 1 s and 5 s, here).
    stdout(fql().args([
        "--db",
        &db,
        "mutex",
        "try-acquire",
        "/m",
        "--name",
        "ann",
        "--heartbeat",
        "0.1",
        "--stale",
        "1.5",
    ]));
    let shown = json_of(&db, &["mutex", "show", "/m"], 0);
    assert_eq!(shown["owner"]["verdict"], "live", "{shown}");
    assert_eq!(shown["stale_after_s"], 1.5);
    std::thread::sleep(std::time::Duration::from_millis(1800));
    // A commit elsewhere moves a backend whose read version is its last
    // commit's on as well.
    stdout(fql().args(["--db", &db, "-w", "-q", "/elsewhere(1)=1"]));
    let stale = ["mutex", "show", "/m"];
    let shown = json_of(&db, &stale, 0);
    assert_eq!(shown["owner"]["verdict"], "stale", "{shown}");
    assert!(
        shown["owner"]["heartbeat_age_s"].as_f64().unwrap() >= 1.8,
        "{shown}"
    );
    assert_eq!(shown["stale_after_s"], 1.5);
    let text = stdout(fql().args(["--db", &db]).args(stale));
    assert!(text.starts_with("owner: ann (stale, last beat "), "{text}");
    assert!(
        text.contains("stale after: 1.5 s without a heartbeat\n"),
        "{text}"
    );
    // A beat makes it live again.
    stdout(fql().args(["--db", &db, "mutex", "heartbeat", "/m", "--name", "ann"]));
    let shown = json_of(&db, &["mutex", "show", "/m"], 0);
    assert_eq!(shown["owner"]["verdict"], "live", "{shown}");
    // A bad staleness is a usage error.
    stderr(
        fql().args(["--db", &db, "mutex", "show", "/m", "--stale", "-1"]),
        2,
    );
}

#[test]
fn show_tells_a_compat_owners_go_heartbeat() {
    let (_tmp, db) = fresh_db();
    let compat = ["mutex", "try-acquire", "/m", "--name", "go-1", "--compat"];
    stdout(fql().args(["--db", &db]).args(compat));
    let shown = json_of(&db, &["mutex", "show", "/m"], 0);
    assert_eq!(shown["owner"]["name"], "go-1");
    // No `hb` key: the age is that of the owner key's value, Go's beat.
    assert!(shown["owner"]["heartbeat_age_s"].is_f64(), "{shown}");
    assert_eq!(shown["owner"]["verdict"], "live", "{shown}");
    // A compatible waiter keeps no sign of life while it waits.
    stdout(
        fql()
            .args(["--db", &db, "run", "mutex/compat/enqueue", "-w"])
            .args(["-p", "dir=/m", "-p", "name=go-2"]),
    );
    let shown = json_of(&db, &["mutex", "show", "/m"], 0);
    assert_eq!(shown["queue"][0]["name"], "go-2", "{shown}");
    assert_eq!(shown["queue"][0]["verdict"], "silent", "{shown}");
    assert_eq!(
        shown["queue"][0]["heartbeat_age_s"],
        serde_json::Value::Null
    );
    let text = stdout(fql().args(["--db", &db, "mutex", "show", "/m"]));
    assert!(text.contains("  1. go-2 (no heartbeat; waiting "), "{text}");
}

#[test]
fn list_shows_every_lock_under_a_directory() {
    let (_tmp, db) = fresh_db();
    for (dir, name) in [
        ("/locks/a", "ann"),
        ("/locks/a/inner", "i\u{7}x"),
        ("/locks/b", "bob"),
    ] {
        stdout(fql().args(["--db", &db, "mutex", "try-acquire", dir, "--name", name]));
    }
    stdout(fql().args(["--db", &db, "mutex", "release", "/locks/b", "--name", "bob"]));
    stdout(
        fql()
            .args(["--db", &db, "run", "mutex/enqueue", "-w"])
            .args(["-p", "dir=/locks/a", "-p", "name=carl"]),
    );
    stdout(fql().args(["--db", &db, "-w", "-q", "/locks/data(\"x\")=1"]));
    let text = stdout(fql().args(["--db", &db, "mutex", "list", "/locks"]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(lines[0].starts_with("PATH "), "{text}");
    assert!(lines[1].starts_with("/locks/a "), "{text}");
    assert!(lines[1].contains(" ann "), "{text}");
    assert!(lines[1].contains(" live, last beat "), "{text}");
    assert!(lines[1].ends_with(" 1"), "one waiting: {text}");
    // A name with a control character is escaped.
    assert!(lines[2].contains(r#" "i\x07x" "#), "{text}");
    assert!(!text.contains('\u{7}'), "{text}");
    assert!(lines[3].starts_with("/locks/b "), "{text}");
    assert_eq!(
        lines[4],
        "3 locks, 2 other directories; stale after 5.0 s without a heartbeat"
    );
    let all = json_of(&db, &["mutex", "list", "/locks"], 0);
    let locks = all["locks"].as_array().unwrap();
    assert_eq!(locks.len(), 3, "{all}");
    assert_eq!(locks[0]["path"], serde_json::json!(["locks", "a"]));
    assert_eq!(locks[0]["kind"], "mutex");
    assert_eq!(locks[0]["queue_depth"], 1);
    assert_eq!(locks[2]["owner"], serde_json::Value::Null);
    assert_eq!(all["others"], 2);
    // One snapshot: one read version for every lock.
    let (out, _) = outputs(
        fql().args(["--db", &db, "mutex", "list", "/locks", "--format", "jsonl"]),
        0,
    );
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4, "{out}");
    assert!(
        rows.iter()
            .all(|r| r["read_version"] == rows[3]["read_version"])
    );
    assert_eq!(rows[3]["type"], "summary");
    assert_eq!(rows[3]["locks"], 3);
    // `/` lists the whole tree; a missing directory says so.
    assert!(stdout(fql().args(["--db", &db, "mutex", "list", "/"])).contains("/locks/b "));
    let (out, err) = outputs(fql().args(["--db", &db, "mutex", "list", "/nowhere"]), 1);
    assert_eq!(out, "");
    assert_eq!(err, "fql: directory /nowhere does not exist\n");
}

/// `list` tells every kind of lock apart, from one snapshot: a mutex, a
/// read-write lock held by two readers and a semaphore in one tree.
#[test]
fn list_shows_mutexes_read_write_locks_and_semaphores() {
    let (_tmp, db) = fresh_db();
    let take = |dir: &str, name: &str, kind: &[&str]| {
        stdout(
            fql()
                .args(["--db", &db, "mutex", "try-acquire", dir, "--name", name])
                .args(kind),
        )
    };
    take("/t/m", "ann", &[]);
    take("/t/rw", "r1", &["--read"]);
    take("/t/rw", "r2", &["--read"]);
    take("/t/sem", "s1", &["--permits", "3"]);
    stdout(fql().args(["--db", &db, "-w", "-q", "/t/data(\"x\")=1"]));
    let text = stdout(fql().args(["--db", &db, "mutex", "list", "/t"]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    let cells: Vec<Vec<&str>> = lines[1..4]
        .iter()
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(cells[0][..3], ["/t/m", "mutex", "ann"], "{text}");
    assert_eq!(cells[1][..3], ["/t/rw", "rwlock", "r1,r2"], "{text}");
    assert_eq!(cells[2][..3], ["/t/sem", "semaphore", "s1"], "{text}");
    for row in &cells {
        assert!(row[4].starts_with("live, last beat "), "{text}");
        assert!(row[4].ends_with(" s ago"), "{text}");
        assert_eq!(row[5], "0", "{text}");
    }
    assert_eq!(
        lines[4],
        "3 locks, 2 other directories; stale after 5.0 s without a heartbeat"
    );
    let all = json_of(&db, &["mutex", "list", "/t"], 0);
    let locks = all["locks"].as_array().unwrap();
    let kinds: Vec<&str> = locks.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["mutex", "rwlock", "semaphore"], "{all}");
    assert_eq!(locks[1]["path"], serde_json::json!(["t", "rw"]));
    let holders = locks[1]["holders"].as_array().unwrap();
    assert_eq!(holders.len(), 2, "{all}");
    for h in holders {
        assert_eq!(h["mode"], "read", "{all}");
        assert_eq!(h["verdict"], "live", "{all}");
        assert!(h["heartbeat_age_s"].as_f64().unwrap() >= 0.0, "{all}");
    }
    assert_eq!(locks[2]["permits"], 3);
    assert_eq!(locks[2]["holders"][0]["name"], "s1");
    assert_eq!(locks[2]["stale_after_s"], 5.0);
    // One snapshot: every lock measured against one moment.
    assert!(
        locks
            .iter()
            .all(|l| l["version_now"] == locks[0]["version_now"]),
        "{all}"
    );
    assert_eq!(all["others"], 2, "/t and /t/data: {all}");
}

/// `show` of a read-write lock tells ages in seconds and judges each
/// holder by the staleness the lock stores, as a mutex's does.
#[test]
fn show_of_a_read_write_lock_judges_heartbeats_in_seconds() {
    let (_tmp, db) = fresh_db();
    let timing = ["--heartbeat", "0.1", "--stale", "1.5"];
    stdout(
        fql()
            .args(["--db", &db, "mutex", "try-acquire", "/rw", "--name", "ann"])
            .args(["--read"])
            .args(timing),
    );
    let shown = json_of(&db, &["mutex", "show", "/rw"], 0);
    assert_eq!(shown["kind"], "rwlock", "{shown}");
    assert_eq!(shown["holders"][0]["verdict"], "live", "{shown}");
    assert_eq!(shown["stale_after_s"], 1.5, "{shown}");
    std::thread::sleep(std::time::Duration::from_millis(1800));
    // A commit elsewhere moves a backend whose read version is its last
    // commit's on as well.
    stdout(fql().args(["--db", &db, "-w", "-q", "/elsewhere(1)=1"]));
    let shown = json_of(&db, &["mutex", "show", "/rw"], 0);
    let ann = &shown["holders"][0];
    assert_eq!(ann["verdict"], "stale", "{shown}");
    assert!(ann["heartbeat_age_s"].as_f64().unwrap() >= 1.8, "{shown}");
    let text = stdout(fql().args(["--db", &db, "mutex", "show", "/rw"]));
    assert!(
        text.contains("\n  ann read, token ") && text.contains(" (stale, last beat "),
        "{text}"
    );
    assert!(text.contains(" s ago)\n"), "{text}");
    assert!(
        text.contains("stale after: 1.5 s without a heartbeat\n"),
        "{text}"
    );
    // A beat makes it live again.
    stdout(
        fql()
            .args(["--db", &db, "mutex", "heartbeat", "/rw", "--name", "ann"])
            .args(["--read"])
            .args(timing),
    );
    let shown = json_of(&db, &["mutex", "show", "/rw"], 0);
    assert_eq!(shown["holders"][0]["verdict"], "live", "{shown}");
}

#[test]
fn break_needs_write_and_hands_the_mutex_on_under_a_new_token() {
    let (_tmp, db) = fresh_db();
    let token = stdout(fql().args(["--db", &db, "mutex", "try-acquire", "/m", "--name", "ann"]));
    stdout(
        fql()
            .args(["--db", &db, "run", "mutex/enqueue", "-w"])
            .args(["-p", "dir=/m", "-p", "name=bob"]),
    );
    let before = dump(&db, "/m");
    let err = stderr(fql().args(["--db", &db, "mutex", "break", "/m"]), 2);
    assert_eq!(
        err,
        "fql: mutex break writes; pass -w/--write to allow writes\n"
    );
    assert_eq!(dump(&db, "/m"), before, "nothing changed");
    let text = stdout(fql().args(["--db", &db, "-w", "mutex", "break", "/m"]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "previous owner: ann");
    let new = lines[1].strip_prefix("token: ").expect("the new token");
    assert!(new > token.trim(), "{new} after {token}");
    assert_eq!(lines[2], "owner: bob");
    // ann's fenced write is refused, bob's commits.
    let fenced = |t: &str| {
        fql()
            .args(["--db", &db, "-w", "-p", &format!("token=0x{t}"), "-q"])
            .arg("[exists] /m(\"fence\")=:token\n/work(1)=1")
            .assert()
    };
    fenced(token.trim()).code(1);
    fenced(new).success();
    let shown = json_of(&db, &["mutex", "show", "/m"], 0);
    assert_eq!(shown["owner"]["name"], "bob");
    assert_eq!(shown["stats"]["breaks"], 1);
    let got = json_of(&db, &["mutex", "break", "-w", "/m"], 0);
    assert_eq!(got["previous_owner"], "bob");
    assert_eq!(got["owner"], serde_json::Value::Null);
    assert!(got["token"].as_str().unwrap() > new, "{got}");
    // No directory: no mutex to break, and none made.
    let (out, err) = outputs(
        fql().args(["--db", &db, "mutex", "break", "-w", "/nowhere"]),
        1,
    );
    assert_eq!(out, "");
    assert_eq!(err, "fql: directory /nowhere does not exist\n");
    stderr(fql().args(["--db", &db, "mutex", "show", "/nowhere"]), 1);
}

/// A command that cannot run exits as a shell says: 127 when it is not
/// found, 126 when it is found but is not an executable file, with a
/// message naming it. It is looked for before waiting in line, so the
/// mutex is never taken for it.
#[test]
fn run_of_a_command_that_cannot_run_exits_127_or_126_and_takes_nothing() {
    let (tmp, db) = fresh_db();
    let not_executable = tmp.path().join("script.sh");
    std::fs::write(&not_executable, "#!/bin/sh\necho ran\n").unwrap();
    let cases = [
        (
            "no-such-command-anywhere",
            127,
            "no-such-command-anywhere: command not found",
        ),
        ("./no/such/file", 127, "./no/such/file: command not found"),
        (
            not_executable.to_str().unwrap(),
            126,
            "not an executable file",
        ),
        (tmp.path().to_str().unwrap(), 126, "not an executable file"),
    ];
    for (command, code, message) in cases {
        let (out, err) = outputs(
            fql().args([
                "--db", &db, "mutex", "run", "/m", "--name", "ann", "--", command,
            ]),
            code,
        );
        assert!(out.is_empty(), "{command}: {out}");
        assert!(err.contains(message), "{command}: {err}");
        assert!(err.contains("did not run"), "{command}: {err}");
        let show = stderr(fql().args(["--db", &db, "mutex", "show", "/m"]), 1);
        assert!(
            show.contains("directory /m does not exist"),
            "{command}: {show}"
        );
    }
}
