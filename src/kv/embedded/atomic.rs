//! The arithmetic of FDB's atomic operations, applied at commit.

use crate::kv::MutationType;

#[cfg(test)]
thread_local! {
    /// How many operations this thread applied: what the tests of a
    /// transaction's cost count.
    pub(crate) static APPLIED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The 10-byte versionstamp of a commit: the version, big-endian, then a
/// batch order that is always 0 here (one commit per version).
pub(crate) fn stamp_of(version: u64) -> [u8; 10] {
    let mut stamp = [0u8; 10];
    stamp[..8].copy_from_slice(&version.to_be_bytes());
    stamp
}

/// The new value after `op` with `param` on the current value; `None`
/// clears the key.
///
/// As in FDB, a missing value takes the parameter as is (except
/// `CompareAndClear`, which leaves it missing), and the integer and bitwise
/// operations work at the parameter's width: the current value is
/// zero-padded or truncated to it.
pub(crate) fn apply(
    op: MutationType,
    current: Option<&[u8]>,
    param: &[u8],
    value_limit: usize,
) -> Option<Vec<u8>> {
    use MutationType::*;
    #[cfg(test)]
    APPLIED.with(|n| n.set(n.get() + 1));
    let Some(cur) = current else {
        return match op {
            CompareAndClear => None,
            _ => Some(param.to_vec()),
        };
    };
    let at_width = |cur: &[u8]| {
        let mut v = cur[..cur.len().min(param.len())].to_vec();
        v.resize(param.len(), 0);
        v
    };
    Some(match op {
        Add => {
            let mut out = at_width(cur);
            let mut carry = 0u16;
            for (o, p) in out.iter_mut().zip(param) {
                let sum = u16::from(*o) + u16::from(*p) + carry;
                *o = sum as u8;
                carry = sum >> 8;
            }
            out
        }
        BitAnd => bitwise(at_width(cur), param, |a, b| a & b),
        BitOr => bitwise(at_width(cur), param, |a, b| a | b),
        BitXor => bitwise(at_width(cur), param, |a, b| a ^ b),
        AppendIfFits => {
            if cur.len() + param.len() <= value_limit {
                [cur, param].concat()
            } else {
                cur.to_vec()
            }
        }
        Max | Min => {
            let cur = at_width(cur);
            let cur_larger = le_cmp(&cur, param) == std::cmp::Ordering::Greater;
            if cur_larger == (op == Max) {
                cur
            } else {
                param.to_vec()
            }
        }
        ByteMin => cur.min(param).to_vec(),
        ByteMax => cur.max(param).to_vec(),
        CompareAndClear => {
            if cur == param {
                return None;
            }
            cur.to_vec()
        }
        SetVersionstampedKey | SetVersionstampedValue => param.to_vec(),
    })
}

fn bitwise(mut a: Vec<u8>, b: &[u8], f: impl Fn(u8, u8) -> u8) -> Vec<u8> {
    for (x, y) in a.iter_mut().zip(b) {
        *x = f(*x, *y);
    }
    a
}

/// Compares equal-length little-endian unsigned integers.
fn le_cmp(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.iter().rev().cmp(b.iter().rev())
}

/// Writes the stamp at `offset`.
pub(crate) fn fill_stamp(mut body: Vec<u8>, offset: usize, stamp: &[u8; 10]) -> Vec<u8> {
    body[offset..offset + 10].copy_from_slice(stamp);
    body
}

/// Where the key `body` may land once the commit writes its stamp at
/// `offset`: from the key with the smallest stamp it can get to the key
/// after the one with a stamp of `0xff` bytes, cut at the end of the user
/// keyspace. FDB's client marks this range unreadable
/// (`getVersionstampKeyRange`), its smallest stamp being that of the read
/// version when one was taken (a commit comes after it), else zeros.
pub(crate) fn stamp_range(
    body: &[u8],
    offset: usize,
    read_version: Option<u64>,
) -> (Vec<u8>, Vec<u8>) {
    let least = read_version.map_or([0; 10], stamp_of);
    let begin = fill_stamp(body.to_vec(), offset, &least);
    let mut end = fill_stamp(body.to_vec(), offset, &[0xff; 10]);
    end.push(0);
    let end = end.min(vec![0xff]);
    (begin, end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kv::admit::stamp_offset;
    use MutationType::*;

    fn ap(op: MutationType, cur: Option<&[u8]>, p: &[u8]) -> Option<Vec<u8>> {
        apply(op, cur, p, 100_000)
    }

    #[test]
    fn add_is_little_endian_at_the_parameter_width() {
        assert_eq!(ap(Add, None, &[5, 0]), Some(vec![5, 0]));
        assert_eq!(ap(Add, Some(&[0xff, 0]), &[1, 0]), Some(vec![0, 1]));
        assert_eq!(ap(Add, Some(&[0xff, 0xff]), &[1, 0]), Some(vec![0, 0]));
        assert_eq!(ap(Add, Some(&[1]), &[1, 0, 0, 0]), Some(vec![2, 0, 0, 0]));
        assert_eq!(ap(Add, Some(&[1, 2, 3]), &[1]), Some(vec![2]));
        let minus_one = (-1i64).to_le_bytes();
        let r = ap(Add, Some(&10i64.to_le_bytes()), &minus_one).unwrap();
        assert_eq!(i64::from_le_bytes(r.try_into().unwrap()), 9);
    }

    #[test]
    fn min_max_compare_little_endian() {
        assert_eq!(ap(Max, Some(&[0, 1]), &[0xff, 0]), Some(vec![0, 1]));
        assert_eq!(ap(Min, Some(&[0, 1]), &[0xff, 0]), Some(vec![0xff, 0]));
        assert_eq!(ap(ByteMax, Some(b"b"), b"ab"), Some(b"b".to_vec()));
        assert_eq!(ap(ByteMin, Some(b"b"), b"ab"), Some(b"ab".to_vec()));
    }

    #[test]
    fn bitwise_append_and_compare_and_clear() {
        assert_eq!(ap(BitAnd, Some(&[0b1100]), &[0b1010]), Some(vec![0b1000]));
        assert_eq!(ap(BitOr, Some(&[0b1100]), &[0b1010]), Some(vec![0b1110]));
        assert_eq!(ap(BitXor, Some(&[0b1100]), &[0b1010]), Some(vec![0b0110]));
        assert_eq!(ap(AppendIfFits, Some(b"ab"), b"c"), Some(b"abc".to_vec()));
        assert_eq!(
            apply(AppendIfFits, Some(b"ab"), b"c", 2),
            Some(b"ab".to_vec())
        );
        assert_eq!(ap(CompareAndClear, Some(b"x"), b"x"), None);
        assert_eq!(ap(CompareAndClear, Some(b"y"), b"x"), Some(b"y".to_vec()));
        assert_eq!(ap(CompareAndClear, None, b"x"), None);
    }

    #[test]
    fn stamp_offsets_are_checked() {
        let mut key = b"k\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff".to_vec();
        key.extend(1u32.to_le_bytes());
        let (body, off) = stamp_offset(&key).unwrap();
        assert_eq!((body.len(), off), (11, 1));
        let stamped = fill_stamp(body, off, &[7; 10]);
        assert_eq!(&stamped[1..], &[7; 10]);
        assert!(stamp_offset(b"abc").is_err());
        let mut short = b"k".to_vec();
        short.extend(0u32.to_le_bytes());
        assert!(stamp_offset(&short).is_err());
    }

    /// FDB's `getVersionstampKeyRange`: the stamp's bytes run from the
    /// read version's stamp (zeros without one) to `0xff`s, and the range
    /// ends just after the highest key, or at `0xff`.
    #[test]
    fn a_stamped_key_may_land_from_the_read_version_to_all_ones() {
        let (b, e) = stamp_range(b"k..........!", 1, None);
        assert_eq!(b, [&b"k"[..], &[0; 10], b"!"].concat());
        assert_eq!(e, [&b"k"[..], &[0xff; 10], b"!\0"].concat());
        let (b, _) = stamp_range(b"k..........!", 1, Some(0x0102));
        assert_eq!(
            b,
            [&b"k"[..], &[0, 0, 0, 0, 0, 0, 1, 2, 0, 0], b"!"].concat()
        );
        let (b, e) = stamp_range(&[b'.'; 10], 0, None);
        assert_eq!(
            (b, e),
            (vec![0; 10], vec![0xff]),
            "cut at the keyspace's end"
        );
    }
}
