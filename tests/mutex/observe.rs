//! Observing and administering a mutex from Rust: ages in seconds and
//! verdicts, every lock under a directory (of every kind) from one
//! snapshot, a fenced break.

use std::time::Duration;

use fql::exec::Engine;
use fql::lock::list::{Lock, list};
use fql::lock::mutex::break_mutex;
use fql::lock::{Timing, Verdict};

use super::{FAST, client, db, dir, script, state, until_queued};
use crate::support::window;

#[test]
fn ages_are_in_seconds_and_a_silent_owner_turns_stale() {
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    let long = Timing {
        heartbeat: Duration::from_secs(10),
        stale: Duration::from_secs(60),
    };
    assert_eq!(state(&db).verdict("ann", long), Verdict::Live);
    std::thread::sleep(Duration::from_millis(400));
    let s = state(&db);
    // The versions of a quiet database still tell the time gone by.
    let age = s.heartbeat_age("ann").expect("ann beat");
    assert!(age >= Duration::from_millis(400), "{age:?}");
    assert!(s.held_for().unwrap() >= age, "held since its grant");
    assert_eq!(s.verdict("ann", FAST), Verdict::Stale);
    assert_eq!(s.verdict("nobody", FAST), Verdict::Silent);
    // A beat makes it live again.
    assert!(ann.heartbeat().unwrap());
    assert_eq!(state(&db).verdict("ann", long), Verdict::Live);
    assert!(state(&db).heartbeat_age("ann").unwrap() < age);
}

#[test]
fn a_waiters_wait_is_told_from_its_queue_entry() {
    let db = db();
    client(&db, "ann").try_acquire().unwrap().unwrap();
    script(&db, "mutex/enqueue", &[("name", super::name("bob"))]);
    std::thread::sleep(Duration::from_millis(300));
    let s = state(&db);
    let since = fql::lock::version_of(&s.queue[0].since);
    assert!(s.age(since) >= Duration::from_millis(300));
}

#[test]
fn list_finds_every_lock_under_a_directory_from_one_snapshot() {
    let db = db();
    let engine = Engine::new(db.clone());
    client(&db, "ann").try_acquire().unwrap().unwrap();
    let other = |d: &[&str], n: &str| {
        let d: Vec<String> = d.iter().map(|s| s.to_string()).collect();
        fql::lock::mutex::Mutex::new(db.clone(), d, n, FAST).unwrap()
    };
    other(&["locks", "job", "inner"], "carl")
        .try_acquire()
        .unwrap();
    other(&["locks", "free"], "dan").try_acquire().unwrap();
    // A read-write lock and a semaphore are locks too, of their kinds.
    let kinded = |d: &str, n: &str, kind| {
        let d = vec!["locks".to_string(), d.to_string()];
        fql::lock::rwlock::Lock::new(db.clone(), d, n, FAST, kind).unwrap()
    };
    let (rw, sem) = (
        (
            fql::lock::rwlock::Kind::ReadWrite,
            fql::lock::rwlock::Mode::Read,
        ),
        (
            fql::lock::rwlock::Kind::Semaphore(2),
            fql::lock::rwlock::Mode::Permit,
        ),
    );
    kinded("rw", "eve", rw).try_acquire().unwrap().unwrap();
    kinded("rw", "fay", rw).try_acquire().unwrap().unwrap();
    kinded("sem", "gus", sem).try_acquire().unwrap().unwrap();
    assert!(other(&["locks", "free"], "dan").release().unwrap());
    // A directory of a user's data is no lock, nor is an empty one.
    let none = std::collections::HashMap::new();
    Engine::new(db.clone())
        .run_text(
            "/locks/data(\"x\")=1\n/locks/empty(1)=1\n/locks/empty(1)=clear",
            &none,
            &mut |_| Ok(()),
        )
        .unwrap();
    let survey = list(&engine, &["locks".to_string()]).unwrap();
    let paths: Vec<String> = survey
        .locks
        .iter()
        .map(|l| fql::directory::show(&l.path))
        .collect();
    assert_eq!(
        paths,
        [
            "/locks/free",
            "/locks/job",
            "/locks/job/inner",
            "/locks/rw",
            "/locks/sem"
        ]
    );
    let owners: Vec<Vec<String>> = survey
        .locks
        .iter()
        .map(|l| match &l.lock {
            Lock::Mutex(s) => s.owner.iter().cloned().collect(),
            Lock::ReadWrite(s) | Lock::Semaphore(s) => {
                s.holders.iter().map(|h| h.name.clone()).collect()
            }
            _ => unreachable!("no other kind is made here"),
        })
        .collect();
    assert_eq!(
        owners,
        [
            vec![],
            vec!["ann".to_string()],
            vec!["carl".into()],
            vec!["eve".into(), "fay".into()],
            vec!["gus".into()]
        ]
    );
    let kinds: Vec<&str> = survey.locks.iter().map(|l| l.lock.kind()).collect();
    assert_eq!(kinds, ["mutex", "mutex", "mutex", "rwlock", "semaphore"]);
    // /locks itself, /locks/data and /locks/empty.
    assert_eq!(survey.others, 3);
    assert!(survey.exists);
    assert!(!list(&engine, &["nowhere".to_string()]).unwrap().exists);
}

