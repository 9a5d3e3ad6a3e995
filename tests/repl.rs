//! The interactive shell, driven through a real pseudo-terminal.

use std::process::Command;

use assert_cmd::cargo::cargo_bin;
use rexpect::session::{PtySession, spawn_command};

/// A shell on the database file `db`, without colour or history, waiting
/// at its first prompt.
fn shell(db: &std::path::Path, extra: &[&str]) -> PtySession {
    let mut p = spawn_at(db, extra);
    p.exp_string("fql> ").expect("a prompt");
    p
}

/// Runs `fql --db db -w -q query` and returns its standard output.
fn query(db: &std::path::Path, query: &str) -> String {
    let out = Command::new(cargo_bin("fql"))
        .arg("--db")
        .arg(db)
        .args(["-w", "-q", query])
        .output()
        .expect("fql runs");
    assert!(out.status.success(), "{query}: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn quit(mut p: PtySession) {
    p.send_line("\\quit").unwrap();
    p.exp_eof().expect("the shell ends");
    let status = p.process_mut().wait().expect("an exit status");
    assert!(
        matches!(status, rexpect::process::WaitStatus::Exited(_, 0)),
        "{status:?}"
    );
}

#[test]
fn a_statement_goes_on_over_lines_while_a_tuple_is_open() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, r#"/app/users(1,"ann")=42"#);
    let mut p = shell(&db, &[]);
    p.send_line("/app/users(1,").unwrap();
    p.send_line("  <str>)=<int>").unwrap();
    p.exp_string(r#"/app/users(1,"ann")=42"#)
        .expect("the two lines ran as one query");
    p.exp_string("fql> ").unwrap();
    // An error points at its span.
    p.send_line("/app/users(<string>)").unwrap();
    p.exp_string("unknown type `string`").unwrap();
    p.exp_string("did you mean `str`?").unwrap();
    p.exp_string("fql> ").unwrap();
    quit(p);
}

#[test]
fn tab_completes_a_directory_name_read_from_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/shop/orders_2026(1)=1");
    let mut p = shell(&db, &[]);
    p.send("/shop/ord\t").unwrap();
    p.flush().unwrap();
    p.exp_string("orders_2026").expect("the name completes");
    // Enter lists the completed directory.
    p.send_line("").unwrap();
    p.exp_string("/shop/orders_2026\r\n").unwrap();
    p.exp_string("fql> ").unwrap();
    // Commands and their arguments complete too.
    p.send("\\writ\t").unwrap();
    p.flush().unwrap();
    p.exp_string("writemode").unwrap();
    p.send_line(" on").unwrap();
    p.exp_string("writes are on").unwrap();
    quit(p);
}

#[test]
fn begin_and_commit_make_one_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let mut p = shell(&db, &["-w"]);
    p.send_line("\\begin").unwrap();
    p.exp_string("fql*> ")
        .expect("the prompt shows the transaction");
    p.send_line("/bank(\"ann\")=10").unwrap();
    p.exp_string("fql*> ").unwrap();
    p.send_line("/bank(\"bob\")=20").unwrap();
    p.exp_string("fql*> ").unwrap();
    // Inside, the transaction reads its own writes ...
    p.send_line("/bank(<str>)=<int>").unwrap();
    p.exp_string("/bank(\"ann\")=10").unwrap();
    p.exp_string("/bank(\"bob\")=20").unwrap();
    p.exp_string("fql*> ").unwrap();
    // ... and another process sees none of them before the commit.
    assert_eq!(query(&db, "/bank(<str>)=<int>"), "");
    p.send_line("\\commit").unwrap();
    p.exp_string("committed").unwrap();
    p.exp_string("fql> ").unwrap();
    assert_eq!(
        query(&db, "/bank(<str>)=<int>"),
        "/bank(\"ann\")=10\n/bank(\"bob\")=20\n"
    );

    // A rolled-back transaction leaves nothing.
    p.send_line("\\begin").unwrap();
    p.exp_string("fql*> ").unwrap();
    p.send_line("/bank(\"eve\")=30").unwrap();
    p.exp_string("fql*> ").unwrap();
    p.send_line("\\rollback").unwrap();
    p.exp_string("rolled back").unwrap();
    p.exp_string("fql> ").unwrap();
    assert!(!query(&db, "/bank(<str>)=<int>").contains("eve"));
    quit(p);
}

