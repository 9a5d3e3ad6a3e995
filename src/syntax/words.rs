//! Byte scans eight bytes at a time, with word arithmetic.
//!
//! Strings and names are short, and most of the text the parser, the
//! printer and the decoder look at: a byte-at-a-time loop mispredicts its
//! exit on every one of them, and a vector search costs more to set up than
//! it saves on a few bytes. These scans branch once per word.

/// `0x01` in every byte.
pub(crate) const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
/// `0x80` in every byte.
pub(crate) const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// The high bit of every byte of `w` that is zero. Bytes above the first
/// zero may be marked wrongly, so only the lowest mark may be used.
#[inline(always)]
pub(crate) fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGHS
}

/// The little-endian word of eight bytes.
#[inline(always)]
pub(crate) fn word(chunk: &[u8]) -> u64 {
    u64::from_le_bytes(chunk.try_into().expect("eight bytes"))
}

/// Where the first byte that a string literal must escape is (`"`, `\`
/// or a line feed), or the length of `b` when there is none.
#[inline]
pub(crate) fn first_escape(b: &[u8]) -> usize {
    let mut n = 0;
    while let Some(chunk) = b.get(n..n + 8) {
        let w = word(chunk);
        let hits = zero_bytes(w ^ (ONES * u64::from(b'"')))
            | zero_bytes(w ^ (ONES * u64::from(b'\\')))
            | zero_bytes(w ^ (ONES * u64::from(b'\n')));
        if hits != 0 {
            return n + (hits.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + b[n..]
        .iter()
        .position(|&c| matches!(c, b'"' | b'\\' | b'\n'))
        .unwrap_or(b.len() - n)
}

#[cfg(test)]
mod tests {
    use super::first_escape;

    /// Every escape at every position is found first, whatever bytes
    /// stand around it; near misses and bytes with the high bit are not
    /// escapes.
    #[test]
    fn escapes_are_found_wherever_they_stand() {
        for len in 0..40 {
            assert_eq!(first_escape(&vec![b'a'; len]), len);
            assert_eq!(first_escape(&vec![0xff; len]), len);
            assert_eq!(first_escape(&vec![0x00; len]), len);
            for at in 0..len {
                for b in [b'"', b'\\', b'\n'] {
                    let mut bytes = vec![0xffu8; len];
                    bytes[at] = b;
                    bytes[len - 1] = b'"';
                    assert_eq!(first_escape(&bytes), at, "{len} {at} {b}");
                }
                let mut near = vec![b'a'; len];
                near[at] = b'"' + 1;
                assert_eq!(first_escape(&near), len);
            }
        }
    }
}
