//! Dumps and loads on every backend: a subtree written as FQL and loaded
//! under another path holds the same directories, layers, keys and
//! values, byte for byte; a load checks where its lines land, refuses a
//! target that holds data, and resumes after the lines it committed.

use fql::directory::{DirectoryLayer, Error as DirError};
use fql::dump::{self, Error, LoadOptions};
use fql::kv::{Database, DatabaseExt, RangeOption, RetryOptions, Transaction, collect_range};

use crate::backend::Backend;

fn run<T>(db: &dyn Database, mut f: impl FnMut(&mut dyn Transaction) -> Result<T, DirError>) -> T {
    db.run(|tx, _| f(tx)).unwrap()
}

fn names(path: &[&str]) -> Vec<String> {
    path.iter().map(|s| s.to_string()).collect()
}

/// `/src`: a plain directory with keys, one with a layer, keys that are
/// no tuple and values that are no tuple, a partition with a directory
/// inside, and an empty directory.
fn fill(db: &dyn Database) {
    let dirs = DirectoryLayer::new();
    run(db, |tx| {
        let src = dirs.create_or_open(tx, &["src"], b"")?;
        let s = src.subspace()?;
        for i in 0..300i64 {
            tx.set(&s.pack(&(i, "name")), &[0x02, b'v', 0x00])?;
        }
        let tagged = dirs.create(tx, &["src", "tagged"], b"my\x00layer")?;
        let prefix = tagged.prefix()?.to_vec();
        tx.set(&[&prefix[..], b"\x01\xffraw"].concat(), b"\xff\x00")?;
        tx.set(&tagged.subspace()?.pack(&("k",)), b"not a tuple \x05")?;
        dirs.create(tx, &["src", "p"], b"partition")?;
        let inner = dirs.create_or_open(tx, &["src", "p", "in"], b"")?;
        tx.set(&inner.subspace()?.pack(&(1,)), b"")?;
        dirs.create_or_open(tx, &["src", "empty"], b"")?;
        dirs.create_or_open(tx, &["elsewhere"], b"")?;
        Ok(())
    });
}

