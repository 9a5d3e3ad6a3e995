//! The mutex: its bytes against the Go client's layout, each defect of
//! fdb-mutex shown not to happen here, the reaper, and real processes
//! contending through `fql mutex run`.

use crate::support::hooked;
mod election;
mod heal;
mod observe;
mod processes;
mod task;
use crate::support::eventually::{eventually, eventually_some};
use crate::support::reach;
use crate::support::window;

use std::sync::Arc;
use std::time::{Duration, Instant};

use foundationdb_tuple::TuplePack;
use fql::directory::DirectoryLayer;
use fql::exec::Engine;
use fql::kv::embedded::Embedded;
use fql::kv::{Database, DatabaseExt, RangeOption};
use fql::lock::mutex::{Mutex, Reaped, Reaper, State};
use fql::lock::{Timing, dir_param};

fn db() -> Arc<dyn Database> {
    Arc::new(Embedded::memory())
}

fn dir() -> Vec<String> {
    vec!["locks".into(), "job".into()]
}

const FAST: Timing = Timing {
    heartbeat: Duration::from_millis(100),
    stale: Duration::from_millis(300),
};

fn client(db: &Arc<dyn Database>, name: &str) -> Mutex {
    Mutex::new(db.clone(), dir(), name, FAST).expect("a valid client")
}

fn state(db: &Arc<dyn Database>) -> State {
    State::read(&Engine::new(db.clone()), &dir()).expect("readable")
}

/// A directory's prefix and its key-values, raw.
type Raw = (Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>);

/// Every key-value under the mutex directory, raw, with the prefix.
fn raw(db: &Arc<dyn Database>) -> Raw {
    db.run(|tx, _| {
        let prefix = DirectoryLayer::new()
            .open(tx, &dir(), b"")?
            .prefix()?
            .to_vec();
        let rows = fql::kv::collect_range(tx, &RangeOption::prefix(&prefix), false)?;
        Ok::<_, fql::directory::Error>((
            prefix,
            rows.into_iter().map(|kv| (kv.key, kv.value)).collect(),
        ))
    })
    .unwrap()
}