#[test]
fn writes_need_writemode_and_relative_paths_follow_cd() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/app/users(1)=\"ann\"");
    let mut p = shell(&db, &[]);
    p.send_line("/app/users(2)=\"bob\"").unwrap();
    p.exp_string("\\writemode on")
        .expect("the refusal names the way out");
    p.exp_string("fql> ").unwrap();
    p.send_line("\\cd app").unwrap();
    p.exp_string("fql /app> ").unwrap();
    p.send_line("users(<int>)=<str>").unwrap();
    p.exp_string("/app/users(1)=\"ann\"").unwrap();
    p.exp_string("fql /app> ").unwrap();
    p.send_line("\\cd /nowhere").unwrap();
    p.exp_string("there is no directory /nowhere").unwrap();
    p.exp_string("fql /app> ").unwrap();
    assert!(!query(&db, "/app/users(<int>)=<str>").contains("bob"));
    quit(p);
}

/// The shell starts at `--root`, and `\cd` moves that root by the same
/// rule: `./` and `..` from it, `..` above `/` refused, `\cd` alone back.
#[test]
fn cd_moves_the_root_that_relative_paths_start_from() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/app/users(1)=\"ann\"");
    query(&db, "/other(2)=\"bob\"");
    let mut p = spawn_at(&db, &["--root", "/app"]);
    p.exp_string("fql /app> ").expect("the prompt shows --root");
    p.send_line("./users(<int>)=<str>").unwrap();
    p.exp_string("/app/users(1)=\"ann\"").unwrap();
    p.exp_string("fql /app> ").unwrap();
    p.send_line("\\explain ../other(<int>)").unwrap();
    p.exp_string("range read: /other(<int>)").unwrap();
    p.exp_string("fql /app> ").unwrap();
    p.send_line("\\cd ./users").unwrap();
    p.exp_string("fql /app/users> ").unwrap();
    p.send_line("\\cd ../..").unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("\\cd ..").unwrap();
    p.exp_string("fql::above_root")
        .expect("never a silent stay at `/`");
    p.exp_string("fql> ").unwrap();
    p.send_line("..(1)").unwrap();
    p.exp_string("fql::above_root").unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("\\cd").unwrap();
    p.exp_string("fql /app> ").expect("back to --root");
    p.send_line("\\cd <>").unwrap();
    p.exp_string("fql::bad_root").unwrap();
    p.exp_string("fql /app> ").unwrap();
    p.send_line("\\pwd").unwrap();
    p.exp_string("/app\r\n").unwrap();
    quit(p);
}

/// A shell on `db` with `extra` arguments, not yet at a prompt.
fn spawn_at(db: &std::path::Path, extra: &[&str]) -> PtySession {
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.arg("--db")
        .arg(db)
        .args(["--color", "never", "--no-history"])
        .args(extra)
        .env("TERM", "xterm")
        .env_remove("NO_COLOR");
    spawn_command(cmd, Some(20_000)).expect("the shell starts")
}

/// A shell on a pseudo-terminal that the test reads only when it asks:
/// left unread, the terminal's buffer fills and the shell's next write
/// waits, so the shell is sure to be in the middle of its output.
struct Held {
    master: std::fs::File,
    child: nix::unistd::Pid,
    /// What came and was not yet expected.
    seen: Vec<u8>,
    /// Everything that came.
    all: Vec<u8>,
}

