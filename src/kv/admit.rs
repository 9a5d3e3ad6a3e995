//! The checks every backend makes before it accepts a write: keys in the
//! legal range and FDB's size limits, with the error raised by the call that
//! broke the rule.
//!
//! FDB's C client accepts an illegal or over-size write silently and fails
//! the commit later with a bare code; checking here instead gives every
//! backend the same typed error, with sizes, at the statement that caused it,
//! and still fails the commit if the caller carries on regardless.
//!
//! Sizes are counted as FDB's client counts them against its transaction
//! limit (`Transaction::getSize` in `NativeAPI.actor.cpp`): the bytes of
//! every mutation's parameters and of every conflict range's keys, plus the
//! size of the structure that holds each. A versionstamped key or value
//! counts with its 4-byte offset, as the client sends it so.

use super::{Error, Limits, MutationType, Result};

/// What FDB 7.3's client adds for each mutation besides its parameters:
/// `sizeof(MutationRef)` on a 64-bit build (a type byte, two `StringRef`s,
/// an optional checksum and index, a flag).
const MUTATION_OVERHEAD: usize = 56;

/// What it adds for each conflict range besides its keys:
/// `sizeof(KeyRangeRef)`, two `StringRef`s.
const RANGE_OVERHEAD: usize = 32;

/// The bytes a mutation with parameters of these lengths adds to a
/// transaction's size.
pub(crate) fn mutation_size(param1: usize, param2: usize) -> usize {
    MUTATION_OVERHEAD + param1 + param2
}

/// The bytes a conflict range with keys of these lengths adds.
pub(crate) fn range_size(begin: usize, end: usize) -> usize {
    RANGE_OVERHEAD + begin + end
}

/// The bytes the conflict range of one key (the key and the key after it)
/// adds.
pub(crate) fn key_range_size(key: usize) -> usize {
    range_size(key, key + 1)
}

/// FDB's metadata version: a system key that any transaction may read
/// without an option, and that a transaction changes only by writing a
/// versionstamp into it (with [`METADATA_VERSION_STAMP`]), so that a
/// client can keep metadata of its own cached across transactions and
/// know, by reading the key, whether anyone who changed it said so.
pub const METADATA_VERSION_KEY: &[u8] = b"\xff/metadataVersion";

/// The one parameter FDB takes for the versionstamped value of
/// [`METADATA_VERSION_KEY`]: a 10-byte stamp at offset 0.
pub const METADATA_VERSION_STAMP: [u8; 14] = [0; 14];

/// Keys starting with `0xff` are the system's: `key_outside_legal_range`.
pub fn check_key(key: &[u8]) -> Result<()> {
    if key.first() == Some(&0xff) {
        return Err(Error::KeyOutsideLegalRange);
    }
    Ok(())
}

/// How far past the user keyspace a transaction may reach: FDB's
/// `read_system_keys` and `access_system_keys` options open the system
/// keys, from `0xff` up to the special keys at `0xffff`, to reads and to
/// reads and writes. The special keys are no store's: they are answered
/// apart, whatever the option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum SystemKeys {
    /// Neither option: keys end at `0xff`.
    #[default]
    Closed,
    /// `read_system_keys`.
    Read,
    /// `access_system_keys`.
    Access,
}

/// Where the special keys begin.
pub const SPECIAL_KEYS: &[u8] = b"\xff\xff";

