//! `fql mutex` on a directory that is not a mutex: every command refuses
//! it, names the directory and a key that does not belong, and changes
//! nothing.

use super::{fql, text};

/// A user's directory that happens to hold keys shaped like a mutex's
/// beside its own.
const USERS: &str = r#"/users("owner","bob")="x"
/users("hb","bob")="y"
/users("email","bob")="bob@example.com"
"#;

fn dump(db: &str, dir: &str) -> String {
    text(
        &fql()
            .args(["--db", db, "-q", &format!("{dir}(...)")])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
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
        all.push([client("acquire"), vec!["--timeout".into(), "1".into()]].concat());
        for op in ["try-acquire", "release", "heartbeat", "cancel"] {
            all.push(client(op));
        }
        all.push([client("run"), vec!["--".into(), "true".into()]].concat());
        let mut reap = vec!["mutex".to_string(), "reap".into(), dir.into()];
        reap.extend(compat.then(|| "--compat".to_string()));
        all.push(reap);
    }
    all.push(vec!["mutex".into(), "show".into(), dir.into()]);
    all
}

#[test]
fn every_mutex_command_refuses_a_directory_that_is_not_a_mutex() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("users.db");
    let db = db.to_str().unwrap();
    fql()
        .args(["--db", db, "-w", "-f", "-"])
        .write_stdin(USERS)
        .assert()
        .success();
    let before = dump(db, "/users");
    for args in every_command("/users") {
        let out = fql()
            .args(["--db", db])
            .args(&args)
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(4)
            .get_output()
            .clone();
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(
                r#"/users is not a mutex: it holds /users("email","bob")="bob@example.com""#
            ),
            "{args:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(dump(db, "/users"), before, "{args:?} changed the directory");
    }
}

#[test]
fn keys_of_a_mutex_family_with_the_wrong_shape_are_refused_too() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("shapes.db");
    let db = db.to_str().unwrap();
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
        let before = dump(db, "/l");
        let out = fql()
            .args(["--db", db, "mutex", "release", "/l", "--name", "a"])
            .assert()
            .code(4)
            .get_output()
            .clone();
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(&format!("/l is not a mutex: it holds {shown}")),
            "{key}: {stderr}"
        );
        assert_eq!(dump(db, "/l"), before, "{key}");
    }
}

#[test]
fn an_empty_or_missing_directory_is_a_fresh_mutex() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("fresh.db");
    let db = db.to_str().unwrap();
    fql()
        .args([
            "--db",
            db,
            "-w",
            "-q",
            "/empty(1)=1",
            "-q",
            "/empty(1)=clear",
        ])
        .assert()
        .success();
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
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("closed.db");
    let db = db.to_str().unwrap();
    for op in [&["acquire", "--timeout", "10"][..], &["try-acquire"][..]] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("fql"))
            .args(["--db", db, "mutex", op[0], "/m", "--name", "ann"])
            .args(&op[1..])
            .stdin(std::process::Stdio::null())
            .stdout(writer)
            .output()
            .expect("fql runs");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{op:?}: {stderr}");
        assert!(
            stderr.contains("standard output is closed")
                && stderr.contains("handing the mutex back"),
            "{op:?}: {stderr}"
        );
        let show = fql()
            .args(["--db", db, "mutex", "show", "/m"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        assert!(
            text(&show).starts_with("owner: none (free)\n"),
            "{op:?}: {}",
            text(&show)
        );
    }
}
