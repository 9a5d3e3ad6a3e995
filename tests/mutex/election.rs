//! Leader election and observing it, in one process on the memory store.

use std::sync::mpsc::channel;
use std::time::Duration;

use fql::exec::Engine;
use fql::lock::election::{Campaign, Election, Leader, Observe, Term, observe};
use fql::watch::Ended;

use super::{FAST, client, db, dir, state, until_queued};

const TIMEOUT: Duration = Duration::from_secs(10);

#[test]
fn observe_reports_the_leader_then_each_change() {
    let db = db();
    let (tx, rx) = channel();
    let engine = Engine::new(db.clone());
    let observer = std::thread::spawn(move || {
        // Only a watch can wake it in time: the directory does not
        // exist yet, and the fallback poll is far off.
        let options = Observe {
            count: Some(2),
            poll: Duration::from_secs(3600),
            ..Observe::default()
        };
        let mut sink = |l: Option<&Leader>| {
            tx.send(l.cloned()).unwrap();
            Ok::<_, fql::lock::mutex::Error>(())
        };
        observe(&engine, &dir(), options, &|| false, &mut sink)
    });
    let next = || rx.recv_timeout(TIMEOUT).expect("a report");
    assert_eq!(next(), None, "nobody leads a mutex nobody used");
    let ann = client(&db, "ann");
    let token = ann.try_acquire().unwrap().unwrap();
    let leader = next().expect("ann leads");
    assert_eq!((leader.name.as_str(), leader.term), ("ann", Some(token)));
    // Heartbeats change neither leader nor term: nothing to report.
    ann.heartbeat().unwrap();
    ann.release().unwrap();
    assert_eq!(next(), None);
    assert_eq!(observer.join().unwrap().unwrap(), Ended::Count);
}

#[test]
fn a_stopped_candidate_withdraws_and_a_stopped_leader_resigns() {
    let db = db();
    let holder = client(&db, "holder");
    holder.try_acquire().unwrap().unwrap();
    let bob = Election::new(db.clone(), dir(), "bob", FAST, TIMEOUT).unwrap();
    let stopper = bob.stopper();
    let campaign = std::thread::spawn(move || bob.campaign(None));
    until_queued(&db, 1);
    stopper.stop();
    assert_eq!(campaign.join().unwrap().unwrap(), Campaign::Stopped);
    assert!(state(&db).queue.is_empty(), "{:?}", state(&db));
    holder.release().unwrap();

    let carl = Election::new(db.clone(), dir(), "carl", FAST, TIMEOUT).unwrap();
    let Campaign::Elected(term) = carl.campaign(None).unwrap() else {
        panic!("carl leads a free mutex")
    };
    assert_eq!(state(&db).token, Some(term));
    let stopper = carl.stopper();
    let lead = std::thread::spawn(move || carl.lead());
    std::thread::sleep(FAST.heartbeat * 3);
    stopper.stop();
    assert_eq!(lead.join().unwrap().unwrap(), Term::Resigned);
    assert_eq!(state(&db).owner, None);
}

#[test]
fn a_leader_that_loses_the_mutex_knows_it() {
    let db = db();
    let dan = Election::new(db.clone(), dir(), "dan", FAST, TIMEOUT).unwrap();
    assert!(matches!(dan.campaign(None).unwrap(), Campaign::Elected(_)));
    // Released behind its back, as an operator would.
    client(&db, "dan").release().unwrap();
    assert_eq!(dan.lead().unwrap(), Term::Lost);
    let timed_out = Election::new(db.clone(), dir(), "eve", FAST, TIMEOUT).unwrap();
    client(&db, "other").try_acquire().unwrap().unwrap();
    let waited = timed_out
        .campaign(Some(Duration::from_millis(200)))
        .unwrap();
    assert_eq!(waited, Campaign::TimedOut);
    assert!(state(&db).queue.is_empty());
}
