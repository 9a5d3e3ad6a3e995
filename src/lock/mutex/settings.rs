//! The timing and mode a mutex is used with, stored in it: the key
//! `("config")`, whose value is the tuple `(h, L, mode)`, `h` and `L` in
//! milliseconds and `mode` `"default"` or `"compat"`.
//!
//! Every client of one mutex must beat as often, and be judged stale after
//! as long, as the others expect, and must write the keys the others read:
//! a reaper that judged a client by another timing or mode would take the
//! mutex from a live owner, or never from a dead one. So the first client
//! to take an idle mutex stores its settings, later clients with other
//! settings are refused, and a reaper judges by the stored ones.
//!
//! The settings bind while the mutex is held or has waiters. A release or
//! reap that leaves the mutex free with nobody waiting clears them, in its
//! own transaction, so the next user may choose other timings; settings
//! found on an idle mutex (a Go client released it, or a crash left it so)
//! bind nobody, and the next client to take it writes its own.

use std::time::Duration;

use foundationdb_tuple::TuplePack;

use crate::directory::DirectoryLayer;
use crate::kv::{ConflictRangeType, DatabaseExt, Transaction, strinc};

use super::{Error, Timing};
use crate::lock::layout::{self, Found, Schema};

/// What a mutex's clients must agree on: the timing, and whether they
/// write only what Go clients write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// `h` and `L`.
    pub timing: Timing,
    /// `--compat`: Go fdb-mutex's keys only.
    pub compat: bool,
}

/// What a transaction of a mutex operation asks of the stored settings.
#[derive(Clone, Copy, Debug)]
pub(super) enum Expect {
    /// Nothing: a look, a reaper's step.
    Nothing,
    /// The same mode: heartbeats, releases, cancels (their timing is the
    /// caller's own business).
    Mode(Settings),
    /// The same timing and mode: an operation that takes the mutex or
    /// joins its queue, and writes its settings with the script.
    All(Settings),
}

impl Settings {
    /// The stored form: milliseconds (at least one) and the mode's name.
    fn stored(&self) -> (i64, i64, &'static str) {
        let ms = |d: Duration| {
            (d.as_secs_f64() * 1000.0)
                .round()
                .max(1.0)
                .min(i64::MAX as f64) as i64
        };
        let mode = if self.compat { "compat" } else { "default" };
        (ms(self.timing.heartbeat), ms(self.timing.stale), mode)
    }

    /// Whether two clients with these settings agree, as stored.
    pub fn agrees(&self, other: &Settings) -> bool {
        self.stored() == other.stored()
    }

    /// The value of the `("config")` key.
    pub(super) fn encode(&self) -> Vec<u8> {
        self.stored().pack_to_vec()
    }

    /// The settings a `("config")` value stores; `None` for a value no
    /// client writes.
    pub(super) fn decode(value: &[u8]) -> Option<Settings> {
        let (h, l, mode) = foundationdb_tuple::unpack::<(i64, i64, String)>(value).ok()?;
        let compat = match mode.as_str() {
            "default" => false,
            "compat" => true,
            _ => return None,
        };
        let ms = |n: i64| {
            u64::try_from(n)
                .ok()
                .filter(|&n| n > 0)
                .map(Duration::from_millis)
        };
        // Not checked against `L >= 3h`: a client's timing was checked,
        // and rounding to milliseconds may bend it.
        let timing = Timing {
            heartbeat: ms(h)?,
            stale: ms(l)?,
        };
        Some(Settings { timing, compat })
    }

    /// The command-line flags that give a client these settings.
    pub fn flags(&self) -> String {
        let (h, l, _) = self.stored();
        let seconds = |ms: i64| ms as f64 / 1000.0;
        let compat = if self.compat { " --compat" } else { "" };
        format!("--heartbeat {} --stale {}{compat}", seconds(h), seconds(l))
    }
}

impl std::fmt::Display for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (h, l, mode) = self.stored();
        let seconds = |ms: i64| ms as f64 / 1000.0;
        write!(
            f,
            "heartbeat {} s, staleness {} s, {mode} mode",
            seconds(h),
            seconds(l)
        )
    }
}

/// Whether the operation `op` (a script's name without `mutex/` or
/// `mutex/compat/`) takes the mutex or joins its queue: those must agree
/// with the stored settings in full, and store their own where none bind.
pub(super) fn acquiring(op: &str) -> bool {
    matches!(op, "try-acquire" | "enqueue" | "claim")
}