impl Held {
    fn spawn(db: &std::path::Path) -> Held {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;

        let c = |s: &[u8]| CString::new(s).expect("no NUL");
        let bin = c(cargo_bin("fql").as_os_str().as_bytes());
        let args = [
            bin.clone(),
            c(b"--db"),
            c(db.as_os_str().as_bytes()),
            c(b"--color"),
            c(b"never"),
            c(b"--no-history"),
        ];
        let env: Vec<CString> = std::env::vars_os()
            .filter(|(k, _)| k != "TERM" && k != "NO_COLOR")
            .map(|(k, v)| c(&[k.as_bytes(), b"=", v.as_bytes()].concat()))
            .chain([c(b"TERM=xterm")])
            .collect();
        // SAFETY: the child only calls execve, and _exit if that fails.
        match unsafe { nix::pty::forkpty(None, None) }.expect("a terminal") {
            nix::pty::ForkptyResult::Child => {
                let _ = nix::unistd::execve(&bin, &args, &env);
                // SAFETY: leaves the forked child without running anything
                // of the parent's.
                unsafe { nix::libc::_exit(127) }
            }
            nix::pty::ForkptyResult::Parent { child, master } => {
                let mut held = Held {
                    master: master.into(),
                    child,
                    seen: Vec::new(),
                    all: Vec::new(),
                };
                held.expect("fql> ");
                held
            }
        }
    }

    /// Reads until `text` has come, within 30 seconds.
    fn expect(&mut self, text: &str) {
        use std::io::Read;
        use std::os::fd::AsFd;

        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&self.seen).contains(text) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            assert!(!left.is_zero(), "{text:?} did not come");
            let mut fds = [nix::poll::PollFd::new(
                self.master.as_fd(),
                nix::poll::PollFlags::POLLIN,
            )];
            let ms = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
            if nix::poll::poll(&mut fds, ms).expect("poll") == 0 {
                continue;
            }
            let n = self.master.read(&mut buf).expect("the shell's output");
            assert!(n > 0, "the shell ended before {text:?}");
            self.seen.extend_from_slice(&buf[..n]);
            self.all.extend_from_slice(&buf[..n]);
        }
        // What came before `text` is done with.
        let s = String::from_utf8_lossy(&self.seen).into_owned();
        let at = s.find(text).expect("found") + text.len();
        self.seen = s.as_bytes()[at..].to_vec();
    }

    fn send(&mut self, bytes: &[u8]) {
        use std::io::Write;
        self.master.write_all(bytes).expect("the shell's input");
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let _ = nix::sys::signal::kill(self.child, nix::sys::signal::Signal::SIGKILL);
        let _ = nix::sys::wait::waitpid(self.child, None);
    }
}

#[test]
fn ctrl_c_cancels_a_long_read_and_the_shell_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let script = dir.path().join("fill.fql");
    let mut text = String::new();
    for i in 0..60_000 {
        if i > 0 && i % 10_000 == 0 {
            text.push_str("@commit\n");
        }
        text.push_str(&format!("/big({i})=\"{}\"\n", "x".repeat(40)));
    }
    std::fs::write(&script, text).unwrap();
    let out = Command::new(cargo_bin("fql"))
        .arg("--db")
        .arg(&db)
        .args(["-w", "-f"])
        .arg(&script)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");

    let mut p = Held::spawn(&db);
    p.send(b"/big(<int>)=<str>\r");
    p.expect("/big(0)=");
    // Unread, the terminal fills and the read waits in the middle of its
    // rows: Ctrl-C comes while it runs.
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send(&[0x03]);
    p.expect("interrupted");
    let shown = String::from_utf8_lossy(&p.all).into_owned();
    assert!(
        !shown.contains("/big(59999)="),
        "the read stopped before its end"
    );
    p.expect("fql> ");
    // Ctrl-C at the prompt drops the line; the shell stays.
    p.send(b"/big(1)");
    p.expect("/big(1)");
    p.send(&[0x03]);
    p.expect("fql> ");
    p.send(b"/big(59999)=<str>\r");
    p.expect("/big(59999)=\"xxxx");
    p.expect("fql> ");
    p.send(b"\\quit\r");
    let status = nix::sys::wait::waitpid(p.child, None).expect("the shell ends");
    assert_eq!(status, nix::sys::wait::WaitStatus::Exited(p.child, 0));
}

