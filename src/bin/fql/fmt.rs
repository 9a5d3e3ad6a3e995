//! `fql fmt`: print a script in canonical form.

use std::io::Read;
use std::path::Path;

use fql::syntax::{self, Diagnostics};

use crate::args::FmtArgs;
use crate::output::{self, Exit};

pub fn run(args: &FmtArgs, color: bool) -> Result<(), Exit> {
    let (name, src) = read_source(args.file.as_deref())?;
    let formatted = match syntax::load(&src) {
        Ok(script) => syntax::format(&script),
        Err(errors) => {
            let diagnostics = Diagnostics::new(name, src.clone(), errors);
            eprint!("{}", diagnostics.render(color, output::width()));
            return Err(Exit::Invalid);
        }
    };
    if args.check {
        return if formatted == src {
            Ok(())
        } else {
            eprintln!("fql: {name} is not in canonical form");
            Err(Exit::Differs)
        };
    }
    output::print(&formatted)
}

/// Reads a script from a file, or from standard input for `-` or no path.
pub fn read_source(path: Option<&Path>) -> Result<(String, String), Exit> {
    match path {
        None => read_stdin(),
        Some(p) if p.as_os_str() == "-" => read_stdin(),
        Some(p) => match std::fs::read(p) {
            Ok(bytes) => {
                let name = p.display().to_string();
                decode(&name, bytes).map(|src| (name, src))
            }
            Err(e) => {
                eprintln!("fql: cannot read {}: {}", p.display(), io_reason(&e));
                Err(Exit::Usage)
            }
        },
    }
}

fn read_stdin() -> Result<(String, String), Exit> {
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
        eprintln!("fql: cannot read standard input: {}", io_reason(&e));
        return Err(Exit::Usage);
    }
    let name = "<stdin>".to_string();
    decode(&name, bytes).map(|src| (name, src))
}

/// Scripts are UTF-8; say where they are not.
fn decode(name: &str, bytes: Vec<u8>) -> Result<String, Exit> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let src = String::from_utf8_lossy(e.as_bytes());
        let line = src[..at.min(src.len())].matches('\n').count() + 1;
        eprintln!("fql: {name} is not UTF-8: invalid byte at offset {at} (line {line})");
        Exit::Usage
    })
}

/// The OS error without Rust's "(os error 2)" suffix.
fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(n) => text[..n].to_string(),
        None => text,
    }
}
