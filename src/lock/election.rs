//! Leader election on the mutex, and watching who leads.
//!
//! An election is a mutex under another name: a candidate is a waiter,
//! the leader is the owner, and the term is the fencing token of the grant
//! that made it leader, so terms only grow and a leader's fenced writes
//! stop committing once another term began. Nothing new is stored: the
//! owner and `("fence")` keys say who leads, and a change of leader
//! changes one of them, so an observer waits on database watches of those
//! two keys and reads again only when one fires.

use std::sync::Arc;
use std::time::{Duration, Instant};

use foundationdb_tuple::TuplePack;

use crate::exec::Engine;
use crate::kv::{Activity, Database, Observed, RangeOption, Transaction, Watch};
use crate::watch::Ended;

use super::mutex::{Error, Mutex, in_mutex};
use super::{Timing, Token};

/// Who leads, as one snapshot shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leader {
    /// The leader's client name.
    pub name: String,
    /// Its term: the token of the grant that made it leader; `None` when a
    /// client that keeps no token (a Go fdb-mutex client) granted it.
    pub term: Option<Token>,
}

/// How long [`observe`] runs.
#[derive(Clone, Copy, Debug)]
pub struct Observe {
    /// Stop after this many changes of leader (the leader found first is
    /// not a change).
    pub count: Option<u64>,
    /// Stop at this instant.
    pub until: Option<Instant>,
    /// How often to look while the directory does not exist and lies in
    /// a partition: there is no key to watch then.
    pub poll: Duration,
}

impl Default for Observe {
    fn default() -> Observe {
        Observe {
            count: None,
            until: None,
            poll: Duration::from_secs(1),
        }
    }
}

/// Hands `sink` the leader of the mutex in `dir` (`None`: nobody leads),
/// then each change of leader or term, until `options` or `stop` ends it.
/// `stop` is asked at least every 100 ms. Between two looks it waits on
/// watches of the owner and fence keys, armed in the transaction that
/// read them, so no change is missed; a leader that came and went between
/// two looks is not reported.
pub fn observe<E: From<Error>>(
    engine: &Engine,
    dir: &[String],
    options: Observe,
    stop: &dyn Fn() -> bool,
    sink: &mut dyn FnMut(Option<&Leader>) -> Result<(), E>,
) -> Result<Ended, E> {
    let (mut leader, mut watches) = look(engine, dir)?;
    sink(leader.as_ref())?;
    let mut changes = 0;
    loop {
        if options.count.is_some_and(|c| changes >= c) {
            return Ok(Ended::Count);
        } else if stop() {
            return Ok(Ended::Stopped);
        } else if options.until.is_some_and(|u| Instant::now() >= u) {
            return Ok(Ended::Time);
        }
        let until = match watches.is_empty() {
            true => {
                let poll = Instant::now() + options.poll;
                Some(options.until.map_or(poll, |u| u.min(poll)))
            }
            false => options.until,
        };
        let mut armed: Vec<(usize, &mut Watch)> = watches.iter_mut().enumerate().collect();
        let fired = crate::watch::wait::any(&mut armed, until, stop);
        if let Some((_, Err(e))) = fired.iter().find(|(_, r)| r.is_err()) {
            return Err(Error::from(e.clone()).into());
        }
        if fired.is_empty() && !watches.is_empty() {
            continue;
        }
        let (now, armed) = look(engine, dir)?;
        watches = armed;
        if now != leader {
            leader = now;
            changes += 1;
            sink(leader.as_ref())?;
        }
    }
}

/// In one transaction: the leader, and watches on the fence key and on
/// the leader's owner key (or Go's free marker when nobody leads); while
/// the directory does not exist, on the key that creating it writes (none
/// inside a partition: then [`Observe::poll`] says when to look again).
fn look(engine: &Engine, dir: &[String]) -> Result<(Option<Leader>, Vec<Watch>), Error> {
    let layer = crate::directory::DirectoryLayer::new();
    let (found, _) = in_mutex(engine, dir, |tx, prefix| match prefix {
        Some(prefix) => leader_in(tx, prefix),
        None => {
            let created = layer.creation_key(tx, dir)?;
            let watch = created.map(|key| tx.watch(&key)).transpose()?;
            Ok((None, watch.into_iter().collect()))
        }
    })?;
    Ok(found)
}

fn leader_in(
    tx: &mut dyn Transaction,
    prefix: &[u8],
) -> Result<(Option<Leader>, Vec<Watch>), Error> {
    let owners = key(prefix, ("owner",));
    // The layout check bounds the owner family: one owner, and Go's "".
    let rows = crate::kv::collect_range(tx, &RangeOption::prefix(&owners), false)?;
    let name = rows.iter().find_map(|kv| {
        let (_, name) =
            foundationdb_tuple::unpack::<(String, String)>(&kv.key[prefix.len()..]).ok()?;
        (!name.is_empty()).then_some(name)
    });
    let fence = key(prefix, ("fence",));
    let term = tx
        .get(&fence, false)?
        .and_then(|v| <[u8; 12]>::try_from(v.as_slice()).ok())
        .map(Token);
    let owner = key(prefix, ("owner", name.as_deref().unwrap_or("")));
    let watches = vec![tx.watch(&fence)?, tx.watch(&owner)?];
    Ok((name.map(|name| Leader { name, term }), watches))
}

