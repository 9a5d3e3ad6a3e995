//! The x87 80-bit extended format, for nums stored as `f80`.
//!
//! An extended float is a sign bit, a 15-bit exponent (bias 16383) and a
//! 64-bit significand whose top bit, the integer bit, is explicit. Its
//! range and precision hold every binary64 value, so writing a num is
//! exact; reading one back rounds to the nearest binary64, ties to even,
//! as the x87 `fst` instruction does: past binary64's range it becomes
//! infinite, below it a subnormal or zero. A NaN keeps its sign and the
//! top 52 bits of its payload, and stays a NaN.
//!
//! Stored bytes are little-endian: the significand, then the sign and
//! exponent, as x87 holds them in memory.
//!
//! Written here rather than taken from a crate: the crates that convert
//! this format either bind a C soft-float library (a C build for two
//! small functions) or are unmaintained first releases, and the
//! conversion is a few shifts, checked against bytes a C
//! `long double` wrote (tests/codec) and by round trips of every kind of
//! binary64 (below).

/// Exponent bias of the extended format.
const BIAS: i32 = 16383;
/// The integer bit of the significand.
const INTEGER: u64 = 1 << 63;

/// The extended float equal to `x`, little-endian.
pub(super) fn from_f64(x: f64) -> [u8; 10] {
    let bits = x.to_bits();
    let sign = u16::from(x.is_sign_negative()) << 15;
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (exp, significand) = match exp {
        0x7ff => (0x7fff, INTEGER | frac << 11),
        0 if frac == 0 => (0, 0),
        // A subnormal binary64 is a normal extended float.
        0 => {
            let shift = frac.leading_zeros();
            (BIAS - 1022 - (shift as i32 - 11), frac << shift)
        }
        _ => (exp - 1023 + BIAS, INTEGER | frac << 11),
    };
    let mut out = [0; 10];
    out[..8].copy_from_slice(&significand.to_le_bytes());
    out[8..].copy_from_slice(&(sign | exp as u16).to_le_bytes());
    out
}

