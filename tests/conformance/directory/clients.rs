//! Many clients creating directories at once never share a prefix: what
//! each client does and what must hold afterwards. Used by the threads in
//! this suite and by the processes of the embedded backend's tests.

use fql::directory::{DirectoryLayer, RandomCandidates};
use fql::kv::{Database, DatabaseExt};

/// Directories each client creates.
pub const PER_CLIENT: usize = 20;

fn path(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

fn run<T>(
    db: &dyn Database,
    mut f: impl FnMut(&mut dyn fql::kv::Transaction) -> Result<T, fql::directory::Error>,
) -> Result<T, fql::directory::Error> {
    db.run(|tx, _| f(tx))
}

/// Creates this client's directories, one transaction each, half of them
/// under a parent every client creates too; returns how many attempts the
/// transactions took, to show that they did contend. Every client draws
/// the same candidates, so they collide whenever they overlap and only the
/// allocator's conflict keys keep their prefixes apart.
pub fn create_many(db: &dyn Database, client: usize) -> usize {
    let dirs = DirectoryLayer::new().with_candidates(RandomCandidates::seeded(11));
    let mut attempts = 0;
    for i in 0..PER_CLIENT {
        let name = format!("c{client}-{i}");
        let p = if i % 2 == 0 {
            path(&["shared", &name])
        } else {
            path(&[&name])
        };
        run(db, |tx| {
            attempts += 1;
            dirs.create(tx, &p, b"")
        })
        .unwrap();
    }
    attempts
}

/// Every directory's prefix, found by walking the tree.
pub fn all_prefixes(db: &dyn Database) -> Vec<Vec<u8>> {
    let dirs = DirectoryLayer::new();
    let mut pending = vec![Vec::<String>::new()];
    let mut out = Vec::new();
    while let Some(p) = pending.pop() {
        for name in run(db, |tx| dirs.list(tx, &p)).unwrap() {
            let mut child = p.clone();
            child.push(name);
            out.push(
                run(db, |tx| dirs.open(tx, &child, b""))
                    .unwrap()
                    .prefix()
                    .unwrap()
                    .to_vec(),
            );
            pending.push(child);
        }
    }
    out
}

pub fn check(db: &dyn Database, clients: usize) {
    let prefixes = all_prefixes(db);
    // Every client's directories plus `shared`.
    assert_eq!(prefixes.len(), clients * PER_CLIENT + 1);
    assert_prefix_free(&prefixes);
}

/// Asserts that no prefix in `prefixes` equals or starts another.
pub fn assert_prefix_free(prefixes: &[Vec<u8>]) {
    let mut sorted = prefixes.to_vec();
    sorted.sort();
    for pair in sorted.windows(2) {
        assert!(
            !pair[1].starts_with(&pair[0]),
            "{} overlaps {}",
            const_hex::encode(&pair[0]),
            const_hex::encode(&pair[1])
        );
    }
}
