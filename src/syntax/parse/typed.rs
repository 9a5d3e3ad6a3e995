//! The literals of the tuple layer's types that FQL has no bare literal
//! for: a 32-bit float, `f32(1.5)`, and a user type, `user(0x40,0xaabb)`.
//! Each is its type's name and its content in parentheses, with no space,
//! as the printer writes them. Malformed ones are reported and a
//! placeholder stands in, as for every literal.

use super::Parser;
use super::lex::take_bytes;
use crate::syntax::ast::{ElemKind, F32, UserType};
use crate::syntax::error::ParseError;
use crate::syntax::names::is_name_byte;

/// The words that open a typed literal when `(` follows them; a value
/// that is any other word and `(` is an atomic operation.
pub(super) const TYPED_LITERALS: [&str; 2] = ["f32", "user"];

/// Whether `text` is a num as FQL writes one, other than the special
/// values: digits, then a fraction and/or an exponent, lowercase `e`, no
/// `+`. The sign is taken off already.
fn is_decimal(text: &str) -> bool {
    fn digits(s: &str) -> Option<&str> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        (n > 0).then(|| &s[n..])
    }
    let Some(mut rest) = digits(text) else {
        return false;
    };
    let mut num = false;
    if let Some(frac) = rest.strip_prefix('.') {
        let Some(after) = digits(frac) else {
            return false;
        };
        rest = after;
        num = true;
    }
    if let Some(exp) = rest.strip_prefix('e') {
        let Some(after) = digits(exp.strip_prefix('-').unwrap_or(exp)) else {
            return false;
        };
        rest = after;
        num = true;
    }
    num && rest.is_empty()
}

impl<'a> Parser<'a> {
    /// `f32(` a num `)`, `i` at `f32`. The num is read straight to the
    /// nearest binary32, as the printer's shortest text reads back.
    pub(super) fn f32_literal(&mut self, i: &'a str) -> (&'a str, ElemKind<'a>) {
        let start = self.pos(i);
        let inner = &i["f32(".len()..];
        let (after, text) = take_bytes(inner, |b| is_name_byte(b) || b == b'+');
        let placeholder = ElemKind::F32(F32(0.0));
        let Some(rest) = after.strip_prefix(')') else {
            let at = self.span_from(start, after);
            self.report(ParseError::InvalidF32 {
                reason: "expected a num and `)`".into(),
                at,
            });
            return (after, placeholder);
        };
        let at = self.span_from(start, rest);
        match f32_value(text) {
            Ok(x) => (rest, ElemKind::F32(F32(x))),
            Err(reason) => {
                self.report(ParseError::InvalidF32 { reason, at });
                (rest, placeholder)
            }
        }
    }

    /// `user(0x` a type code `,0x` bytes `)`, `i` at `user`.
    pub(super) fn user_literal(&mut self, i: &'a str) -> (&'a str, ElemKind<'a>) {
        let start = self.pos(i);
        let inner = &i["user(".len()..];
        let (after_code, code) = take_bytes(inner, |b| b.is_ascii_alphanumeric());
        let (after, data) = match after_code.strip_prefix(',') {
            Some(more) => take_bytes(more, |b| b.is_ascii_alphanumeric()),
            None => (after_code, ""),
        };
        let closed = after_code.starts_with(',') && after.starts_with(')');
        // A malformed one still ends at its `)`, if one follows at once.
        let rest = after.strip_prefix(')').unwrap_or(after);
        let at = self.span_from(start, rest);
        let found = match (closed, user_code(code), hex_bytes(data)) {
            (false, ..) => Err("expected `user(0x40,0x...)`".to_string()),
            (_, Err(reason), _) | (_, _, Err(reason)) => Err(reason),
            (true, Ok(code), Ok(data)) => Ok(UserType { code, data }),
        };
        match found {
            Ok(user) => (rest, ElemKind::User(Box::new(user))),
            Err(reason) => {
                self.report(ParseError::InvalidUserType { reason, at });
                let user = UserType {
                    code: 0x40,
                    data: Vec::new(),
                };
                (rest, ElemKind::User(Box::new(user)))
            }
        }
    }
}

/// The binary32 nearest the num `text`; why not, if it is not one or is
/// past binary32's range.
fn f32_value(text: &str) -> Result<f32, String> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(u) => (true, u),
        None => (false, text),
    };
    let magnitude = match unsigned {
        "inf" => f32::INFINITY,
        "nan" => f32::NAN,
        _ if is_decimal(unsigned) => {
            let x: f32 = unsigned
                .parse()
                .map_err(|_| format!("`{text}` is not a num"))?;
            let mantissa = unsigned.split('e').next().unwrap_or(unsigned);
            if x.is_infinite() {
                return Err(format!("`{text}` is too large for a 32-bit num"));
            }
            if x == 0.0 && mantissa.bytes().any(|b| matches!(b, b'1'..=b'9')) {
                return Err(format!("`{text}` is too small for a 32-bit num"));
            }
            x
        }
        _ if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(format!("a num has a `.` or an exponent: `{text}.0`"));
        }
        _ => return Err(format!("`{text}` is not a num")),
    };
    Ok(if negative { -magnitude } else { magnitude })
}

/// A user type code, `0x40` to `0x4f`.
fn user_code(text: &str) -> Result<u8, String> {
    match hex_bytes(text)?[..] {
        [code] if UserType::CODES.contains(&code) => Ok(code),
        _ => Err(format!(
            "the type code is `{text}`; user type codes are 0x40 to 0x4f"
        )),
    }
}

/// The bytes of a `0x` literal.
fn hex_bytes(text: &str) -> Result<Vec<u8>, String> {
    let digits = text
        .strip_prefix("0x")
        .ok_or_else(|| format!("expected `0x` and hex digits, found `{text}`"))?;
    // const_hex would take a second `0x` (`0x0x`) as a prefix.
    if let Some(bad) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(format!("`{bad}` in `{text}` is not a hex digit"));
    }
    const_hex::decode(digits).map_err(|_| format!("`{text}` is not an even number of hex digits"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_nums_as_fql_writes_them() {
        for ok in ["1.5", "1e5", "1.5e-3", "0.0", "3.4028235e38"] {
            assert!(is_decimal(ok), "{ok}");
        }
        for bad in ["1", "1.", ".5", "1e", "1E5", "1e+5", "1.5x", ""] {
            assert!(!is_decimal(bad), "{bad}");
        }
    }

    #[test]
    fn user_bytes_are_hex_digits_after_one_0x() {
        assert_eq!(hex_bytes("0xaabb"), Ok(vec![0xaa, 0xbb]));
        assert_eq!(hex_bytes("0x"), Ok(vec![]));
        assert!(hex_bytes("0x0x").unwrap_err().contains("not a hex digit"));
        assert!(hex_bytes("0x0xab").is_err());
        assert!(hex_bytes("0xabc").unwrap_err().contains("even number"));
    }

    #[test]
    fn f32_values_are_the_nearest_binary32() {
        assert_eq!(f32_value("0.1"), Ok(0.1f32));
        assert_eq!(f32_value("-inf"), Ok(f32::NEG_INFINITY));
        assert!(f32_value("-nan").unwrap().is_sign_negative());
        assert!(f32_value("nan").unwrap().is_sign_positive());
        assert!(f32_value("1e39").unwrap_err().contains("too large"));
        assert!(f32_value("1e-46").unwrap_err().contains("too small"));
        assert!(f32_value("0e-46").is_ok());
        assert!(f32_value("1").unwrap_err().contains("`1.0`"));
        assert!(f32_value("x").is_err());
    }
}
