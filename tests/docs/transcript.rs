//! Shell sessions shown in the docs, run in a real pseudo-terminal.
//!
//! A session is the output of a `$ fql ...` example that holds prompt
//! lines: what the shell prints before its first prompt, then entries,
//! each a prompt line (`fql> `, `fql /app> `, `fql*> `, or `...> ` for a
//! line the shell reads on its own to go on with an entry) with the text
//! typed, the lines without a prompt that go on with it while the entry
//! is open (by the rule of [`fql::syntax::is_open`]: one line the editor
//! grows), and what the entry prints. Each entry is typed into the shell; what it printed
//! is what the terminal got between the shell taking the entry and the
//! shell reading again (the line editor turns bracketed paste off and on
//! at those two points), its escape sequences left out. The session is
//! then shown again from what ran: the banner and the prompts as printed,
//! the typed lines, each entry's output; the example compares that with
//! what the docs show. A session that does not end with `\quit` is ended
//! by Ctrl-D.

use std::process::Command;

use rexpect::ReadUntil;
use rexpect::session::{PtySession, spawn_command};

use super::examples::Ran;

/// The line editor turns bracketed paste on when it starts reading an
/// entry, and off when Enter has ended it.
const READING: &str = "\x1b[?2004h";
const TAKEN: &str = "\x1b[?2004l";

/// Where the text typed after the prompt starts on `line`, if it starts
/// with a prompt: `fql`, then a space and the current directory, or `*`
/// for an open transaction, then `> `; or a prompt for a further line of
/// an entry, `...> ` after spaces, which the shell reads as a line of its
/// own.
pub fn prompt_len(line: &str) -> Option<usize> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if line[indent..].starts_with("...> ") {
        return Some(indent + 5);
    }
    let rest = line.strip_prefix("fql")?;
    let end = rest.find("> ")?;
    let middle = &rest[..end];
    let middle = middle.strip_suffix('*').unwrap_or(middle);
    (middle.is_empty() || middle.starts_with(" /")).then_some(3 + end + 2)
}

/// Whether an example's output is a shell session.
pub fn is_transcript(shown: &str) -> bool {
    shown.lines().any(|l| prompt_len(l).is_some())
}

/// An entry: the lines typed, the prompt's left off the first.
struct Entry {
    typed: Vec<String>,
}

/// The entries of a session, from the lines after its banner.
fn entries(shown: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for line in shown.lines() {
        if let Some(n) = prompt_len(line) {
            out.push(Entry {
                typed: vec![line[n..].to_string()],
            });
            continue;
        }
        if let Some(entry) = out.last_mut() {
            let so_far = entry.typed.join("\n");
            if !so_far.trim_start().starts_with('\\') && fql::syntax::is_open(&so_far) {
                entry.typed.push(line.to_string());
            }
        }
    }
    out
}

/// `text` without escape sequences and carriage returns.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' if chars.peek() == Some(&'[') => {
                chars.next();
                // Parameters and intermediates, then one final byte.
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        break;
                    }
                }
            }
            '\x1b' => {
                chars.next();
            }
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// The prompt drawn at the start of `screen`, what the terminal got since
/// the shell started reading: the first text between carriage returns.
fn prompt(screen: &str) -> String {
    let drawn = screen.split(TAKEN).next().unwrap_or_default();
    drawn
        .split('\r')
        .map(plain)
        .find(|piece| !piece.is_empty())
        .unwrap_or_default()
}

/// What an entry printed: what the terminal got after the shell took it.
fn output(screen: &str) -> String {
    let after = screen.rsplit_once(TAKEN).map_or("", |(_, after)| after);
    let text = plain(after);
    text.strip_prefix('\n').unwrap_or(&text).to_string()
}

/// Reads until the shell reads again or ends; whether it ended.
fn screen(p: &mut PtySession) -> (String, bool) {
    let (before, matched) = p
        .exp_any(vec![ReadUntil::String(READING.into()), ReadUntil::EOF])
        .expect("the shell reads again or ends");
    if matched == READING {
        (utf8(&before), false)
    } else {
        (utf8(&(before + &matched)), true)
    }
}

