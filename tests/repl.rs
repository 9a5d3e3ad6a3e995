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

/// Types `line` and waits for the next prompt: an entry whose output
/// the test does not look at.
fn entry(p: &mut PtySession, line: &str) {
    p.send_line(line).unwrap();
    p.exp_string("fql> ").unwrap();
}

/// Types `line`, expects `shown` in what it prints, and waits for the
/// next prompt.
fn ask(p: &mut PtySession, line: &str, shown: &str) {
    p.send_line(line).unwrap();
    p.exp_string(shown).unwrap();
    p.exp_string("fql> ").unwrap();
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
    ask(&mut p, "", "/shop/orders_2026\r\n");
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
    ask(&mut p, "\\commit", "committed");
    assert_eq!(
        query(&db, "/bank(<str>)=<int>"),
        "/bank(\"ann\")=10\n/bank(\"bob\")=20\n"
    );

    // A rolled-back transaction leaves nothing.
    p.send_line("\\begin").unwrap();
    p.exp_string("fql*> ").unwrap();
    p.send_line("/bank(\"eve\")=30").unwrap();
    p.exp_regex(AGED).unwrap();
    ask(&mut p, "\\rollback", "rolled back");
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
    p.exp_string("fql: directory /nowhere does not exist")
        .unwrap();
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
    entry(&mut p, "\\cd ../..");
    p.send_line("\\cd ..").unwrap();
    p.exp_string("fql::above_root")
        .expect("never a silent stay at `/`");
    p.exp_string("fql> ").unwrap();
    ask(&mut p, "..(1)", "fql::above_root");
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
    /// Leaves the shell, which must end with status 0.
    fn quit(mut self) {
        self.send(b"\\quit\r");
        let status = nix::sys::wait::waitpid(self.child, None).expect("the shell ends");
        assert_eq!(status, nix::sys::wait::WaitStatus::Exited(self.child, 0));
    }

    fn spawn(db: &std::path::Path) -> Held {
        Held::spawn_env(db, &[])
    }

    /// [`Held::spawn`] with `vars` set in the shell's environment.
    fn spawn_env(db: &std::path::Path, vars: &[(&str, &str)]) -> Held {
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
            .chain(vars.iter().map(|(k, v)| c(format!("{k}={v}").as_bytes())))
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
    p.quit();
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
        entry(&mut p, "/h(1)=\"one\"");
        // Relative writes are writes too, with `./` or without.
        entry(&mut p, "./h(2)=\"two\"");
        entry(&mut p, "h(3)=\"three\"");
        ask(&mut p, "/h(<int>)=<str>", "/h(1)=\"one\"");
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
    entry(&mut p, "/h(<int>)");
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

/// `\tree` draws the directories under the current root, or under a
/// path, to a depth, with stored names escaped.
#[test]
fn tree_draws_the_directories_under_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/t/a/deep(1)=nil");
    query(&db, "/t/\"b\\x07\"(1)=nil");
    let mut p = spawn_at(&db, &["--root", "/t"]);
    p.exp_string("fql /t> ").unwrap();
    p.send_line("\\tree").unwrap();
    p.exp_regex(r"/t  prefix 0x[0-9a-f]+  ~0 B").unwrap();
    // The pseudo-terminal's reader takes bytes as Latin-1, so only the
    // ASCII after each branch is looked for.
    p.exp_regex(r" a  prefix 0x[0-9a-f]+  ~0 B\r\n").unwrap();
    p.exp_regex(r" deep  prefix 0x[0-9a-f]+").unwrap();
    p.exp_string(r#" "b\x07"  prefix 0x"#).unwrap();
    p.exp_string("fql /t> ").unwrap();
    p.send_line("\\tree a 0").unwrap();
    p.exp_string(" 1 more directory below --depth").unwrap();
    p.exp_string("fql /t> ").unwrap();
    p.send_line("\\tree nope").unwrap();
    p.exp_string("directory /t/nope does not exist").unwrap();
    p.exp_string("fql /t> ").unwrap();
    // Its path completes as \\ls's does.
    p.send("\\tree ../t/a/de\t").unwrap();
    p.flush().unwrap();
    p.exp_string("deep").expect("the name completes");
    // Completion ends at the `/` that goes on with the path; drop it.
    p.send("\x7f").unwrap();
    p.send_line("").unwrap();
    p.exp_regex(r"/t/a/deep  prefix 0x[0-9a-f]+").unwrap();
    p.exp_string("fql /t> ").unwrap();
    quit(p);
}

/// `fql` on a terminal running `scans` reads of 50,000 keys that match
/// none, in one transaction, once its progress line shows.
fn scanning(db: &std::path::Path, scans: usize, extra: &[&str]) -> PtySession {
    fill(db, 50_000);
    let scans = vec!["/p(<str>)"; scans].join("\n");
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.arg("--db")
        .arg(db)
        .args(extra)
        .args(["-q", &scans])
        .env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(60_000)).unwrap();
    p.exp_regex(r"[0-9.]+[kM]? keys read \([0-9.]+[kM]?/s\), 0 results")
        .expect("a progress line");
    p
}

#[test]
fn a_long_read_shows_progress_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    // Reads that print nothing for far longer than progress waits to
    // show, in one transaction, stopped once it shows.
    let mut p = scanning(&db, 500, &[]);
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

/// A shell on `db` with `extra` arguments and `vars` in its environment,
/// waiting at its first prompt.
fn shell_env(db: &std::path::Path, extra: &[&str], vars: &[(&str, &str)]) -> PtySession {
    let mut cmd = Command::new(cargo_bin("fql"));
    cmd.arg("--db")
        .arg(db)
        .args(["--color", "never", "--no-history"])
        .args(extra)
        .env("TERM", "xterm")
        .env_remove("NO_COLOR");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut p = spawn_command(cmd, Some(20_000)).expect("the shell starts");
    p.exp_string("fql> ").expect("a prompt");
    p
}

/// `n` keys `/p(0)=0` ... in `db`.
fn fill(db: &std::path::Path, n: usize) {
    let text: String = (0..n).map(|i| format!("/p({i})={i}\n")).collect();
    let script = db.with_extension("fill.fql");
    std::fs::write(&script, text).unwrap();
    let out = Command::new(cargo_bin("fql"))
        .arg("--db")
        .arg(db)
        .args(["-w", "-f"])
        .arg(&script)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// A result taller than the screen goes through `$PAGER` (here `cat -n`,
/// which numbers what it is given); a short one prints directly, and
/// `\pager off` prints long ones directly too.
#[test]
fn long_results_go_through_the_pager() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    fill(&db, 30);
    let mut p = shell_env(&db, &[], &[("PAGER", "cat -n"), ("LINES", "10")]);
    p.send_line("/p(<int>)=<int>").unwrap();
    p.exp_string("     1\t/p(0)=0").expect("paged");
    p.exp_string("    30\t/p(29)=29").expect("all of it paged");
    p.exp_string("fql> ").unwrap();
    p.send_line("[limit:3] /p(<int>)=<int>").unwrap();
    let short = p.exp_string("fql> ").unwrap();
    assert!(short.contains("/p(2)=2"), "{short:?}");
    assert!(
        !short.contains("\t/p("),
        "a short result is not paged: {short:?}"
    );
    p.send_line("\\pager").unwrap();
    p.exp_string("the pager is on: results longer than the screen go through `cat -n`")
        .unwrap();
    ask(&mut p, "\\pager off", "the pager is off");
    p.send_line("/p(<int>)=<int>").unwrap();
    let direct = p.exp_string("fql> ").unwrap();
    assert!(direct.contains("/p(29)=29"), "{direct:?}");
    assert!(!direct.contains("\t/p("), "{direct:?}");
    // `\timing` says the time after the result, paged or not.
    entry(&mut p, "\\pager on");
    entry(&mut p, "\\timing on");
    p.send_line("/p(<int>)=<int>").unwrap();
    p.exp_string("    30\t/p(29)=29").unwrap();
    p.exp_string("Time: ").unwrap();
    p.exp_string("fql> ").unwrap();
    quit(p);
}

/// A pager that cannot start is said, and the result prints directly; a
/// pager quit before the result ends (`head -n 2`) ends the result and
/// not the shell.
#[test]
fn a_pager_that_fails_or_quits_leaves_the_shell_going() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    fill(&db, 2000);
    let mut p = shell_env(&db, &[], &[("PAGER", "/no/such/pager"), ("LINES", "5")]);
    p.send_line("/p(<int>)=<int>").unwrap();
    p.exp_string("cannot start the pager `/no/such/pager`")
        .unwrap();
    p.exp_string("/p(1999)=1999").expect("printed directly");
    p.exp_string("fql> ").unwrap();
    quit(p);

    let mut p = shell_env(&db, &[], &[("PAGER", "head -n 2"), ("LINES", "5")]);
    p.send_line("/p(<int>)=<int>").unwrap();
    let shown = p.exp_string("fql> ").unwrap();
    assert!(shown.contains("/p(1)=1"), "{shown:?}");
    assert!(!shown.contains("/p(2)=2"), "{shown:?}");
    assert!(!shown.contains("cannot write"), "{shown:?}");
    p.send_line("/p(7)=<int>").unwrap();
    p.exp_string("/p(7)=7").expect("the shell goes on");
    p.exp_string("fql> ").unwrap();
    quit(p);
}

