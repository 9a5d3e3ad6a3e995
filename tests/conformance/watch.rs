//! The library's watch (`fql::watch`) on every backend: what the first
//! read finds, then each change as another writer commits it.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use fql::exec::Engine;
use fql::kv::Database;
use fql::watch::{Ended, Event, Options, watch};

use crate::backend::Backend;

/// Long enough for any backend; a watch that never reports fails the
/// case at this deadline instead of hanging it.
const PATIENCE: Duration = Duration::from_secs(20);

fn engine(db: &Backend) -> Engine {
    let handle: Arc<dyn Database> = db.handle();
    Engine::new(handle)
}

fn write(engine: &Engine, script: &str) {
    engine
        .run_text(script, &Default::default(), &mut |_| Ok(()))
        .unwrap();
}

/// Watches `query` for `count` changes while `writes` run one at a time,
/// each after the watch reported what the one before it did; returns
/// every event's text and why the watch ended.
fn watching(db: &Backend, query: &str, found: usize, writes: &[&str]) -> (Vec<String>, Ended) {
    watching_with(db, Options::default(), query, found, writes)
}

/// [`watching`] with `options` other than their defaults.
fn watching_with(
    db: &Backend,
    options: Options,
    query: &str,
    found: usize,
    writes: &[&str],
) -> (Vec<String>, Ended) {
    let engine = engine(db);
    let (tx, rx) = mpsc::channel();
    let options = Options {
        count: Some(writes.len() as u64),
        until: Some(Instant::now() + PATIENCE),
        ..options
    };
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let params = Default::default();
            let root = Default::default();
            let mut sink = |e: Event| {
                let _ = tx.send(e.to_string());
                Ok::<_, fql::watch::Error>(())
            };
            watch(
                &engine,
                query,
                &params,
                &root,
                options,
                &|| false,
                &mut sink,
            )
            .unwrap()
        });
        let mut seen = Vec::new();
        let next = |seen: &mut Vec<String>| {
            seen.push(
                rx.recv_timeout(PATIENCE)
                    .expect("the watch reports in time"),
            );
        };
        for _ in 0..found {
            next(&mut seen);
        }
        for w in writes {
            write(&engine, w);
            next(&mut seen);
        }
        (seen, watcher.join().unwrap())
    })
}

/// A range: its key-values first, then a change and a clear of keys it
/// found (their watches), and a key it did not have (the re-read).
pub fn a_range_reports_sets_changes_clears_and_new_keys(db: &Backend) {
    write(&engine(db), "/w/r(1)=\"a\"\n/w/r(2)=\"b\"\n/w/other(1)=1");
    let (seen, ended) = watching(
        db,
        "/w/r(<int>)=<str>",
        2,
        &[
            "/w/r(1)=\"A\"",
            "/w/r(2)=clear",
            "/w/r(3)=\"c\"",
            "/w/r(3)=\"C\"",
            "/w/r(1)=clear",
        ],
    );
    assert_eq!(
        seen,
        [
            r#"/w/r(1)="a""#,
            r#"/w/r(2)="b""#,
            r#"/w/r(1)="A""#,
            "/w/r(2)=clear",
            r#"/w/r(3)="c""#,
            r#"/w/r(3)="C""#,
            "/w/r(1)=clear",
        ]
    );
    assert_eq!(ended, Ended::Count);
}

/// Past the bound on watches, a key's changes still show: the range's
/// re-read finds them.
pub fn keys_past_the_bound_on_watches_are_followed_by_the_re_read(db: &Backend) {
    write(&engine(db), "/w/b(1)=1\n/w/b(2)=2\n/w/b(3)=3");
    let one = Options {
        max_watches: 1,
        ..Options::default()
    };
    let writes = ["/w/b(3)=30", "/w/b(1)=10", "/w/b(2)=clear"];
    let (seen, ended) = watching_with(db, one, "/w/b(<int>)=<int>", 3, &writes);
    assert_eq!(
        seen,
        [
            "/w/b(1)=1",
            "/w/b(2)=2",
            "/w/b(3)=3",
            "/w/b(3)=30",
            "/w/b(1)=10",
            "/w/b(2)=clear"
        ]
    );
    assert_eq!(ended, Ended::Count);
}

