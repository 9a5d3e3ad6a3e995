//! The exact keys and values, as FDB's own directory layer writes them.

use super::*;

pub fn standard_layout_byte_for_byte(db: &Backend) {
    let dirs = scripted(&[17, 8, 57]);
    let app = run(db, |tx| dirs.create_or_open(tx, &["app"], b"")).unwrap();
    let users = run(db, |tx| dirs.create_or_open(tx, &["app", "users"], b"")).unwrap();
    let tagged = run(db, |tx| dirs.create(tx, &["tagged"], b"mylayer")).unwrap();
    assert_eq!(app.prefix().unwrap(), [0x15, 0x11]);
    assert_eq!(users.prefix().unwrap(), [0x15, 0x08]);
    assert_eq!(tagged.prefix().unwrap(), [0x15, 0x39]);
    assert_eq!(tagged.layer(), b"mylayer");
    let expected = rows(&[
        // Layer keys: always written, empty for plain directories.
        ("fe01 1508 00 016c6179657200", ""),
        ("fe01 1511 00 016c6179657200", ""),
        // app's child entry for users.
        ("fe01 1511 00 14 027573657273 00", "1508"),
        ("fe01 1539 00 016c6179657200", "6d796c61796572"),
        // The allocator: one counter for window 0, one recent key each.
        ("fe01fe00 0168636100 14 14", "0300000000000000"),
        ("fe01fe00 0168636100 1501 1508", ""),
        ("fe01fe00 0168636100 1501 1511", ""),
        ("fe01fe00 0168636100 1501 1539", ""),
        ("fe01fe00 0176657273696f6e00", "010000000000000000000000"),
        ("fe01fe00 14 0261707000", "1511"),
        ("fe01fe00 14 0274616767656400", "1539"),
    ]);
    assert_eq!(dump(db), expected);
}

pub fn partition_layout_byte_for_byte(db: &Backend) {
    let dirs = scripted(&[60, 48]);
    let p = run(db, |tx| dirs.create(tx, &["p"], b"partition")).unwrap();
    let inner = run(db, |tx| dirs.create(tx, &["p", "inner"], b"")).unwrap();
    assert!(p.is_partition());
    assert_eq!(inner.prefix().unwrap(), [0x15, 0x3c, 0x15, 0x30]);
    assert_eq!(inner.path(), ["p", "inner"]);
    let expected = rows(&[
        // The inner directory's node, in the partition's node subspace.
        ("153cfe 01 153c1530 00 016c6179657200", ""),
        // The partition's own allocator, version and root entries.
        ("153cfe01153cfe00 0168636100 14 14", "0100000000000000"),
        ("153cfe01153cfe00 0168636100 1501 1530", ""),
        (
            "153cfe01153cfe00 0176657273696f6e00",
            "010000000000000000000000",
        ),
        ("153cfe01153cfe00 14 02696e6e657200", "153c1530"),
        ("fe01 153c 00 016c6179657200", "706172746974696f6e"),
        ("fe01fe00 0168636100 14 14", "0100000000000000"),
        ("fe01fe00 0168636100 1501 153c", ""),
        ("fe01fe00 0176657273696f6e00", "010000000000000000000000"),
        ("fe01fe00 14 027000", "153c"),
    ]);
    assert_eq!(dump(db), expected);
}

pub fn reads_write_nothing_and_the_first_write_adds_the_version(db: &Backend) {
    let dirs = scripted(&[17]);
    assert!(!run(db, |tx| dirs.exists(tx, &["app"])).unwrap());
    assert_eq!(
        run(db, |tx| dirs.list(tx, ROOT)).unwrap(),
        Vec::<String>::new()
    );
    assert!(run(db, |tx| dirs.open(tx, &["app"], b"")).is_err());
    assert!(!run(db, |tx| dirs.remove_if_exists(tx, &["app"])).unwrap());
    // remove_if_exists is a write, so it records the version even though
    // there was nothing to remove.
    assert_eq!(
        dump(db),
        rows(&[("fe01fe00 0176657273696f6e00", "010000000000000000000000")])
    );
}