/// Ctrl-C while a paged result streams into the pager stops the read
/// and returns to the prompt.
#[test]
fn ctrl_c_during_a_paged_result_returns_to_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    fill(&db, 20_000);
    let mut p = Held::spawn_env(&db, &[("PAGER", "cat -n"), ("LINES", "10")]);
    p.send(b"/p(<int>)=<int>\r");
    p.expect("     1\t/p(0)=0");
    // Unread, the terminal fills, then the pager's pipe: the read waits
    // in the middle of its rows when Ctrl-C comes.
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send(&[0x03]);
    p.expect("fql> ");
    let shown = String::from_utf8_lossy(&p.all).into_owned();
    assert!(
        !shown.contains("/p(19999)="),
        "the read stopped before its end"
    );
    p.send(b"/p(19999)=<int>\r");
    p.expect("/p(19999)=19999");
    p.expect("fql> ");
    p.quit();
}

/// Ctrl-C, twice, while a pager that ignores it waits for the user does
/// not end the shell, which would leave the pager holding the terminal:
/// the read stops, and the shell waits for the pager to end.
#[test]
fn ctrl_c_twice_while_the_pager_waits_leaves_the_shell_running() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    fill(&db, 20_000);
    let pager = "trap '' INT; echo paging; read x </dev/tty; cat -n";
    let mut p = shell_env(&db, &[], &[("PAGER", pager), ("LINES", "10")]);
    p.send_line("/p(<int>)=<int>").unwrap();
    p.exp_string("paging").expect("the pager started");
    for _ in 0..2 {
        std::thread::sleep(std::time::Duration::from_millis(200));
        p.send_control('c').unwrap();
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    p.send("\r").unwrap();
    p.flush().unwrap();
    p.exp_string("interrupted").unwrap();
    p.exp_string("fql> ").unwrap();
    p.send_line("/p(3)=<int>").unwrap();
    p.exp_string("/p(3)=3").expect("the shell goes on");
    p.exp_string("fql> ").unwrap();
    quit(p);
}

