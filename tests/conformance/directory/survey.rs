//! Looking over directories: the tree, what a directory holds, and an
//! exact count.

use fql::directory::{Holdings, TreeNode, count};
use fql::kv::RetryOptions;

use super::*;

fn names(node: &TreeNode) -> Vec<String> {
    node.children
        .iter()
        .map(|c| c.path.last().cloned().unwrap_or_default())
        .collect()
}

fn layered(db: &Backend) -> DirectoryLayer {
    let dirs = DirectoryLayer::new();
    run(db, |tx| dirs.create_or_open(tx, &["a", "b", "c"], b"")).unwrap();
    run(db, |tx| dirs.create(tx, &["t"], b"mine")).unwrap();
    run(db, |tx| dirs.create(tx, &["p"], b"partition")).unwrap();
    run(db, |tx| dirs.create(tx, &["p", "q"], b"")).unwrap();
    dirs
}

pub fn tree_shows_layers_prefixes_and_partitions(db: &Backend) {
    let dirs = layered(db);
    let retry = RetryOptions::default();
    let root = dirs.tree(db, retry, ROOT, None).unwrap();
    assert_eq!(root.path, Vec::<String>::new());
    assert_eq!((root.prefix.as_ref(), root.estimated_bytes), (None, None));
    assert_eq!(names(&root), ["a", "p", "t"]);
    let (a, p, t) = (&root.children[0], &root.children[1], &root.children[2]);
    assert_eq!(names(a), ["b"]);
    assert_eq!(names(&a.children[0]), ["c"]);
    assert_eq!(t.layer, b"mine");
    assert_eq!(p.layer, b"partition");
    // A directory inside a partition lies under the partition's prefix.
    let q = &p.children[0];
    assert_eq!(q.path, path(&["p", "q"]));
    let (pp, qp) = (p.prefix.clone().unwrap(), q.prefix.clone().unwrap());
    assert!(
        qp.starts_with(&pp) && qp.len() > pp.len(),
        "{pp:x?} {qp:x?}"
    );
    let b = run(db, |tx| dirs.open(tx, &["a", "b"], b"")).unwrap();
    assert_eq!(a.children[0].prefix.as_deref(), Some(b.prefix().unwrap()));
    assert_eq!(a.children[0].estimated_bytes, Some(0));
    // A depth counts what it leaves out.
    let shallow = dirs.tree(db, retry, &["a"], Some(1)).unwrap();
    assert_eq!(shallow.path, path(&["a"]));
    assert_eq!(names(&shallow), ["b"]);
    assert_eq!(
        (
            shallow.children[0].hidden,
            shallow.children[0].children.len()
        ),
        (1, 0)
    );
    assert_eq!(dirs.tree(db, retry, &["a"], Some(0)).unwrap().hidden, 1);
    assert_eq!(
        dirs.tree(db, retry, &["nope"], None).unwrap_err(),
        Error::NotFound {
            path: path(&["nope"])
        }
    );
}

pub fn holdings_tell_subdirectories_and_keys(db: &Backend) {
    let dirs = layered(db);
    let holds = |p: &[&str]| run(db, |tx| dirs.holdings(tx, p));
    assert!(holds(&["t"]).unwrap().is_empty());
    assert_eq!(
        holds(&["a"]).unwrap(),
        Holdings {
            subdirectories: 1,
            keys: false
        }
    );
    let t = run(db, |tx| dirs.open(tx, &["t"], b"")).unwrap();
    let key = t.subspace().unwrap().pack(&(1i64,));
    run(db, |tx| Ok(tx.set(&key, b"")?)).unwrap();
    assert_eq!(
        holds(&["t"]).unwrap(),
        Holdings {
            subdirectories: 0,
            keys: true
        }
    );
    // A partition holds its directories, and their metadata as keys.
    assert_eq!(holds(&["p"]).unwrap().subdirectories, 1);
    assert!(holds(&["p", "q"]).unwrap().is_empty());
    assert!(matches!(holds(&["x"]), Err(Error::NotFound { .. })));
}

pub fn count_is_exact_and_leaves_out_subdirectories(db: &Backend) {
    let dirs = layered(db);
    let b = run(db, |tx| dirs.open(tx, &["a", "b"], b"")).unwrap();
    let c = run(db, |tx| dirs.open(tx, &["a", "b", "c"], b"")).unwrap();
    let mut bytes = 0u64;
    for chunk in (0..2500i64).collect::<Vec<_>>().chunks(500) {
        run(db, |tx| {
            for i in chunk {
                tx.set(&b.subspace()?.pack(&(*i,)), &[7u8; 20])?;
            }
            Ok(())
        })
        .unwrap();
        bytes += chunk
            .iter()
            .map(|i| (b.subspace().unwrap().pack(&(*i,)).len() + 20) as u64)
            .sum::<u64>();
    }
    run(db, |tx| Ok(tx.set(&c.subspace()?.pack(&("x",)), b"y")?)).unwrap();
    let mut seen = 0;
    let counted = count(db, RetryOptions::default(), &["a", "b"], |_| seen += 1).unwrap();
    assert_eq!((counted.keys, counted.bytes), (2500, bytes));
    assert!(counted.transactions >= 1 && seen == counted.transactions);
    let empty = count(db, RetryOptions::default(), &["t"], |_| {}).unwrap();
    assert_eq!((empty.keys, empty.bytes), (0, 0));
    // A partition counts the directories inside it: `/p/q`, empty.
    let p = count(db, RetryOptions::default(), &["p"], |_| {}).unwrap();
    assert_eq!((p.keys, p.bytes), (0, 0));
}
