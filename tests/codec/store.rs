//! Encoded writes committed to the embedded database, read back and
//! decoded: the codec and the store agree on versionstamps.

use fql::codec::{Op, ValueDecoder, decode_key, encode_write};
use fql::kv::embedded::Embedded;
use fql::kv::{self, DatabaseExt, Error, RangeOption, RetryOptions, Transaction};
use fql::syntax::ast::{ElemKind, Vstamp};

use super::{key, value};

fn write(tx: &mut dyn Transaction, w: &fql::codec::Write) -> kv::Result<()> {
    match w.op.mutation() {
        None => tx.set(&w.key, &w.value),
        Some(op) => tx.atomic_op(&w.key, &w.value, op),
    }
}

#[test]
fn versionstamps_written_through_the_codec_read_back_complete() {
    let db = Embedded::memory();
    let prefix = b"\x15\x11";
    let log = encode_write(
        prefix,
        &key("(\"log\",#:0007)"),
        &value("\"entry\"").0,
        &value("\"entry\"").1,
    )
    .unwrap();
    assert_eq!(log.op, Op::VersionstampedKey);
    let (beat_elem, beat_opts) = value("#:0000[raw]");
    let beat = encode_write(prefix, &key("(\"beat\")"), &beat_elem, &beat_opts).unwrap();
    let (tup_elem, tup_opts) = value("(\"at\",#:0002)");
    let tup = encode_write(prefix, &key("(\"tup\")"), &tup_elem, &tup_opts).unwrap();
    let (_, committed) = db
        .run_with(RetryOptions::default(), |tx, _| {
            write(tx, &log)?;
            write(tx, &beat)?;
            write(tx, &tup)?;
            Ok::<_, Error>(())
        })
        .unwrap();
    let stamp = committed.versionstamp.unwrap();

    let rows = db
        .run(|tx, _| kv::collect_range(tx, &RangeOption::prefix(prefix), false))
        .unwrap();
    let mut found = 0;
    for row in rows {
        let elems = decode_key(prefix, &row.key).expect("a tuple key");
        match &elems[0].kind {
            ElemKind::Str(s) if s == "log" => {
                assert_eq!(
                    elems[1].kind,
                    ElemKind::Vstamp(Vstamp {
                        tx: Some(stamp),
                        user: 7
                    })
                );
                found += 1;
            }
            ElemKind::Str(s) if s == "beat" => {
                // The Go heartbeat: the stamp and a zero user version, raw.
                assert_eq!(row.value[..10], stamp);
                assert_eq!(row.value[10..], [0, 0]);
                found += 1;
            }
            ElemKind::Str(s) if s == "tup" => {
                let decoded = ValueDecoder::untyped().decode(&row.value).unwrap().elem;
                let ElemKind::Tuple(t) = decoded else {
                    panic!("{decoded:?}")
                };
                assert_eq!(
                    t.elems[1].kind,
                    ElemKind::Vstamp(Vstamp {
                        tx: Some(stamp),
                        user: 2
                    })
                );
                found += 1;
            }
            other => panic!("unexpected key {other:?}"),
        }
    }
    assert_eq!(found, 3);
}
