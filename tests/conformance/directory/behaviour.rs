//! What each operation does, and every way it refuses.

use fql::directory::Directory;

use super::*;

fn setup(db: &Backend, names: &[&[&str]]) -> DirectoryLayer {
    let dirs = DirectoryLayer::new().with_candidates(fql::directory::RandomCandidates::seeded(7));
    for p in names {
        run(db, |tx| dirs.create_or_open(tx, p, b"")).unwrap();
    }
    dirs
}

pub fn create_or_open_creates_missing_parents(db: &Backend) {
    let dirs = setup(db, &[]);
    let c = run(db, |tx| dirs.create_or_open(tx, &["a", "b", "c"], b"leaf")).unwrap();
    assert_eq!(c.path(), ["a", "b", "c"]);
    assert_eq!(run(db, |tx| dirs.list(tx, ROOT)).unwrap(), ["a"]);
    assert_eq!(run(db, |tx| dirs.list(tx, &["a"])).unwrap(), ["b"]);
    assert_eq!(run(db, |tx| dirs.list(tx, &["a", "b"])).unwrap(), ["c"]);
    // The layer goes to the leaf only.
    assert_eq!(
        run(db, |tx| dirs.open(tx, &["a", "b"], b""))
            .unwrap()
            .layer(),
        b""
    );
    let again = run(db, |tx| dirs.create_or_open(tx, &["a", "b", "c"], b"")).unwrap();
    assert_eq!(again, c);
    assert_eq!(again.layer(), b"leaf");
}

pub fn open_and_create_refuse(db: &Backend) {
    let dirs = setup(db, &[&["app"]]);
    let err = run(db, |tx| dirs.open(tx, &["app", "users"], b"")).unwrap_err();
    assert_eq!(
        err,
        Error::NotFound {
            path: path(&["app", "users"])
        }
    );
    assert_eq!(err.to_string(), "directory /app/users does not exist");
    let err = run(db, |tx| dirs.create(tx, &["app"], b"")).unwrap_err();
    assert_eq!(err.to_string(), "directory /app already exists");
    run(db, |tx| dirs.create(tx, &["typed"], b"x")).unwrap();
    let err = run(db, |tx| dirs.open(tx, &["typed"], b"y")).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"directory /typed has layer "x", not "y""#
    );
    assert!(run(db, |tx| dirs.open(tx, &["typed"], b"x")).is_ok());
    let err = run(db, |tx| dirs.create_or_open(tx, ROOT, b"")).unwrap_err();
    assert_eq!(err.to_string(), "the root directory / cannot be opened");
    assert!(run(db, |tx| dirs.list(tx, &["nope"])).is_err());
    assert!(run(db, |tx| dirs.exists(tx, ROOT)).unwrap());
}

pub fn list_is_in_byte_order(db: &Backend) {
    let dirs = setup(db, &[&["b"], &["a"], &["B"], &["é"], &["aa"], &["a b"]]);
    let names = run(db, |tx| dirs.list(tx, ROOT)).unwrap();
    assert_eq!(names, ["B", "a", "a b", "aa", "b", "é"]);
}