impl SystemKeys {
    /// The end of the keys a read may name.
    pub fn read_end(self) -> &'static [u8] {
        match self {
            SystemKeys::Closed => b"\xff",
            SystemKeys::Read | SystemKeys::Access => SPECIAL_KEYS,
        }
    }

    /// The end of the keys a write may name.
    pub fn write_end(self) -> &'static [u8] {
        match self {
            SystemKeys::Access => SPECIAL_KEYS,
            SystemKeys::Closed | SystemKeys::Read => b"\xff",
        }
    }

    /// A key to write: before [`SystemKeys::write_end`].
    pub fn check_write(self, key: &[u8]) -> Result<()> {
        match self {
            SystemKeys::Access if key < SPECIAL_KEYS => Ok(()),
            _ => check_key(key),
        }
    }

    /// A key to set: [`SystemKeys::check_write`], but the metadata
    /// version is never set, only stamped: `client_invalid_operation`.
    pub fn check_set(self, key: &[u8]) -> Result<()> {
        if key == METADATA_VERSION_KEY {
            return Err(metadata_version_misuse());
        }
        self.check_write(key)
    }

    /// A key to read alone: before [`SystemKeys::read_end`], or the
    /// metadata version, which FDB lets every transaction read.
    pub fn check_get(self, key: &[u8]) -> Result<()> {
        if key == METADATA_VERSION_KEY {
            return Ok(());
        }
        self.check_read(key, key)
    }

    /// A range to clear: ordered, and ending at [`SystemKeys::write_end`]
    /// at the latest.
    pub fn check_clear(self, begin: &[u8], end: &[u8]) -> Result<()> {
        if begin > end {
            return Err(Error::InvertedRange);
        }
        let limit = self.write_end();
        if begin > limit || end > limit {
            return Err(Error::KeyOutsideLegalRange);
        }
        Ok(())
    }

    /// A conflict range: ordered, and ending where the keys it guards may
    /// be read (a read conflict range) or written (a write conflict range)
    /// at the latest.
    pub fn check_conflict(self, begin: &[u8], end: &[u8], read: bool) -> Result<()> {
        if !read {
            return self.check_clear(begin, end);
        }
        if begin > end {
            return Err(Error::InvertedRange);
        }
        self.check_read(begin, end)
    }

    /// A range to read: ending at [`SystemKeys::read_end`] at the latest.
    pub fn check_read(self, begin: &[u8], end: &[u8]) -> Result<()> {
        let limit = self.read_end();
        if begin > limit || end > limit {
            return Err(Error::KeyOutsideLegalRange);
        }
        Ok(())
    }
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

/// Whether a clear of `key` does anything: a key longer than `limit`
/// cannot be stored, so FDB drops a clear of one, with no error and no
/// conflict range.
pub fn clears_a_storable_key(key: &[u8], limit: usize) -> bool {
    key.len() <= limit
}

/// The bounds of a range clear as FDB sends them: a bound longer than
/// `limit` is cut to `limit + 1` bytes. The keys between a bound and its
/// cut are all longer than `limit`, so none can be stored, and the range
/// clears the same keys without failing on the bound's length.
pub fn storable_bounds<'a>(begin: &'a [u8], end: &'a [u8], limit: usize) -> (&'a [u8], &'a [u8]) {
    let cut = |k: &'a [u8]| &k[..k.len().min(limit + 1)];
    (cut(begin), cut(end))
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

/// What FDB answers a write of the metadata version other than its stamp.
fn metadata_version_misuse() -> Error {
    Error::InvalidOperation(
        "\\xff/metadataVersion only takes a versionstamped value with a 10-byte stamp at offset 0"
            .into(),
    )
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

/// One write as the limits see it: the key and value checked against
/// theirs, and the bytes it adds to the transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Write {
    /// The key's length, checked against the key limit.
    key: usize,
    /// The value's length, checked against the value limit.
    value: usize,
    /// What the write adds to the transaction's size.
    bytes: usize,
}

impl Write {
    /// A set of `key` to `value`, with its write conflict range or not.
    pub fn set(key: &[u8], value: &[u8], conflict: bool) -> Write {
        Write {
            key: key.len(),
            value: value.len(),
            bytes: mutation_size(key.len(), value.len()) + conflict_of(key, conflict),
        }
    }

    /// A clear of `key`: FDB sends it as a clear of the key and the key
    /// after it.
    pub fn clear(key: &[u8], conflict: bool) -> Write {
        Write {
            key: key.len(),
            value: 0,
            bytes: mutation_size(key.len(), key.len() + 1) + conflict_of(key, conflict),
        }
    }

    /// A clear of `[begin, end)`, checked already to be ordered and cut
    /// with [`storable_bounds`]. An empty range sends nothing and adds
    /// nothing. Its bounds are not held to the key limit: cut, they are at
    /// most one byte longer, which FDB allows a clear.
    pub fn clear_range(begin: &[u8], end: &[u8], conflict: bool) -> Write {
        let bytes = if begin < end {
            let conflict = if conflict {
                range_size(begin.len(), end.len())
            } else {
                0
            };
            mutation_size(begin.len(), end.len()) + conflict
        } else {
            0
        };
        Write {
            key: 0,
            value: 0,
            bytes,
        }
    }

