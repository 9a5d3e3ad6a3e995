//! The fencing token every kind of lock hands out.

use crate::kv::Committed;

/// A fencing token: the versionstamp of the transaction that granted the
/// lock (user version 0), so tokens increase strictly from one grant to
/// the next, and a holder's writes guarded on it stop committing once
/// another grant was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Token(pub [u8; 12]);

impl Token {
    /// The token of the grant that `committed` reports: `None` for a
    /// commit without a versionstamp (one settled after an unknown
    /// result, whose stamp is lost).
    pub(crate) fn of(committed: &Committed) -> Option<Token> {
        committed.versionstamp.map(|stamp| {
            let mut token = [0; 12];
            token[..10].copy_from_slice(&stamp);
            Token(token)
        })
    }
}

impl std::fmt::Display for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&const_hex::encode(self.0))
    }
}
