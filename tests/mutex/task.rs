//! The task lock: states validated by the scripts themselves, tokens per
//! take, and the lease judged on the taker's clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fql::exec::Engine;
use fql::kv::Database;
use fql::lock::dir_param;
use fql::lock::task::{Finish, Taken, Task};
use fql::syntax::ast::ElemKind;

use super::{db, elem};

fn jobs() -> Vec<String> {
    vec!["jobs".into()]
}

fn task(db: &Arc<dyn Database>, name: &str) -> Task {
    Task::new(db.clone(), jobs(), "t1", name).unwrap()
}

/// Runs FQL text on `db`.
fn fql(db: &Arc<dyn Database>, text: &str) -> Vec<String> {
    let mut rows = Vec::new();
    Engine::new(db.clone())
        .run_text(text, &Default::default(), &mut |o: fql::exec::Output| {
            rows.push(o.to_string());
            Ok(())
        })
        .unwrap();
    rows
}

fn everything(db: &Arc<dyn Database>) -> Vec<String> {
    fql(db, "/jobs(...)")
}

const NEVER: &dyn Fn() -> bool = &|| false;
const LEASE: Duration = Duration::from_millis(300);

#[test]
fn a_task_is_taken_only_from_waiting_or_failed() {
    let db = db();
    for (value, taken) in [
        (r#""cancelled""#, Taken::Other(fql_value("cancelled"))),
        ("42", Taken::Other(vec![0x15, 42])),
        ("nil", Taken::Other(vec![])),
        (r#""done""#, Taken::Done),
        (r#""running""#, Taken::Unleased),
    ] {
        fql(&db, &format!(r#"/jobs("task","t1")={value}"#));
        let before = everything(&db);
        assert_eq!(
            task(&db, "ann").take(LEASE, NEVER).unwrap(),
            taken,
            "{value}"
        );
        assert_eq!(everything(&db), before, "{value}: nothing written");
    }
    fql(&db, r#"/jobs(...)=clear"#);
    assert_eq!(task(&db, "ann").take(LEASE, NEVER).unwrap(), Taken::Missing);
    for from in ["waiting", "failed"] {
        fql(&db, &format!(r#"/jobs("task","t1")="{from}""#));
        let Taken::Took(token) = task(&db, "ann").take(LEASE, NEVER).unwrap() else {
            panic!("taken from {from}")
        };
        assert!(task(&db, "ann").finish(token, Finish::Failed).unwrap());
        fql(&db, r#"/jobs(...)=clear"#);
    }
}

fn fql_value(s: &str) -> Vec<u8> {
    foundationdb_tuple::pack(&s)
}

#[test]
fn only_the_take_that_holds_the_task_finishes_it_and_only_as_done_or_failed() {
    let db = db();
    fql(&db, r#"/jobs("task","t1")="waiting""#);
    let Taken::Took(token) = task(&db, "ann").take(LEASE, NEVER).unwrap() else {
        panic!("waiting")
    };
    let before = everything(&db);
    let mut other = token;
    other.0[11] ^= 1;
    assert!(!task(&db, "ann").finish(other, Finish::Done).unwrap());
    assert!(!task(&db, "bob").finish(token, Finish::Done).unwrap());
    assert!(!task(&db, "bob").beat(token).unwrap());
    // By hand, the script refuses a state that is not done or failed.
    let engine = Engine::new(db.clone());
    let mut params: fql::plan::Params = [
        ("dir", dir_param(&jobs())),
        ("task", ElemKind::Str("t1".into())),
        ("name", ElemKind::Str("ann".into())),
        ("token", ElemKind::Bytes(token.0.to_vec())),
        ("state", ElemKind::Str("cancelled".into())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), elem(v).into()))
    .collect();
    let source = fql::scripts::find("task/finish").unwrap().source;
    let refused = engine.run_text(source, &params, &mut |_| Ok(()));
    assert!(refused.is_err());
    assert_eq!(everything(&db), before, "nothing written");
    params.insert("state".into(), elem(ElemKind::Str("done".into())).into());
    engine.run_text(source, &params, &mut |_| Ok(())).unwrap();
    assert_eq!(everything(&db), [r#"/jobs("task","t1")="done""#]);
}

#[test]
fn a_running_task_is_taken_over_only_once_its_heartbeat_stood_still() {
    let db = db();
    fql(&db, r#"/jobs("task","t1")="waiting""#);
    let Taken::Took(first) = task(&db, "ann").take(LEASE, NEVER).unwrap() else {
        panic!("waiting")
    };
    let beating = Arc::new(AtomicBool::new(true));
    let beater = {
        let (db, beating) = (db.clone(), beating.clone());
        std::thread::spawn(move || {
            let ann = task(&db, "ann");
            while beating.load(Ordering::SeqCst) {
                assert!(ann.beat(first).unwrap());
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    // Refused at ann's next beat, however long the lease.
    let live = task(&db, "bob")
        .take(Duration::from_secs(30), NEVER)
        .unwrap();
    assert_eq!(live, Taken::Running);
    beating.store(false, Ordering::SeqCst);
    beater.join().unwrap();
    let Taken::Took(second) = task(&db, "bob").take(LEASE, NEVER).unwrap() else {
        panic!("ann stopped beating")
    };
    assert!(second > first);
    assert!(!task(&db, "ann").beat(first).unwrap(), "ann lost it");
    assert!(!task(&db, "ann").finish(first, Finish::Done).unwrap());
    assert!(task(&db, "bob").finish(second, Finish::Done).unwrap());
    // A stop request ends a take's wait at once.
    fql(&db, r#"/jobs("task","t1")="waiting""#);
    task(&db, "carl").take(LEASE, NEVER).unwrap();
    let stopped = task(&db, "dan")
        .take(Duration::from_secs(60), &|| true)
        .unwrap();
    assert_eq!(stopped, Taken::Stopped);
}
