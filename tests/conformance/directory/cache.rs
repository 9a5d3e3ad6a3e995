//! Prefixes kept across transactions: what a cached lookup reads, and
//! what it sees of other sessions' changes and of programs that change
//! directories without stamping the metadata version.

use std::sync::atomic::Ordering;

use fql::directory::Subspace;
use fql::kv::Layered;

use super::*;
use crate::hooked::{Hooked, counting_gets};

/// The point reads of opening `path` with `dirs` in one transaction: the
/// directory layer's sequential round trips.
fn reads_to_open(db: &Backend, dirs: &DirectoryLayer, path: &[&str]) -> usize {
    let (count, gets) = counting_gets();
    run(db, |tx| {
        gets.store(0, Ordering::SeqCst);
        let mut counting = Layered::new(tx, Hooked(count.clone()));
        dirs.open(&mut counting, path, b"")
    })
    .unwrap();
    gets.load(Ordering::SeqCst)
}

/// Opening `/a/b/c` reads the layer's version and two keys per name;
/// once cached, the metadata version, the layer's version and the
/// directory's entry in its parent. Where the database offers no
/// metadata version (a view of part of a keyspace) nothing is cached.
pub fn a_cached_path_costs_three_reads(db: &Backend) {
    let abc = ["a", "b", "c"];
    run(db, |tx| DirectoryLayer::new().create(tx, &abc, b"")).unwrap();
    let uncached = DirectoryLayer::new().uncached();
    assert_eq!(reads_to_open(db, &uncached, &abc), 7);
    assert_eq!(reads_to_open(db, &uncached, &abc), 7);
    let cached = DirectoryLayer::new();
    // The first lookup also reads the metadata version.
    assert_eq!(reads_to_open(db, &cached, &abc), 8);
    let again = if db.is_scoped() { 8 } else { 3 };
    assert_eq!(reads_to_open(db, &cached, &abc), again);
    // Clones share the cache, as an engine's statements do.
    assert_eq!(reads_to_open(db, &cached.clone(), &abc), again);
}

/// One session's create, move and remove, committed, are seen by another
/// session's next lookup of a path it had cached.
pub fn other_sessions_changes_are_seen(db: &Backend) {
    let (mine, theirs) = (DirectoryLayer::new(), DirectoryLayer::new());
    let abc = ["a", "b", "c"];
    let open = |dirs: &DirectoryLayer, p: &[&str]| run(db, |tx| dirs.open(tx, p, b""));
    let first = run(db, |tx| theirs.create(tx, &abc, b"")).unwrap();
    assert_eq!(open(&mine, &abc).unwrap(), first);
    assert_eq!(open(&mine, &abc).unwrap(), first);
    run(db, |tx| theirs.remove(tx, &abc)).unwrap();
    assert!(matches!(open(&mine, &abc), Err(Error::NotFound { .. })));
    let second = run(db, |tx| theirs.create(tx, &abc, b"layer")).unwrap();
    assert_ne!(second.prefix(), first.prefix());
    assert_eq!(open(&mine, &abc).unwrap(), second);
    run(db, |tx| theirs.move_to(tx, &["a"], &["m"])).unwrap();
    assert!(matches!(open(&mine, &abc), Err(Error::NotFound { .. })));
    assert_eq!(
        open(&mine, &["m", "b", "c"]).unwrap().prefix(),
        second.prefix()
    );
    assert!(!run(db, |tx| mine.exists(tx, &abc)).unwrap());
    // A change in the same transaction as the lookup is seen too.
    let made = run(db, |tx| {
        theirs.create(tx, &abc, b"")?;
        mine.open(tx, &abc, b"")
    })
    .unwrap();
    assert_eq!(open(&mine, &abc).unwrap(), made);
}

/// The node subspace of the standard layer, where another binding writes.
fn nodes() -> Subspace {
    Subspace::from_bytes(vec![0xfe])
}

/// A directory's node, as a binding addresses it.
fn node(prefix: &[u8]) -> Subspace {
    nodes().subspace(&(prefix,))
}

/// What a program that does not stamp the metadata version can do to a
/// session's cache: a remove of the directory or of any directory above
/// it is caught by the check of the directory's entry in its parent; a
/// move of a directory above it is not, until a change that stamps the
/// key. Without the cache (or where the database offers no metadata
/// version) every lookup sees the truth.
pub fn a_writer_that_does_not_stamp(db: &Backend) {
    let mine = DirectoryLayer::new();
    let abc = ["a", "b", "c"];
    let open = |dirs: &DirectoryLayer, p: &[&str]| run(db, |tx| dirs.open(tx, p, b""));
    let a = run(db, |tx| mine.create(tx, &["a"], b"")).unwrap();
    let b = run(db, |tx| mine.create(tx, &["a", "b"], b"")).unwrap();
    let c = run(db, |tx| mine.create(tx, &abc, b"")).unwrap();
    assert_eq!(open(&mine, &abc).unwrap(), c);
    // Remove /a/b/c as another binding does: its entry in /a/b and its
    // node, no stamp.
    let b_node = node(b.prefix().unwrap());
    let c_node = node(c.prefix().unwrap());
    run(db, |tx| {
        tx.clear(&b_node.pack(&(0i64, "c")))?;
        let (begin, end) = c_node.range();
        Ok(tx.clear_range(&begin, &end)?)
    })
    .unwrap();
    assert!(matches!(open(&mine, &abc), Err(Error::NotFound { .. })));
    // Made again by fql, cached, then /a renamed /m behind its back.
    let c = run(db, |tx| mine.create(tx, &abc, b"")).unwrap();
    assert_eq!(open(&mine, &abc).unwrap(), c);
    let root = node(&[0xfe]);
    run(db, |tx| {
        tx.set(&root.pack(&(0i64, "m")), a.prefix().unwrap())?;
        Ok(tx.clear(&root.pack(&(0i64, "a")))?)
    })
    .unwrap();
    let uncached = DirectoryLayer::new().uncached();
    assert!(matches!(open(&uncached, &abc), Err(Error::NotFound { .. })));
    let stale = open(&mine, &abc);
    if db.is_scoped() {
        assert!(matches!(stale, Err(Error::NotFound { .. })));
    } else {
        assert_eq!(stale.unwrap(), c, "the documented stale answer");
    }
    // Any change that stamps the key ends it.
    run(db, |tx| uncached.create(tx, &["z"], b"")).unwrap();
    assert!(matches!(open(&mine, &abc), Err(Error::NotFound { .. })));
    assert_eq!(open(&mine, &["m", "b", "c"]).unwrap().prefix(), c.prefix());
}