/// `\o FILE` sends results to a private file, emptied first; `\o` alone
/// sends them back to the terminal.
#[test]
fn o_sends_results_to_a_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    fill(&db, 3);
    let out = dir.path().join("out.txt");
    std::fs::write(&out, "old\n").unwrap();
    std::fs::remove_file(&out).unwrap();
    let mut p = shell(&db, &[]);
    ask(&mut p, &format!("\\o {}", out.display()), "results go to");
    p.send_line("/p(<int>)=<int>").unwrap();
    let shown = p.exp_string("fql> ").unwrap();
    assert!(!shown.contains("/p(1)=1"), "{shown:?}");
    entry(&mut p, "\\explain /p(1)");
    let schema = dir.path().join("s.fql");
    std::fs::write(&schema, "/p(<int>)=<str>\n").unwrap();
    p.send_line(&format!("\\validate {}", schema.display()))
        .unwrap();
    let shown = p.exp_string("3 violations").unwrap();
    assert!(!shown.contains("expected str"), "{shown:?}");
    p.exp_string("fql> ").unwrap();
    ask(&mut p, "\\o", "results go to the terminal");
    p.send_line("/p(2)=<int>").unwrap();
    p.exp_string("/p(2)=2").expect("on the terminal again");
    p.exp_string("fql> ").unwrap();
    p.send_line("\\o /no/such/dir/out.txt").unwrap();
    p.exp_string("cannot write to /no/such/dir/out.txt")
        .unwrap();
    p.exp_string("fql> ").unwrap();
    quit(p);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("/p(0)=0\n/p(1)=1\n/p(2)=2\n"), "{text:?}");
    assert!(
        text.contains("read one key: /p(1)"),
        "\\explain's plan too: {text:?}"
    );
    assert!(
        text.contains("/p(2)=2 % "),
        "\\validate's violations too: {text:?}"
    );
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// `\i FILE` runs its FQL as typed entries (relative paths from the
/// current root) and its commands, and stops at the first failure,
/// reported against the file's own text and lines.
#[test]
fn i_runs_a_file_of_entries_and_commands() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let good = dir.path().join("good.fql");
    std::fs::write(
        &good,
        "\\writemode on\n/s/i(1)=\"one\"\n\\cd /s\ni(2)=\"two\"\ni(<int>)=<str>\n",
    )
    .unwrap();
    let bad = dir.path().join("bad.fql");
    std::fs::write(&bad, "% a comment\ni(<string>)\ni(9)=9\n").unwrap();
    let mut p = shell(&db, &[]);
    p.send_line(&format!("\\i {}", good.display())).unwrap();
    p.exp_string("/s/i(1)=\"one\"").unwrap();
    p.exp_string("/s/i(2)=\"two\"").unwrap();
    p.exp_string("fql /s> ").expect("its \\cd stays");
    p.send_line(&format!("\\i {}", bad.display())).unwrap();
    let report = p.exp_string("stopped at its first failure").unwrap();
    assert!(report.contains("unknown type `string`"), "{report}");
    assert!(report.contains("bad.fql:2:"), "the file's line: {report}");
    assert!(report.contains("i(<string>)"), "{report}");
    assert!(
        !report.contains("./i("),
        "only what the file says: {report}"
    );
    p.exp_string("fql /s> ").unwrap();
    p.send_line("\\i /no/such/file.fql").unwrap();
    p.exp_string("cannot read /no/such/file.fql").unwrap();
    p.exp_string("fql /s> ").unwrap();
    quit(p);
    assert!(!query(&db, "/s/i(<int>)=<>").contains("(9)"));
}

