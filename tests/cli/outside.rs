//! Tuple keys outside the directory layer through the binary: at the
//! root, `/(...)`, and after a raw prefix, `0xPREFIX(...)`, as other
//! clients pack them; the directory layer's nodes and contents the root's
//! reads pass over, and the writes into a directory's prefix refused.

use super::{on_db, outputs, stdout};

/// `fdb.tuple.pack(("app", n))` at the root, as the Python binding
/// writes it with no directory, and a directory beside it.
fn packed(db: &impl Fn() -> assert_cmd::Command) {
    for n in 1..=3 {
        let key = format!("0x0261707000150{n}=\"v{n}\"");
        db().args(["-w", "-q", &key]).assert().success();
    }
    db().args(["-w", "-q", "/dir(1)=\"in a directory\""])
        .assert()
        .success();
}

#[test]
fn keys_packed_at_the_root_are_read_filtered_and_counted_as_tuples() {
    let (_dir, db) = on_db();
    packed(&db);
    let all = "/(\"app\",1)=\"v1\"\n/(\"app\",2)=\"v2\"\n/(\"app\",3)=\"v3\"\n";
    assert_eq!(stdout(db().args(["-q", "/(...)"])), all);
    assert_eq!(stdout(db().args(["-q", "/(\"app\",<int>)=<str>"])), all);
    assert_eq!(stdout(db().args(["-q", "/(\"app\",<str>)"])), "");
    assert_eq!(
        stdout(db().args(["-q", "/(\"app\",2)", "-q", "/(\"app\",...)=<count>"])),
        "/(\"app\",2)=\"v2\"\n/(\"app\",...)=3\n"
    );
    assert_eq!(
        stdout(db().args(["-q", "[reverse,limit:2] /(...)"])),
        "/(\"app\",3)=\"v3\"\n/(\"app\",2)=\"v2\"\n"
    );
    // Raw reads show a key outside every directory that is a tuple as one.
    assert_eq!(
        stdout(db().args(["-q", "0x0261707000..0x02617070001503"])),
        "/(\"app\",1)=\"v1\"\n/(\"app\",2)=\"v2\"\n"
    );
    assert_eq!(
        stdout(db().args(["--format", "jsonl", "-q", "/(\"app\",1)"])),
        "{\"type\":\"kv\",\"path\":[],\"key\":[\"app\",1],\"value\":\"v1\"}\n"
    );
}

#[test]
fn root_reads_pass_over_directories_and_every_path_pattern_holds_the_root() {
    let (_dir, db) = on_db();
    packed(&db);
    let root = stdout(db().args(["-q", "/(...)"]));
    assert!(
        !root.contains("directory") && !root.contains("0xfe"),
        "{root}"
    );
    assert_eq!(
        stdout(db().args(["-q", "/...(...)"])),
        "/(\"app\",1)=\"v1\"\n/(\"app\",2)=\"v2\"\n/(\"app\",3)=\"v3\"\n/dir(1)=\"in a directory\"\n"
    );
    assert_eq!(
        stdout(db().args(["-q", "/...(...)=<count>"])),
        "/(...)=3\n/dir(...)=1\n"
    );
    // A clear of the whole root leaves the directory layer whole.
    db().args(["-w", "-q", "/(...)=clear"]).assert().success();
    assert_eq!(stdout(db().args(["-q", "/(...)"])), "");
    assert_eq!(
        stdout(db().args(["-q", "/<>(...)"])),
        "/dir(1)=\"in a directory\"\n"
    );
}

#[test]
fn root_keys_take_clears_atomics_and_watches() {
    let (dir, db) = on_db();
    packed(&db);
    db().args(["-w", "-q", "/(\"app\",2,...)=clear"])
        .assert()
        .success();
    for n in [1, 4] {
        db().args(["-w", "-q", &format!("/(\"hits\")=add({n}[i64])")])
            .assert()
            .success();
    }
    assert_eq!(
        stdout(db().args(["-q", "/(\"app\",<int>)", "-q", "/(\"hits\")=<int[i64]>"])),
        "/(\"app\",1)=\"v1\"\n/(\"app\",3)=\"v3\"\n/(\"hits\")=5[i64]\n"
    );
    let path = dir.path().join("fql.db");
    let out = stdout(
        db().args(["watch", "/(\"app\",<int>)", "--for", "0.1"])
            .env_remove("FDB_CLUSTER_FILE"),
    );
    assert_eq!(
        out, "/(\"app\",1)=\"v1\"\n/(\"app\",3)=\"v3\"\n",
        "{path:?}"
    );
}