#[test]
fn break_fences_the_owner_out_and_hands_the_mutex_on() {
    let db = db();
    let engine = Engine::new(db.clone());
    let ann = client(&db, "ann");
    let first = ann.try_acquire().unwrap().unwrap();
    let waiter = {
        let db = db.clone();
        std::thread::spawn(move || client(&db, "bob").acquire(Some(Duration::from_secs(20))))
    };
    until_queued(&db, 1);
    let broken = break_mutex(&engine, &dir()).unwrap().expect("a mutex");
    assert_eq!(broken.previous.as_deref(), Some("ann"));
    assert_eq!(broken.owner.as_deref(), Some("bob"));
    assert!(broken.token > first, "a new token, above the old");
    assert_eq!(waiter.join().unwrap().unwrap(), Some(broken.token));
    assert!(!ann.heartbeat().unwrap(), "ann finds it no longer holds it");
    let s = state(&db);
    assert_eq!(s.token, Some(broken.token));
    assert!(!s.heartbeats.contains_key("ann"));
    assert_eq!(s.stats.get("breaks"), Some(&1));
    // Broken again, with nobody waiting: free, under yet another token.
    let again = break_mutex(&engine, &dir()).unwrap().expect("a mutex");
    assert_eq!(again.previous.as_deref(), Some("bob"));
    assert_eq!(again.owner, None);
    assert!(again.token > broken.token);
    let s = state(&db);
    assert_eq!(s.owner, None);
    assert_eq!(s.stats.get("breaks"), Some(&2));
    // No directory, no mutex: nothing is made.
    let missing = vec!["nowhere".to_string()];
    assert_eq!(break_mutex(&engine, &missing).unwrap(), None);
    assert!(!state_of(&db, &missing).exists);
}

fn state_of(db: &std::sync::Arc<dyn fql::kv::Database>, d: &[String]) -> fql::lock::mutex::State {
    fql::lock::mutex::State::read(&Engine::new(db.clone()), d).unwrap()
}

/// A tree too large to read within a transaction's window fails
/// with `transaction_too_old`, which `fql mutex list` names as the cause,
/// rather than list it from several snapshots.
#[test]
fn a_list_that_outlives_its_transaction_is_too_old() {
    let plain: std::sync::Arc<dyn fql::kv::Database> = std::sync::Arc::new(
        fql::kv::embedded::Embedded::memory_with_limits(window::short()),
    );
    client(&plain, "ann").try_acquire().unwrap().unwrap();
    let reads = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let hook: super::hooked::Hook = {
        let reads = reads.clone();
        let plain = plain.clone();
        std::sync::Arc::new(move |op, _: &[u8]| {
            // A read after the snapshot was taken stalls past the window.
            let n = reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if op == super::hooked::Access::Read && n == 2 {
                window::outlive_window(&*plain);
            }
            Ok(())
        })
    };
    let slow = super::hooked::hooked(plain.clone(), hook);
    let err = list(&Engine::new(slow), &["locks".to_string()]).unwrap_err();
    assert_eq!(
        fql::kv::AsKvError::as_kv(&err),
        Some(&fql::kv::Error::TransactionTooOld),
        "{err:?}"
    );
}