#[test]
fn history_keeps_reads_but_not_writes_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let history = dir.path().join("state/history");
    let run = |extra: &[&str]| {
        let mut cmd = Command::new(cargo_bin("fql"));
        cmd.arg("--db")
            .arg(&db)
            .args(["--color", "never", "-w", "--history-file"])
            .arg(&history)
            .args(extra)
            .env("TERM", "xterm");
        let mut p = spawn_command(cmd, Some(20_000)).unwrap();
        p.exp_string("fql> ").unwrap();
        p.send_line("/h(1)=\"one\"").unwrap();
        p.exp_string("fql> ").unwrap();
        // Relative writes are writes too, with `./` or without.
        p.send_line("./h(2)=\"two\"").unwrap();
        p.exp_string("fql> ").unwrap();
        p.send_line("h(3)=\"three\"").unwrap();
        p.exp_string("fql> ").unwrap();
        p.send_line("/h(<int>)=<str>").unwrap();
        p.exp_string("/h(1)=\"one\"").unwrap();
        p.exp_string("fql> ").unwrap();
        quit(p);
        std::fs::read_to_string(&history).unwrap()
    };
    let kept = run(&[]);
    assert!(kept.contains("/h(<int>)=<str>"), "{kept}");
    assert!(!kept.contains("/h(1)=\"one\""), "{kept}");
    assert!(!kept.contains("two") && !kept.contains("three"), "{kept}");
    let kept = run(&["--history-writes"]);
    assert!(kept.contains("/h(1)=\"one\""), "{kept}");
}

#[test]
fn the_default_history_and_its_directories_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.arg("--db")
        .arg(dir.path().join("fql.db"))
        .args(["--color", "never"])
        .env("TERM", "xterm")
        .env("HOME", &home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("FQL_HISTORY");
    let mut p = spawn_command(cmd, Some(20_000)).unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("/h(<int>)").unwrap();
    p.exp_string("fql> ").unwrap();
    quit(p);
    let mode = |path: &str| {
        let meta = std::fs::metadata(home.join(path)).unwrap();
        meta.permissions().mode() & 0o777
    };
    assert_eq!(mode(".local/state/fql/history"), 0o600);
    for made in [".local", ".local/state", ".local/state/fql"] {
        assert_eq!(mode(made), 0o700, "{made}");
    }
}

#[test]
fn validate_checks_the_data_against_a_schema() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/v(1)=\"one\"");
    query(&db, "/v(\"two\")=2");
    let schema = dir.path().join("v.fql");
    std::fs::write(&schema, "/v(<int>)=<str>\n").unwrap();
    let mut p = shell(&db, &[]);
    p.send_line(&format!("\\validate {}", schema.display()))
        .unwrap();
    p.exp_string("/v(\"two\")=2 % element 1: expected int, found str \"two\"")
        .unwrap();
    p.exp_string("2 keys in 1 directory, 1 violation").unwrap();
    p.exp_string("fql> ").unwrap();
    quit(p);
}

/// A `\validate` that read no key checked nothing: the shell warns, as
/// `fql validate` fails, since a mistyped path looks like conforming data.
#[test]
fn validate_warns_when_it_read_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/v(1)=\"one\"");
    let schema = dir.path().join("typo.fql");
    std::fs::write(&schema, "/vv(<int>)=<str>\n").unwrap();
    let mut p = shell(&db, &[]);
    p.send_line(&format!("\\validate {}", schema.display()))
        .unwrap();
    p.exp_string("0 keys in 0 directories, 0 violations")
        .unwrap();
    p.exp_string("fql: warning: no keys matched the schema's patterns in embedded database")
        .unwrap();
    p.exp_string("so nothing was checked").unwrap();
    p.exp_string("fql> ").unwrap();
    quit(p);
}