/// Whether the script hands the mutex on, or leaves it free when nobody
/// waits: the settings go with the last owner.
fn frees(script: &str) -> bool {
    matches!(
        script,
        "mutex/release"
            | "mutex/reap"
            | "mutex/reap-silent"
            | "mutex/break"
            | "mutex/compat/release"
            | "mutex/compat/reap"
    )
}

/// Checks, in the transaction of the script `script` and after the
/// layout check found `found` (`None`: no directory yet), what `expect`
/// asks of the stored settings. An operation that takes the mutex or
/// joins its queue stores its own settings where none bind; a release or
/// reap that leaves the mutex free with nobody waiting clears them. A
/// refusal ends the transaction with nothing written.
pub(super) fn enforce(
    tx: &mut dyn Transaction,
    found: Option<&Found>,
    dir: &[String],
    script: &str,
    expect: Expect,
) -> Result<(), Error> {
    let Some(found) = found else {
        if let Expect::All(ours) = expect {
            // A fresh mutex: its directory is made here, as the script
            // would make it, so that the settings go in with the grant.
            let made = DirectoryLayer::new().create_or_open(tx, dir, b"")?;
            let key = [made.prefix()?, &("config",).pack_to_vec()[..]].concat();
            tx.set(&key, &ours.encode())?;
        }
        return Ok(());
    };
    let stored = match &found.config {
        Some(value) => match Settings::decode(value) {
            Some(stored) => Some(stored),
            None => return Err(found.foreign_config(dir).into()),
        },
        None => None,
    };
    let idle = !found.held && !found.queued;
    let binding = stored.filter(|_| !idle);
    match (expect, binding) {
        (Expect::Mode(ours), Some(stored)) if stored.compat != ours.compat => {
            return Err(refusal(dir, stored, ours));
        }
        (Expect::All(ours), Some(stored)) if !stored.agrees(&ours) => {
            return Err(refusal(dir, stored, ours));
        }
        (Expect::All(ours), None) => {
            if idle {
                // What makes stored settings void must stay so until
                // this commits.
                for family in [&found.owners, &found.queue] {
                    tx.add_conflict_range(family, &strinc(family), ConflictRangeType::Read)?;
                }
            }
            tx.set(&found.config_key, &ours.encode())?;
        }
        _ => {}
    }
    if frees(script) && !found.queued && stored.is_some() {
        // The release reads the queue too; this keeps the clear right
        // even if it did not.
        tx.add_conflict_range(&found.queue, &strinc(&found.queue), ConflictRangeType::Read)?;
        tx.clear(&found.config_key)?;
    }
    Ok(())
}

fn refusal(dir: &[String], stored: Settings, ours: Settings) -> Error {
    Error::Settings {
        dir: crate::directory::show(dir),
        stored,
        ours,
    }
}

/// The settings stored in the mutex of `dir` and binding it (held or
/// waited for), read in one transaction; `None` when none bind it.
pub(super) fn read(
    engine: &crate::exec::Engine,
    dir: &[String],
) -> Result<Option<Settings>, Error> {
    let layer = DirectoryLayer::new();
    let (stored, _) = engine
        .database()
        .run_with(engine.retry_options(), |tx, _| {
            let found = layout::of(Schema::Mutex).inspect(tx, &layer, dir)?;
            let Some(found) = found else {
                return Ok(None);
            };
            if !found.held && !found.queued {
                return Ok(None);
            }
            match &found.config {
                Some(value) => Settings::decode(value)
                    .map(Some)
                    .ok_or_else(|| Error::from(found.foreign_config(dir))),
                None => Ok(None),
            }
        })?;
    Ok(stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_stored_in_milliseconds_and_read_back() {
        let s = Settings {
            timing: Timing {
                heartbeat: Duration::from_millis(8000),
                stale: Duration::from_secs(30),
            },
            compat: true,
        };
        assert_eq!(Settings::decode(&s.encode()), Some(s));
        assert_eq!(s.flags(), "--heartbeat 8 --stale 30 --compat");
        assert_eq!(s.to_string(), "heartbeat 8 s, staleness 30 s, compat mode");
        // A value no client writes is no setting.
        assert_eq!(
            Settings::decode(&(0i64, 2000i64, "default").pack_to_vec()),
            None
        );
        assert_eq!(
            Settings::decode(&(100i64, -1i64, "default").pack_to_vec()),
            None
        );
        assert_eq!(
            Settings::decode(&(1000i64, 5000i64, "fast").pack_to_vec()),
            None
        );
        assert_eq!(Settings::decode(b"junk"), None);
    }
}
