//! What `fql mutex` adds when a mutex refuses a client for who it is (its
//! name) or how it is set up (its timing and mode), and the exit status.

use fql::lock::mutex::Error;

use crate::error::Exit;

/// Advice for a refusal, told after its message, and the exit status:
/// 1 for a name another client uses (the mutex was not acquired), 2 for
/// settings that differ from the mutex's (a flag to change). `None` for
/// any other error.
pub fn advise(e: &Error) -> Option<(String, Exit)> {
    match e {
        Error::NameInUse { name, .. } => Some((
            format!(
                "give each client a name of its own, as {} does",
                suggestion(name)
            ),
            Exit::Unmet,
        )),
        Error::Settings { stored, ours, .. } => {
            let without = if ours.compat && !stored.compat {
                " and without --compat"
            } else {
                ""
            };
            let advice = format!(
                "run it with {}{without}; other settings take effect once the mutex is free with nobody waiting",
                stored.flags()
            );
            Some((advice, Exit::Usage))
        }
        _ => None,
    }
}

/// A unique name for each run of a shell script: the name with the
/// shell's process id, when the name can stand in a command line as it
/// is.
fn suggestion(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:@+".contains(c));
    if plain {
        format!("--name {name}-$$")
    } else {
        "--name with the process id ($$) added".to_string()
    }
}