pub fn remove_clears_contents_and_metadata(db: &Backend) {
    let dirs = setup(
        db,
        &[&["keep"], &["app", "users", "deep"], &["app", "orders"]],
    );
    let before = dump(db);
    let open = |p: &[&str]| -> Directory { run(db, |tx| dirs.open(tx, p, b"")).unwrap() };
    let doomed = [
        open(&["app"]),
        open(&["app", "users"]),
        open(&["app", "users", "deep"]),
        open(&["app", "orders"]),
    ];
    let keep = open(&["keep"]);
    run(db, |tx| {
        for dir in doomed.iter().chain([&keep]) {
            tx.set(&dir.subspace()?.pack(&(1i64, "x")), b"v")?;
        }
        Ok(())
    })
    .unwrap();
    run(db, |tx| dirs.remove(tx, &["app"])).unwrap();
    for dir in &doomed {
        let prefix = dir.prefix().unwrap();
        assert!(
            keys_under(db, prefix).is_empty(),
            "contents of {:?} remain",
            dir.path()
        );
        let mut node = vec![0xfe];
        node.extend(fql::directory::Subspace::all().pack(&(prefix,)));
        assert!(
            keys_under(db, &node).is_empty(),
            "metadata of {:?} remains",
            dir.path()
        );
    }
    assert_eq!(keys_under(db, keep.prefix().unwrap()).len(), 1);
    assert!(!run(db, |tx| dirs.exists(tx, &["app"])).unwrap());
    assert_eq!(run(db, |tx| dirs.list(tx, ROOT)).unwrap(), ["keep"]);
    // Everything left was there before (the allocator keeps its records).
    let after = dump(db);
    let keep_key = const_hex::encode(keep.subspace().unwrap().pack(&(1i64, "x")));
    assert!(
        after
            .iter()
            .all(|row| before.contains(row) || row.0 == keep_key)
    );

    let err = run(db, |tx| dirs.remove(tx, &["app"])).unwrap_err();
    assert_eq!(
        err,
        Error::NotFound {
            path: path(&["app"])
        }
    );
    assert!(!run(db, |tx| dirs.remove_if_exists(tx, &["app"])).unwrap());
    assert!(run(db, |tx| dirs.remove_if_exists(tx, &["keep"])).unwrap());
    let err = run(db, |tx| dirs.remove(tx, ROOT)).unwrap_err();
    assert_eq!(err.to_string(), "the root directory / cannot be removed");
}

pub fn move_relinks_and_keeps_prefix_and_contents(db: &Backend) {
    let dirs = setup(db, &[&["a", "child"], &["b"]]);
    let a = run(db, |tx| dirs.open(tx, &["a"], b"")).unwrap();
    let key = a.subspace().unwrap().pack(&("k",));
    run(db, |tx| Ok(tx.set(&key, b"v")?)).unwrap();
    let moved = run(db, |tx| dirs.move_to(tx, &["a"], &["b", "renamed"])).unwrap();
    assert_eq!(moved.path(), ["b", "renamed"]);
    assert_eq!(moved.prefix().unwrap(), a.prefix().unwrap());
    assert!(!run(db, |tx| dirs.exists(tx, &["a"])).unwrap());
    assert_eq!(
        run(db, |tx| dirs.list(tx, &["b", "renamed"])).unwrap(),
        ["child"]
    );
    assert_eq!(run(db, |tx| dirs.list(tx, ROOT)).unwrap(), ["b"]);
    assert_eq!(
        keys_under(db, a.prefix().unwrap()),
        [const_hex::encode(&key)]
    );
    let reopened = run(db, |tx| dirs.open(tx, &["b", "renamed"], b"")).unwrap();
    assert_eq!(reopened, moved);
}

pub fn move_refuses(db: &Backend) {
    let dirs = setup(db, &[&["a", "child"], &["b"]]);
    let mv = |old: &[&str], new: &[&str]| run(db, |tx| dirs.move_to(tx, old, new)).unwrap_err();
    assert_eq!(
        mv(&["a"], &["a", "child", "x"]).to_string(),
        "cannot move /a into itself, to /a/child/x"
    );
    assert!(matches!(mv(&["a"], &["a"]), Error::MoveIntoItself { .. }));
    assert_eq!(
        mv(&["nope"], &["x"]),
        Error::NotFound {
            path: path(&["nope"])
        }
    );
    assert_eq!(
        mv(&["a"], &["b"]),
        Error::AlreadyExists { path: path(&["b"]) }
    );
    assert_eq!(
        mv(&["a"], &["missing", "x"]).to_string(),
        "cannot move /a to /missing/x: directory /missing does not exist"
    );
    assert!(!run(db, |tx| dirs.exists(tx, &["missing"])).unwrap());
    assert_eq!(
        mv(&[], &["x"]).to_string(),
        "the root directory / cannot be moved"
    );
    assert_eq!(mv(&["a"], &[]), Error::AlreadyExists { path: vec![] });
}

