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
    p.exp_string("...> ").expect("the continuation prompt");
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

/// The prompt of a transaction that ran a query: `*`, and its age
/// against the 5 seconds it lives.
const AGED: &str = r"fql\* \d+s/5s> ";

#[test]
fn begin_and_commit_make_one_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let mut p = shell(&db, &["-w"]);
    p.send_line("\\begin").unwrap();
    p.exp_string("fql*> ")
        .expect("the prompt shows the transaction");
    p.send_line("/bank(\"ann\")=10").unwrap();
    p.exp_regex(AGED).unwrap();
    p.send_line("/bank(\"bob\")=20").unwrap();
    p.exp_regex(AGED).unwrap();
    // Inside, the transaction reads its own writes ...
    p.send_line("/bank(<str>)=<int>").unwrap();
    p.exp_string("/bank(\"ann\")=10").unwrap();
    p.exp_string("/bank(\"bob\")=20").unwrap();
    p.exp_regex(AGED).unwrap();
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
    p.exp_regex(AGED).unwrap();
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

/// A shell on `db` with `extra` arguments and `env` set, at its prompt.
fn shell_with_env(db: &std::path::Path, extra: &[&str], env: &[(&str, &str)]) -> PtySession {
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.arg("--db")
        .arg(db)
        .args(["--color", "never", "--no-history"])
        .args(extra)
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .envs(env.iter().copied());
    let mut p = spawn_command(cmd, Some(20_000)).expect("the shell starts");
    p.exp_string("fql> ").expect("a prompt");
    p
}

/// Alt-Enter as a terminal sends it: Esc, then Enter.
const ALT_ENTER: &str = "\x1b\r";

