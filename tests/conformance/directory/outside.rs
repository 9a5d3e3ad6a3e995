//! The keys outside every directory: the gaps between directories'
//! prefixes that a read of the root walks, forward and reversed, the
//! prefix that holds a key, and a read of each kind of space.

use fql::directory::{Outside, Space};

use super::*;

/// `/a` at `15 05`, the partition `/p` at `15 09` with `/p/x` inside it
/// at `15 09 15 03`,
/// `/a/b` at `15 0c` and `/z` at `15 14`; keys around and inside each.
fn laid_out(db: &Backend) -> DirectoryLayer {
    let dirs = scripted(&[5, 9, 12, 20, 3]);
    run(db, |tx| dirs.create(tx, &["a"], b"")).unwrap();
    run(db, |tx| dirs.create(tx, &["p"], b"partition")).unwrap();
    run(db, |tx| dirs.create(tx, &["a", "b"], b"")).unwrap();
    run(db, |tx| dirs.create(tx, &["z"], b"")).unwrap();
    run(db, |tx| dirs.create(tx, &["p", "x"], b"")).unwrap();
    let keys: [&[u8]; 9] = [
        b"\x01",
        b"\x15\x04\xff",
        b"\x15\x05\x15\x01",
        b"\x15\x06",
        b"\x15\x09\x15\x01",
        b"\x15\x0c\x15\x02",
        b"\x15\x0d",
        b"\x15\x15",
        b"\xfd",
    ];
    db.run(|tx, _| {
        for k in keys {
            tx.set(k, b"v")?;
        }
        Ok::<_, kv::Error>(())
    })
    .unwrap();
    dirs
}

/// Every gap of `outside`, as hex.
fn gaps(db: &Backend, dirs: &DirectoryLayer, outside: Outside) -> Vec<(String, String)> {
    db.run(|tx, _| {
        let mut walk = outside.clone();
        let mut found = Vec::new();
        while let Some((b, e)) = walk.next(tx, dirs, false)? {
            found.push((const_hex::encode(b), const_hex::encode(e)));
        }
        Ok::<_, kv::Error>(found)
    })
    .unwrap()
}

fn hex_pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(b, e)| (b.to_string(), e.to_string()))
        .collect()
}

pub fn the_root_is_the_gaps_between_prefixes_forward_and_reversed(db: &Backend) {
    let dirs = laid_out(db);
    let all = [
        ("", "1505"),
        ("1506", "1509"),
        ("150a", "150c"),
        ("150d", "1514"),
        ("1515", "fe"),
    ];
    let forward = gaps(db, &dirs, Outside::new(Vec::new(), b"\xff".to_vec(), false));
    assert_eq!(forward, hex_pairs(&all));
    let mut reversed = hex_pairs(&all);
    reversed.reverse();
    let backward = gaps(db, &dirs, Outside::new(Vec::new(), b"\xff".to_vec(), true));
    assert_eq!(backward, reversed);
    // A range that starts inside one directory and ends inside another.
    let inside = Outside::new(b"\x15\x05\x15".to_vec(), b"\x15\x0c\x01".to_vec(), false);
    assert_eq!(
        gaps(db, &dirs, inside),
        hex_pairs(&[("1506", "1509"), ("150a", "150c")])
    );
    let inside = Outside::new(b"\x15\x05\x15".to_vec(), b"\x15\x0c\x01".to_vec(), true);
    assert_eq!(
        gaps(db, &dirs, inside),
        hex_pairs(&[("150a", "150c"), ("1506", "1509")])
    );
    // A range wholly inside a directory has no gap.
    let within = Outside::new(b"\x15\x05\x01".to_vec(), b"\x15\x05\x02".to_vec(), false);
    assert_eq!(gaps(db, &dirs, within), Vec::<(String, String)>::new());
}

pub fn the_prefix_holding_a_key_is_its_directory_or_partition(db: &Backend) {
    let dirs = laid_out(db);
    let holding = |key: &[u8]| {
        db.run(|tx, _| dirs.prefix_holding(tx, key, false))
            .unwrap()
            .map(const_hex::encode)
    };
    assert_eq!(holding(b"\x15\x05\x15\x01").as_deref(), Some("1505"));
    assert_eq!(holding(b"\x15\x05").as_deref(), Some("1505"));
    // Inside a partition, the partition's prefix holds every directory.
    assert_eq!(holding(b"\x15\x09\x15\x01").as_deref(), Some("1509"));
    assert_eq!(holding(b"\x15\x0c\x15\x02").as_deref(), Some("150c"));
    assert_eq!(holding(b"\xfe\x01").as_deref(), Some("fe"));
    for outside in [&b"\x01"[..], b"\x15\x06", b"\x15\x15", b"\xfd", b""] {
        assert_eq!(holding(outside), None, "{outside:x?}");
    }
}

/// Every key of `space`, as hex, or `None` for a space with no keys of
/// its own.
fn read_space(db: &Backend, dirs: &DirectoryLayer, space: &Space) -> Option<Vec<String>> {
    db.run(|tx, _| {
        let Some(mut cursor) = space.cursor(tx, dirs, false)? else {
            return Ok(None);
        };
        let mut keys = Vec::new();
        while let Some(batch) = cursor.next_batch(tx)? {
            keys.extend(batch.into_iter().map(|kv| const_hex::encode(kv.key)));
        }
        Ok::<_, Error>(Some(keys))
    })
    .unwrap()
}

pub fn each_space_reads_its_own_keys(db: &Backend) {
    let dirs = laid_out(db);
    assert_eq!(
        read_space(db, &dirs, &Space::Root).unwrap(),
        ["01", "1504ff", "1506", "150d", "1515", "fd"]
    );
    assert_eq!(
        read_space(db, &dirs, &Space::Directory(path(&["a", "b"]))).unwrap(),
        ["150c1502"]
    );
    // Raw bytes say where to read, a directory's keys included.
    assert_eq!(
        read_space(db, &dirs, &Space::Prefix(b"\x15\x0c".to_vec())).unwrap(),
        ["150c1502"]
    );
    assert_eq!(read_space(db, &dirs, &Space::Directory(path(&["p"]))), None);
    assert_eq!(
        read_space(db, &dirs, &Space::Directory(path(&["gone"]))),
        None
    );
    let shown: Vec<String> = [
        Space::Root,
        Space::Directory(path(&["a", "b"])),
        Space::Prefix(vec![0xab, 1]),
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(shown, ["/", "/a/b", "0xab01"]);
}
