//! Schemas: the mutex schema against every state the mutex commands
//! leave, corrupted data reported with the right reasons, and inferred
//! schemas that validate the data they came from.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fql::kv::embedded::Embedded;
use fql::kv::{Database, DatabaseExt, RetryOptions};
use fql::lock::mutex::{Mutex, Reaper};
use fql::lock::{Timing, dir_param};
use fql::schema::{Violation, validate};
use fql::syntax::ast::Elem;

use crate::support::eventually::eventually;
use crate::support::hooked;

const FAST: Timing = Timing {
    heartbeat: Duration::from_millis(50),
    stale: Duration::from_millis(150),
};

fn dir() -> Vec<String> {
    vec!["locks".into(), "job".into()]
}

fn params() -> fql::plan::Params {
    let dir = Elem {
        kind: dir_param(&dir()),
        span: Default::default(),
    };
    [("dir".to_string(), dir.into())].into()
}

/// The violations of the mutex schema in `db`.
fn mutex_violations(db: &Arc<dyn Database>) -> Vec<Violation> {
    let schema = fql::scripts::find("mutex/schema").unwrap().source;
    let mut found = Vec::new();
    validate(
        &**db,
        RetryOptions::default(),
        schema,
        &params(),
        None,
        &mut |v| found.push(v.clone()),
    )
    .unwrap();
    found
}

fn run(db: &Arc<dyn Database>, script: &str) {
    let engine = fql::exec::Engine::new(db.clone());
    engine.run_text(script, &params(), &mut |_| Ok(())).unwrap();
}

#[test]
fn the_mutex_schema_holds_in_every_state_the_commands_leave() {
    let db: Arc<dyn Database> = Arc::new(Embedded::memory());
    let client = |name: &str| Mutex::new(db.clone(), dir(), name, FAST).unwrap();
    let (ann, bob) = (client("ann"), client("bob"));
    let mut states = Vec::new();
    ann.try_acquire().unwrap().unwrap();
    states.push(("held", mutex_violations(&db)));
    let waiter = {
        let db = db.clone();
        std::thread::spawn(move || {
            Mutex::new(db, dir(), "carl", FAST)
                .unwrap()
                .acquire(Some(Duration::from_secs(10)))
        })
    };
    eventually("carl waiting", || {
        !fql::lock::mutex::State::read(&fql::exec::Engine::new(db.clone()), &dir())
            .unwrap()
            .queue
            .is_empty()
    });
    states.push(("held, one waiting", mutex_violations(&db)));
    assert!(ann.release().unwrap());
    waiter.join().unwrap().unwrap().unwrap();
    states.push(("handed on", mutex_violations(&db)));
    assert_eq!(bob.acquire(Some(Duration::from_millis(100))).unwrap(), None);
    states.push(("after a timed-out wait", mutex_violations(&db)));
    // The owner stops beating and is reaped.
    let mut reaper = Reaper::new(db.clone(), dir(), FAST).unwrap();
    let start = std::time::Instant::now();
    eventually("the owner reaped", || !reaper.tick().unwrap().is_empty());
    assert!(start.elapsed() < Duration::from_secs(5));
    states.push(("reaped", mutex_violations(&db)));
    // Go-compatible clients: heartbeats on the owner key.
    let go = Mutex::new(db.clone(), dir(), "gopher", FAST)
        .unwrap()
        .compat(true);
    go.try_acquire().unwrap().unwrap();
    go.heartbeat().unwrap();
    states.push(("held by a compatible client", mutex_violations(&db)));
    go.release().unwrap();
    states.push(("free", mutex_violations(&db)));
    for (state, violations) in states {
        assert!(violations.is_empty(), "{state}: {violations:?}");
    }
}