/// `\e` opens the last entry in `$EDITOR`, in a private file, and runs
/// what the editor leaves when it exits with success.
#[test]
fn e_edits_the_last_entry_and_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    fill(&db, 3);
    let editor = dir.path().join("editor");
    let fail = dir.path().join("fail");
    let mode = dir.path().join("mode");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\n[ -e '{}' ] && exit 3\nstat -c %a \"$1\" > '{}'\nsed -i 's/(1)/(2)/' \"$1\"\n",
            fail.display(),
            mode.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let editor = editor.display().to_string();
    let mut p = shell_env(&db, &[], &[("EDITOR", &editor)]);
    ask(&mut p, "/p(1)=<int>", "/p(1)=1");
    p.send_line("\\e").unwrap();
    p.exp_string("/p(2)=2").expect("the edited entry ran");
    p.exp_string("fql> ").unwrap();
    // The history holds what ran: Up recalls the edited entry.
    p.send("\x1b[A").unwrap();
    p.send_line("").unwrap();
    p.exp_string("/p(2)=2")
        .expect("Up recalls the edited entry");
    p.exp_string("fql> ").unwrap();
    std::fs::write(&fail, "").unwrap();
    p.send_line("\\e").unwrap();
    p.exp_string("ended with exit status: 3; nothing ran")
        .unwrap();
    p.exp_string("fql> ").unwrap();
    quit(p);
    assert_eq!(std::fs::read_to_string(&mode).unwrap().trim(), "600");
}

