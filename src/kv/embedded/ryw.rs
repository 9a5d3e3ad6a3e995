//! Whether a transaction's reads see its own writes: FDB's
//! read-your-writes options, which bulk readers and loaders set.
//!
//! As in FDB's client (`ReadYourWritesTransaction`):
//! `read_your_writes_disable` makes every read see the database as of the
//! read version, its writes unseen, and refuses watches
//! (`watches_disabled`); it may only be set before the transaction's
//! first read or write (`client_invalid_operation`). The snapshot count
//! starts at 1; `snapshot_ryw_enable` adds one, `snapshot_ryw_disable`
//! takes one away, and snapshot reads see the writes while it is above 0,
//! non-snapshot reads always. A new attempt (`on_error`, `reset`) starts
//! afresh, the options set again by whoever wants them.

use crate::kv::{Error, Result};

/// FDB's `watches_disabled`.
const WATCHES_DISABLED: i32 = 1034;

/// A transaction's read-your-writes state.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ryw {
    disabled: bool,
    snapshot: i32,
    /// Whether the transaction has read, which FDB's client knows by its
    /// cache of what it read.
    read: bool,
}

impl Default for Ryw {
    fn default() -> Self {
        Ryw {
            disabled: false,
            snapshot: 1,
            read: false,
        }
    }
}

impl Ryw {
    /// Whether a read, snapshot or not, sees the transaction's writes.
    pub(super) fn sees_own_writes(&self, snapshot: bool) -> bool {
        !(self.disabled || (snapshot && self.snapshot <= 0))
    }

    /// Notes a read of stored keys.
    pub(super) fn note_read(&mut self) {
        self.read = true;
    }

    /// `read_your_writes_disable`, refused once the transaction has read
    /// or (`wrote`) written.
    pub(super) fn disable(&mut self, wrote: bool) -> Result<()> {
        if self.read || wrote {
            return Err(Error::InvalidOperation(
                "read_your_writes_disable must be set before the transaction's first read or write"
                    .into(),
            ));
        }
        self.disabled = true;
        Ok(())
    }

    /// `snapshot_ryw_enable` (`up`) or `snapshot_ryw_disable`.
    pub(super) fn count_snapshot(&mut self, up: bool) {
        self.snapshot = if up {
            self.snapshot.saturating_add(1)
        } else {
            self.snapshot.saturating_sub(1)
        };
    }

    /// Watches need the transaction's own writes, which FDB's client
    /// compares with the watched value.
    pub(super) fn check_watch(&self) -> Result<()> {
        if self.disabled {
            return Err(Error::from_code(WATCHES_DISABLED));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_count_decides_for_snapshot_reads_only() {
        let mut r = Ryw::default();
        assert!(r.sees_own_writes(true));
        r.count_snapshot(false);
        assert!(!r.sees_own_writes(true));
        assert!(r.sees_own_writes(false));
        r.count_snapshot(false);
        r.count_snapshot(true);
        assert!(!r.sees_own_writes(true));
        r.count_snapshot(true);
        assert!(r.sees_own_writes(true));
    }

    #[test]
    fn disabling_is_refused_after_a_read_or_a_write() {
        let mut r = Ryw::default();
        assert_eq!(r.disable(true).unwrap_err().code(), 2000);
        r.note_read();
        assert_eq!(r.disable(false).unwrap_err().code(), 2000);
        let mut r = Ryw::default();
        r.disable(false).unwrap();
        assert!(!r.sees_own_writes(false) && !r.sees_own_writes(true));
        assert_eq!(r.check_watch().unwrap_err().code(), 1034);
    }
}