/// `\validate` and `\infer` read relative paths from the current root,
/// as queries do: one relative schema checks each directory `\cd` goes to.
#[test]
fn validate_and_infer_follow_the_current_root() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/t/a/v(1)=\"one\"");
    query(&db, "/t/b/v(\"two\")=\"2\"");
    let schema = dir.path().join("v.fql");
    std::fs::write(&schema, "./v(<int>)=<str>\n").unwrap();
    let mut p = spawn_at(&db, &["--root", "/t/a"]);
    p.exp_string("fql /t/a> ").unwrap();
    p.send_line(&format!("\\validate {}", schema.display()))
        .unwrap();
    p.exp_string("1 key in 1 directory, 0 violations").unwrap();
    p.exp_string("fql /t/a> ").unwrap();
    p.send_line("\\infer v").unwrap();
    p.exp_string("./v(<int>)=<str> % 1 key").unwrap();
    p.exp_string("fql /t/a> ").unwrap();
    p.send_line("\\cd ../b").unwrap();
    p.exp_string("fql /t/b> ").unwrap();
    p.send_line("\\ls").unwrap();
    p.exp_string("/t/b/v").expect("alone, the current root's");
    p.exp_string("fql /t/b> ").unwrap();
    p.send_line(&format!("\\validate {}", schema.display()))
        .unwrap();
    p.exp_string("/t/b/v(\"two\")=\"2\" % element 1: expected int")
        .unwrap();
    p.exp_string("1 key in 1 directory, 1 violation").unwrap();
    p.exp_string("fql /t/b> ").unwrap();
    p.send_line("\\infer ../a/v").unwrap();
    p.exp_string("../a/v(<int>)=<str> % 1 key").unwrap();
    p.exp_string("fql /t/b> ").unwrap();
    p.send_line("\\infer ../../..").unwrap();
    p.exp_string("fql::above_root").unwrap();
    p.exp_string("fql /t/b> ").unwrap();
    quit(p);
}

#[test]
fn a_long_read_shows_progress_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let fill: String = (0..50_000).map(|i| format!("/p({i})=\"{i}\"\n")).collect();
    let script = dir.path().join("fill.fql");
    std::fs::write(&script, fill).unwrap();
    let out = Command::new(cargo_bin("fql"))
        .arg("--db")
        .arg(&db)
        .args(["-w", "-f"])
        .arg(&script)
        .output()
        .unwrap();
    assert!(out.status.success());
    // Reads that print nothing for far longer than progress waits to
    // show, in one transaction, stopped once it shows.
    let scans = ["/p(<str>)"; 500].join("\n");
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.arg("--db")
        .arg(&db)
        .args(["-q", &scans])
        .env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(60_000)).unwrap();
    p.exp_regex(r"[0-9.]+[kM]? keys read \([0-9.]+[kM]?/s\), 0 results")
        .expect("a progress line");
    p.send_control('c').unwrap();
    p.exp_eof().unwrap();
}

/// `\ls`, `\cd` and the prompt show a directory name holding escape
/// sequences as an FQL string with escapes: nothing stored reaches the
/// terminal raw.
#[test]
fn ls_and_the_prompt_escape_stored_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, r#"/t/"d\x1b[2J\x1b]0;owned\x07"(1)=1"#);
    let mut p = shell(&db, &[]);
    p.send_line("\\ls /t").unwrap();
    let before = p
        .exp_string(r#"/t/"d\x1b[2J\x1b]0;owned\x07""#)
        .expect("the name, escaped");
    p.exp_string("fql> ").unwrap();
    p.send_line(r#"\cd /t/"d\x1b[2J\x1b]0;owned\x07""#).unwrap();
    let after = p
        .exp_string(r#"fql /t/"d\x1b[2J\x1b]0;owned\x07"> "#)
        .expect("a prompt naming the directory, escaped");
    for text in [before, after] {
        assert!(!text.contains("\u{1b}[2J"), "{text:?}");
        assert!(!text.contains("\u{1b}]0;"), "{text:?}");
        assert!(!text.contains('\u{7}'), "{text:?}");
    }
    quit(p);
}