#[test]
fn set_gives_references_a_value_in_later_entries() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, r#"/app/users(1,"ann")=10"#);
    query(&db, r#"/app/users(2,"bob")=20"#);
    let mut p = shell(&db, &[]);
    p.send_line("\\set").unwrap();
    p.exp_string("no parameters are set").unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("\\set id 2").unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("/app/users(:id,<str>)=<int>").unwrap();
    p.exp_string(r#"/app/users(2,"bob")=20"#)
        .expect("the value feeds the reference, as -p does");
    p.exp_string("fql> ").unwrap();
    // Listed as the commands that set them, stored text escaped.
    p.send_line(r#"\set who "a\x07b""#).unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("\\set").unwrap();
    p.exp_string("\\set id 2\r\n").unwrap();
    let listed = p.exp_string("fql> ").unwrap();
    assert!(listed.contains(r#"\set who "a\x07b""#), "{listed:?}");
    assert!(!listed.contains('\u{7}'), "{listed:?}");
    p.send_line("\\unset id").unwrap();
    p.exp_string("fql> ").unwrap();
    // The help says how the shell gives a value, not `-p`.
    p.send_line("/app/users(:id,<str>)=<int>").unwrap();
    p.exp_string("fql::unbound").unwrap();
    p.exp_string("`\\set id VALUE`").unwrap();
    let help = p.exp_string("fql> ").unwrap();
    assert!(!help.contains("-p id"), "{help:?}");
    p.send_line("\\unset id").unwrap();
    p.exp_string("`:id` has no value").unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("\\set id").unwrap();
    p.exp_string("needs a value").unwrap();
    p.exp_string("fql> ").unwrap();
    quit(p);
}

#[test]
fn alt_enter_makes_an_entry_of_several_statements_run_as_one_script() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, r#"/app/users(1,"ann")=1"#);
    query(&db, r#"/app/emails(1)="ann@example.com""#);
    let mut p = shell(&db, &[]);
    // A complete statement, then Alt-Enter: a new line, not a run.
    p.send(&format!("/app/users(<id:int>,\"ann\"){ALT_ENTER}"))
        .unwrap();
    p.flush().unwrap();
    p.exp_string("...> ").expect("a continuation prompt");
    // The name the first statement binds feeds the second.
    p.send_line("/app/emails(:id)=<str>").unwrap();
    p.exp_string(r#"/app/emails(1)="ann@example.com""#)
        .expect("the entry ran as one script");
    p.exp_string("fql> ").unwrap();
    // So does a paste of several lines, one Enter after it.
    p.send("\x1b[200~/app/users(<id:int>,\"ann\")\n/app/emails(:id)=<str>\x1b[201~")
        .unwrap();
    p.send_line("").unwrap();
    p.exp_string(r#"/app/emails(1)="ann@example.com""#)
        .expect("the pasted lines ran as one script");
    p.exp_string("fql> ").unwrap();
    // An open tuple goes on by itself, with the same prompt.
    p.send_line("/app/emails(").unwrap();
    p.exp_string("...> ").unwrap();
    p.send_line("<int>)").unwrap();
    p.exp_string(r#"/app/emails(1)="ann@example.com""#).unwrap();
    p.exp_string("fql> ").unwrap();
    // So do options on a line of their own, which stand above a query.
    p.send_line("[reverse]").unwrap();
    p.exp_string("...> ").unwrap();
    p.send_line("/app/users(<int>,<str>)").unwrap();
    p.exp_string(r#"/app/users(1,"ann")=1"#).unwrap();
    p.exp_string("fql> ").unwrap();
    // Ctrl-C drops every line of the entry.
    p.send(&format!("/app/nothing(1)=2{ALT_ENTER}")).unwrap();
    p.flush().unwrap();
    p.exp_string("...> ").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("/app/emails(<int>)").unwrap();
    p.exp_string(r#"/app/emails(1)="ann@example.com""#)
        .expect("the dropped write never ran, nor was refused");
    quit(p);
}

#[test]
fn an_unclosed_string_or_variable_ends_the_entry_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let mut p = shell(&db, &[]);
    for line in [r#"/a("x"#, "/a(1,<int", r#"/a(1,"x"#] {
        p.send_line(line).unwrap();
        p.exp_string("fql::unclosed")
            .expect("Enter runs the entry and shows the error");
        let shown = p.exp_string("fql> ").unwrap();
        assert!(!shown.contains("...> "), "{line}: {shown:?}");
    }
    quit(p);
}

#[test]
fn history_keeps_no_relative_write_nor_a_write_with_a_typo() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/app/users(1)=1");
    let history = dir.path().join("history");
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.arg("--db")
        .arg(&db)
        .args(["--color", "never", "--history-file"])
        .arg(&history)
        .env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(20_000)).unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("\\writemode   on").unwrap();
    p.exp_string("writes are on").unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("\\cd /app").unwrap();
    p.exp_string("fql /app> ").unwrap();
    for line in ["users(2)=2", "users(3)=3 x", "users(4 4)=4"] {
        p.send_line(line).unwrap();
        p.exp_string("fql /app> ").unwrap();
    }
    p.send(&format!("users(<int>){ALT_ENTER}")).unwrap();
    p.flush().unwrap();
    p.exp_string("...> ").unwrap();
    p.send_line("users(5)=5").unwrap();
    p.exp_string("fql /app> ").unwrap();
    // Kept: reads, and what does not parse but cannot write.
    p.send_line("users(<int>)").unwrap();
    p.exp_string("fql /app> ").unwrap();
    p.send_line("users(<int>").unwrap();
    p.exp_string("...> ").unwrap();
    p.send_line(" 9 )").unwrap();
    p.exp_string("fql /app> ").unwrap();
    quit(p);
    let kept = std::fs::read_to_string(&history).unwrap();
    for left_out in ["writemode", "users(2)", "users(3)", "users(4", "users(5)"] {
        assert!(!kept.contains(left_out), "{left_out}: {kept}");
    }
    assert!(kept.contains("\\\\cd /app"), "{kept}");
    assert!(kept.contains("\nusers(<int>)\n"), "{kept}");
    assert!(kept.contains(r"users(<int>\n 9 )"), "{kept}");
}

#[test]
fn commands_of_fdbcli_and_psql_are_answered_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/quit(1)=1");
    let mut p = shell(&db, &[]);
    let answers = [
        ("quit", "to leave, type \\quit or Ctrl-D"),
        ("exit", "\\quit"),
        ("help", "\\help"),
        ("begin;", "\\begin"),
        ("COMMIT", "\\commit"),
        ("status", "fql status"),
        ("writemode on", "\\writemode on"),
        ("get k", "0x6b"),
        ("getrange a b", "0x61..0x62"),
        ("set k \"v w\"", "0x6b=0x762077"),
        ("clear \\xff", "[system] 0xff=clear"),
    ];
    for (typed, answer) in answers {
        p.send_line(typed).unwrap();
        p.exp_string(answer).expect(typed);
        let rest = p.exp_string("fql> ").unwrap();
        assert!(!rest.contains("fql::"), "{typed}: {rest:?}");
    }
    // Nothing ran: writes are still off, and no transaction is open.
    p.send_line("/w(1)=1").unwrap();
    p.exp_string("refusing to write").unwrap();
    p.exp_string("fql> ").unwrap();
    // A directory named so is listed by its path.
    p.send_line("./quit").unwrap();
    p.exp_string("/quit\r\n").unwrap();
    p.exp_string("fql> ").unwrap();
    quit(p);
}

#[test]
fn an_open_transaction_shows_its_age_and_dies_with_a_plain_code() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let mut p = shell(&db, &[]);
    p.send_line("\\help").unwrap();
    p.exp_string("lives 5 s").unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("\\begin").unwrap();
    p.exp_string("fql*> ").unwrap();
    p.send_line("/a(1)").unwrap();
    p.exp_regex(AGED)
        .expect("the age of the transaction, against its 5 s");
    p.send_line("\\rollback").unwrap();
    p.exp_string("fql> ").unwrap();
    quit(p);

    // Every read too old, as one 5 s after the first would be.
    let mut p = shell_with_env(&db, &[], &[("FQL_FAULTS", "1007@read:1")]);
    p.send_line("\\begin").unwrap();
    p.exp_string("fql*> ").unwrap();
    p.send_line("/a(1)").unwrap();
    let shown = p.exp_string("the transaction was rolled back").unwrap();
    assert!(shown.contains("fql::transaction_too_old"), "{shown:?}");
    assert!(!shown.contains("fql::directory"), "{shown:?}");
    assert!(shown.contains("a transaction lives 5 seconds"), "{shown:?}");
    p.exp_string("fql> ").unwrap();
    quit(p);

    // A commit too late says so too.
    let mut p = shell_with_env(&db, &["-w"], &[("FQL_FAULTS", "1007@commit:1")]);
    p.send_line("\\begin").unwrap();
    p.exp_string("fql*> ").unwrap();
    p.send_line("/a(1)=1").unwrap();
    p.exp_regex(AGED).unwrap();
    p.send_line("\\commit").unwrap();
    p.exp_string("transaction_too_old (1007)").unwrap();
    p.exp_string("a transaction lives 5 seconds").unwrap();
    p.exp_string("fql> ")
        .expect("no transaction is open any more");
    quit(p);
}
