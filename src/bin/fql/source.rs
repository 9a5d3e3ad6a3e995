//! Reading scripts: files, standard input, `-q` queries.
//!
//! `fql fmt`, `fql explain` and schemas read a script whole
//! ([`read_source`]); scripts that run are read a transaction at a time
//! ([`Script`]). Both open, name and decode their input the same way.

mod script;
mod typed;

use std::path::Path;

use script::Input;
pub use script::Script;
pub use typed::{Typed, add, render};

use crate::output::Exit;

/// Reads a script whole from a file, or from standard input for `-` or
/// no path: its name in messages, and its text.
pub fn read_source(path: Option<&Path>) -> Result<(String, String), Exit> {
    let input = Input::open(path)?;
    let text = input.read_to_string()?;
    Ok((input.name().to_string(), text))
}

/// The OS error without Rust's "(os error 2)" suffix.
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(n) => text[..n].to_string(),
        None => text,
    }
}