/// One key: its watch sees it changed, cleared, and set again once
/// missing.
pub fn one_key_reports_each_change(db: &Backend) {
    write(&engine(db), "/w/one(0)=0\n/w/one(1)=4");
    let (seen, ended) = watching(
        db,
        "/w/one(1)=<int>",
        1,
        &["/w/one(1)=5", "/w/one(1)=clear", "/w/one(1)=7"],
    );
    assert_eq!(
        seen,
        [
            "/w/one(1)=4",
            "/w/one(1)=5",
            "/w/one(1)=clear",
            "/w/one(1)=7"
        ]
    );
    assert_eq!(ended, Ended::Count);
}

/// Writes outside the query, and a write of the value a key has, report
/// nothing; the watch ends at its time, or when asked to stop.
pub fn quiet_watches_end_at_their_time_or_when_stopped(db: &Backend) {
    let engine = engine(db);
    write(&engine, "/w/q(1)=1");
    let options = Options {
        until: Some(Instant::now() + Duration::from_millis(300)),
        ..Options::default()
    };
    let mut seen = Vec::new();
    let (params, root) = (Default::default(), Default::default());
    let ended = watch(
        &engine,
        "/w/q(<>)",
        &params,
        &root,
        options,
        &|| false,
        &mut |e| {
            if matches!(e, Event::Found(_)) {
                write(&engine, "/w/q(1)=1\n/w/elsewhere(1)=2");
            }
            seen.push(e.to_string());
            Ok::<_, fql::watch::Error>(())
        },
    );
    assert_eq!(ended.unwrap(), Ended::Time);
    assert_eq!(seen, ["/w/q(1)=1"]);
    let forever = Options::default();
    let ended = watch(
        &engine,
        "/w/q(1)",
        &params,
        &root,
        forever,
        &|| true,
        &mut |_| Ok::<_, fql::watch::Error>(()),
    );
    assert_eq!(ended.unwrap(), Ended::Stopped);
}

/// What a watch cannot follow is refused before anything is read.
pub fn writes_and_several_queries_are_refused(db: &Backend) {
    let engine = engine(db);
    let (params, root) = (Default::default(), Default::default());
    for (text, says) in [
        ("/w/x(1)=2", "a watch only reads"),
        ("/w/x(1)\n/w/y(1)", "one query"),
        ("/w/<>", "key-values"),
    ] {
        let got = watch(
            &engine,
            text,
            &params,
            &root,
            Options::default(),
            &|| false,
            &mut |_| Ok::<_, fql::watch::Error>(()),
        );
        let error = got.unwrap_err().to_string();
        assert!(error.contains(says), "{text}: {error}");
    }
}

/// A pattern that reaches a partition watches the directories inside it
/// and passes over the partition, which holds no keys.
pub fn a_pattern_follows_the_directories_inside_partitions(db: &Backend) {
    let dirs = fql::directory::DirectoryLayer::new();
    fql::kv::DatabaseExt::run(&*db.handle(), |tx, _| dirs.create(tx, &["p"], b"partition"))
        .unwrap();
    write(&engine(db), "/a(1)=1\n/p/q(1)=1\n/p/q/r(1)=1");
    let writes = ["/p/q(1)=2", "/p/q/r(1)=clear", "/a(1)=3"];
    let (seen, ended) = watching(db, "/...(<int>)=<int>", 3, &writes);
    assert_eq!(
        seen,
        [
            "/a(1)=1",
            "/p/q(1)=1",
            "/p/q/r(1)=1",
            "/p/q(1)=2",
            "/p/q/r(1)=clear",
            "/a(1)=3"
        ]
    );
    assert_eq!(ended, Ended::Count);
}
