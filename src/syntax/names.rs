//! What a name is: `[A-Za-z_][A-Za-z0-9_.-]*`. The lexer reads names by
//! these rules and the printer writes a directory element bare exactly
//! when they hold, so both take them from here.

/// Byte classes, looked up rather than computed: the lexer asks these
/// questions of every byte.
const NAME: u8 = 1;
const NAME_START: u8 = 2;
static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphabetic() || c == b'_' {
            table[b] = NAME | NAME_START;
        } else if c.is_ascii_digit() || c == b'-' || c == b'.' {
            table[b] = NAME;
        }
        b += 1;
    }
    table
};

/// Whether `b` may appear in a name after its first character.
#[inline]
pub(super) fn is_name_byte(b: u8) -> bool {
    CLASS[usize::from(b)] & NAME != 0
}

/// Whether `b` may start a name.
#[inline]
pub(super) fn is_name_start(b: u8) -> bool {
    CLASS[usize::from(b)] & NAME_START != 0
}

/// Whether `text` is a valid name: `[A-Za-z_][A-Za-z0-9_.-]*`.
pub fn is_name(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty() && is_name_start(b[0]) && b[1..].iter().all(|&c| is_name_byte(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_letters_digits_and_three_marks_after_a_letter() {
        for name in ["a", "_", "A_b-c.9", "users", "x1"] {
            assert!(is_name(name), "{name}");
        }
        for not in ["", "1a", "-a", ".a", "a b", "a/b", "é", "a\"", "a:b"] {
            assert!(!is_name(not), "{not}");
        }
    }
}
