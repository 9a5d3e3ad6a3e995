//! Bytes in their escaped form, as fdbcli prints keys: written as
//! `b"\x02app\x00"` wherever hex bytes stand, and printed that way by
//! `--bytes escaped`, in text and JSON.

use foundationdb_tuple::{Element, pack};

use super::{fql, on_db, outputs, stdout};

/// The key the tuple layer packs `("app", 1)` into, at the root of the
/// keyspace: `02 61 70 70 00 15 01`.
fn app_1() -> Vec<u8> {
    pack(&(Element::String("app".into()), Element::Int(1)))
}

#[test]
fn escaped_raw_keys_read_what_tuple_packing_wrote() {
    let (_dir, db) = on_db();
    let key = app_1();
    assert_eq!(key, b"\x02app\x00\x15\x01");
    let hex = fql::syntax::bytes_literal(&key);
    db().args(["-w", "-q", &format!("{hex}=\"one\"")])
        .assert()
        .success()
        .stdout("");
    // Outside every directory and a tuple, the key shows as one at the
    // root, whichever form of bytes named it.
    let row = "/(\"app\",1)=\"one\"\n".to_string();
    for query in [
        r#"b"\x02app\x00\x15\x01""#,
        r#"b"\x02\x61pp\x00\x15\x01""#,
        r#"b"\x02app\x00"..."#,
        r#"b"\x02app\x00"..b"\x02app\x01""#,
        r#"0x02..b"\x03""#,
        r#"b"\x02ap"..0x03"#,
        r#"[limit:1] b"\x02app\x00"...=<str>"#,
    ] {
        assert_eq!(stdout(db().args(["-q", query])), row, "{query}");
    }
    // A key that is no tuple, printed escaped, reads as fdbcli shows it,
    // and typed again it names the same key.
    db().args(["-w", "-q", "0x02617070001501ff=\"two\""])
        .assert()
        .success();
    let escaped = stdout(db().args(["--bytes", "escaped", "-q", "0x02617070001501ff"]));
    assert_eq!(escaped, "b\"\\x02app\\x00\\x15\\x01\\xff\"=\"two\"\n");
    let (printed_key, _) = escaped.split_once('=').expect("a key-value");
    assert_eq!(
        stdout(db().args(["-q", printed_key])),
        "0x02617070001501ff=\"two\"\n"
    );
    db().args(["-w", "-q", "0x02617070001501ff=clear"])
        .assert()
        .success();
    db().args(["-w", "-q", r#"b"\x02app\x00\x15\x01"=clear"#])
        .assert()
        .success();
    assert_eq!(stdout(db().args(["-q", "0x..."])), "");
}

#[test]
fn escaped_writes_read_back_in_hex_and_hex_writes_escaped() {
    let (_dir, db) = on_db();
    let writes = [
        r#"b"k\x00\xff"=b"a \"q\" \\ \x1b""#,
        r#"/app/bytes(b"\x01",(b"x",1))=byte_max(b"\x10")"#,
        "0x6b01=0x6c6f6e67e29c93",
        "/app/bytes(0x02)=0x7f00",
    ];
    for w in writes {
        db().args(["-w", "-q", w]).assert().success().stdout("");
    }
    let hex = stdout(db().args(["-q", "0x6b...", "-q", "/app/bytes(...)"]));
    assert_eq!(
        hex,
        "0x6b00ff=0x6120227122205c201b\n\
         0x6b01=0x6c6f6e67e29c93\n\
         /app/bytes(0x01,(0x78,1))=0x10\n\
         /app/bytes(0x02)=0x7f00\n"
    );
    let escaped = stdout(db().args([
        "--bytes",
        "escaped",
        "-q",
        r#"b"k"..."#,
        "-q",
        "/app/bytes(...)",
    ]));
    assert_eq!(
        escaped,
        "b\"k\\x00\\xff\"=b\"a \\\"q\\\" \\\\ \\x1b\"\n\
         b\"k\\x01\"=b\"long\\xe2\\x9c\\x93\"\n\
         /app/bytes(b\"\\x01\",(b\"x\",1))=b\"\\x10\"\n\
         /app/bytes(b\"\\x02\")=b\"\\x7f\\x00\"\n"
    );
    assert!(
        !escaped.chars().any(|c| c.is_control() && c != '\n'),
        "{escaped:?}"
    );
    // The escaped lines are writes: into a fresh database, they read back
    // the same in hex.
    let again = stdout(
        fql()
            .args(["--memory", "-w", "-f", "-"])
            .args(["-q", "0x6b...", "-q", "/app/bytes(...)"])
            .write_stdin(escaped.clone()),
    );
    assert_eq!(again, hex);
}

#[test]
fn escaped_json_is_lossless_and_keeps_keys_whole() {
    let (_dir, db) = on_db();
    db().args(["-w", "-q", r#"b"\x02a\"\\"=b"v\x00\x7f""#])
        .arg("-q")
        .arg("/d(b\"\\xc3\\xa9\")=(1,b\"\\x1b\")")
        .assert()
        .success();
    let out = stdout(db().args([
        "--bytes", "escaped", "--format", "jsonl", "-q", "0x02...", "-q", "/d(...)",
    ]));
    assert_eq!(
        out,
        concat!(
            r#"{"type":"raw","key":{"bytes_escaped":"\\x02a\\\"\\\\"},"value":{"bytes_escaped":"v\\x00\\x7f"}}"#,
            "\n",
            r#"{"type":"kv","path":["d"],"key":[{"bytes_escaped":"\\xc3\\xa9"}],"value":[1,{"bytes_escaped":"\\x1b"}]}"#,
            "\n",
        )
    );
    // Each string, between `b"` and `"`, is the literal of the same bytes.
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let key = first["key"]["bytes_escaped"].as_str().unwrap();
    let literal = format!("b\"{key}\"");
    let parsed = fql::syntax::parse_element(&literal).expect("a bytes literal");
    assert_eq!(
        parsed.kind,
        fql::syntax::ast::ElemKind::Bytes(b"\x02a\"\\".to_vec())
    );
    let array = stdout(db().args(["--bytes", "escaped", "--format", "json", "-q", "0x02..."]));
    let value: serde_json::Value = serde_json::from_str(&array).expect("one JSON document");
    assert_eq!(value[0]["value"]["bytes_escaped"], "v\\x00\\x7f");
}

#[test]
fn bad_escaped_bytes_fail_the_script_and_write_nothing() {
    let (_dir, db) = on_db();
    let (out, err) = outputs(
        db().args(["-w", "-q", "0x01=1", "-q", r#"b"\x02app\n"=1"#]),
        3,
    );
    assert_eq!(out, "");
    assert!(err.contains("fql::bad_bytes_escape"), "{err}");
    assert!(err.contains("`\\x0a`"), "{err}");
    assert_eq!(stdout(db().args(["-q", "0x..."])), "");
    // A backslash at the start is no form of bytes: fdbcli's bare
    // `\x02app` is not a statement.
    let (_, err) = outputs(db().args(["-q", r"\x02app"]), 3);
    assert!(err.contains("fql::expected_statement"), "{err}");
}

/// A parameter takes escaped bytes as data, and a directory's prefix
/// printed escaped is a raw range that reads the directory's keys.
#[test]
fn escaped_bytes_in_parameters_and_prefixes() {
    let (_dir, db) = on_db();
    db().args(["-w", "-p", r#"k=b"\x02app""#, "-q", "/a(:k)=1"])
        .assert()
        .success();
    assert_eq!(
        stdout(db().args(["-q", "/a(0x02617070)"])),
        "/a(0x02617070)=1\n"
    );
    let listed = stdout(db().args(["--bytes", "escaped", "-q", "[prefix] /a"]));
    let range = listed
        .strip_prefix("/a % ")
        .and_then(|r| r.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("{listed:?}"));
    assert!(
        range.starts_with("b\"") && range.ends_with("\"..."),
        "{range}"
    );
    let raw = stdout(db().args(["--bytes", "escaped", "-q", range]));
    // The value is `1`; the random prefix may hold a `=` byte.
    let (key, value) = raw.trim_end().rsplit_once('=').expect("one raw row");
    assert_eq!(value, "1");
    assert!(key.starts_with(range.trim_end_matches("\"...")), "{key}");
    assert!(key.ends_with(r#"\x02app\x00""#), "{key}");
}