/// Ctrl-R searches the history: a few characters find a past entry, and
/// Enter runs it.
#[test]
fn ctrl_r_finds_a_past_entry() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    fill(&db, 3);
    let mut p = shell(&db, &[]);
    ask(&mut p, "/p(1)=<int>", "/p(1)=1");
    ask(&mut p, "/p(2)=<int>", "/p(2)=2");
    p.send_control('r').unwrap();
    p.send("(1").unwrap();
    p.flush().unwrap();
    p.exp_string("/p(1)=<int>").expect("the search finds it");
    p.send("\r").unwrap();
    p.flush().unwrap();
    p.exp_string("/p(1)=1").expect("Enter runs it");
    p.exp_string("fql> ").unwrap();
    quit(p);
}

/// The small commands: settings with no argument say their value,
/// `\begin` says a transaction is open, `\validate` is in `\help` and
/// completes, and `\ls` of a missing directory says so.
#[test]
fn commands_say_what_they_did_and_what_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let mut p = shell(&db, &[]);
    ask(&mut p, "\\format", "format is text");
    entry(&mut p, "\\format jsonl");
    ask(&mut p, "\\format", "format is jsonl");
    ask(&mut p, "\\bytes", "bytes are full");
    p.send_line("\\begin").unwrap();
    p.exp_string("transaction open; \\commit or \\rollback")
        .unwrap();
    ask(&mut p, "\\rollback", "rolled back");
    p.send_line("\\help").unwrap();
    p.exp_string("\\validate SCHEMA").unwrap();
    p.exp_string("\\pager [on|off]").unwrap();
    p.exp_string("fql> ").unwrap();
    p.send("\\vali\t").unwrap();
    p.flush().unwrap();
    p.exp_string("validate").unwrap();
    p.send_line("").unwrap();
    p.exp_string("\\validate takes a schema").unwrap();
    ask(&mut p, "\\ls /nope", "fql: directory /nope does not exist");
    quit(p);
}

/// `\bytes escaped` prints keys and values as fdbcli does, and the
/// shell reads the same form back; `\bytes` completes it.
#[test]
fn bytes_escaped_prints_and_reads_fdbcli_keys() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    // A key that is no tuple: `02 "app" 00 15 01` and an `ff` after.
    query(&db, r#"0x02617070001501ff=0x00ff"#);
    let mut p = shell(&db, &[]);
    p.send("\\bytes e\t").unwrap();
    p.flush().unwrap();
    p.exp_string("escaped").expect("the value completes");
    p.send_line("").unwrap();
    p.exp_string("fql> ").unwrap();
    ask(&mut p, "\\bytes", "bytes are escaped");
    ask(
        &mut p,
        r#"b"\x02app\x00"..."#,
        r#"b"\x02app\x00\x15\x01\xff"=b"\x00\xff""#,
    );
    entry(&mut p, "\\bytes full");
    ask(
        &mut p,
        r#"b"\x02app\x00\x15\x01\xff""#,
        "0x02617070001501ff=0x00ff",
    );
    quit(p);
}

/// Whether a report shows `text` as its first source line.
fn quotes(report: &str, text: &str) -> bool {
    report
        .lines()
        .any(|l| l.starts_with(" 1 ") && l.ends_with(&format!(" {text}")))
}

