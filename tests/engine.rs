//! The engine's library API, as Rust callers use it: async results, early
//! stops, errors before anything runs, versionstamped writes, and long
//! reads, which read ahead on a second thread.

use std::sync::Arc;

use fql::exec::{Each, Engine, Found, Output, QueryError};
use fql::kv::embedded::Embedded;

use crate::support::window;

fn engine() -> Arc<Engine> {
    Arc::new(Engine::new(Arc::new(Embedded::memory())))
}

async fn collect(engine: &Arc<Engine>, script: &str) -> Result<Vec<String>, QueryError> {
    let mut rows = engine.query(script, Default::default());
    let mut out = Vec::new();
    while let Some(row) = rows.next().await {
        out.push(row?.to_string());
    }
    Ok(out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_stream_in_key_order() {
    let engine = engine();
    let mut script = String::new();
    for i in 0..5000 {
        script.push_str(&format!("/n({i})={}\n", i * 2));
    }
    assert!(collect(&engine, &script).await.unwrap().is_empty());
    let rows = collect(&engine, "/n(<int>)=<int>").await.unwrap();
    assert_eq!(rows.len(), 5000);
    assert_eq!(rows[4999], "/n(4999)=9998");
    // A reader that stops early stops the run.
    let mut stream = engine.query("/n(...)", Default::default());
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first.to_string(), "/n(0)=0");
    drop(stream);
}

#[tokio::test]
async fn invalid_scripts_run_nothing() {
    let engine = engine();
    let err = collect(&engine, "/a(1)=2\n/b(<string>)").await.unwrap_err();
    assert!(matches!(err, QueryError::Invalid(_)), "{err:?}");
    let err = collect(&engine, "/a(1)=2\n/b(:missing)").await.unwrap_err();
    assert!(matches!(err, QueryError::Plan(_)), "{err:?}");
    assert_eq!(
        collect(&engine, "/a(...)").await.unwrap(),
        Vec::<String>::new()
    );
    // An error while running ends the stream after what ran.
    let err = collect(
        &engine,
        "/s(1)=1\n/s(2)=\"x\"\n@commit\n[strict] /s(<int>)=<int>",
    )
    .await
    .unwrap_err();
    assert!(matches!(
        err,
        QueryError::Run(fql::exec::Error::Mismatch { .. })
    ));
}

#[test]
fn incomplete_vstamps_are_filled_at_commit() {
    let engine = Engine::new(Arc::new(Embedded::memory()));
    let mut out = Vec::new();
    let script = "/queue(#:0001)=\"a\"\n/queue(#:0002)=\"b\"\n/beat(\"me\")=#:00cd\n@commit\n/queue(<vstamp>)=<str>\n/beat(\"me\")=<vstamp>";
    engine
        .run_text(script, &Default::default(), &mut |row| {
            out.push(row);
            Ok(())
        })
        .unwrap();
    assert_eq!(out.len(), 3);
    let stamp = |o: &Output| {
        let Output::KeyValue(kv) = o else { panic!() };
        kv.to_string()
    };
    let (a, b, beat) = (stamp(&out[0]), stamp(&out[1]), stamp(&out[2]));
    // One commit, one transaction version; the user versions as written.
    let tx = &a[8..28];
    assert!(
        a.starts_with("/queue(#") && a.ends_with(":0001)=\"a\""),
        "{a}"
    );
    assert!(b.ends_with(":0002)=\"b\"") && &b[8..28] == tx, "{b}");
    assert_eq!(beat, format!("/beat(\"me\")=#{tx}:00cd"));
}

/// A script whose commit is applied but reported as
/// `commit_unknown_result` writes once: the retry loop finds the commit
/// and the engine hands out its results as the attempt's. On a database
/// that cannot tell (no idempotency ids, as FoundationDB here) the engine
/// does not run the script again, but says it may have committed.
#[test]
fn a_commit_reported_unknown_writes_once() {
    use fql::kv::faults::{FaultPlan, Faulty};
    for (plan, fails) in [("1021-applied:1", false), ("1021-applied:1;ids=off", true)] {
        let db = Arc::new(Embedded::memory());
        let faulty = Faulty::new(db.clone(), FaultPlan::parse(plan).unwrap());
        let engine = Engine::new(Arc::new(faulty));
        let ran = engine.run_text("/queue(#:0001)=\"a\"", &Default::default(), &mut |_| Ok(()));
        match ran {
            Err(QueryError::Run(fql::exec::Error::UnknownResult)) if fails => {}
            Ok(()) if !fails => {}
            other => panic!("{plan}: {other:?}"),
        }
        let plain = Engine::new(db);
        let mut rows = Vec::new();
        plain
            .run_text(
                "/queue(<vstamp>)=<str>",
                &Default::default(),
                &mut |row: Output| {
                    rows.push(row.to_string());
                    Ok(())
                },
            )
            .unwrap();
        assert_eq!(rows.len(), 1, "{plan}: {rows:?}");
    }
}

/// A read-only transaction found too old at once (a cluster that lost
/// its read version, here an injected fault) is run again; only one that
/// outlived its five seconds gives up.
#[test]
fn a_read_found_too_old_at_once_is_retried() {
    use fql::kv::faults::{FaultPlan, Faulty};
    let db = Arc::new(Embedded::memory());
    Engine::new(db.clone())
        .run_text("/k(1)=2", &Default::default(), &mut |_| Ok(()))
        .unwrap();
    let plan = FaultPlan::parse("1007@read:0.1;seed=5").unwrap();
    let engine = Engine::new(Arc::new(Faulty::new(db, plan)));
    for _ in 0..20 {
        let rows = printed(&engine, "/k(<int>)=<int>").unwrap();
        assert_eq!(rows, ["/k(1)=2"]);
    }
}

/// The rows of `/many`, as a read of them prints them.
/// A script's rows kept as text, and how it ended.
fn kept(engine: &Engine, script: &str) -> (Vec<String>, Result<(), QueryError>) {
    let mut rows = Vec::new();
    let ran = engine.run_text(script, &Default::default(), &mut |row: Output| {
        rows.push(row.to_string());
        Ok(())
    });
    (rows, ran)
}

/// `[min:N]` and `[max:N]` bound how many key-values a read matches:
/// outside them the read fails with what it found and where, after the
/// rows a read-only transaction already handed out, and a transaction
/// that writes writes nothing. A joined read is bounded once per row of
/// its driver.
#[test]
fn reads_outside_their_bounds_fail_with_the_count() {
    let engine = Engine::new(Arc::new(Embedded::memory()));
    let setup = "/locks(\"owner\",\"ann\")=nil\n/locks(\"owner\",\"bob\")=nil\n\
                 /a(1)=nil\n/a(2)=nil\n/b(1,\"p\")=nil\n/b(2,\"q\")=nil\n/b(2,\"r\")=nil";
    engine
        .run_text(setup, &Default::default(), &mut |_| Ok(()))
        .unwrap();
    let cardinality = |ran: Result<(), QueryError>| match ran {
        Err(QueryError::Run(fql::exec::Error::Cardinality {
            found,
            min,
            max,
            at,
        })) => (found, min, max, at.start),
        other => panic!("not a cardinality error: {other:?}"),
    };
    let (rows, ran) = kept(&engine, "[max:1] /locks(\"owner\",<str>)");
    assert_eq!(rows.len(), 2, "the rows read are handed out: {rows:?}");
    let err = ran.as_ref().unwrap_err().to_string();
    assert_eq!(err, "2 key-values match, but at most 1 may");
    assert_eq!(cardinality(ran), (2, None, Some(1), 0));
    let (_, ran) = kept(&engine, "/a(1)\n[min:3,max:5] /locks(\"owner\",<str>)");
    assert_eq!(cardinality(ran), (2, Some(3), Some(5), 6));
    let (rows, ran) = kept(&engine, "[min:2,max:2] /locks(\"owner\",<str>)");
    assert!(ran.is_ok() && rows.len() == 2, "{rows:?} {ran:?}");
    // A single read counts its one key-value, or none.
    let (_, ran) = kept(&engine, "[min:1] /locks(\"owner\",\"eve\")");
    assert_eq!(cardinality(ran), (0, Some(1), None, 0));
    // Per row of its driver: `/a(2)` finds two.
    let (_, ran) = kept(&engine, "/a(<x:int>)\n[max:1] /b(:x,<str>)");
    assert_eq!(cardinality(ran), (2, None, Some(1), 12));
    let (rows, ran) = kept(&engine, "/a(<x:int>)\n[min:1,max:2] /b(:x,<str>)");
    assert!(ran.is_ok() && rows.len() == 3, "{rows:?} {ran:?}");
    // A transaction that writes stops whole.
    let (_, ran) = kept(&engine, "/log(1)=\"x\"\n[min:1] /missing(<>)");
    assert_eq!(cardinality(ran), (0, Some(1), None, 12));
    assert_eq!(kept(&engine, "/log(...)").0, Vec::<String>::new());
}

fn many(rows: usize) -> Vec<String> {
    (0..rows)
        .map(|i| format!("/many({i},\"{}\")={}", i % 7, i * 3))
        .collect()
}

fn filled_with_many(rows: usize) -> Engine {
    filled_with_many_in(Embedded::memory(), rows)
}

fn filled_with_many_in(db: Embedded, rows: usize) -> Engine {
    let engine = Engine::new(Arc::new(db));
    let script: String = many(rows).iter().map(|l| format!("{l}\n")).collect();
    engine
        .run_text(&script, &Default::default(), &mut |_| Ok(()))
        .unwrap();
    engine
}

/// Text as `fql` prints it: results taken as found, in batches.
fn printed(engine: &Engine, script: &str) -> Result<Vec<String>, QueryError> {
    let mut text = Vec::new();
    let ran = engine.run_text(
        script,
        &Default::default(),
        &mut Each(|found: Found<'_>| {
            found.write_to(&mut text);
            text.push(b'\n');
            Ok(())
        }),
    );
    ran.map(|()| {
        String::from_utf8(text)
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    })
}

