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