/// `t` packed after `prefix`.
fn key(prefix: &[u8], t: impl TuplePack) -> Vec<u8> {
    let mut k = prefix.to_vec();
    t.pack_into_vec(&mut k);
    k
}

/// One candidate of the election held in a mutex's directory.
pub struct Election {
    /// Campaigns over a database that [`Stopper::stop`] closes to it, so
    /// that a wait in line ends at once, with nothing committed after.
    campaign: Mutex,
    /// The same client over the database as it is: withdraws, leads,
    /// resigns.
    plain: Arc<Mutex>,
    activity: Arc<Activity>,
}

/// How a campaign ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Campaign {
    /// This candidate leads, in this term.
    Elected(Token),
    /// The wait allowed passed first; the candidate withdrew.
    TimedOut,
    /// [`Stopper::stop`] ended it; the candidate withdrew.
    Stopped,
}

/// How a term ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// [`Stopper::stop`] asked, and the leader resigned.
    Resigned,
    /// Another client leads now, or no heartbeat committed for `L - h`,
    /// after which another candidate may take over.
    Lost,
}

/// Ends a campaign or a term from another thread (a signal handler's).
#[derive(Clone)]
pub struct Stopper {
    activity: Arc<Activity>,
    plain: Arc<Mutex>,
}

impl Stopper {
    /// Asks the campaign or the term to end: a campaign withdraws from the
    /// queue, a leader resigns.
    pub fn stop(&self) {
        self.activity.stop();
        // Wakes a candidate waiting on its queue entry; refused, and
        // harmless, in any other state.
        let _ = self.plain.cancel();
    }
}

impl Election {
    /// The candidate `name` of the election in `dir`.
    pub fn new(
        db: Arc<dyn Database>,
        dir: Vec<String>,
        name: &str,
        timing: Timing,
        timeout: Duration,
    ) -> Result<Election, Error> {
        let activity = Arc::new(Activity::default());
        let observed: Arc<dyn Database> = Arc::new(Observed::new(db.clone(), activity.clone()));
        let campaign = Mutex::new(observed, dir.clone(), name, timing)?.timeout(timeout);
        let plain = Mutex::new(db, dir, name, timing)?.timeout(timeout);
        Ok(Election {
            campaign,
            plain: Arc::new(plain),
            activity,
        })
    }

    /// This candidate's name.
    pub fn name(&self) -> &str {
        self.plain.name()
    }

    /// What ends the campaign or the term from another thread.
    pub fn stopper(&self) -> Stopper {
        Stopper {
            activity: self.activity.clone(),
            plain: self.plain.clone(),
        }
    }

    /// Stands in line until this candidate leads, `wait` passes (`None`:
    /// as long as it takes) or the stopper is used.
    pub fn campaign(&self, wait: Option<Duration>) -> Result<Campaign, Error> {
        match self.campaign.acquire(wait) {
            Ok(Some(term)) if !self.activity.stopped() => Ok(Campaign::Elected(term)),
            Ok(None) => Ok(Campaign::TimedOut),
            Ok(Some(_)) => self.withdraw().map(|()| Campaign::Stopped),
            Err(_) if self.activity.stopped() => self.withdraw().map(|()| Campaign::Stopped),
            Err(e) => Err(e),
        }
    }

    /// Leaves the queue, and the lead that a grant just gave: nobody was
    /// told of it.
    fn withdraw(&self) -> Result<(), Error> {
        self.plain.cancel()?;
        self.plain.release()?;
        Ok(())
    }

    /// Leads: beats every heartbeat interval until the stopper is used
    /// (then resigns) or the lead is lost.
    pub fn lead(&self) -> Result<Term, Error> {
        let timing = self.plain.timing();
        let mut last = Instant::now();
        loop {
            if self.pause(timing.heartbeat) {
                self.plain.release()?;
                return Ok(Term::Resigned);
            }
            match self.plain.heartbeat() {
                Ok(true) => last = Instant::now(),
                Ok(false) => return Ok(Term::Lost),
                // A beat that cannot commit for L - h may already be too late.
                Err(e) if last.elapsed() + timing.heartbeat >= timing.stale => return Err(e),
                Err(_) => {}
            }
        }
    }

    /// Gives up the lead, which passes to the longest-waiting candidate;
    /// `false` if this candidate did not lead.
    pub fn resign(&self) -> Result<bool, Error> {
        self.plain.release()
    }

    /// Sleeps `d`, or less if the stopper is used: whether it was.
    fn pause(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        loop {
            if self.activity.stopped() {
                return true;
            }
            let now = Instant::now();
            if now >= end {
                return false;
            }
            std::thread::sleep((end - now).min(Duration::from_millis(20)));
        }
    }
}