#[test]
fn corrupted_mutex_data_is_reported_with_its_reasons() {
    let db: Arc<dyn Database> = Arc::new(Embedded::memory());
    let ann = Mutex::new(db.clone(), dir(), "ann", FAST).unwrap();
    ann.try_acquire().unwrap().unwrap();
    run(
        &db,
        "/:dir(\"owner\",\"mallory\")=nil\n/:dir(\"queue\",#:0000)=0xff\n/:dir(\"bogus\",1,2)=3\n/:dir(\"nope\",\"x\")=1",
    );
    let found = mutex_violations(&db);
    let reasons: Vec<(&str, &str)> = found
        .iter()
        .map(|v| (v.key.as_str(), v.reason.as_str()))
        .collect();
    assert!(
        reasons.contains(&("/locks/job(\"bogus\",1,2)=3", "no pattern has 3 elements")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|(k, r)| k.starts_with("/locks/job(\"queue\",#")
                && *r == "value: expected str[raw], found bytes 0xff"),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&(
            "/locks/job(\"nope\",\"x\")=1",
            "element 1: expected \"owner\", found str \"nope\""
        )),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|(k, r)| k.contains("\"owner\"")
            && r.starts_with("2 key-values match in /locks/job, at most 1")),
        "{reasons:?}"
    );
    assert_eq!(found.len(), 4, "{reasons:?}");
}

#[test]
fn inferred_schemas_validate_the_data_they_came_from() {
    use proptest::prelude::*;
    let elem = prop_oneof![
        any::<i64>().prop_map(|n| format!("{n}")),
        "[a-z]{0,6}".prop_map(|s| format!("\"{s}\"")),
        any::<bool>().prop_map(|b| b.to_string()),
        proptest::collection::vec(any::<u8>(), 0..4)
            .prop_map(|b| format!("0x{}", const_hex::encode(b))),
        Just("nil".to_string()),
        (-1e6f64..1e6).prop_map(|f| format!("{f:?}")),
    ];
    let tag = prop_oneof![Just("\"users\""), Just("\"orders\""), Just("7")];
    let row = (tag, proptest::collection::vec(elem.clone(), 0..4), elem);
    let rows = proptest::collection::vec(row, 1..40);
    proptest!(ProptestConfig::with_cases(40), |(rows in rows)| {
        let db: Arc<dyn Database> = Arc::new(Embedded::memory());
        let mut script = String::new();
        for (tag, key, value) in &rows {
            let mut elems = vec![tag.to_string()];
            elems.extend(key.iter().cloned());
            script.push_str(&format!("/data/set({})={value}\n", elems.join(",")));
        }
        run(&db, &script);
        let shapes = fql::schema::infer(&*db, RetryOptions::default(), &["data".into(), "set".into()], 0, None).unwrap();
        let schema: String = shapes.iter().map(|s| format!("{s}\n")).collect();
        let total: u64 = shapes.iter().map(|s| s.count).sum();
        let stored = db
            .run(|tx, _| {
                let p = fql::directory::DirectoryLayer::new().open(tx, &["data", "set"], b"")?.prefix()?.to_vec();
                Ok::<_, fql::directory::Error>(fql::kv::collect_range(tx, &fql::kv::RangeOption::prefix(&p), false)?.len())
            })
            .unwrap();
        prop_assert_eq!(total, stored as u64);
        let mut found = Vec::new();
        let summary = validate(&*db, RetryOptions::default(), &schema, &HashMap::new(), None, &mut |v| found.push(v.clone())).unwrap();
        prop_assert!(found.is_empty(), "{schema}\n{found:?}");
        prop_assert_eq!(summary.keys, stored as u64);
    });
}

#[test]
fn a_missing_parameter_or_a_bad_schema_is_an_error_not_a_verdict() {
    let db: Arc<dyn Database> = Arc::new(Embedded::memory());
    let schema = fql::scripts::find("mutex/schema").unwrap().source;
    assert!(matches!(
        validate(
            &*db,
            RetryOptions::default(),
            schema,
            &HashMap::new(),
            None,
            &mut |_| {}
        ),
        Err(fql::schema::Error::Plan(_))
    ));
    assert!(matches!(
        validate(
            &*db,
            RetryOptions::default(),
            "/a(<string>)",
            &HashMap::new(),
            None,
            &mut |_| {}
        ),
        Err(fql::schema::Error::Invalid(_))
    ));
}

