//! The checks every backend makes before it accepts a write: keys in the
//! legal range and FDB's size limits, with the error raised by the call that
//! broke the rule.
//!
//! FDB's C client accepts an illegal or over-size write silently and fails
//! the commit later with a bare code; checking here instead gives every
//! backend the same typed error, with sizes, at the statement that caused it,
//! and still fails the commit if the caller carries on regardless.

use std::borrow::Cow;

use super::{Error, Limits, MutationType, Result};

/// Keys starting with `0xff` are the system's: `key_outside_legal_range`.
pub fn check_key(key: &[u8]) -> Result<()> {
    if key.first() == Some(&0xff) {
        return Err(Error::KeyOutsideLegalRange);
    }
    Ok(())
}

/// A range to clear or to add as a conflict range must be ordered
/// (`inverted_range`) and end at `0xff` at the latest
/// (`key_outside_legal_range`).
pub fn check_range(begin: &[u8], end: &[u8]) -> Result<()> {
    if begin > end {
        return Err(Error::InvertedRange);
    }
    check_read_range(begin, end)
}

/// A range to read must end at `0xff` at the latest
/// (`key_outside_legal_range`), and so must its begin. It may be empty or
/// inverted: FDB reads nothing from a range whose begin is at or past its
/// end, where a clear of it fails.
pub fn check_read_range(begin: &[u8], end: &[u8]) -> Result<()> {
    if begin > &b"\xff"[..] || end > &b"\xff"[..] {
        return Err(Error::KeyOutsideLegalRange);
    }
    Ok(())
}

/// Splits a versionstamped key or value into the bytes without their
/// 4-byte little-endian offset suffix and the offset, checking that the
/// 10-byte stamp fits.
pub(crate) fn stamp_offset(bytes: &[u8]) -> Result<(Vec<u8>, usize)> {
    let Some(split) = bytes.len().checked_sub(4) else {
        return Err(Error::InvalidOperation(
            "a versionstamped key or value needs a 4-byte offset at its end".into(),
        ));
    };
    let (body, suffix) = bytes.split_at(split);
    let offset = u32::from_le_bytes(suffix.try_into().expect("4 bytes")) as usize;
    if offset + 10 > body.len() {
        return Err(Error::InvalidOperation(format!(
            "versionstamp offset {offset} leaves no room for 10 bytes in {} bytes",
            body.len()
        )));
    }
    Ok((body.to_vec(), offset))
}

/// The key an atomic operation writes as it will be stored (a versionstamped
/// key without its offset suffix), after checking the operation's shape.
pub(crate) fn mutation_key<'a>(
    key: &'a [u8],
    param: &[u8],
    op: MutationType,
) -> Result<(Cow<'a, [u8]>, usize)> {
    match op {
        MutationType::SetVersionstampedKey => {
            let (body, _) = stamp_offset(key)?;
            check_key(&body)?;
            Ok((Cow::Owned(body), param.len()))
        }
        MutationType::SetVersionstampedValue => {
            check_key(key)?;
            let (body, _) = stamp_offset(param)?;
            Ok((Cow::Borrowed(key), body.len()))
        }
        _ => {
            check_key(key)?;
            Ok((Cow::Borrowed(key), param.len()))
        }
    }
}

/// The bytes a transaction has written so far, counted as FDB counts them
/// against its limit, and the error that dooms its commit, if any.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tally {
    size: usize,
    poisoned: Option<Error>,
}

impl Tally {
    /// Admits a write of `key` with a value of `value_len` bytes whose
    /// mutation is `bytes` long; its conflict range (the key and the key
    /// after it) counts too, as in FDB.
    pub fn admit(
        &mut self,
        limits: &Limits,
        key: &[u8],
        value_len: usize,
        bytes: usize,
    ) -> Result<()> {
        if let Some(e) = &self.poisoned {
            return Err(e.clone());
        }
        let bytes = bytes + 2 * key.len() + 1;
        let err = if key.len() > limits.key {
            Error::KeyTooLarge {
                size: key.len(),
                limit: limits.key,
            }
        } else if value_len > limits.value {
            Error::ValueTooLarge {
                size: value_len,
                limit: limits.value,
            }
        } else if self.size + bytes > limits.transaction {
            Error::TransactionTooLarge {
                size: self.size + bytes,
                limit: limits.transaction,
            }
        } else {
            self.size += bytes;
            return Ok(());
        };
        self.poison(err.clone());
        Err(err)
    }

    /// Counts a manual write conflict range.
    pub fn add(&mut self, bytes: usize) {
        self.size += bytes;
    }

    /// Bytes counted so far.
    #[cfg_attr(not(feature = "fdb"), allow(dead_code))]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Dooms the commit with `error`, as FDB does with an error it defers
    /// to the commit; the first one stays.
    pub fn poison(&mut self, error: Error) {
        self.poisoned.get_or_insert(error);
    }

    /// The error that dooms the commit, if a write failed.
    pub fn poisoned(&self) -> Option<&Error> {
        self.poisoned.as_ref()
    }
}