/// The text the terminal got: the pseudo-terminal's reader makes a char
/// of each byte, so UTF-8 (`×`, `╭`) is put back together here.
fn utf8(read: &str) -> String {
    let bytes: Vec<u8> = read.chars().map(|c| c as u32 as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs `cmd`, which opens the shell, typing the entries of `shown`.
pub fn run(mut cmd: Command, shown: &str) -> Ran {
    // A pager would wait for keys; `cat` shows what it would page.
    cmd.env("TERM", "xterm").env("PAGER", "cat");
    // A guard against a hang, not a measure of speed.
    let mut p = spawn_command(cmd, Some(60_000)).expect("the shell starts");
    let (banner, mut ended) = screen(&mut p);
    let mut printed = plain(&banner);
    for entry in entries(shown) {
        if ended {
            break;
        }
        for line in &entry.typed {
            p.send_line(line).expect("the terminal takes the line");
        }
        let (text, end) = screen(&mut p);
        ended = end;
        printed.push_str(&prompt(&text));
        printed.push_str(&entry.typed.join("\n"));
        printed.push('\n');
        printed.push_str(&output(&text));
    }
    if !ended {
        p.send_control('d').expect("Ctrl-D");
        p.exp_eof().expect("the shell ends");
    }
    let code = match p.process_mut().wait().expect("an exit status") {
        rexpect::process::WaitStatus::Exited(_, code) => Some(code),
        _ => None,
    };
    Ran { code, printed }
}

#[test]
fn reads_a_session() {
    assert_eq!(prompt_len("fql> \\cd app"), Some(5));
    assert_eq!(prompt_len("fql /app> ./x(1)"), Some(10));
    assert_eq!(prompt_len("fql*> /a(1)=2"), Some(6));
    assert_eq!(prompt_len("/app/users(1)=\"fql> \""), None);
    assert_eq!(prompt_len("fqlx> 1"), None);
    assert_eq!(prompt_len("     ...> <str>)"), Some(10));
    let shown =
        "banner\nfql> /a(<int>,\n  <str>)=<>\n/a(1,\"x\")=2\nfql> \\cd a\nfql /a> (1,...)\n";
    let typed: Vec<Vec<String>> = entries(shown).into_iter().map(|e| e.typed).collect();
    assert_eq!(
        typed,
        [
            vec!["/a(<int>,", "  <str>)=<>"],
            vec!["\\cd a"],
            vec!["(1,...)"]
        ]
    );
    let screen = "\x1b[?2026h\r\x1b[Kfql /a> \r\x1b[10C\x1b[?2026l(1)\x1b[?2004l\r\n/a(1)=2\r\n";
    assert_eq!(prompt(screen), "fql /a> ");
    assert_eq!(output(screen), "/a(1)=2\n");
}

/// A session with an error and `\quit` runs as typed; one that shows the
/// wrong output does not match.
#[test]
fn a_session_runs_as_typed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let shown = "\
fql [..] on the embedded in-memory database
Type \\help for help, \\quit or Ctrl-D to leave.
fql> /a(1)=2
fql> /a(<int>,
...>   ...)=<>
/a(1)=2
fql> /a(<string>)
fql::unknown_type

  × unknown type `string`
...
fql> \\quit
";
    let cmd = || super::examples::command(dir.path(), "fql --memory -w");
    let ran = run(cmd(), shown);
    assert_eq!(ran.code, Some(0));
    let printed = super::examples::normalize(dir.path(), &ran.printed, shown);
    assert_eq!(printed, shown.trim_end());
    let wrong = shown.replace("/a(1)=2\nfql> /a(<s", "/a(1)=3\nfql> /a(<s");
    let ran = run(cmd(), &wrong);
    let printed = super::examples::normalize(dir.path(), &ran.printed, &wrong);
    assert_ne!(printed, wrong.trim_end());
}