    /// An atomic operation, after checking its shape: a versionstamped key
    /// or value needs an offset that leaves room for the stamp, and its
    /// key (without the offset) must be one `system` lets it write.
    ///
    /// As in FDB, the key and the parameter are held to their limits as
    /// given, offsets included: a versionstamped value may hold 4 bytes
    /// less than a value. A versionstamped key has no write conflict range
    /// here: the commit adds the range of the key it writes.
    pub fn atomic(
        key: &[u8],
        param: &[u8],
        op: MutationType,
        conflict: bool,
        system: SystemKeys,
    ) -> Result<Write> {
        let conflict = match op {
            _ if key == METADATA_VERSION_KEY => {
                if op != MutationType::SetVersionstampedValue || param != METADATA_VERSION_STAMP {
                    return Err(metadata_version_misuse());
                }
                conflict
            }
            MutationType::SetVersionstampedKey => {
                let (body, _) = stamp_offset(key)?;
                system.check_write(&body)?;
                false
            }
            MutationType::SetVersionstampedValue => {
                system.check_write(key)?;
                stamp_offset(param)?;
                conflict
            }
            _ => {
                system.check_write(key)?;
                conflict
            }
        };
        Ok(Write {
            key: key.len(),
            value: param.len(),
            bytes: mutation_size(key.len(), param.len()) + conflict_of(key, conflict),
        })
    }
}

fn conflict_of(key: &[u8], conflict: bool) -> usize {
    if conflict {
        key_range_size(key.len())
    } else {
        0
    }
}

/// The bytes a transaction has written so far, counted as FDB counts them
/// against its limit, and the error that dooms its commit, if any.
///
/// Each write counts as it is made, so a key written twice counts twice
/// where FDB's client would send the last write only: the count may reach
/// the limit before FDB's would, never after. Read conflict ranges are
/// counted by the caller, which passes their bytes in.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tally {
    size: usize,
    /// Whether the transaction sends anything at commit: a mutation or a
    /// write conflict range. FDB checks the size of those only.
    writes: bool,
    poisoned: Option<Error>,
}

impl Tally {
    /// Admits `write` into a transaction whose read conflict ranges come
    /// to `reads` bytes.
    pub fn admit(&mut self, limits: &Limits, write: Write, reads: usize) -> Result<()> {
        if let Some(e) = &self.poisoned {
            return Err(e.clone());
        }
        let size = self.size + write.bytes + reads;
        let err = if write.key > limits.key {
            Error::KeyTooLarge {
                size: write.key,
                limit: limits.key,
            }
        } else if write.value > limits.value {
            Error::ValueTooLarge {
                size: write.value,
                limit: limits.value,
            }
        } else if size > limits.transaction {
            Error::TransactionTooLarge {
                size,
                limit: limits.transaction,
            }
        } else {
            self.size += write.bytes;
            self.writes |= write.bytes > 0;
            return Ok(());
        };
        self.poison(err.clone());
        Err(err)
    }

    /// Counts a manual write conflict range, which FDB does not check
    /// until the commit.
    pub fn add_write_conflict(&mut self, begin: &[u8], end: &[u8]) {
        if begin < end {
            self.size += range_size(begin.len(), end.len());
            self.writes = true;
        }
    }

    /// Bytes counted so far, read conflict ranges aside.
    #[cfg_attr(not(feature = "fdb"), allow(dead_code))]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Dooms the commit with `error`, as FDB does with an error it defers
    /// to the commit; the first one stays.
    pub fn poison(&mut self, error: Error) {
        self.poisoned.get_or_insert(error);
    }

