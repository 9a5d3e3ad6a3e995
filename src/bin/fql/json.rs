//! JSON that is safe to show on a terminal.
//!
//! serde_json escapes `"`, `\` and the C0 controls, as JSON requires, but
//! writes DEL and the C1 controls (U+0080 to U+009F) as they are; some
//! terminals act on C1 controls such as CSI (U+009B) as they act on
//! escape sequences. Every JSON text fql prints goes through [`safe`],
//! which writes those as `\u007f` and `\u0080`..`\u009f` too: the same
//! JSON value, with no control character in its text. Outside its strings
//! JSON text is ASCII, so every such character it holds is in a string.

use std::borrow::Cow;
use std::io::{self, Write};

/// `json` with DEL and the C1 controls as `\uNNNN` escapes.
pub fn safe(json: &str) -> Cow<'_, str> {
    if !json.bytes().any(|b| b == 0x7f || b == 0xc2) {
        return json.into();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if matches!(c, '\u{7f}'..='\u{9f}') {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// Writes `s` as a JSON string.
pub fn write_str(out: &mut impl Write, s: &str) -> io::Result<()> {
    if !s.bytes().any(|b| b == 0x7f || b == 0xc2) {
        return serde_json::to_writer(out, s).map_err(io::Error::from);
    }
    let json = serde_json::to_string(s).map_err(io::Error::from)?;
    out.write_all(safe(&json).as_bytes())
}

/// `value` as compact, safe JSON text.
pub fn to_string(value: &serde_json::Value) -> String {
    safe(&value.to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_the_value_is_the_same() {
        let text = "a\u{1b}[31m\u{7f}\u{80}\u{9b}\u{9f}\u{a0}é\n\"";
        let mut json = Vec::new();
        write_str(&mut json, text).unwrap();
        let json = String::from_utf8(json).unwrap();
        assert_eq!(
            json,
            "\"a\\u001b[31m\\u007f\\u0080\\u009b\\u009f\u{a0}é\\n\\\"\""
        );
        assert!(!json.chars().any(char::is_control));
        let back: String = serde_json::from_str(&json).unwrap();
        assert_eq!(back, text);
        let value = serde_json::json!({ "k": [text] });
        let shown = to_string(&value);
        assert!(!shown.chars().any(char::is_control));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&shown).unwrap(),
            value
        );
    }
}
