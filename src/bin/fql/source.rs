//! Reading scripts: files, standard input, `-q` queries.
//!
//! `fql fmt`, `fql explain` and schemas read a script whole
//! ([`read_source`]); scripts that run are read a transaction at a time
//! ([`Script`]).

mod script;

use std::io::Read;
use std::path::Path;

pub use script::Script;

use crate::output::Exit;

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
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(n) => text[..n].to_string(),
        None => text,
    }
}
