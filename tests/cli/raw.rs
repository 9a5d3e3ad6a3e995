//! Raw keys through the binary: keys as bytes read, written and cleared,
//! the write gate, the system and special keys, keys under a directory
//! that are not tuples, and a directory's prefix.

use super::{fql_db, on_db, outputs, stderr, stdout};

#[test]
fn raw_keys_are_written_read_and_cleared_as_bytes() {
    let (_dir, db) = on_db();
    let writes = ["0x0102=\"v\"", "0x0103=7[i64]", "0x01ff=0x00ff", "0x02=nil"];
    for w in writes {
        db().args(["-w", "-q", w]).assert().success().stdout("");
    }
    assert_eq!(stdout(db().args(["-q", "0x0102"])), "0x0102=\"v\"\n");
    assert_eq!(stdout(db().args(["-q", "0x0104"])), "");
    assert_eq!(
        stdout(db().args(["-q", "0x01..."])),
        "0x0102=\"v\"\n0x0103=0x0700000000000000\n0x01ff=0x00ff\n"
    );
    assert_eq!(
        stdout(db().args(["-q", "0x01...=<int[i64]>"])),
        "0x0103=7[i64]\n"
    );
    assert_eq!(
        stdout(db().args(["-q", "0x0102..0x01ff"])),
        "0x0102=\"v\"\n0x0103=0x0700000000000000\n"
    );
    assert_eq!(
        stdout(db().args(["-q", "[reverse,limit:2] 0x..."])),
        "0x02=nil\n0x01ff=0x00ff\n"
    );
    // Bytes shown as their length shorten the value, never the key.
    assert_eq!(
        stdout(db().args(["--bytes", "len", "-q", "0x01ff"])),
        "0x01ff=<2 bytes>\n"
    );
    assert_eq!(
        stdout(db().args(["--format", "jsonl", "--bytes", "len", "-q", "0x01ff"])),
        "{\"type\":\"raw\",\"key\":{\"bytes\":\"01ff\"},\"value\":{\"bytes_len\":2}}\n"
    );
    db().args(["-w", "-q", "0x01...=clear", "-q", "0x02=clear"])
        .assert()
        .success();
    assert_eq!(stdout(db().args(["-q", "0x00..0x03"])), "");
}

#[test]
fn raw_writes_pass_the_write_gate() {
    let (_dir, db) = on_db();
    let err = stderr(db().args(["-q", "0x01=1"]), 2);
    assert!(err.contains("refusing to write"), "{err}");
    let err = stderr(db().args(["-w", "-q", "@read\n0x01...=clear"]), 3);
    assert!(err.contains("fql::write_in_read"), "{err}");
    assert_eq!(stdout(db().args(["-q", "0x..."])), "");
}

#[test]
fn system_keys_need_the_system_option() {
    let (_dir, db) = on_db();
    let err = stderr(db().args(["-w", "-q", "0xff022f71=\"x\""]), 3);
    assert!(err.contains("fql::system_keys"), "{err}");
    assert!(err.contains("[system]"), "{err}");
    db().args(["-w", "-q", "[system] 0xff022f71=\"x\""])
        .assert()
        .success();
    assert_eq!(
        stdout(db().args(["-q", "[system] 0xff022f71"])),
        "0xff022f71=\"x\"\n"
    );
    let listed = stdout(db().args(["-q", "[system] 0xff...=<str>"]));
    assert_eq!(listed, "0xff022f71=\"x\"\n");
    // The special keys are FDB's special key space's to write, which
    // refuses writes without its own option.
    let err = stderr(db().args(["-w", "-q", "[system] 0xffff2f71=1"]), 4);
    assert!(err.contains("special_keys_write_disabled (2114)"), "{err}");
}

#[test]
fn status_json_is_answered_and_other_special_keys_fail() {
    let (_dir, db) = on_db();
    let status = stdout(db().args(["-q", "0xffff2f7374617475732f6a736f6e=<str[raw]>"]));
    let (key, value) = status.trim_end().split_once('=').unwrap();
    assert_eq!(key, "0xffff2f7374617475732f6a736f6e");
    let json = value.strip_suffix("[raw]").unwrap();
    let json: String = serde_json::from_str(json).expect("a quoted string");
    let json: serde_json::Value = serde_json::from_str(&json).expect("a JSON document");
    assert_eq!(json["client"]["database_status"]["available"], true);
    assert_eq!(json["cluster"]["database_available"], true);
    let err = stderr(db().args(["-q", "0xffff2f776f726b6572"]), 4);
    assert!(err.contains("special_keys_no_module_found (2113)"), "{err}");
    let err = stderr(db().args(["-q", "0xffff..."]), 4);
    assert!(
        err.contains("special_keys_cross_module_read (2112)"),
        "{err}"
    );
}

/// The prefix `[prefix]` prints for the directory, as bytes.
fn prefix_of(listing: &str, dir: &str) -> String {
    let line = listing.lines().find(|l| l.starts_with(dir)).unwrap();
    let (_, range) = line.split_once(" % ").unwrap();
    range.strip_suffix("...").unwrap().to_string()
}

#[test]
fn keys_under_a_directory_that_are_not_tuples_print_raw() {
    let (_dir, db) = on_db();
    db().args(["-w", "-q", "/app/users(1)=\"ann\""])
        .assert()
        .success();
    let listing = stdout(db().args(["-q", "[prefix] /app/<>"]));
    let prefix = prefix_of(&listing, "/app/users % 0x");
    assert_eq!(listing, format!("/app/users % {prefix}...\n"));
    // A key that is no tuple, and a value holding an escape character.
    let junk = format!("{prefix}ff01=\"bad\\x1b[31m\"");
    db().args(["-w", "-q", &junk]).assert().success();
    let rows = stdout(db().args(["-q", "/app/users(<>)"]));
    assert_eq!(
        rows,
        format!("/app/users(1)=\"ann\"\n{prefix}ff01=\"bad\\x1b[31m\"\n")
    );
    assert!(!rows.contains('\x1b'), "{rows:?}");
    // Its value still filters it; the key pattern cannot.
    let ints = stdout(db().args(["-q", "/app/users(<int>)=<int>"]));
    assert_eq!(ints, "");
    // The raw range of the directory holds both keys.
    let raw = stdout(db().args(["-q", &format!("{prefix}...")]));
    assert_eq!(raw.lines().count(), 2, "{raw}");
    // A strict read fails on it, naming its bytes.
    let (out, err) = outputs(db().args(["-q", "[strict] /app/users(<>)"]), 4);
    assert_eq!(out, "/app/users(1)=\"ann\"\n");
    assert!(
        err.contains(&format!("the key {prefix}ff01 (not a tuple)")),
        "{err}"
    );
}

#[test]
fn raw_statements_format_and_explain() {
    let out = stdout(
        fql_db()
            .arg("fmt")
            .write_stdin("[ system ]\n0xFF02...=<>\n0x0A..0x0B\n"),
    );
    assert_eq!(out, "[system]\n0xff02...=<>\n0x0a..0x0b\n");
    let plan = stdout(fql_db().arg("explain").write_stdin("0x01...=<int>\n"));
    assert!(
        plan.contains("keys: from 0x01 up to 0x02, left out (raw)"),
        "{plan}"
    );
    assert!(plan.contains("client filter: value <int>"), "{plan}");
}