/// A scan stopped at the violation limit judges no `[min:N]` or `[max:N]`
/// on the part of a directory it read: only a whole directory's count is
/// a verdict.
#[test]
fn a_scan_stopped_at_the_limit_judges_no_counts() {
    let db: Arc<dyn Database> = Arc::new(Embedded::memory());
    // Strings sort before ints: the bad key is read first.
    run(&db, "/c(\"bad\")=1\n/c(1)=\"x\"\n/c(2)=\"x\"\n/c(3)=\"x\"");
    let check = |schema: &str, limit: Option<u64>| {
        let mut found = Vec::new();
        let summary = validate(
            &*db,
            RetryOptions::default(),
            schema,
            &HashMap::new(),
            limit,
            &mut |v| found.push(v.reason.clone()),
        )
        .unwrap();
        (found, summary.stopped)
    };
    let (found, stopped) = check("[min:3] /c(<int>)=<str>", Some(1));
    assert!(stopped);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("element 1: expected int"), "{found:?}");
    // Read whole, the same directory meets its bound, or fails it.
    let (found, stopped) = check("[min:3] /c(<int>)=<str>", None);
    assert!(!stopped);
    assert_eq!(found.len(), 1, "{found:?}");
    let (found, _) = check("[min:4] /c(<int>)=<str>", None);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[1], "3 key-values match in /c, at least 4 allowed");
    let (found, _) = check("[min:4] /c(<int>)=<str>", Some(1));
    assert_eq!(found.len(), 1, "{found:?}");
}

/// A scan whose reads the database keeps answering with a retryable error
/// (a lagging cluster) gives up at the caller's deadline (`fql --timeout`),
/// not at the default one ten seconds on.
#[test]
fn validate_and_infer_give_up_at_the_callers_deadline() {
    let inner: Arc<dyn Database> = Arc::new(Embedded::memory());
    run(&inner, "/data/set(1)=2\n");
    // Every read fails, or those of the data only (the scan, not the
    // directory layer's reads under 0xfe and of the metadata version).
    let every: hooked::Hook = Arc::new(|_, _: &[u8]| Err(hooked::process_behind()));
    let data: hooked::Hook = Arc::new(|_, key: &[u8]| match key.first() {
        Some(0xfe) => Ok(()),
        _ if key == fql::kv::METADATA_VERSION_KEY => Ok(()),
        _ => Err(hooked::process_behind()),
    });
    let retry = RetryOptions::default().with_timeout(Duration::from_millis(300));
    let timed_out = |e: &fql::schema::Error| {
        matches!(e, fql::schema::Error::Run(e)
            if fql::kv::AsKvError::as_kv(e) == Some(&fql::kv::Error::TransactionTimedOut))
    };
    let dir = ["data".to_string(), "set".to_string()];
    for (what, hook) in [("every read", every), ("the scan", data)] {
        let db = hooked::hooked(inner.clone(), hook);
        let began = Instant::now();
        let validated = validate(
            &*db,
            retry,
            "/data/set(<int>)=<int>",
            &HashMap::new(),
            None,
            &mut |_| {},
        );
        let infer_began = Instant::now();
        let inferred = fql::schema::infer(&*db, retry, &dir, 1, None);
        let infer_took = infer_began.elapsed();
        let validate_took = infer_began - began;
        assert!(
            validated.as_ref().is_err_and(timed_out),
            "{what}: {validated:?}"
        );
        assert!(
            inferred.as_ref().is_err_and(timed_out),
            "{what}: {inferred:?}"
        );
        // The default deadline cannot have passed: the loop gives up no
        // sooner than its deadline.
        for took in [validate_took, infer_took] {
            assert!(
                took < fql::kv::DEFAULT_TIMEOUT,
                "{what}: gave up after {took:?}"
            );
        }
    }
}