    /// The error that dooms the commit, if any: one a write raised, or for
    /// a transaction that sends anything, a size over the limit once its
    /// `reads` bytes of read conflict ranges are added.
    pub fn doom(&self, limits: &Limits, reads: usize) -> Option<Error> {
        if let Some(e) = &self.poisoned {
            return Some(e.clone());
        }
        let size = self.size + reads;
        (self.writes && size > limits.transaction).then_some(Error::TransactionTooLarge {
            size,
            limit: limits.transaction,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read conflict range reaches as far as reads may, a write
    /// conflict range as far as writes may; an atomic operation writes
    /// where a set may.
    #[test]
    fn conflict_ranges_and_atomic_operations_follow_the_system_options() {
        let (b, e) = (&b"\xff/a"[..], &b"\xff/b"[..]);
        let outside = Err(Error::KeyOutsideLegalRange);
        assert_eq!(SystemKeys::Read.check_conflict(b, e, true), Ok(()));
        assert_eq!(SystemKeys::Read.check_conflict(b, e, false), outside);
        assert_eq!(SystemKeys::Closed.check_conflict(b, e, true), outside);
        assert_eq!(
            SystemKeys::Access.check_conflict(e, b, true),
            Err(Error::InvertedRange)
        );
        let add = |system| Write::atomic(b, b"\x01", MutationType::Add, true, system).map(|_| ());
        assert_eq!(add(SystemKeys::Access), Ok(()));
        assert_eq!(add(SystemKeys::Read), outside);
    }

    fn tiny() -> Limits {
        Limits {
            key: 10,
            value: 20,
            transaction: 1_000,
            ..Limits::default()
        }
    }

    /// FDB's client counts `key + value + sizeof(MutationRef)` for a set
    /// and `2 * key + 1 + sizeof(KeyRangeRef)` for its conflict range.
    #[test]
    fn writes_count_parameters_conflict_ranges_and_their_structures() {
        assert_eq!(Write::set(b"k", b"vv", true).bytes, 56 + 3 + 32 + 3);
        assert_eq!(Write::set(b"k", b"vv", false).bytes, 56 + 3);
        assert_eq!(Write::clear(b"k", true).bytes, 56 + 3 + 32 + 3);
        assert_eq!(Write::clear_range(b"a", b"bb", true).bytes, 56 + 3 + 32 + 3);
        assert_eq!(Write::clear_range(b"a", b"a", true).bytes, 0);
        let add =
            Write::atomic(b"k", b"1234", MutationType::Add, true, SystemKeys::Closed).unwrap();
        assert_eq!(add.bytes, 56 + 5 + 32 + 3);
    }

    /// Both versionstamp operations count and check their 4-byte offset;
    /// a versionstamped key has no conflict range of its own.
    #[test]
    fn versionstamp_offsets_count_and_are_checked() {
        let key = [&[0u8; 10][..], &0u32.to_le_bytes()].concat();
        let w = Write::atomic(
            &key,
            b"v",
            MutationType::SetVersionstampedKey,
            true,
            SystemKeys::Closed,
        )
        .unwrap();
        assert_eq!((w.key, w.bytes), (14, 56 + 15));
        let param = [&[0u8; 16][..], &0u32.to_le_bytes()].concat();
        let w = Write::atomic(
            b"k",
            &param,
            MutationType::SetVersionstampedValue,
            true,
            SystemKeys::Closed,
        )
        .unwrap();
        assert_eq!(w.value, 20);
        let mut tally = Tally::default();
        assert_eq!(tally.admit(&tiny(), w, 0), Ok(()));
        let param = [&[0u8; 17][..], &0u32.to_le_bytes()].concat();
        let w = Write::atomic(
            b"k",
            &param,
            MutationType::SetVersionstampedValue,
            true,
            SystemKeys::Closed,
        )
        .unwrap();
        assert_eq!(
            tally.admit(&tiny(), w, 0),
            Err(Error::ValueTooLarge {
                size: 21,
                limit: 20
            })
        );
    }

    /// Read conflict ranges count toward the limit of a transaction that
    /// writes, and only of one that writes.
    #[test]
    fn reads_count_only_with_writes() {
        let mut tally = Tally::default();
        assert_eq!(tally.doom(&tiny(), 5_000), None, "a reader sends nothing");
        let err = tally.admit(&tiny(), Write::set(b"k", b"v", true), 990);
        assert!(
            matches!(err, Err(Error::TransactionTooLarge { size: 1_083, .. })),
            "{err:?}"
        );
        assert!(
            tally.doom(&tiny(), 0).is_some(),
            "the error dooms the commit"
        );

        let mut tally = Tally::default();
        tally
            .admit(&tiny(), Write::set(b"k", b"v", true), 0)
            .unwrap();
        assert_eq!(tally.doom(&tiny(), 900), None);
        assert_eq!(
            tally.doom(&tiny(), 1_000),
            Some(Error::TransactionTooLarge {
                size: 1_093,
                limit: 1_000
            }),
            "reads after the last write still count"
        );
    }
}
