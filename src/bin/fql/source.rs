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

use crate::error::CliError;

/// Reads a script whole from a file, or from standard input for `-` or
/// no path: its name in messages, and its text.
pub fn read_source(path: Option<&Path>) -> Result<(String, String), CliError> {
    let input = Input::open(path)?;
    let text = input.read_to_string()?;
    Ok((input.name().to_string(), text))
}

/// Reads a script whole as [`read_source`] does, except that a path
/// that is not a file but names a script that ships with fql
/// (`mutex/try-acquire`) reads that script, as `fql run` runs it.
pub fn read_named_or_file(path: Option<&Path>) -> Result<(String, String), CliError> {
    if let Some(named) = path
        .filter(|p| !p.exists())
        .and_then(Path::to_str)
        .and_then(fql::scripts::find)
    {
        return Ok((named.name.to_string(), named.source.to_string()));
    }
    read_source(path)
}
