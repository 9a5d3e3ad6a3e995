//! Fixed-width values: binary ints and floats, and the raw bytes of
//! strings, uuids and versionstamps.
//!
//! These forms carry no type information, so a read must name the same
//! layout that the write used; bytes of any other length, or text that is
//! not UTF-8, simply do not match.

use num_bigint::BigInt;

use crate::syntax::ast::{ElemKind, Int, Num, Span, Type, Vstamp};

use super::Error;
use super::options::{IntLayout, NumLayout, NumWidth};

/// The bytes of an int at a fixed width. A value outside the width's range
/// is an error: writing fewer bits than the value has would store another
/// number.
pub(super) fn encode_int(n: &Int, layout: IntLayout, at: Span) -> Result<Vec<u8>, Error> {
    let bits = layout.width.bits();
    let (lo, hi) = if layout.unsigned {
        (0i128, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    };
    let value = match n {
        Int::Small(v) => Some(i128::from(*v)),
        Int::Big(v) => i128::try_from(&**v).ok(),
    };
    let Some(value) = value.filter(|v| (lo..=hi).contains(v)) else {
        let sign = if layout.unsigned {
            "an unsigned"
        } else {
            "a signed"
        };
        return Err(Error::OutOfRange {
            value: n.to_string(),
            encoding: format!("{sign} {bits}-bit int"),
            at,
            help: format!("it holds {lo} to {hi}"),
        });
    };
    // Two's complement truncation of an in-range value is exact for both
    // signed and unsigned layouts.
    let mut bytes = value.to_le_bytes()[..bits as usize / 8].to_vec();
    if layout.big_endian {
        bytes.reverse();
    }
    Ok(bytes)
}

/// The int stored at a fixed width, if `bytes` has exactly that width.
pub(super) fn decode_int(bytes: &[u8], layout: IntLayout) -> Option<Int> {
    let width = layout.width.bits() as usize / 8;
    if bytes.len() != width {
        return None;
    }
    let mut le = [0u8; 8];
    le[..width].copy_from_slice(bytes);
    if layout.big_endian {
        le[..width].reverse();
    }
    let negative = !layout.unsigned && le[width - 1] & 0x80 != 0;
    if negative {
        le[width..].fill(0xff);
    }
    let unsigned = u64::from_le_bytes(le);
    Some(match i64::try_from(unsigned) {
        Ok(n) => Int::Small(n),
        Err(_) if negative => Int::Small(unsigned as i64),
        Err(_) => Int::from_big(BigInt::from(unsigned)),
    })
}

/// The bytes of a num at a fixed width. Rounding to 32 bits is what a
/// 32-bit float is for; overflowing to infinity is not, and is an error.
pub(super) fn encode_num(x: f64, layout: NumLayout, at: Span) -> Result<Vec<u8>, Error> {
    let mut bytes = if layout.width == NumWidth::F80 {
        // Exact: the extended format holds every binary64.
        super::extended::from_f64(x).to_vec()
    } else if layout.width == NumWidth::F32 {
        let narrow = x as f32;
        if x.is_finite() && narrow.is_infinite() {
            return Err(Error::OutOfRange {
                value: Num(x).to_string(),
                encoding: "a 32-bit num".into(),
                at,
                help: format!("a 32-bit num holds magnitudes up to {:e}", f32::MAX),
            });
        }
        narrow.to_le_bytes().to_vec()
    } else {
        x.to_le_bytes().to_vec()
    };
    if layout.big_endian {
        bytes.reverse();
    }
    Ok(bytes)
}

/// The num stored at a fixed width, if `bytes` has exactly that width; an
/// 80-bit one rounded to the nearest binary64, and `None` for an 80-bit
/// encoding that is no number (see [`super::extended`]).
pub(super) fn decode_num(bytes: &[u8], layout: NumLayout) -> Option<f64> {
    let mut buf = bytes.to_vec();
    if layout.big_endian {
        buf.reverse();
    }
    match (layout.width, buf.as_slice()) {
        (NumWidth::F32, &[a, b, c, d]) => Some(f64::from(f32::from_le_bytes([a, b, c, d]))),
        (NumWidth::F64, &[a, b, c, d, e, f, g, h]) => {
            Some(f64::from_le_bytes([a, b, c, d, e, f, g, h]))
        }
        (NumWidth::F80, bytes) => super::extended::to_f64(bytes.try_into().ok()?),
        _ => None,
    }
}

/// The raw bytes of a `str`, `uuid` or `vstamp`, and whether they hold an
/// incomplete stamp (at offset 0). An incomplete stamp's transaction
/// version is ten zero bytes until the commit overwrites them, as the Go
/// fdb-mutex heartbeat writes it. The user version is big-endian, as in the
/// tuple layer. `None` for any other type.
pub(super) fn encode_raw(kind: &ElemKind) -> Option<(Vec<u8>, bool)> {
    Some(match kind {
        ElemKind::Str(s) => (s.as_bytes().to_vec(), false),
        ElemKind::Uuid(u) => (u.as_bytes().to_vec(), false),
        ElemKind::Vstamp(Vstamp { tx, user }) => {
            let mut bytes = tx.unwrap_or([0; 10]).to_vec();
            bytes.extend_from_slice(&user.to_be_bytes());
            (bytes, tx.is_none())
        }
        ElemKind::Vstamp80(tx) => (tx.to_vec(), false),
        _ => return None,
    })
}

/// A raw `str`, `uuid` or `vstamp`, if `bytes` can be one.
pub(super) fn decode_raw(bytes: &[u8], ty: Type) -> Option<ElemKind<'static>> {
    match ty {
        Type::Str => std::str::from_utf8(bytes)
            .ok()
            .map(|s| ElemKind::Str(s.to_owned().into())),
        Type::Uuid => uuid::Uuid::from_slice(bytes).ok().map(ElemKind::Uuid),
        Type::Vstamp => {
            let (tx, user) = bytes.split_first_chunk::<10>()?;
            let user: [u8; 2] = user.try_into().ok()?;
            Some(ElemKind::Vstamp(Vstamp {
                tx: Some(*tx),
                user: u16::from_be_bytes(user),
            }))
        }
        Type::Vstamp80 => Some(ElemKind::Vstamp80(bytes.try_into().ok()?)),
        _ => None,
    }
}