#[test]
fn subspace_keys_after_a_raw_prefix_are_read_written_and_cleared() {
    let (_dir, db) = on_db();
    db().args([
        "-w",
        "-q",
        "0xab01(\"k\",1)=\"one\"",
        "-q",
        "0xab01(\"k\",2)=2",
    ])
    .assert()
    .success();
    assert_eq!(
        stdout(db().args(["-q", "0xab01026b001501"])),
        "0xab01026b001501=\"one\"\n",
        "the bytes the prefix and tuple make"
    );
    assert_eq!(
        stdout(db().args([
            "-q",
            "0xab01(\"k\",<int>)=<int>",
            "-q",
            "0xab01(...)=<count>"
        ])),
        "0xab01(\"k\",2)=2\n0xab01(...)=2\n"
    );
    assert_eq!(
        stdout(db().args(["--format", "jsonl", "-q", "0xab01(\"k\",2)"])),
        "{\"type\":\"kv\",\"prefix\":{\"bytes\":\"ab01\"},\"key\":[\"k\",2],\"value\":2}\n"
    );
    db().args(["-w", "-q", "0xab01(...)=clear"])
        .assert()
        .success();
    assert_eq!(stdout(db().args(["-q", "0xab..."])), "");
}

#[test]
fn a_root_key_inside_a_directory_prefix_is_refused_with_nothing_written() {
    let (_dir, db) = on_db();
    db().args(["-w", "-q", "/dir(1)=1"]).assert().success();
    let tree = stdout(db().arg("tree"));
    let hex = tree
        .split("prefix 0x")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the directory's prefix");
    // The directory layer allocates small integers: `15 NN` is `(NN)`.
    assert_eq!(hex.len(), 4, "{tree}");
    let n = u8::from_str_radix(&hex[2..], 16).unwrap();
    let write = format!("/({n},7)=\"stray\"");
    let (out, err) = outputs(db().args(["-w", "-1", "-q", "/(99)=1", "-q", &write]), 4);
    assert!(out.is_empty());
    assert!(
        err.contains("fql::in_directory") && err.contains(&format!("prefix 0x{hex}")),
        "{err}"
    );
    assert_eq!(stdout(db().args(["-q", "/(...)"])), "", "nothing half-way");
    assert_eq!(stdout(db().args(["-q", "/dir(...)"])), "/dir(1)=1\n");
}

#[test]
fn fmt_prints_root_and_prefixed_keys_canonically() {
    let (_dir, db) = on_db();
    assert_eq!(
        stdout(
            db().arg("fmt")
                .write_stdin("/( \"a\" , 1 )=1\n0xAB01( 1 )\n")
        ),
        "/(\"a\",1)=1\n0xab01(1)\n"
    );
}

#[test]
fn infer_and_validate_read_the_root_and_raw_prefixes() {
    let (dir, db) = on_db();
    packed(&db);
    db().args([
        "-w",
        "-q",
        "0xab01(\"k\",1)=\"one\"",
        "-q",
        "0xab01(\"k\",\"x\")=2",
    ])
    .assert()
    .success();
    assert_eq!(
        stdout(db().args(["infer", "/", "--depth", "1"])),
        "/(\"app\",<int>)=<str> % 3 keys\n/dir(<int>)=<str> % 1 key\n"
    );
    let schema = dir.path().join("outside.fql");
    std::fs::write(
        &schema,
        "/(\"app\",<int>)=<str>\n0xab01(\"k\",<int>)=<str>\n/dir(<int>)=<str>\n",
    )
    .unwrap();
    // The root's scan leaves the keys under 0xab01 to their own patterns.
    let (out, err) = outputs(db().arg("validate").arg(&schema), 1);
    assert_eq!(
        out,
        "0xab01(\"k\",\"x\")=2 % element 2: expected int, found str \"x\"\n"
    );
    assert!(
        err.starts_with("6 keys in 1 directory and 2 subspaces, 1 violation\n"),
        "{err}"
    );
}

#[test]
fn a_raw_prefix_is_written_and_shown_escaped_too() {
    let (_dir, db) = on_db();
    db().args(["-w", "-q", "b\"\\xab\\x01\"(\"k\",1)=1"])
        .assert()
        .success();
    assert_eq!(
        stdout(db().args(["-q", "0xab01(...)"])),
        "0xab01(\"k\",1)=1\n"
    );
    assert_eq!(
        stdout(db().args(["--bytes", "escaped", "-q", "0xab01(...)"])),
        "b\"\\xab\\x01\"(\"k\",1)=1\n"
    );
    assert_eq!(
        stdout(db().args([
            "--bytes",
            "escaped",
            "--format",
            "jsonl",
            "-q",
            "0xab01(...)"
        ])),
        "{\"type\":\"kv\",\"prefix\":{\"bytes_escaped\":\"\\\\xab\\\\x01\"},\"key\":[\"k\",1],\"value\":1}\n"
    );
}

#[test]
fn infer_reads_the_keys_after_raw_bytes() {
    let (_dir, db) = on_db();
    db().args([
        "-w",
        "-q",
        "0xab01(\"k\",1)=\"one\"",
        "-q",
        "0xab01(\"k\",2)=\"two\"",
    ])
    .assert()
    .success();
    for prefix in ["0xab01", "b\"\\xab\\x01\""] {
        assert_eq!(
            stdout(db().args(["infer", prefix])),
            "0xab01(\"k\",<int>)=<str> % 2 keys\n",
            "{prefix}"
        );
    }
    let (out, err) = outputs(db().args(["infer", "0xzz"]), 2);
    assert!(out.is_empty() && err.contains("0xzz is not bytes"), "{err}");
}