/// Past its first thousand rows a read fetches each batch while the one
/// before is printed: every row still comes once and in order, forwards
/// and backwards, whichever way the sink takes them, and with rows that
/// take the general decoding among them.
#[test]
fn long_reads_hand_over_every_row_once_in_order() {
    let engine = filled_with_many(6000);
    let expected = many(6000);
    assert_eq!(
        printed(&engine, "/many(<int>,<str>)=<int>").unwrap(),
        expected
    );
    let mut owned = Vec::new();
    engine
        .run_text(
            "[reverse] /many(...)",
            &Default::default(),
            &mut |row: Output| {
                owned.push(row.to_string());
                Ok(())
            },
        )
        .unwrap();
    let backwards: Vec<_> = expected.iter().rev().cloned().collect();
    assert_eq!(owned, backwards);
    // Every tenth row holds a value that is not a scalar.
    let script: String = (0..6000)
        .step_by(10)
        .map(|i| format!("/many({i},\"{}\")=(1.5,{i})\n", i % 7))
        .collect();
    engine
        .run_text(&script, &Default::default(), &mut |_| Ok(()))
        .unwrap();
    let mixed = printed(&engine, "/many(<int>,<str>)=<>").unwrap();
    assert_eq!(mixed.len(), 6000);
    for (i, line) in mixed.iter().enumerate() {
        let want = match i % 10 {
            0 => format!("/many({i},\"{}\")=(1.5,{i})", i % 7),
            _ => expected[i].clone(),
        };
        assert_eq!(line, &want);
    }
    // Only the rows that match, in order.
    let ints = printed(&engine, "/many(<int>,<str>)=<int>").unwrap();
    let scalars: Vec<_> = (0..6000)
        .filter(|i| i % 10 != 0)
        .map(|i| expected[i].clone())
        .collect();
    assert_eq!(ints, scalars);
}

