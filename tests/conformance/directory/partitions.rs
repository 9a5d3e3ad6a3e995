//! Partitions: directory layers of their own inside a directory.

use super::*;

fn with_partition(db: &Backend) -> DirectoryLayer {
    let dirs = DirectoryLayer::new().with_candidates(fql::directory::RandomCandidates::seeded(3));
    run(db, |tx| dirs.create(tx, &["p"], b"partition")).unwrap();
    run(db, |tx| dirs.create_or_open(tx, &["p", "x", "y"], b"")).unwrap();
    run(db, |tx| dirs.create_or_open(tx, &["p", "z"], b"")).unwrap();
    run(db, |tx| dirs.create_or_open(tx, &["out"], b"")).unwrap();
    dirs
}

pub fn directories_inside_share_the_partition_prefix(db: &Backend) {
    let dirs = with_partition(db);
    let p = run(db, |tx| dirs.open(tx, &["p"], b"")).unwrap();
    assert!(p.is_partition());
    assert_eq!(
        p.prefix().unwrap_err(),
        Error::Partition { path: path(&["p"]) }
    );
    assert!(p.subspace().is_err());
    assert_eq!(
        run(db, |tx| dirs.open(tx, &["p"], b"partition")).unwrap(),
        p
    );
    // The partition's prefix, read from its entry in the root.
    let entry = const_hex::decode("fe01fe00 14 027000".replace(' ', "")).unwrap();
    let raw = run(db, |tx| Ok(tx.get(&entry, false)?)).unwrap().unwrap();
    let out = run(db, |tx| dirs.open(tx, &["out"], b"")).unwrap();
    let mut prefixes = vec![raw.clone(), out.prefix().unwrap().to_vec()];
    for inner in [&["p", "x"][..], &["p", "x", "y"], &["p", "z"]] {
        let dir = run(db, |tx| dirs.open(tx, inner, b"")).unwrap();
        assert_eq!(dir.path(), inner);
        assert!(dir.prefix().unwrap().starts_with(&raw));
        prefixes.push(dir.prefix().unwrap()[raw.len()..].to_vec());
    }
    assert_prefix_free(&prefixes[..2]);
    assert_prefix_free(&prefixes[2..]);
    // Outside the partition's prefix, only the outer layer's own nodes.
    let node = |prefix: &[u8]| {
        [
            &[0xfe][..],
            &fql::directory::Subspace::all().pack(&(prefix,)),
        ]
        .concat()
    };
    let outer_nodes = [node(&[0xfe]), node(&raw), node(out.prefix().unwrap())];
    for (key, _) in dump(db) {
        let key = const_hex::decode(&key).unwrap();
        assert!(
            key.starts_with(&raw) || outer_nodes.iter().any(|n| key.starts_with(n)),
            "stray key {}",
            const_hex::encode(&key)
        );
    }
}

pub fn list_exists_and_create_go_through(db: &Backend) {
    let dirs = with_partition(db);
    assert_eq!(run(db, |tx| dirs.list(tx, &["p"])).unwrap(), ["x", "z"]);
    assert_eq!(run(db, |tx| dirs.list(tx, &["p", "x"])).unwrap(), ["y"]);
    assert!(run(db, |tx| dirs.exists(tx, &["p", "x", "y"])).unwrap());
    assert!(!run(db, |tx| dirs.exists(tx, &["p", "q"])).unwrap());
    let err = run(db, |tx| dirs.open(tx, &["p", "q", "r"], b"")).unwrap_err();
    assert_eq!(
        err,
        Error::NotFound {
            path: path(&["p", "q", "r"])
        }
    );
    let err = run(db, |tx| dirs.create(tx, &["p", "z"], b"")).unwrap_err();
    assert_eq!(
        err,
        Error::AlreadyExists {
            path: path(&["p", "z"])
        }
    );
    assert_eq!(run(db, |tx| dirs.list(tx, ROOT)).unwrap(), ["out", "p"]);
}

pub fn moves_stay_inside_one_partition(db: &Backend) {
    let dirs = with_partition(db);
    let y = run(db, |tx| dirs.open(tx, &["p", "x", "y"], b"")).unwrap();
    let moved = run(db, |tx| dirs.move_to(tx, &["p", "x", "y"], &["p", "y2"])).unwrap();
    assert_eq!(moved.path(), ["p", "y2"]);
    assert_eq!(moved.prefix().unwrap(), y.prefix().unwrap());
    assert_eq!(
        run(db, |tx| dirs.list(tx, &["p"])).unwrap(),
        ["x", "y2", "z"]
    );
    let cross = |old: &[&str], new: &[&str]| run(db, |tx| dirs.move_to(tx, old, new)).unwrap_err();
    assert!(matches!(
        cross(&["p", "z"], &["z"]),
        Error::CrossPartition { .. }
    ));
    assert_eq!(
        cross(&["out"], &["p", "out"]).to_string(),
        "cannot move /out to /p/out: directories cannot move between partitions"
    );
    // The partition itself moves like any directory.
    run(db, |tx| dirs.move_to(tx, &["p"], &["p2"])).unwrap();
    assert_eq!(
        run(db, |tx| dirs.list(tx, &["p2"])).unwrap(),
        ["x", "y2", "z"]
    );
    assert!(run(db, |tx| dirs.open(tx, &["p2", "z"], b"")).is_ok());
    let err = run(db, |tx| dirs.remove(tx, &["p2", "nope"])).unwrap_err();
    assert_eq!(
        err,
        Error::NotFound {
            path: path(&["p2", "nope"])
        }
    );
}

pub fn removing_a_partition_clears_everything_inside(db: &Backend) {
    let dirs = with_partition(db);
    let p = run(db, |tx| dirs.list(tx, &["p"])).unwrap();
    assert_eq!(p.len(), 2);
    let z = run(db, |tx| dirs.open(tx, &["p", "z"], b"")).unwrap();
    run(db, |tx| Ok(tx.set(&z.subspace()?.pack(&(1i64,)), b"v")?)).unwrap();
    run(db, |tx| dirs.remove(tx, &["p", "x"])).unwrap();
    assert_eq!(run(db, |tx| dirs.list(tx, &["p"])).unwrap(), ["z"]);
    let partition_prefix = z.prefix().unwrap()[..2].to_vec();
    run(db, |tx| dirs.remove(tx, &["p"])).unwrap();
    assert!(keys_under(db, &partition_prefix).is_empty());
    assert_eq!(run(db, |tx| dirs.list(tx, ROOT)).unwrap(), ["out"]);
}
