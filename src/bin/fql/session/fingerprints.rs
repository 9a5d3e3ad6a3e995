//! What the check read of each piece of a script, in a few bytes, so
//! that the run, which reads the script again, runs only what was
//! checked: a file can change between the two readings.

use std::hash::{BuildHasher, RandomState};

use fql::syntax::Sources;

/// Each piece's length and keyed hash, in order.
///
/// The hash is SipHash under a key drawn at random for each run
/// ([`RandomState`]): a change is missed only by a 1 in 2^64 chance,
/// and no text can be written to match another's without the key. It
/// covers the piece's input and first line too, so the same text read
/// at another place does not match.
#[derive(Debug, Default)]
pub struct Fingerprints {
    key: RandomState,
    pieces: Vec<(u64, u64)>,
}

impl Fingerprints {
    /// Records the next piece.
    pub fn push(&mut self, piece: &Sources) {
        let print = self.of(piece);
        self.pieces.push(print);
    }

    /// Whether `piece` is what was recorded `n`th; a piece past those
    /// recorded is not.
    pub fn matches(&self, n: usize, piece: &Sources) -> bool {
        self.pieces.get(n) == Some(&self.of(piece))
    }

    /// How many pieces were recorded.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    fn of(&self, piece: &Sources) -> (u64, u64) {
        let text = piece.text();
        let (name, line) = piece.locate(0);
        (text.len() as u64, self.key.hash_one((name, line, text)))
    }
}