fn dump_of(db: &dyn Database, root: &[&str]) -> String {
    let mut out = Vec::new();
    dump::dump(db, &[names(root)], RetryOptions::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The dump without its read versions, with `from` as `to`.
fn body(text: &str, from: &str, to: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("% read version"))
        .map(|l| l.replace(from, to) + "\n")
        .collect()
}

fn load(db: &dyn Database, text: &str, options: &LoadOptions) -> Result<dump::Loaded, Error> {
    dump::check(text.as_bytes(), options)?;
    dump::load(db, text.as_bytes(), options, &mut |_| {})
}

/// Every key-value under a directory's prefix, the prefix taken off.
fn rows(db: &dyn Database, path: &[&str]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let dirs = DirectoryLayer::new();
    run(db, |tx| {
        let prefix = dirs.open(tx, path, b"")?.prefix()?.to_vec();
        let kvs = collect_range(tx, &RangeOption::prefix(&prefix), false)?;
        Ok(kvs
            .into_iter()
            .map(|kv| (kv.key[prefix.len()..].to_vec(), kv.value))
            .collect())
    })
}

pub fn a_subtree_loads_under_another_path_byte_for_byte(db: &Backend) {
    fill(db);
    let text = dump_of(db, &["src"]);
    assert!(
        text.contains("\n% layer \"my\\x00layer\" /src/tagged\n"),
        "{text}"
    );
    assert!(text.contains("\n% layer \"partition\" /src/p\n"), "{text}");
    assert!(text.contains("\n% raw 0x01ff726177=0xff00\n"), "{text}");
    assert!(
        text.contains("\n/src/tagged(\"k\")=0x6e6f742061207475706c652005\n"),
        "{text}"
    );
    assert!(!text.contains("elsewhere"));
    let options = LoadOptions {
        to: Some(names(&["dst", "deep"])),
        batch_keys: 50,
        ..LoadOptions::default()
    };
    let loaded = load(db, &text, &options).unwrap();
    assert_eq!(loaded.key_values, 303);
    assert_eq!(loaded.directories, 5);
    assert!(loaded.transactions > 5);
    assert_eq!(loaded.line as usize, text.lines().count());
    let again = dump_of(db, &["dst", "deep"]);
    assert_eq!(body(&again, "", ""), body(&text, "/src", "/dst/deep"));
    for (from, to) in [
        (&["src"][..], &["dst", "deep"][..]),
        (&["src", "tagged"], &["dst", "deep", "tagged"]),
        (&["src", "p", "in"], &["dst", "deep", "p", "in"]),
    ] {
        assert_eq!(rows(db, to), rows(db, from), "{to:?}");
    }
    let tagged = run(db, |tx| {
        DirectoryLayer::new().open(tx, &["dst", "deep", "tagged"], b"")
    });
    assert_eq!(tagged.layer(), b"my\x00layer");
}

pub fn a_load_refuses_data_outside_and_targets_that_hold_data(db: &Backend) {
    fill(db);
    let text = dump_of(db, &["src"]);
    let options = LoadOptions::default();
    match load(db, &text, &options) {
        Err(Error::NotEmpty(path)) => assert_eq!(path, "/src"),
        other => panic!("{other:?}"),
    }
    let outside = text.replace("% end 303", "/elsewhere(1)=2\n% end 304");
    let to = LoadOptions {
        to: Some(names(&["dst"])),
        ..LoadOptions::default()
    };
    match load(db, &outside, &to) {
        Err(Error::Outside { path, roots, .. }) => {
            assert_eq!((path.as_str(), roots.as_str()), ("/elsewhere", "/src"))
        }
        other => panic!("{other:?}"),
    }
    assert!(!run(db, |tx| DirectoryLayer::new().exists(tx, &["dst"])));
    let forced = LoadOptions {
        force: true,
        ..LoadOptions::default()
    };
    let before = dump_of(db, &["src"]);
    load(db, &text, &forced).unwrap();
    assert_eq!(body(&dump_of(db, &["src"]), "", ""), body(&before, "", ""));
}

pub fn a_load_resumes_after_the_lines_it_committed(db: &Backend) {
    fill(db);
    let text = dump_of(db, &["src"]);
    let to = |after| LoadOptions {
        to: Some(names(&["dst"])),
        after,
        batch_keys: 40,
        ..LoadOptions::default()
    };
    // The first lines, as a load that stopped after them committed them.
    let cut = 120;
    let head: String = text.lines().take(cut).map(|l| format!("{l}\n")).collect();
    let mut reported = Vec::new();
    let partial = dump::load(db, head.as_bytes(), &to(0), &mut |l| reported.push(l.line));
    assert!(matches!(partial, Err(Error::Truncated(_))), "{partial:?}");
    let last = *reported.last().unwrap();
    assert!(last > 40 && last <= cut as u64, "{reported:?}");
    let rest = load(db, &text, &to(last)).unwrap();
    assert_eq!(rest.key_values, 303 - (last - 4));
    assert_eq!(
        body(&dump_of(db, &["dst"]), "", ""),
        body(&text, "/src", "/dst")
    );
}

pub fn a_load_creates_at_most_a_thousand_directories_a_transaction(db: &Backend) {
    let mut text = String::from("% fql dump 1\n% root /r\n% directory /r\n");
    for i in 0..2_499 {
        text.push_str(&format!("% directory /r/d{i}\n"));
    }
    text.push_str("% end 0\n");
    let loaded = load(db, &text, &LoadOptions::default()).unwrap();
    assert_eq!((loaded.directories, loaded.transactions), (2_500, 3));
    let listed = run(db, |tx| DirectoryLayer::new().list(tx, &["r"]));
    assert_eq!(listed.len(), 2_499);
}

/// Every key-value below the system keys, as they are.
fn everything(db: &dyn Database) -> Vec<(Vec<u8>, Vec<u8>)> {
    db.run(|tx, _| collect_range(tx, &RangeOption::new(Vec::new(), vec![0xff]), false))
        .unwrap()
        .into_iter()
        .map(|kv| (kv.key, kv.value))
        .collect()
}

fn dump_all_of(db: &dyn Database) -> String {
    let mut out = Vec::new();
    dump::dump_all(db, false, RetryOptions::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// [`fill`], with keys outside every directory: tuples at the root, a
/// key that is none, a subspace after raw bytes.
fn fill_all(db: &dyn Database) {
    fill(db);
    db.run(|tx, _| {
        tx.set(b"\x02app\x00\x15\x01", b"\x02a\x00")?;
        tx.set(b"\x02\x03", b"\x05")?;
        tx.set(b"\xab\x01\x15\x07", b"")?;
        Ok::<_, fql::kv::Error>(())
    })
    .unwrap();
}

fn clear_all(db: &dyn Database) {
    db.run(|tx, _| {
        tx.clear_range(b"", b"\xff")?;
        Ok::<_, fql::kv::Error>(())
    })
    .unwrap();
}

pub fn a_whole_dump_loads_into_an_empty_database_byte_for_byte(db: &Backend) {
    fill_all(db);
    let before = everything(db);
    let text = dump_all_of(db);
    assert!(text.starts_with("% fql dump 1\n% all\n"), "{text}");
    assert!(text.contains("\n/(\"app\",1)=\"a\"\n"), "{text}");
    assert!(text.contains("\n% raw 0xab011507=nil\n"), "{text}");
    // Loaded where it was, the database holding nothing but the dump.
    match load(db, &text, &LoadOptions::default()) {
        Err(Error::NotEmpty(what)) => assert_eq!(what, "the database"),
        other => panic!("{other:?}"),
    }
    let to = LoadOptions {
        to: Some(names(&["dst"])),
        ..LoadOptions::default()
    };
    assert!(matches!(load(db, &text, &to), Err(Error::WholeTo)));
    clear_all(db);
    let small = LoadOptions {
        batch_keys: 7,
        ..LoadOptions::default()
    };
    let loaded = load(db, &text, &small).unwrap();
    assert!(loaded.transactions > 10, "{loaded:?}");
    assert_eq!(everything(db), before);
    // The directory layer finds the directories it restored, inside the
    // partition too, holding their keys.
    assert_eq!(rows(db, &["src", "p", "in"]).len(), 1);
    assert_eq!(rows(db, &["src"]).len(), 300);
}

pub fn a_whole_load_resumes_after_the_lines_it_committed(db: &Backend) {
    fill_all(db);
    let before = everything(db);
    let text = dump_all_of(db);
    clear_all(db);
    let at = |after| LoadOptions {
        after,
        batch_keys: 25,
        ..LoadOptions::default()
    };
    let cut = text.lines().count() / 2;
    let head: String = text.lines().take(cut).map(|l| format!("{l}\n")).collect();
    let mut reported = Vec::new();
    let partial = dump::load(db, head.as_bytes(), &at(0), &mut |l| reported.push(l.line));
    assert!(matches!(partial, Err(Error::Truncated(_))), "{partial:?}");
    let last = *reported.last().unwrap();
    assert!(last > 25 && last <= cut as u64, "{reported:?}");
    load(db, &text, &at(last)).unwrap();
    assert_eq!(everything(db), before);
}
