//! Reading `fql mutex show`'s report, for tests that check who holds a
//! mutex after commands whose answers they doubt.

/// The owner and token `fql mutex show` printed (`none` and an empty
/// token when no one holds it).
pub fn owner_and_token(shown: &str) -> (String, String) {
    let field = |name: &str| {
        shown
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.split_whitespace().next().unwrap_or("").to_string())
            .unwrap_or_default()
    };
    (field("owner: "), field("token: "))
}

/// The owner and token of a finished `fql mutex show`: as
/// [`owner_and_token`] reads them, or `none` and an empty token when the
/// directory does not exist (no client has used the mutex: `show` says
/// so and exits 1); `None` when `show` failed otherwise.
pub fn owner_and_token_of(out: &std::process::Output) -> Option<(String, String)> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => Some(owner_and_token(&String::from_utf8_lossy(&out.stdout))),
        Some(1) if stderr.contains("does not exist") => Some(("none".into(), String::new())),
        _ => None,
    }
}
