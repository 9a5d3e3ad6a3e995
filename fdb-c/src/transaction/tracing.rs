//! The tracing module of the special keys, `\xff\xff/tracing/`: the
//! transaction's trace id (`transaction_id`, a UID as 32 hex digits) and
//! its span token (`token`, a decimal number, 0 when tracing is off), as
//! FDB's client keeps them for every transaction.
//!
//! With `special_key_space_enable_writes`, a transaction that has written
//! nothing may set its id (a UID) or its token (`true` for a new random
//! one, `false` for none). One that has written first is refused, as
//! FDB's is: the set changes nothing and its commit fails with
//! `special_keys_api_failure` (2117); so do a token that is neither word,
//! an id that is no UID, and a clear of the module's keys.

use fql::kv::KeyValue;

use crate::errors::Code;

/// Where the module's keys begin and end.
pub const BEGIN: &[u8] = b"\xff\xff/tracing/";
pub const END: &[u8] = b"\xff\xff/tracing0";

const TRANSACTION_ID: &[u8] = b"\xff\xff/tracing/transaction_id";
const TOKEN: &[u8] = b"\xff\xff/tracing/token";

/// `special_keys_api_failure`.
pub const API_FAILURE: Code = 2117;

/// Whether `key` is one of the module's.
pub fn holds(key: &[u8]) -> bool {
    BEGIN <= key && key < END
}

/// A transaction's trace id and span token.
#[derive(Clone, Debug)]
pub struct Tracing {
    id: (u64, u64),
    token: u64,
    /// A set the module refused, which fails the commit.
    refused: bool,
}

impl Tracing {
    /// A fresh id and token, as FDB gives each new transaction.
    pub fn new() -> Tracing {
        Tracing {
            id: (nonzero(), nonzero()),
            token: nonzero(),
            refused: false,
        }
    }

    /// The module's rows, in key order.
    pub fn rows(&self) -> Vec<KeyValue> {
        [TOKEN, TRANSACTION_ID]
            .into_iter()
            .filter_map(|key| {
                self.get(key).map(|value| KeyValue {
                    key: key.to_vec(),
                    value,
                })
            })
            .collect()
    }

    /// The value of one of the module's keys; `None` for any other.
    pub fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        match key {
            TRANSACTION_ID => Some(format!("{:016x}{:016x}", self.id.0, self.id.1).into_bytes()),
            TOKEN => Some(self.token.to_string().into_bytes()),
            _ => None,
        }
    }

    /// A set of `key` in a transaction that has written `written` bytes
    /// so far; an error is the set's own, deferred to the next future.
    pub fn set(&mut self, key: &[u8], value: &[u8], written: i64) -> Result<(), Code> {
        if written > 0 {
            self.refused = true;
            return Ok(());
        }
        match key {
            TRANSACTION_ID => self.id = uid(value).ok_or(API_FAILURE)?,
            TOKEN => {
                self.token = match value {
                    b"true" => nonzero(),
                    b"false" => 0,
                    _ => return Err(API_FAILURE),
                }
            }
            _ => self.refused = true,
        }
        Ok(())
    }

    /// What the commit gives: `special_keys_api_failure` after a refused
    /// set.
    pub fn commit_check(&self) -> Result<(), Code> {
        if self.refused {
            Err(API_FAILURE)
        } else {
            Ok(())
        }
    }
}

/// A random number other than 0, which means "none".
fn nonzero() -> u64 {
    loop {
        let n = rand::random::<u64>();
        if n != 0 {
            return n;
        }
    }
}

/// A UID as FDB writes one: 32 hex digits, two 64-bit halves.
fn uid(text: &[u8]) -> Option<(u64, u64)> {
    let text = std::str::from_utf8(text).ok()?;
    if text.len() != 32 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let half = |s: &str| u64::from_str_radix(s, 16).ok();
    Some((half(&text[..16])?, half(&text[16..])?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_a_uid_and_the_token_a_word() {
        let mut t = Tracing::new();
        let id = "0123456789abcdef00000000000000ff";
        t.set(TRANSACTION_ID, id.as_bytes(), 0).unwrap();
        assert_eq!(t.get(TRANSACTION_ID).unwrap(), id.as_bytes());
        t.set(TOKEN, b"false", 0).unwrap();
        assert_eq!(t.get(TOKEN).unwrap(), b"0");
        assert_eq!(t.set(TOKEN, b"maybe", 0), Err(API_FAILURE));
        assert_eq!(t.set(TRANSACTION_ID, b"0", 0), Err(API_FAILURE));
        assert_eq!(t.commit_check(), Ok(()));
        let keys: Vec<_> = t.rows().into_iter().map(|kv| kv.key).collect();
        assert_eq!(keys, [TOKEN.to_vec(), TRANSACTION_ID.to_vec()]);
    }

    #[test]
    fn a_set_after_a_write_changes_nothing_and_fails_the_commit() {
        let mut t = Tracing::new();
        let before = t.get(TRANSACTION_ID);
        t.set(TRANSACTION_ID, b"0", 10).unwrap();
        assert_eq!(t.get(TRANSACTION_ID), before);
        assert_eq!(t.commit_check(), Err(API_FAILURE));
    }
}