/// Runs a shipped script with parameters, as `fql run NAME -p ...` would.
fn script(
    db: &Arc<dyn Database>,
    name: &str,
    params: &[(&str, fql::syntax::ast::ElemKind<'static>)],
) {
    let engine = Engine::new(db.clone());
    let mut all: std::collections::HashMap<_, _> = params
        .iter()
        .map(|(k, v)| (k.to_string(), elem(v.clone()).into()))
        .collect();
    all.insert("dir".into(), elem(dir_param(&dir())).into());
    let source = fql::scripts::find(name).unwrap().source;
    engine.run_text(source, &all, &mut |_| Ok(())).unwrap();
}

fn elem(kind: fql::syntax::ast::ElemKind<'static>) -> fql::syntax::ast::Elem<'static> {
    fql::syntax::ast::Elem {
        kind,
        span: Default::default(),
    }
}

fn name(n: &str) -> fql::syntax::ast::ElemKind<'static> {
    fql::syntax::ast::ElemKind::Str(n.to_string().into())
}

#[test]
fn owner_and_queue_keys_are_the_go_clients_bytes() {
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().expect("free");
    script(&db, "mutex/enqueue", &[("name", name("client1"))]);
    let (p, rows) = raw(&db);
    let owner: Vec<u8> = [
        &p[..],
        &const_hex::decode("026f776e657200").unwrap(),
        b"\x02ann\x00",
    ]
    .concat();
    let (_, value) = rows
        .iter()
        .find(|(k, _)| *k == owner)
        .expect("the owner key");
    // Granted: empty, as Go's grant writes it.
    assert_eq!(value, b"");
    let queue_prefix: Vec<u8> = [&p[..], &const_hex::decode("02717565756500").unwrap()].concat();
    let queued: Vec<_> = rows
        .iter()
        .filter(|(k, _)| k.starts_with(&queue_prefix))
        .collect();
    assert_eq!(queued.len(), 1);
    let (key, value) = queued[0];
    // `33`, the 10-byte commit stamp, user version `00 00`.
    assert_eq!(key.len(), queue_prefix.len() + 13);
    assert_eq!(key[queue_prefix.len()], 0x33);
    assert_eq!(&key[key.len() - 2..], &[0, 0]);
    // The raw name, not tuple-encoded.
    assert_eq!(value, b"client1");
    // fql's own keys stay outside both prefixes.
    for (k, _) in &rows {
        let rest = &k[p.len()..];
        assert!(
            rest.starts_with(&const_hex::decode("026f776e657200").unwrap())
                || rest.starts_with(&const_hex::decode("02717565756500").unwrap())
                || rest.starts_with(b"\x02waiter\x00")
                || rest.starts_with(b"\x02hb\x00")
                || rest.starts_with(b"\x02fence\x00")
                || rest == b"\x02config\x00",
            "{}",
            const_hex::encode(rest)
        );
    }
}

#[test]
fn try_acquire_is_one_transaction_whose_stamp_is_the_token() {
    let db = db();
    let ann = client(&db, "ann");
    let token = ann.try_acquire().unwrap().unwrap();
    let (p, rows) = raw(&db);
    let value = |key: &[u8]| {
        let key = [&p[..], key].concat();
        rows.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    // The fence holds the grant's 12-byte stamp; the heartbeat, written by
    // the same transaction, differs only in its user version, so it counts
    // as answered.
    assert_eq!(value(b"\x02fence\x00"), token.0);
    let hb = value(b"\x02hb\x00\x02ann\x00");
    assert_eq!(&hb[..10], &token.0[..10]);
    assert_eq!(&hb[10..], &[0, 1]);
}

#[test]
fn opening_a_client_writes_nothing() {
    // fdb-mutex defect 1: NewMutex wiped the owner.
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    let before = raw(&db);
    let _carl = client(&db, "carl");
    assert_eq!(raw(&db), before);
    assert_eq!(state(&db).owner.as_deref(), Some("ann"));
}

#[test]
fn a_released_owner_cannot_beat_its_way_back() {
    // Defect 2: a heartbeat checked ownership in another transaction and
    // resurrected the old owner key.
    let db = db();
    let (ann, bob) = (client(&db, "ann"), client(&db, "bob"));
    ann.try_acquire().unwrap().unwrap();
    script(&db, "mutex/enqueue", &[("name", name("bob"))]);
    assert!(ann.release().unwrap());
    assert!(!ann.heartbeat().unwrap(), "ann no longer holds it");
    let s = state(&db);
    assert_eq!(s.owner.as_deref(), Some("bob"));
    assert!(!s.heartbeats.contains_key("ann"));
    assert!(bob.heartbeat().unwrap());
}

#[test]
fn a_client_granted_from_the_queue_answers_and_beats() {
    // Defect 3: owners that won by waiting never beat and were reaped.
    let db = db();
    let ann = client(&db, "ann");
    let t1 = ann.try_acquire().unwrap().unwrap();
    let waiter = {
        let db = db.clone();
        std::thread::spawn(move || client(&db, "bob").acquire(Some(Duration::from_secs(10))))
    };
    until_queued(&db, 1);
    assert!(ann.release().unwrap());
    let t2 = waiter.join().unwrap().unwrap().expect("granted");
    assert!(t2 > t1, "tokens increase from grant to grant");
    let s = state(&db);
    assert_eq!(s.owner.as_deref(), Some("bob"));
    assert_ne!(s.heartbeats["bob"], t2.0, "the grant was answered");
}

#[test]
fn release_by_a_non_owner_returns_at_once() {
    // Defect 4: Release blocked for ever without a heartbeat goroutine.
    let db = db();
    let ann = client(&db, "ann");
    assert!(!ann.release().unwrap());
    ann.try_acquire().unwrap().unwrap();
    assert!(ann.release().unwrap());
    assert!(!ann.release().unwrap(), "a second release is refused");
}

/// Commits applied but reported as `commit_unknown_result` (every one on
/// a database that can look commits up; most, applied or not, on one
/// that cannot, having no idempotency ids, as FoundationDB here): each
/// operation answers what happened, never "not held" or "not waiting"
/// for what it did, and never does it twice (one queue entry, one grant).
#[test]
fn answers_are_right_when_commits_are_reported_unknown() {
    use fql::kv::faults::{FaultPlan, Faulty};
    for plan in ["1021-applied:1", "1021:0.8;ids=off"] {
        let store = Arc::new(Embedded::memory());
        let faulty: Arc<dyn Database> =
            Arc::new(Faulty::new(store.clone(), FaultPlan::parse(plan).unwrap()));
        let plain: Arc<dyn Database> = store;
        let ann = client(&faulty, "ann");
        let token = ann.try_acquire().unwrap().expect("acquired");
        assert_eq!(state(&plain).token, Some(token), "{plan}");
        assert!(ann.heartbeat().unwrap(), "{plan}");
        let waiter = {
            let faulty = faulty.clone();
            std::thread::spawn(move || {
                client(&faulty, "bob").acquire(Some(Duration::from_secs(20)))
            })
        };
        until_queued(&plain, 1);
        assert!(ann.release().unwrap(), "{plan}: the release happened");
        let granted = waiter.join().unwrap().unwrap().expect("granted");
        let s = state(&plain);
        assert_eq!(s.owner.as_deref(), Some("bob"), "{plan}");
        assert_eq!(s.token, Some(granted), "{plan}");
        assert!(s.queue.is_empty(), "{plan}: {s:?}");

        let carl = client(&faulty, "carl");
        assert_eq!(carl.try_acquire().unwrap(), None, "{plan}");
        script(&plain, "mutex/enqueue", &[("name", name("carl"))]);
        assert!(carl.cancel().unwrap(), "{plan}: the cancel happened");
        assert!(state(&plain).queue.is_empty(), "{plan}");
    }
}

#[test]
fn a_failed_try_acquire_changes_nothing() {
    // Defect 5: TryAcquire queued the caller on failure.
    let db = db();
    client(&db, "ann").try_acquire().unwrap().unwrap();
    let before = raw(&db);
    assert_eq!(client(&db, "bob").try_acquire().unwrap(), None);
    assert_eq!(raw(&db), before);
}

#[test]
fn a_timed_out_waiter_leaves_no_trace() {
    // Defect 6: a cancelled Acquire left its queue entry, later granted.
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    // Less than the staleness: ann, silent, is not yet taken over.
    let started = Instant::now();
    let got = client(&db, "bob")
        .acquire(Some(Duration::from_millis(200)))
        .unwrap();
    assert_eq!(got, None);
    assert!(started.elapsed() >= Duration::from_millis(200));
    let s = state(&db);
    assert!(s.queue.is_empty(), "{s:?}");
    assert!(!s.heartbeats.contains_key("bob"));
    // Releasing hands the mutex to nobody.
    assert!(ann.release().unwrap());
    assert_eq!(state(&db).owner, None);
}

#[test]
fn a_queued_client_is_queued_once_and_never_barges() {
    // Defects 7 and 10: stale second entries, re-grants, range scans.
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    script(&db, "mutex/enqueue", &[("name", name("bob"))]);
    let before = raw(&db);
    // A client of a queued name is refused, and changes nothing.
    let err = client(&db, "bob").try_acquire().unwrap_err();
    assert!(
        matches!(err, fql::lock::mutex::Error::NameInUse { holds: false, .. }),
        "{err:?}"
    );
    assert_eq!(raw(&db), before);
    // A newcomer cannot take the mutex between release and grant: the
    // release grants in the same transaction.
    assert!(ann.release().unwrap());
    assert_eq!(client(&db, "carl").try_acquire().unwrap(), None);
    assert_eq!(state(&db).owner.as_deref(), Some("bob"));
}

/// A name is a client's identity: a second client with the name of one
/// that holds the mutex, or waits for it, is refused and changes nothing
/// (two of them would share one grant), while heartbeats and releases by
/// that name, from any handle, act for the client.
#[test]
fn a_second_client_with_a_live_name_is_refused() {
    // Defect 11: TryAcquire by the owner's name counted as holding it.
    let db = db();
    let ann = client(&db, "ann");
    let t = ann.try_acquire().unwrap().unwrap();
    let before = raw(&db);
    let second = client(&db, "ann");
    for got in [
        second.try_acquire(),
        second.acquire(Some(Duration::from_millis(10))),
    ] {
        let err = got.unwrap_err();
        assert!(
            matches!(err, fql::lock::mutex::Error::NameInUse { holds: true, .. }),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "another client named ann holds /locks/job: names must be unique among the clients of a mutex"
        );
    }
    assert_eq!(raw(&db), before);
    let bob = {
        let db = db.clone();
        std::thread::spawn(move || client(&db, "bob").acquire(Some(Duration::from_secs(20))))
    };
    until_queued(&db, 1);
    let err = client(&db, "bob")
        .acquire(Some(Duration::from_millis(10)))
        .unwrap_err();
    assert!(
        matches!(err, fql::lock::mutex::Error::NameInUse { holds: false, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("named bob waits for /locks/job"),
        "{err}"
    );
    assert_eq!(state(&db).queue.len(), 1, "bob is queued once");
    // Another handle of the holder's name beats and releases for it.
    let other = client(&db, "ann");
    assert!(other.heartbeat().unwrap());
    assert_eq!(other.held().unwrap(), Some(t));
    assert!(other.release().unwrap());
    assert!(bob.join().unwrap().unwrap().is_some(), "bob is granted");
}

#[test]
fn owner_heartbeats_wake_no_waiter() {
    // Defect 9: waiters watched the owner key, which every beat changed.
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    script(&db, "mutex/enqueue", &[("name", name("bob"))]);
    let mut watch = db
        .run(|tx, _| {
            let p = DirectoryLayer::new()
                .open(tx, &dir(), b"")?
                .prefix()?
                .to_vec();
            let key = [&p[..], b"\x02waiter\x00\x02bob\x00"].concat();
            Ok::<_, fql::directory::Error>(tx.watch(&key)?)
        })
        .unwrap();
    for _ in 0..5 {
        assert!(ann.heartbeat().unwrap());
    }
    assert!(
        !watch.wait(Some(Duration::from_millis(200))).unwrap(),
        "no wake-up"
    );
    assert!(ann.release().unwrap());
    assert!(
        watch.wait(Some(Duration::from_secs(5))).unwrap(),
        "the grant wakes bob"
    );
}

#[test]
fn the_reaper_hands_on_a_silent_owner_after_the_staleness() {
    // Defect 8 and the reaper: a dead owner costs L, a dead waiter that
    // reaches the head costs about h, not L.
    let db = db();
    // L is far above h here, so that a dead waiter judged by L rather
    // than h would show, however loaded the machine.
    let timing = Timing {
        heartbeat: Duration::from_millis(100),
        stale: Duration::from_millis(1500),
    };
    let ann = Mutex::new(db.clone(), dir(), "ann", timing).unwrap();
    ann.try_acquire().unwrap().unwrap();
    // Two waiters that die in the queue (they never beat again), then a
    // live one.
    script(&db, "mutex/enqueue", &[("name", name("dead1"))]);
    script(&db, "mutex/enqueue", &[("name", name("dead2"))]);
    // carl lives: it beats as a waiter, and takes no part in judging
    // (a waiter in `acquire` would take over by itself).
    script(&db, "mutex/enqueue", &[("name", name("carl"))]);
    let mut reaper = Reaper::new(db.clone(), dir(), timing).unwrap();
    let started = Instant::now();
    let mut reaped = Vec::new();
    // ann stopped beating: reaped after L; dead1 and dead2 are granted in
    // turn and reaped for not answering within h, or dropped from the
    // queue as waiters that stopped beating.
    while state(&db).owner.as_deref() != Some("carl") {
        assert!(started.elapsed() < Duration::from_secs(10), "{reaped:?}");
        script(&db, "mutex/waiting", &[("name", name("carl"))]);
        reaped.extend(reaper.tick().unwrap());
        std::thread::sleep(timing.heartbeat / 4);
    }
    let took = started.elapsed();
    assert_eq!(
        reaped.first(),
        Some(&Reaped::Owner("ann".into())),
        "{reaped:?}"
    );
    assert!(reaped.len() >= 3, "{reaped:?}");
    // L for ann, then about h for each dead waiter, not L.
    assert!(took < timing.stale * 2, "{took:?}");
    let token = client(&db, "carl").held().unwrap();
    assert_eq!(state(&db).token, token);
}

#[test]
fn a_live_owner_that_beats_is_never_reaped() {
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    let mut reaper = Reaper::new(db.clone(), dir(), FAST).unwrap();
    let started = Instant::now();
    while started.elapsed() < FAST.stale * 3 {
        assert!(ann.heartbeat().unwrap());
        assert_eq!(reaper.tick().unwrap(), []);
        std::thread::sleep(FAST.heartbeat / 2);
    }
    assert_eq!(state(&db).owner.as_deref(), Some("ann"));
}

#[test]
fn names_and_timings_are_checked() {
    let db = db();
    assert!(Mutex::new(db.clone(), dir(), "", FAST).is_err());
    let bad = Timing {
        heartbeat: Duration::from_secs(1),
        stale: Duration::from_secs(2),
    };
    assert!(Mutex::new(db, dir(), "ann", bad).is_err());
}

/// Waits until `n` clients wait in the queue of the mutex in `db`.
fn until_queued(db: &Arc<dyn Database>, n: usize) {
    eventually(&format!("{n} waiting"), || state(db).queue.len() == n);
}

#[test]
fn a_grant_costs_the_waiters_one_transaction_in_all() {
    // The head of the queue looks at the mutex every h / 4: a minute
    // keeps those looks out of the few seconds counted.
    let slow = Timing {
        heartbeat: Duration::from_secs(60),
        stale: Duration::from_secs(180),
    };
    let db = db();
    let ann = Mutex::new(db.clone(), dir(), "ann", slow).unwrap();
    ann.try_acquire().unwrap().unwrap();
    let mut counts = Vec::new();
    let mut waiters = Vec::new();
    for n in 0..5 {
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        counts.push(count.clone());
        let counted = hooked::counting_transactions(db.clone(), count);
        waiters.push(std::thread::spawn(move || {
            let me = Mutex::new(counted, dir(), format!("w{n}"), slow).unwrap();
            let token = me.acquire(Some(Duration::from_secs(20))).unwrap();
            assert!(me.release().unwrap());
            token
        }));
        until_queued(&db, n + 1);
    }
    let total = |counts: &[Arc<std::sync::atomic::AtomicUsize>]| -> usize {
        counts
            .iter()
            .map(|c| c.load(std::sync::atomic::Ordering::SeqCst))
            .sum()
    };
    let before = total(&counts);
    // Owner heartbeats cost the waiters nothing.
    for _ in 0..5 {
        assert!(ann.heartbeat().unwrap());
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(total(&counts), before);
    // The release wakes w0 alone, which answers in one transaction and
    // then releases in one more; the next grant the same, and so on.
    assert!(ann.release().unwrap());
    for w in waiters {
        assert!(w.join().unwrap().is_some());
    }
    assert_eq!(
        total(&counts) - before,
        5 * 2,
        "one answer and one release per waiter"
    );
}

/// The transactions of the Go client janderland/fdb-mutex, as its code
/// runs them (including its own bugs, which are not exercised here).
mod go {
    use super::*;

    fn prefix(tx: &mut dyn fql::kv::Transaction) -> Vec<u8> {
        DirectoryLayer::new()
            .create_or_open(tx, &dir(), b"")
            .unwrap()
            .prefix()
            .unwrap()
            .to_vec()
    }

    /// `setOwner`: clear the owner range, set `("owner", name)` empty.
    pub fn set_owner(db: &Arc<dyn Database>, name: &str) {
        db.run(|tx, _| {
            let p = prefix(tx);
            let range = [&p[..], &("owner",).pack_to_vec()].concat();
            tx.clear_range(&range, &fql::kv::strinc(&range))?;
            tx.set(&[&p[..], &("owner", name).pack_to_vec()].concat(), b"")
        })
        .unwrap();
    }

    /// `getOwner`: the first owner key's name, `""` when there is none.
    pub fn owner(db: &Arc<dyn Database>) -> String {
        db.run(|tx, _| {
            let p = prefix(tx);
            let range = [&p[..], &("owner",).pack_to_vec()].concat();
            let rows = fql::kv::collect_range(tx, &RangeOption::prefix(&range).limit(1), false)?;
            Ok::<_, fql::kv::Error>(rows.first().map_or(String::new(), |kv| {
                foundationdb_tuple::unpack::<(String, String)>(&kv.key[p.len()..])
                    .unwrap()
                    .1
            }))
        })
        .unwrap()
    }

    /// `watchOwner`: in one transaction, read the owner as `getOwner`
    /// does and watch its key; `""` (no owner key, or the free marker)
    /// watches `("owner","")`.
    pub fn watch_owner(db: &Arc<dyn Database>) -> fql::kv::Watch {
        db.run(|tx, _| {
            let p = prefix(tx);
            let range = [&p[..], &("owner",).pack_to_vec()].concat();
            let rows = fql::kv::collect_range(tx, &RangeOption::prefix(&range).limit(1), false)?;
            let name = rows.first().map_or(String::new(), |kv| {
                foundationdb_tuple::unpack::<(String, String)>(&kv.key[p.len()..])
                    .unwrap()
                    .1
            });
            tx.watch(&[&p[..], &("owner", name).pack_to_vec()].concat())
        })
        .unwrap()
    }

    /// `release` as fdb-mutex runs it for its owner: pop the queue head
    /// and make it owner, or `""`.
    pub fn release(db: &Arc<dyn Database>) {
        let next = db
            .run(|tx, _| {
                let p = prefix(tx);
                let range = [&p[..], &("queue",).pack_to_vec()].concat();
                let rows =
                    fql::kv::collect_range(tx, &RangeOption::prefix(&range).limit(1), false)?;
                let next = match rows.first() {
                    Some(kv) => {
                        tx.clear(&kv.key)?;
                        String::from_utf8(kv.value.clone()).unwrap()
                    }
                    None => String::new(),
                };
                Ok::<_, fql::kv::Error>(next)
            })
            .unwrap();
        set_owner(db, &next);
    }
}

#[test]
fn compat_clients_share_a_mutex_with_go_clients() {
    let db = db();
    // A Go client starts (NewMutex writes the free marker) and takes it.
    go::set_owner(&db, "");
    let fql_client = client(&db, "fql").compat(true);
    assert!(fql_client.try_acquire().unwrap().is_some(), "\"\" is free");
    assert_eq!(go::owner(&db), "fql");
    assert!(fql_client.heartbeat().unwrap());
    assert!(fql_client.release().unwrap());
    assert_eq!(go::owner(&db), "", "free, as Go reads it");

    go::set_owner(&db, "gopher");
    let waiter = {
        let db = db.clone();
        std::thread::spawn(move || {
            client(&db, "fql")
                .compat(true)
                .acquire(Some(Duration::from_secs(10)))
        })
    };
    eventually("a queue entry", || {
        !raw(&db)
            .1
            .iter()
            .all(|(k, _)| !k.windows(6).any(|w| w == b"queue\x00"))
    });
    go::release(&db);
    assert!(
        waiter.join().unwrap().unwrap().is_some(),
        "granted by Go's release"
    );
    assert_eq!(go::owner(&db), "fql");

    // Only keys and values Go writes: the owner key, with Go's 12-byte
    // heartbeat; of fql's own, only the settings, which Go never reads.
    let (p, rows) = raw(&db);
    assert_eq!(rows.len(), 2, "{rows:?}");
    let (key, value) = &rows[0];
    assert_eq!(&key[p.len()..], &b"\x02config\x00"[..]);
    assert_eq!(value, &(100i64, 300i64, "compat").pack_to_vec());
    let (key, value) = &rows[1];
    assert_eq!(&key[p.len()..], &b"\x02owner\x00\x02fql\x00"[..]);
    assert_eq!(value.len(), 12);
    assert_eq!(&value[10..], &[0, 0]);
}

#[test]
fn a_compat_reaper_reaps_by_the_owner_value_go_beats() {
    let db = db();
    let ann = client(&db, "ann").compat(true);
    ann.try_acquire().unwrap().unwrap();
    let mut reaper = Reaper::new(db.clone(), dir(), FAST).unwrap().compat(true);
    let start = Instant::now();
    // While ann beats it stays.
    let mut last_beat = Instant::now();
    while start.elapsed() < FAST.stale * 2 {
        assert!(ann.heartbeat().unwrap());
        last_beat = Instant::now();
        assert_eq!(reaper.tick().unwrap(), []);
        std::thread::sleep(FAST.heartbeat / 2);
    }
    // Then it stops, and is reaped once its beat stood still for L.
    eventually("ann reaped", || !reaper.tick().unwrap().is_empty());
    assert!(last_beat.elapsed() < Duration::from_secs(5));
    assert!(last_beat.elapsed() >= FAST.stale);
    assert_eq!(go::owner(&db), "");
}

#[test]
fn the_reaper_goes_on_after_errors() {
    // Defect 14: AutoRelease stopped at its first error.
    let db = db();
    let broken = Arc::new(std::sync::atomic::AtomicBool::new(true));
    // A database whose transactions fail, not retryably, while `broken`
    // is set.
    let flaky: Arc<dyn Database> = {
        let broken = broken.clone();
        Arc::new(fql::kv::LayeredDb::wrap(
            db.clone(),
            fql::kv::layer_fn(move |_| {
                if broken.load(std::sync::atomic::Ordering::SeqCst) {
                    return Err(fql::kv::Error::TransactionCancelled);
                }
                Ok(())
            }),
        ))
    };
    client(&db, "ann").try_acquire().unwrap().unwrap();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let errors = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let reaper = {
        let (stop, errors) = (stop.clone(), errors.clone());
        std::thread::spawn(move || {
            let mut reaper = Reaper::new(flaky, dir(), FAST).unwrap();
            let mut reaped = Vec::new();
            reaper
                .run(&stop, &mut |r| match r {
                    Ok(r) => reaped.push(r.clone()),
                    Err(_) => {
                        errors.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                })
                .expect("the directory is a mutex");
            reaped
        })
    };
    let errors = || errors.load(std::sync::atomic::Ordering::SeqCst);
    eventually("the reaper meets an error", || errors() > 0);
    broken.store(false, std::sync::atomic::Ordering::SeqCst);
    eventually("the owner reaped", || state(&db).owner.is_none());
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let reaped = reaper.join().unwrap();
    assert!(errors() > 0);
    assert_eq!(reaped, [Reaped::Owner("ann".into())]);
}

/// A mutex transaction whose own work outlives its window ends as
/// the engine's transactions do, with `fql::transaction_too_old` (whose
/// help says why running it again cannot help), not the bare database
/// error: the scripts run through the engine's transaction.
#[test]
fn a_mutex_transaction_that_outlives_its_window_is_too_old() {
    let plain: Arc<dyn Database> = Arc::new(Embedded::memory_with_limits(window::short()));
    let ann = client(&plain, "ann");
    ann.try_acquire().unwrap().expect("free");
    assert!(ann.release().unwrap());
    // The script's first write, after the checks have read, stalls past
    // the window; the reads after it find the transaction too old.
    let stalled = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hook: hooked::Hook = {
        let stalled = stalled.clone();
        let plain = plain.clone();
        Arc::new(move |op, _: &[u8]| {
            if op == hooked::Access::Write
                && !stalled.swap(true, std::sync::atomic::Ordering::SeqCst)
            {
                window::outlive_window(&*plain);
            }
            Ok(())
        })
    };
    let slow = hooked::hooked(plain.clone(), hook);
    let err = client(&slow, "bob").try_acquire().unwrap_err();
    assert!(
        matches!(
            err,
            fql::lock::mutex::Error::Run(fql::exec::Error::TooOld { .. })
        ),
        "{err:?}"
    );
    assert_eq!(state(&plain).owner, None, "nothing was written");
}

/// How many transactions wrote a queue entry (each attempt of an enqueue
/// writes one, retries included), counted through a hook on `db`.
fn counting_enqueues(
    db: Arc<dyn Database>,
    count: Arc<std::sync::atomic::AtomicUsize>,
) -> Arc<dyn Database> {
    let hook: hooked::Hook = Arc::new(move |op, key: &[u8]| {
        if op == hooked::Access::Write && key.windows(8).any(|w| w == b"\x02queue\x00\x33") {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        Ok(())
    });
    hooked::hooked(db, hook)
}

/// 24 clients, each on its own handle of one database file, start to
/// acquire a held mutex at once: every one queues in one attempt. An
/// enqueue reads the owner range (someone must hold the mutex) and writes
/// only keys of its own and a versionstamped queue key, which no other
/// enqueue reads, so none conflicts with another.
#[test]
fn simultaneous_enqueues_do_not_conflict() {
    const CLIENTS: usize = 24;
    let slow = Timing {
        heartbeat: Duration::from_secs(10),
        stale: Duration::from_secs(30),
    };
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("fql.db");
    let first: Arc<dyn Database> = Arc::new(Embedded::open(&path).unwrap());
    let holder = Mutex::new(first.clone(), dir(), "holder", slow).unwrap();
    holder.try_acquire().unwrap().expect("free");
    let start = Arc::new(std::sync::Barrier::new(CLIENTS));
    let counts: Vec<_> = (0..CLIENTS)
        .map(|_| Arc::new(std::sync::atomic::AtomicUsize::new(0)))
        .collect();
    let clients: Vec<_> = counts
        .iter()
        .enumerate()
        .map(|(n, attempts)| {
            let (path, attempts, start) = (path.clone(), attempts.clone(), start.clone());
            std::thread::spawn(move || {
                let own: Arc<dyn Database> = Arc::new(Embedded::open(&path).unwrap());
                let db = counting_enqueues(own, attempts);
                let me = Mutex::new(db, dir(), format!("w{n}"), slow).unwrap();
                start.wait();
                let token = me.acquire(Some(Duration::from_secs(120))).unwrap();
                assert!(me.release().unwrap());
                token
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    while state(&first).queue.len() < CLIENTS {
        assert!(Instant::now() < deadline, "{:?}", state(&first));
        std::thread::sleep(Duration::from_millis(20));
    }
    let attempts: Vec<usize> = counts
        .iter()
        .map(|c| c.load(std::sync::atomic::Ordering::SeqCst))
        .collect();
    assert!(holder.release().unwrap());
    for c in clients {
        assert!(
            c.join().unwrap().is_some(),
            "every client is granted in turn"
        );
    }
    let retried = attempts.iter().filter(|&&a| a > 1).count();
    let retries: usize = attempts.iter().map(|a| a - 1).sum();
    assert_eq!(
        (retried, retries),
        (0, 0),
        "clients whose enqueue retried after a conflict, and retries in all: {attempts:?}"
    );
}

/// What the mutex stores of its clients' timing and mode, raw.
fn stored_settings(db: &Arc<dyn Database>) -> Option<Vec<u8>> {
    let (p, rows) = raw(db);
    let key = [&p[..], b"\x02config\x00"].concat();
    rows.into_iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// The first client to take the mutex stores its timing and mode; a
/// client with others is refused, writing nothing, while the mutex is
/// held or waited for; the last owner's release clears them, and the
/// next user may choose others.
#[test]
fn clients_share_the_timing_and_mode_the_mutex_stores() {
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().expect("free");
    assert_eq!(
        stored_settings(&db),
        Some((100i64, 300i64, "default").pack_to_vec())
    );
    let slower = Timing {
        heartbeat: Duration::from_millis(200),
        stale: Duration::from_millis(900),
    };
    let before = raw(&db);
    let other = Mutex::new(db.clone(), dir(), "bob", slower).unwrap();
    let compat = client(&db, "bob").compat(true);
    for refused in [
        other.try_acquire(),
        other.acquire(Some(Duration::from_secs(1))),
        compat.acquire(Some(Duration::from_secs(1))),
    ] {
        let err = refused.unwrap_err();
        assert!(
            matches!(err, fql::lock::mutex::Error::Settings { .. }),
            "{err:?}"
        );
        assert!(
            err.to_string().starts_with(
                "/locks/job is in use with heartbeat 0.1 s, staleness 0.3 s, default mode, stored in the mutex; this client has "
            ),
            "{err}"
        );
    }
    assert_eq!(raw(&db), before, "refused clients wrote nothing");
    // A release in the other mode is refused too; one in the same mode,
    // with any timing, is not.
    assert!(client(&db, "ann").compat(true).release().is_err());
    assert!(
        Mutex::new(db.clone(), dir(), "ann", slower)
            .unwrap()
            .heartbeat()
            .unwrap()
    );
    // While someone waits the settings stay; the last release clears them.
    let bob = {
        let db = db.clone();
        std::thread::spawn(move || client(&db, "bob").acquire(Some(Duration::from_secs(20))))
    };
    until_queued(&db, 1);
    assert!(ann.release().unwrap());
    assert!(bob.join().unwrap().unwrap().is_some());
    assert!(stored_settings(&db).is_some());
    assert!(client(&db, "bob").release().unwrap());
    assert_eq!(stored_settings(&db), None);
    assert!(other.try_acquire().unwrap().is_some(), "other settings now");
    assert_eq!(
        stored_settings(&db),
        Some((200i64, 900i64, "default").pack_to_vec())
    );
}

/// Settings left on a mutex nobody holds or waits for (a Go client
/// released it, which knows nothing of them) bind nobody: the next client
/// to take it stores its own.
#[test]
fn settings_on_an_idle_mutex_bind_nobody() {
    let db = db();
    let ann = client(&db, "ann").compat(true);
    ann.try_acquire().unwrap().expect("free");
    // A Go client's grant and release, as fdb-mutex runs them.
    go::set_owner(&db, "gopher");
    go::release(&db);
    assert!(stored_settings(&db).is_some());
    let slower = Timing {
        heartbeat: Duration::from_millis(200),
        stale: Duration::from_millis(900),
    };
    let carl = Mutex::new(db.clone(), dir(), "carl", slower).unwrap();
    assert!(carl.try_acquire().unwrap().is_some());
    assert_eq!(
        stored_settings(&db),
        Some((200i64, 900i64, "default").pack_to_vec())
    );
}

/// A reaper judges by the timing and mode the mutex stores, not its own:
/// it does not reap a live owner that beats more slowly than its own
/// staleness allows, nor judge a default owner by the owner key's value
/// (which never changes there), and it reaps a dead compat owner by that
/// value.
#[test]
fn a_reaper_judges_by_the_stored_timing_and_mode() {
    let slower = Timing {
        heartbeat: Duration::from_millis(250),
        stale: Duration::from_millis(1500),
    };
    for (owner_compat, reaper_compat) in [(false, false), (false, true)] {
        let db = db();
        let ann = Mutex::new(db.clone(), dir(), "ann", slower)
            .unwrap()
            .compat(owner_compat);
        ann.try_acquire().unwrap().expect("free");
        let mut reaper = Reaper::new(db.clone(), dir(), FAST)
            .unwrap()
            .compat(reaper_compat);
        let started = Instant::now();
        let mut beat = Instant::now();
        while started.elapsed() < Duration::from_secs(2) {
            if beat.elapsed() >= slower.heartbeat {
                assert!(ann.heartbeat().unwrap());
                beat = Instant::now();
            }
            assert_eq!(reaper.tick().unwrap(), [], "reaper compat: {reaper_compat}");
            std::thread::sleep(FAST.heartbeat / 4);
        }
        assert_eq!(state(&db).owner.as_deref(), Some("ann"));
    }
    // A compat owner that stopped beating, and a default reaper.
    let db = db();
    client(&db, "ann")
        .compat(true)
        .try_acquire()
        .unwrap()
        .unwrap();
    let mut reaper = Reaper::new(db.clone(), dir(), slower).unwrap();
    let started = Instant::now();
    let reaped = eventually_some("ann reaped", || {
        Some(reaper.tick().unwrap()).filter(|r| !r.is_empty())
    });
    assert!(started.elapsed() < Duration::from_secs(10), "reaped late");
    assert_eq!(reaped, [Reaped::Owner("ann".into())]);
    assert_eq!(go::owner(&db), "", "handed to Go's free marker");
}

/// A Go client that found the mutex free (no owner key) watches
/// `("owner","")`, as fdb-mutex's waiters do; a compatible release to an
/// empty queue writes that key, as fdb-mutex's release does, so the Go
/// client wakes and takes the mutex.
#[test]
fn a_go_client_waiting_on_the_free_marker_is_woken_by_a_compat_release() {
    let db = db();
    let fql_client = client(&db, "fql").compat(true);
    // The Go client looks while nobody holds the mutex and nothing marks
    // it free, then the fql client takes it.
    let mut watch = go::watch_owner(&db);
    fql_client.try_acquire().unwrap().expect("free");
    assert!(
        !watch.wait(Some(Duration::from_millis(100))).unwrap(),
        "taking it leaves the marker's key as it was"
    );
    assert!(fql_client.release().unwrap());
    assert!(
        watch.wait(Some(Duration::from_secs(10))).unwrap(),
        "the release writes (\"owner\",\"\")"
    );
    let (p, rows) = raw(&db);
    let marker = [&p[..], b"\x02owner\x00\x02\x00"].concat();
    assert_eq!(rows, [(marker, vec![])], "the marker, and nothing else");
    // Woken, the Go client finds "" and takes the mutex.
    assert_eq!(go::owner(&db), "");
    go::set_owner(&db, "gopher");
    assert_eq!(go::owner(&db), "gopher");
    // An fql waiter behind it is granted by Go's release, and its own
    // release to an empty queue marks the mutex free again.
    let waiter = {
        let db = db.clone();
        std::thread::spawn(move || {
            client(&db, "fql")
                .compat(true)
                .acquire(Some(Duration::from_secs(20)))
        })
    };
    eventually("a queue entry", || {
        raw(&db)
            .1
            .iter()
            .any(|(k, _)| k.windows(6).any(|w| w == b"queue\x00"))
    });
    go::release(&db);
    assert!(waiter.join().unwrap().unwrap().is_some());
    let mut watch = go::watch_owner(&db);
    assert!(client(&db, "fql").compat(true).release().unwrap());
    assert!(watch.wait(Some(Duration::from_secs(10))).unwrap());
    assert_eq!(go::owner(&db), "");
}

/// Stored settings that no client writes make the directory no mutex, as
/// any key a mutex does not hold does: every operation refuses it, the
/// reaper included, and writes nothing.
#[test]
fn settings_no_client_writes_are_refused() {
    let db = db();
    client(&db, "ann").try_acquire().unwrap().unwrap();
    db.run(|tx, _| {
        let p = DirectoryLayer::new()
            .open(tx, &dir(), b"")?
            .prefix()?
            .to_vec();
        let key = [&p[..], &("config",).pack_to_vec()].concat();
        tx.set(&key, &(100i64, 300i64, "fast").pack_to_vec())?;
        Ok::<_, fql::directory::Error>(())
    })
    .unwrap();
    let before = raw(&db);
    let err = client(&db, "bob")
        .acquire(Some(Duration::from_secs(1)))
        .unwrap_err();
    assert!(
        matches!(err, fql::lock::mutex::Error::Foreign { .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains(r#"it holds /locks/job("config")=(100,300,"fast")"#),
        "{err}"
    );
    assert!(client(&db, "ann").release().is_err());
    let mut reaper = Reaper::new(db.clone(), dir(), FAST).unwrap();
    assert!(matches!(
        reaper.tick(),
        Err(fql::lock::mutex::Error::Foreign { .. })
    ));
    assert_eq!(raw(&db), before);
}

/// A name that is not plain is escaped in the refusal.
#[test]
fn a_refused_name_is_escaped() {
    let db = db();
    let odd = "web\u{1b}[31m";
    client(&db, odd).try_acquire().unwrap().unwrap();
    let err = client(&db, odd).try_acquire().unwrap_err();
    assert!(
        err.to_string()
            .starts_with(r#"another client named "web\x1b[31m" holds /locks/job"#),
        "{err}"
    );
}