pub fn version_checks(db: &Backend) {
    let dirs = setup(db, &[&["app"]]);
    let version = const_hex::decode("fe01fe000176657273696f6e00").unwrap();
    let set_version = |v: [u32; 3]| {
        let bytes: Vec<u8> = v.iter().flat_map(|n| n.to_le_bytes()).collect();
        run(db, |tx| Ok(tx.set(&version, &bytes)?)).unwrap();
    };
    // A newer minor version: reads work, writes do not.
    set_version([1, 1, 0]);
    assert!(run(db, |tx| dirs.open(tx, &["app"], b"")).is_ok());
    assert!(run(db, |tx| dirs.create_or_open(tx, &["app"], b"")).is_ok());
    let err = run(db, |tx| dirs.create(tx, &["new"], b"")).unwrap_err();
    assert_eq!(
        err,
        Error::Version {
            root: vec![],
            stored: [1, 1, 0],
            write: true
        }
    );
    assert_eq!(
        err.to_string(),
        "directory layer version 1.1.0 at / cannot be written by this version of fql (1.0.0)"
    );
    assert!(run(db, |tx| dirs.remove(tx, &["app"])).is_err());
    // A newer major version: nothing works.
    set_version([2, 0, 0]);
    let err = run(db, |tx| dirs.open(tx, &["app"], b"")).unwrap_err();
    assert_eq!(
        err,
        Error::Version {
            root: vec![],
            stored: [2, 0, 0],
            write: false
        }
    );
    assert!(run(db, |tx| dirs.list(tx, ROOT)).is_err());
    // Garbage.
    run(db, |tx| Ok(tx.set(&version, b"1.0")?)).unwrap();
    assert!(matches!(
        run(db, |tx| dirs.exists(tx, &["app"])).unwrap_err(),
        Error::Corrupt { .. }
    ));
}

pub fn allocator_refuses_prefixes_with_keys(db: &Backend) {
    run(db, |tx| Ok(tx.set(&[0x15, 0x11, 0x01], b"stray")?)).unwrap();
    let dirs = scripted(&[17]);
    let err = run(db, |tx| dirs.create(tx, &["app"], b"")).unwrap_err();
    assert_eq!(
        err,
        Error::AllocatorConflict {
            prefix: vec![0x15, 0x11],
            has_keys: true
        }
    );
}

pub fn manual_prefixes(db: &Backend) {
    let dirs = setup(db, &[&["auto"]]);
    let err = run(db, |tx| dirs.create_with_prefix(tx, &["m"], b"\x99", b"")).unwrap_err();
    assert_eq!(err, Error::ManualPrefixDisabled { path: path(&["m"]) });
    let dirs = dirs.with_manual_prefixes();
    let m = run(db, |tx| dirs.create_with_prefix(tx, &["m"], b"\x99", b"")).unwrap();
    assert_eq!(m.prefix().unwrap(), b"\x99");
    for taken in [&b"\x99"[..], b"\x99\x01", b"", b"\xfe\x01"] {
        let err = run(db, |tx| dirs.create_with_prefix(tx, &["n"], taken, b"")).unwrap_err();
        assert_eq!(
            err,
            Error::PrefixInUse {
                prefix: taken.to_vec()
            }
        );
    }
    let auto = run(db, |tx| dirs.open(tx, &["auto"], b"")).unwrap();
    let under_auto = [auto.prefix().unwrap(), b"x"].concat();
    assert!(
        run(db, |tx| dirs.create_with_prefix(
            tx,
            &["n"],
            &under_auto,
            b""
        ))
        .is_err()
    );
    assert!(run(db, |tx| dirs.create_with_prefix(tx, &["n"], b"\x98", b"")).is_ok());
}

pub fn many_operations_share_one_transaction(db: &Backend) {
    let dirs = DirectoryLayer::new();
    let made = run(db, |tx| {
        let mut out = Vec::new();
        for i in 0..50 {
            let dir = dirs.create_or_open(tx, &["bulk", &format!("d{i}")], b"")?;
            tx.set(&dir.subspace()?.pack(&(i,)), b"")?;
            out.push(dir.prefix()?.to_vec());
        }
        dirs.move_to(tx, &["bulk", "d0"], &["bulk", "zero"])?;
        dirs.remove(tx, &["bulk", "d1"])?;
        Ok(out)
    })
    .unwrap();
    assert_prefix_free(&made);
    let names = run(db, |tx| dirs.list(tx, &["bulk"])).unwrap();
    assert_eq!(names.len(), 49);
    assert!(names.contains(&"zero".to_string()) && !names.contains(&"d1".to_string()));
}