/// A sink that stops a long read stops it at once, with its own error,
/// whether the read is still on one thread or already reads ahead.
#[test]
fn a_sink_stops_a_long_read_where_it_says() {
    let engine = filled_with_many(6000);
    for stop_at in [10, 2500, 5999] {
        let mut seen = 0;
        let ran = engine.run_text(
            "/many(<int>,<str>)=<int>",
            &Default::default(),
            &mut Each(|_: Found<'_>| {
                seen += 1;
                match seen == stop_at {
                    true => Err(fql::exec::Error::Kv(fql::kv::Error::TransactionCancelled)),
                    false => Ok(()),
                }
            }),
        );
        assert!(
            matches!(
                ran,
                Err(QueryError::Run(fql::exec::Error::Interrupted {
                    source: fql::kv::Error::TransactionCancelled,
                    ..
                }))
            ),
            "{ran:?}"
        );
        assert_eq!(seen, stop_at);
    }
}

/// A read that outlives its window fails after what it printed, or, with
/// split reads, goes on in a new transaction and says so.
#[test]
fn long_reads_fail_or_go_on_in_new_transactions() {
    // The reads that wait out the window wait out a short one; the slow
    // database's reads take their time whatever the window, so it keeps
    // FDB's.
    let short = Arc::new(Embedded::memory_with_limits(window::short()));
    let plain = Arc::new(Embedded::memory());
    let script: String = (0..40).map(|i| format!("/slow({i})=1\n")).collect();
    for db in [&short, &plain] {
        Engine::new(db.clone())
            .run_text(&script, &Default::default(), &mut |_| Ok(()))
            .unwrap();
    }
    // All at once: each waits out the limit.
    std::thread::scope(|s| {
        for split in [false, true] {
            let db = short.clone();
            s.spawn(move || long_read(db, split));
        }
        s.spawn(move || silent_long_read(plain));
        for split in [false, true] {
            s.spawn(move || long_read_ahead(split));
        }
    });
}