/// An error in an entry the shell reads as relative (`users(...)` is
/// `./users(...)`) shows the entry as typed.
#[test]
fn error_reports_show_the_entry_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let mut p = shell(&db, &[]);
    p.send_line("users(<string>)").unwrap();
    let report = p.exp_string("fql> ").unwrap();
    assert!(report.contains("unknown type `string`"), "{report}");
    assert!(
        report.contains("[<input>:1:8]"),
        "the typed column: {report:?}"
    );
    assert!(quotes(&report, "users(<string>)"), "{report}");
    assert!(!report.contains("./users"), "{report}");
    p.send_line("\\explain users(<string>)").unwrap();
    let report = p.exp_string("fql> ").unwrap();
    assert!(report.contains("[<input>:1:8]"), "{report:?}");
    assert!(quotes(&report, "users(<string>)"), "{report}");
    assert!(!report.contains("./users"), "{report}");
    quit(p);
}

/// The progress line is wiped before an error is printed, so the error
/// starts on a line of its own.
#[test]
fn progress_is_wiped_before_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    // Reads that print nothing for longer than progress waits to show,
    // in one transaction that runs out of time.
    let mut p = scanning(&db, 2000, &["--color", "never", "--timeout", "3"]);
    let before = p.exp_string("transaction_timed_out").unwrap();
    let at = before.rfind("fql::").expect("the report's code");
    assert!(
        before[..at].ends_with("\r\u{1b}[K"),
        "the line is wiped first: {:?}",
        &before[before.len().saturating_sub(80)..]
    );
    p.exp_eof().unwrap();
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
    ask(&mut p, "\\set", "no parameters are set");
    entry(&mut p, "\\set id 2");
    p.send_line("/app/users(:id,<str>)=<int>").unwrap();
    p.exp_string(r#"/app/users(2,"bob")=20"#)
        .expect("the value feeds the reference, as -p does");
    p.exp_string("fql> ").unwrap();
    // Listed as the commands that set them, stored text escaped.
    entry(&mut p, r#"\set who "a\x07b""#);
    p.send_line("\\set").unwrap();
    p.exp_string("\\set id 2\r\n").unwrap();
    let listed = p.exp_string("fql> ").unwrap();
    assert!(listed.contains(r#"\set who "a\x07b""#), "{listed:?}");
    assert!(!listed.contains('\u{7}'), "{listed:?}");
    entry(&mut p, "\\unset id");
    // The help says how the shell gives a value, not `-p`.
    p.send_line("/app/users(:id,<str>)=<int>").unwrap();
    p.exp_string("fql::unbound").unwrap();
    p.exp_string("`\\set id VALUE`").unwrap();
    let help = p.exp_string("fql> ").unwrap();
    assert!(!help.contains("-p id"), "{help:?}");
    ask(&mut p, "\\unset id", "`:id` has no value");
    ask(&mut p, "\\set id", "needs a value");
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
    ask(&mut p, "<int>)", r#"/app/emails(1)="ann@example.com""#);
    // So do options on a line of their own, which stand above a query.
    p.send_line("[reverse]").unwrap();
    p.exp_string("...> ").unwrap();
    ask(
        &mut p,
        "/app/users(<int>,<str>)",
        r#"/app/users(1,"ann")=1"#,
    );
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
    ask(&mut p, "\\writemode   on", "writes are on");
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
        ("get k", r#"b"k""#),
        ("getrange a b", r#"b"a"..b"b""#),
        ("set k \"v w\"", r#"b"k"=b"v w""#),
        ("clear \\xff", r#"[system] b"\xff"=clear"#),
        (r"get \x02app\x00", r#"b"\x02app\x00""#),
    ];
    for (typed, answer) in answers {
        p.send_line(typed).unwrap();
        p.exp_string(answer).expect(typed);
        let rest = p.exp_string("fql> ").unwrap();
        assert!(!rest.contains("fql::"), "{typed}: {rest:?}");
    }
    // Nothing ran: writes are still off, and no transaction is open.
    ask(&mut p, "/w(1)=1", "refusing to write");
    // A directory named so is listed by its path.
    ask(&mut p, "./quit", "/quit\r\n");
    quit(p);
}

#[test]
fn an_open_transaction_shows_its_age_and_dies_with_a_plain_code() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    let mut p = shell(&db, &[]);
    ask(&mut p, "\\help", "lives 5 s");
    p.send_line("\\begin").unwrap();
    p.exp_string("fql*> ").unwrap();
    p.send_line("/a(1)").unwrap();
    p.exp_regex(AGED)
        .expect("the age of the transaction, against its 5 s");
    entry(&mut p, "\\rollback");
    quit(p);

    // Every read too old, as one 5 s after the first would be.
    let mut p = shell_env(&db, &[], &[("FQL_FAULTS", "1007@read:1")]);
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
    let mut p = shell_env(&db, &["-w"], &[("FQL_FAULTS", "1007@commit:1")]);
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

/// `\explain analyze QUERY` runs the query and prints its plan with what
/// it cost; a write needs `\writemode on`, and an open transaction is
/// left alone.
#[test]
fn explain_analyze_runs_a_query_and_shows_its_costs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/a/b(1)=\"x\"");
    let mut p = shell(&db, &[]);
    p.send_line("\\explain analyze /a/b(<int>)=<str>").unwrap();
    p.exp_string("range read: /a/b(<int>)=<str>").unwrap();
    p.exp_string("directory level 1: ").unwrap();
    p.exp_string("directory level 2: ").unwrap();
    p.exp_string("read: 1 key, ").unwrap();
    p.exp_string("rows: 1 returned, 0 filtered on the client")
        .unwrap();
    p.exp_string("retries: 0").unwrap();
    p.exp_string("fql> ").unwrap();
    ask(
        &mut p,
        "\\explain analyze /a/b(2)=\"y\"",
        "refusing to write",
    );
    entry(&mut p, "\\writemode on");
    ask(
        &mut p,
        "\\explain analyze /a/b(2)=\"y\"",
        "written: 1 write, ",
    );
    p.send_line("\\begin").unwrap();
    p.exp_string("fql*> ").unwrap();
    p.send_line("\\explain analyze /a/b(<int>)=<str>").unwrap();
    p.exp_string("\\commit or \\rollback the open one first")
        .unwrap();
    p.exp_string("fql*> ").unwrap();
    entry(&mut p, "\\rollback");
    quit(p);
    assert_eq!(query(&db, "/a/b(2)=<>"), "/a/b(2)=\"y\"\n");
}

/// `\watch` prints what the query reads, then each change another
/// process commits, until Ctrl-C brings the prompt back.
#[test]
fn watch_follows_changes_until_ctrl_c_and_the_shell_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/w(1)=\"one\"");
    let mut p = shell(&db, &[]);
    p.send_line("\\watch /w(<int>)=<str>").unwrap();
    p.exp_string("/w(1)=\"one\"").unwrap();
    query(&db, "/w(1)=\"uno\"");
    p.exp_string("/w(1)=\"uno\"").unwrap();
    query(&db, "/w(1)=clear");
    p.exp_string("/w(1)=clear").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("fql> ").unwrap();
    query(&db, "/w(2)=\"two\"");
    ask(&mut p, "/w(<int>)=<str>", "/w(2)=\"two\"");
    ask(&mut p, "\\help", "watch");
    quit(p);
}

/// The shell keeps the directory prefixes it resolved across its entries
/// (each entry a transaction of its own), and still sees a directory it
/// read removed and made anew, with another prefix, by another process.
#[test]
fn directories_another_process_changes_are_seen() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fql.db");
    query(&db, "/a/b/c(1)=1");
    let mut p = shell(&db, &[]);
    for _ in 0..2 {
        ask(&mut p, "/a/b/c(<int>)=<int>", "/a/b/c(1)=1");
    }
    query(&db, "/a/b/c=remove");
    query(&db, "/a/b/c(2)=2");
    ask(&mut p, "/a/b/c(<int>)=<int>", "/a/b/c(2)=2");
    quit(p);
}