pub fn windows_advance_as_the_reference_reports(db: &Backend) {
    // 200 creates: 31 allocations fit each of the four 64-wide windows
    // below 256 (a window is left when half full), the other 76 land in
    // the 1024-wide window at 256, and the older windows are cleared.
    let dirs = DirectoryLayer::new().with_candidates(fql::directory::RandomCandidates::seeded(1));
    let mut prefixes = Vec::new();
    for i in 0..200 {
        let dir = run(db, |tx| dirs.create(tx, &[format!("d{i}")], b"")).unwrap();
        prefixes.push(dir.prefix().unwrap().to_vec());
    }
    let hca = "fe01fe000168636100";
    let all = dump(db);
    let counters: Vec<_> = all
        .iter()
        .filter(|(k, _)| k.starts_with(&format!("{hca}14")))
        .collect();
    assert_eq!(
        counters,
        [&(format!("{hca}14160100"), "4c00000000000000".to_string())]
    );
    let recent: Vec<i64> = all
        .iter()
        .filter_map(|(k, v)| {
            let rest = k.strip_prefix(&format!("{hca}1501"))?;
            assert_eq!(v, "");
            let bytes = const_hex::decode(rest).unwrap();
            Some(
                fql::directory::Subspace::all()
                    .unpack::<(i64,)>(&bytes)
                    .unwrap()
                    .0,
            )
        })
        .collect();
    assert_eq!(recent.len(), 76);
    assert!(recent.iter().all(|n| (256..1280).contains(n)), "{recent:?}");
    assert_prefix_free(&prefixes);
}

pub fn moves_removes_and_partitions_byte_for_byte(db: &Backend) {
    // The same steps through FDB's own directory layer, with the same
    // allocator numbers, leave exactly these keys.
    let dirs = scripted(&[5, 6, 7, 9, 12, 20, 21, 22]);
    // Parents are created after the leaf's prefix is allocated: c=5, b=6, a=7.
    run(db, |tx| dirs.create_or_open(tx, &["a", "b", "c"], b"")).unwrap();
    run(db, |tx| dirs.create(tx, &["x"], b"lay")).unwrap();
    for p in [&["a", "b", "c"][..], &["a"]] {
        let dir = run(db, |tx| dirs.open(tx, p, b"")).unwrap();
        let key = [dir.prefix().unwrap(), b"k"].concat();
        run(db, |tx| Ok(tx.set(&key, b"v")?)).unwrap();
    }
    run(db, |tx| dirs.move_to(tx, &["a", "b"], &["x", "b2"])).unwrap();
    run(db, |tx| dirs.remove(tx, &["a"])).unwrap();
    run(db, |tx| dirs.create(tx, &["p"], b"partition")).unwrap();
    run(db, |tx| dirs.create_or_open(tx, &["p", "q", "r"], b"")).unwrap();
    run(db, |tx| dirs.create_or_open(tx, &["p", "s"], b"")).unwrap();
    run(db, |tx| dirs.move_to(tx, &["p", "q", "r"], &["p", "r2"])).unwrap();
    assert!(run(db, |tx| dirs.remove_if_exists(tx, &["p", "q"])).unwrap());
    assert!(!run(db, |tx| dirs.remove_if_exists(tx, &["p", "nope"])).unwrap());
    let expected = rows(&[
        // c's key survives: c moved along with b.
        ("1505 6b", "76"),
        ("150cfe 01 150c1514 00 016c6179657200", ""),
        ("150cfe 01 150c1516 00 016c6179657200", ""),
        ("150cfe01150cfe00 0168636100 14 14", "0300000000000000"),
        ("150cfe01150cfe00 0168636100 1501 1514", ""),
        ("150cfe01150cfe00 0168636100 1501 1515", ""),
        ("150cfe01150cfe00 0168636100 1501 1516", ""),
        (
            "150cfe01150cfe00 0176657273696f6e00",
            "010000000000000000000000",
        ),
        ("150cfe01150cfe00 14 02723200", "150c1514"),
        ("150cfe01150cfe00 14 027300", "150c1516"),
        ("fe01 1505 00 016c6179657200", ""),
        ("fe01 1506 00 016c6179657200", ""),
        ("fe01 1506 00 14 026300", "1505"),
        ("fe01 1509 00 016c6179657200", "6c6179"),
        ("fe01 1509 00 14 02623200", "1506"),
        ("fe01 150c 00 016c6179657200", "706172746974696f6e"),
        ("fe01fe00 0168636100 14 14", "0500000000000000"),
        ("fe01fe00 0168636100 1501 1505", ""),
        ("fe01fe00 0168636100 1501 1506", ""),
        ("fe01fe00 0168636100 1501 1507", ""),
        ("fe01fe00 0168636100 1501 1509", ""),
        ("fe01fe00 0168636100 1501 150c", ""),
        ("fe01fe00 0176657273696f6e00", "010000000000000000000000"),
        ("fe01fe00 14 027000", "150c"),
        ("fe01fe00 14 027800", "1509"),
    ]);
    assert_eq!(dump(db), expected);
}
