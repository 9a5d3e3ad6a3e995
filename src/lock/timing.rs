//! How often a lock's clients beat, how long a heartbeat may stand still,
//! and how old a heartbeat is: one timing, and one way to judge by it,
//! for every kind of lock.
//!
//! Ages are read from versions, which advance about a million a second on
//! every backend ([`Transaction::version_now`](crate::kv::Transaction::version_now)).

use std::time::Duration;

/// Versions a second, on FoundationDB and on the embedded store alike.
const VERSIONS_PER_SECOND: f64 = 1e6;

/// Timing of a lock: how often holders and waiters beat, and how long
/// the head of the queue (or a reaper) lets a heartbeat stand still
/// before it takes the lock over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// `h`: the heartbeat interval.
    pub heartbeat: Duration,
    /// `L`: the staleness after which an owner is taken over; at least
    /// `3h`.
    pub stale: Duration,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            heartbeat: Duration::from_secs(1),
            stale: Duration::from_secs(5),
        }
    }
}

impl Timing {
    /// Whether clients may use it: `L` at least `3h`, so that a live
    /// client has several intervals for a beat to commit before it is
    /// judged stale, and `h` not zero, which would beat without pause.
    pub(crate) fn is_valid(self) -> bool {
        self.stale >= self.heartbeat * 3 && !self.heartbeat.is_zero()
    }
}

/// What a client's last heartbeat says of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It beat within the staleness `L`.
    Live,
    /// Its heartbeat has stood still for longer than `L`: a takeover or a
    /// reaper may hand its place on.
    Stale,
    /// It never beat (a Go client's grant, not yet answered).
    Silent,
}

impl Verdict {
    /// The verdict on a heartbeat `age` old (`None`: it never beat), for
    /// a lock that holds a client stale after `stale` without one. Every
    /// kind of lock judges so.
    pub fn of(age: Option<Duration>, stale: Duration) -> Verdict {
        match age {
            None => Verdict::Silent,
            Some(age) if age > stale => Verdict::Stale,
            Some(_) => Verdict::Live,
        }
    }

    /// Its name in JSON: `live`, `stale` or `silent`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Live => "live",
            Verdict::Stale => "stale",
            Verdict::Silent => "silent",
        }
    }

    /// The words `show` and `list` print.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Live => "live",
            Verdict::Stale => "stale",
            Verdict::Silent => "no heartbeat",
        }
    }
}

/// How long before `version_now` version `version` was committed,
/// estimated from versions; zero for a version not behind it. Every
/// kind of lock's `show` measures ages so.
pub fn age_of(version_now: u64, version: u64) -> Duration {
    let versions = version_now.saturating_sub(version);
    Duration::from_secs_f64(versions as f64 / VERSIONS_PER_SECOND)
}

/// The commit version in a versionstamp.
pub fn version_of(stamp: &[u8; 12]) -> u64 {
    u64::from_be_bytes(stamp[..8].try_into().expect("8 bytes"))
}