/// A long read that outlives its transaction while it reads ahead: the
/// reader fails or starts the new transaction, and the rows it read
/// before that still come first, each once.
fn long_read_ahead(split: bool) {
    let db = Embedded::memory_with_limits(window::short());
    let engine = filled_with_many_in(db.clone(), 10_000).split_reads(split);
    let mut out = Vec::new();
    let ran = engine.run_text("/many(...)", &Default::default(), &mut |row: Output| {
        out.push(row.to_string());
        if out.len() == 1500 {
            window::outlive_window(&db);
        }
        Ok(())
    });
    let expected = many(10_000);
    if split {
        ran.unwrap();
        let mark = out.iter().position(|l| l.starts_with('%'));
        let mark = mark.expect("a new snapshot is marked");
        assert!(mark > 1500, "{mark}");
        out.remove(mark);
        assert_eq!(out, expected);
    } else {
        let Err(QueryError::Run(fql::exec::Error::Interrupted { printed, source })) = ran else {
            panic!("{ran:?}")
        };
        assert_eq!(source, fql::kv::Error::TransactionTooOld);
        assert!(printed > 1500, "{printed}");
        assert_eq!(out, expected[..printed]);
    }
}

/// `db`, with range reads that each take 600 ms.
fn slow(db: Arc<Embedded>) -> Arc<dyn fql::kv::Database> {
    crate::support::hooked::before_each(
        db,
        Arc::new(|op: fql::kv::Op<'_>| {
            if let fql::kv::Op::GetRange { .. } = op {
                std::thread::sleep(std::time::Duration::from_millis(600));
            }
            Ok(())
        }),
    )
}

/// A read-only transaction that outlives the limit before printing
/// anything fails too, rather than start again and outlive it again.
fn silent_long_read(db: Arc<Embedded>) {
    let engine = Engine::new(slow(db));
    let script = ["/slow(<str>)"; 10].join("\n");
    let ran = engine.run_text(&script, &Default::default(), &mut |_| Ok(()));
    assert!(
        matches!(
            ran,
            Err(QueryError::Run(fql::exec::Error::Interrupted {
                printed: 0,
                source: fql::kv::Error::TransactionTooOld,
            }))
        ),
        "{ran:?}"
    );
}

fn long_read(db: Arc<Embedded>, split: bool) {
    {
        let engine = Engine::new(db.clone()).split_reads(split);
        let mut out = Vec::new();
        let mut slept = false;
        let ran = engine.run_text("/slow(<int>)", &Default::default(), &mut |row: Output| {
            out.push(row.to_string());
            if !slept {
                slept = true;
                window::outlive_window(&*db);
            }
            Ok(())
        });
        if split {
            ran.unwrap();
            let marks: Vec<_> = out.iter().filter(|l| l.starts_with('%')).collect();
            assert_eq!(marks.len(), 1, "{out:?}");
            assert_eq!(out.len(), 41);
            assert_eq!(out.last().unwrap(), "/slow(39)=1");
        } else {
            let err = ran.unwrap_err();
            assert!(
                matches!(
                    err,
                    QueryError::Run(fql::exec::Error::Interrupted { printed: 16, .. })
                ),
                "{err:?}"
            );
        }
    }
}