/// The binary64 nearest the extended float in `bytes`, little-endian;
/// `None` for the encodings x87 itself refuses as operands: a nonzero
/// exponent with the integer bit clear (unnormals, pseudo-infinities,
/// pseudo-NaNs).
pub(super) fn to_f64(bytes: [u8; 10]) -> Option<f64> {
    let mut significand = [0; 8];
    significand.copy_from_slice(&bytes[..8]);
    let significand = u64::from_le_bytes(significand);
    let top = u16::from_le_bytes([bytes[8], bytes[9]]);
    let negative = top & 0x8000 != 0;
    let exp = i32::from(top & 0x7fff);
    let magnitude = match exp {
        0x7fff if significand & INTEGER == 0 => return None,
        0x7fff if significand == INTEGER => f64::INFINITY,
        0x7fff => {
            let payload = (significand & !INTEGER) >> 11;
            // A payload only in the bits binary64 lacks still makes a
            // NaN: a quiet one.
            let payload = if payload == 0 { 1 << 51 } else { payload };
            f64::from_bits(0x7ff << 52 | payload)
        }
        _ if exp != 0 && significand & INTEGER == 0 => return None,
        // A denormal, or a pseudo-denormal whose integer bit is set,
        // scales as exponent 1.
        _ => round(significand, exp.max(1) - BIAS - 63),
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// `significand` × 2^`k` rounded to the nearest binary64, ties to even.
fn round(significand: u64, k: i32) -> f64 {
    if significand == 0 {
        return 0.0;
    }
    let lead = significand.leading_zeros() as i32;
    let (m, k) = (u128::from(significand << lead), k - lead);
    // The value is m × 2^k with m in [2^63, 2^64); the unit of the last
    // place kept is 2^u, smallest at the subnormals' 2^-1074.
    let u = (k + 63 - 52).max(-1074);
    let shift = (u - k).clamp(0, 66) as u32;
    let mut q = m >> shift;
    let rest = m & ((1 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rest > half || (rest == half && q & 1 == 1) {
        q += 1;
    }
    // Below 2^52 q is a subnormal's significand; from 2^52 its top bit
    // carries into the exponent field, a rounding carry included.
    let bits = ((u + 1074) as u128) << 52;
    match u64::try_from(bits + q) {
        Ok(bits) if bits < 0x7ff << 52 => f64::from_bits(bits),
        _ => f64::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits()
    }

    #[test]
    fn known_values_have_their_x87_bytes() {
        // 1.0: exponent 3fff, integer bit only.
        assert_eq!(from_f64(1.0), [0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f]);
        assert_eq!(from_f64(-1.5), [0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0xbf]);
        assert_eq!(from_f64(0.0), [0; 10]);
        assert_eq!(from_f64(-0.0)[9], 0x80);
        assert_eq!(
            from_f64(f64::INFINITY),
            [0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x7f]
        );
        assert_eq!(from_f64(f64::NAN), [0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0x7f]);
        // The smallest subnormal, 2^-1074: exponent 16383 - 1074.
        let tiny = from_f64(f64::from_bits(1));
        assert_eq!(u16::from_le_bytes([tiny[8], tiny[9]]), 16383 - 1074);
        assert_eq!(tiny[7], 0x80);
    }

    #[test]
    fn special_values_round_trip() {
        for x in [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            -f64::from_bits(1),
            f64::from_bits((1 << 52) - 1),
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
        ] {
            assert!(same(to_f64(from_f64(x)).unwrap(), x), "{x:e}");
        }
    }

    /// The binary64 of the extended value with this sign and exponent
    /// word and this significand (integer bit included), if it is one.
    fn ext(exp: u16, significand: u64) -> Option<f64> {
        let mut b = [0; 10];
        b[..8].copy_from_slice(&significand.to_le_bytes());
        b[8..].copy_from_slice(&exp.to_le_bytes());
        to_f64(b)
    }

    /// Precision and range an f64 does not have round to the nearest.
    #[test]
    fn wider_values_round_to_nearest_even() {
        // 1 + 2^-53 is a tie: to even, 1.0; a bit more rounds up.
        assert_eq!(ext(0x3fff, INTEGER | 1 << 10), Some(1.0));
        assert_eq!(ext(0x3fff, INTEGER | 1 << 10 | 1), Some(1.0 + f64::EPSILON));
        // 1 + 3 × 2^-53 ties to the even 1 + 2^-51.
        assert_eq!(
            ext(0x3fff, INTEGER | 3 << 10),
            Some(1.0 + 2.0 * f64::EPSILON)
        );
        // All ones rounds up to 2.0.
        assert_eq!(ext(0x3fff, u64::MAX), Some(2.0));
        // Past binary64's range: infinite; far below it: zero.
        assert_eq!(ext(0x4400, INTEGER), Some(f64::INFINITY));
        assert_eq!(ext(0x8000 | 0x4400, INTEGER), Some(f64::NEG_INFINITY));
        assert_eq!(ext(1, INTEGER), Some(0.0));
        assert!(same(ext(0x8001, INTEGER).unwrap(), -0.0));
        // Half the smallest subnormal is a tie to zero; a bit more, up.
        assert_eq!(ext(16383 - 1075, INTEGER), Some(0.0));
        assert_eq!(ext(16383 - 1075, INTEGER | 1), Some(f64::from_bits(1)));
        // The largest f64 plus half an ulp rounds to infinity.
        let max = from_f64(f64::MAX);
        let mut over = u64::from_le_bytes(max[..8].try_into().unwrap());
        over |= 1 << 10;
        assert_eq!(
            ext(u16::from_le_bytes([max[8], max[9]]), over),
            Some(f64::INFINITY)
        );
        // Denormals and pseudo-denormals are far below binary64.
        assert_eq!(ext(0, 1), Some(0.0));
        assert_eq!(ext(0, INTEGER), Some(0.0));
    }

    #[test]
    fn invalid_encodings_are_refused() {
        assert_eq!(ext(0x3fff, 1 << 62), None);
        assert_eq!(ext(0x7fff, 0), None);
        assert_eq!(ext(0x7fff, 1), None);
    }

    proptest! {
        #[test]
        fn every_f64_round_trips(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            let back = to_f64(from_f64(x)).unwrap();
            if x.is_nan() {
                // Signaling NaNs with a payload keep it; every NaN keeps
                // its sign.
                prop_assert!(back.is_nan());
                prop_assert_eq!(back.is_sign_negative(), x.is_sign_negative());
                prop_assert_eq!(back.to_bits() & ((1 << 51) - 1), bits & ((1 << 51) - 1));
            } else {
                prop_assert_eq!(back.to_bits(), bits);
            }
        }

        #[test]
        fn subnormals_round_trip(frac in 1u64..(1 << 52), negative in any::<bool>()) {
            let x = f64::from_bits(frac | u64::from(negative) << 63);
            prop_assert_eq!(to_f64(from_f64(x)).unwrap().to_bits(), x.to_bits());
        }

        /// Reading rounds as the host's arithmetic does: the extended
        /// value of a product of two f64s, exact, back to binary64.
        #[test]
        fn reads_round_like_f64_arithmetic(a in 1u64..(1 << 32), b in 1u64..(1 << 32), e in -1100i32..1100) {
            // a × b fits 64 bits exactly; scaled by 2^e.
            let product = a * b;
            let lead = product.leading_zeros();
            let significand = product << lead;
            let exp = 63 - lead as i32 + e + BIAS;
            prop_assume!(exp > 0 && exp < 0x7fff);
            let mut bytes = [0; 10];
            bytes[..8].copy_from_slice(&significand.to_le_bytes());
            bytes[8..].copy_from_slice(&(exp as u16).to_le_bytes());
            // The same value through f64: a × b rounds once, the scale is exact
            // unless it leaves the normal range, so compare only there.
            let expected = (a as f64) * (b as f64);
            let scaled = expected * 2f64.powi(e);
            prop_assume!(scaled.is_normal());
            prop_assert_eq!(to_f64(bytes).unwrap(), scaled);
        }
    }
}
