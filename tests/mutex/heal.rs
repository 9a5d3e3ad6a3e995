//! No reaper: the head waiter takes over a dead owner, and every state a
//! crash or an operator can leave heals (in process, on one database).

use super::*;

/// Runs FQL text with `dir` bound to the mutex's directory: an operator's
/// hand on the keys.
fn by_hand(db: &Arc<dyn Database>, text: &str) {
    let engine = Engine::new(db.clone());
    let params = [("dir".to_string(), elem(dir_param(&dir())).into())].into();
    engine.run_text(text, &params, &mut |_| Ok(())).unwrap();
}

/// `name`'s `acquire`, on a thread, with a generous limit.
fn acquiring(
    db: &Arc<dyn Database>,
    name: &str,
) -> std::thread::JoinHandle<Option<fql::lock::Token>> {
    let me = client(db, name);
    std::thread::spawn(move || me.acquire(Some(Duration::from_secs(20))).unwrap())
}

#[test]
fn the_head_waiter_takes_over_a_silent_owner_after_the_staleness() {
    let db = db();
    let ann = client(&db, "ann");
    let first = ann.try_acquire().unwrap().unwrap();
    let started = Instant::now();
    let bob = acquiring(&db, "bob").join().unwrap().expect("bob gets it");
    let took = started.elapsed();
    // bob watched ann's heartbeat stand still for L on its own clock.
    assert!(took >= FAST.stale, "{took:?}");
    assert!(bob > first, "a new token: {bob:?} after {first:?}");
    assert_eq!(state(&db).owner.as_deref(), Some("bob"));
    assert!(!ann.heartbeat().unwrap(), "ann lost it");
}

#[test]
fn an_owner_that_beats_is_not_taken_over_by_its_waiter() {
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    let bob = acquiring(&db, "bob");
    let started = Instant::now();
    while started.elapsed() < FAST.stale * 4 {
        assert!(ann.heartbeat().unwrap(), "ann was taken over");
        std::thread::sleep(FAST.heartbeat / 2);
    }
    assert!(ann.release().unwrap());
    assert!(bob.join().unwrap().is_some());
}

#[test]
fn an_owner_key_without_a_heartbeat_is_judged_by_its_value() {
    // Written by hand (or by a Go client, which keeps no heartbeat key).
    let db = db();
    by_hand(&db, "/:dir(\"owner\",\"ghost\")=nil");
    let bob = acquiring(&db, "bob").join().unwrap();
    assert!(bob.is_some());
    assert_eq!(state(&db).owner.as_deref(), Some("bob"));
}

#[test]
fn a_free_mutex_with_waiters_is_granted_to_the_head() {
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    script(&db, "mutex/enqueue", &[("name", name("dead"))]);
    let carl = acquiring(&db, "carl");
    until_queued(&db, 2);
    // An operator clears the owner key: the queue waits on a free mutex.
    by_hand(&db, "/:dir(\"owner\",\"ann\")=clear");
    // carl grants the head, dead, which never answers: taken over after h.
    assert!(carl.join().unwrap().is_some());
    let s = state(&db);
    assert_eq!(s.owner.as_deref(), Some("carl"));
    assert!(s.queue.is_empty(), "{s:?}");
}

#[test]
fn the_reaper_grants_a_free_mutex_with_waiters() {
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    script(&db, "mutex/enqueue", &[("name", name("bob"))]);
    by_hand(&db, "/:dir(\"owner\",\"ann\")=clear");
    let mut reaper = Reaper::new(db.clone(), dir(), FAST).unwrap();
    assert_eq!(reaper.tick().unwrap(), [Reaped::Granted("bob".into())]);
    assert_eq!(state(&db).owner.as_deref(), Some("bob"));
}

#[test]
fn a_queue_entry_with_no_waiter_key_or_heartbeat_is_dropped() {
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    script(&db, "mutex/enqueue", &[("name", name("ghost"))]);
    by_hand(
        &db,
        "/:dir(\"waiter\",\"ghost\")=clear\n/:dir(\"hb\",\"ghost\")=clear",
    );
    // Behind the stray entry, bob waits; ann stays silent.
    assert!(acquiring(&db, "bob").join().unwrap().is_some());
    let s = state(&db);
    assert_eq!(s.owner.as_deref(), Some("bob"));
    assert!(s.queue.is_empty(), "the stray entry is gone: {s:?}");
}

#[test]
fn a_waiter_key_with_no_queue_entry_queues_again() {
    let db = db();
    let ann = client(&db, "ann");
    ann.try_acquire().unwrap().unwrap();
    script(&db, "mutex/enqueue", &[("name", name("bob"))]);
    by_hand(&db, "/:dir(\"queue\",...)=clear");
    let bob = acquiring(&db, "bob");
    until_queued(&db, 1);
    assert!(ann.release().unwrap());
    assert!(bob.join().unwrap().is_some());
    assert_eq!(state(&db).owner.as_deref(), Some("bob"));
}
