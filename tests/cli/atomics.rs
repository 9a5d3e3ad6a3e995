//! Atomic operations through the binary: the write gate, a counter kept
//! with `add` and read back with a width, `@read`, `fmt` and `explain`,
//! and the errors of operands an operation cannot take.

use super::{fql, on_db, outputs, stderr, stdout};

#[test]
fn a_counter_is_kept_with_add_and_read_back_with_its_width() {
    let (_dir, db) = on_db();
    let add = ["-q", "/stats(\"hits\")=add(1[i64])"];
    let err = stderr(db().args(add), 2);
    assert!(
        err.contains("has a mutation at line 1") && err.contains("-w/--write"),
        "{err}"
    );
    assert_eq!(stdout(db().args(["-q", "/<>"])), "", "nothing was written");
    for _ in 0..3 {
        assert_eq!(
            stdout(db().arg("-w").args(add)),
            "",
            "a mutation prints nothing"
        );
    }
    db().args(["-w", "-p", "n=-5", "-q", "/stats(\"hits\")=add(:n[i64])"])
        .assert()
        .success();
    assert_eq!(
        stdout(db().args(["-q", "/stats(\"hits\")=<int[i64]>"])),
        "/stats(\"hits\")=-2[i64]\n"
    );
    // Without its width the value is the bytes as stored.
    assert_eq!(
        stdout(db().args(["-q", "/stats(\"hits\")"])),
        "/stats(\"hits\")=0xfeffffffffffffff\n"
    );
}

#[test]
fn a_read_only_transaction_refuses_an_atomic_operation() {
    let (_dir, db) = on_db();
    let (out, err) = outputs(
        db().args(["-w", "--color", "never"])
            .write_stdin("@read\n/stats(\"hits\")=max(7[u64])\n"),
        3,
    );
    assert_eq!(out, "");
    assert!(err.contains("fql::write_in_read"), "{err}");
    assert_eq!(stdout(db().args(["-q", "/<>"])), "", "nothing was written");
}

#[test]
fn operands_an_operation_cannot_take_are_refused_before_anything_runs() {
    let (_dir, db) = on_db();
    let (out, err) = outputs(
        db().args(["-w", "--color", "never"]).write_stdin(
            "/ok(1)=add(1[i64])\n/a(1)=add(1)\n/a(<int>)=bit_or(0x01)\n/a(2)=byte_max(1[i64])\n/a(3)=incr(1)\n",
        ),
        3,
    );
    assert_eq!(out, "");
    for code in [
        "fql::bad_operand",
        "fql::mutation_holes",
        "did you mean `add`?",
    ] {
        assert!(err.contains(code), "{code}: {err}");
    }
    assert!(err.contains("4 errors"), "{err}");
    assert_eq!(stdout(db().args(["-q", "/<>"])), "", "nothing ran");
    // A parameter's value is judged when the statement runs.
    let err = stderr(
        db().args([
            "-w",
            "--color",
            "never",
            "-p",
            "n=-1",
            "-q",
            "/a(1)=min(:n[i64])",
        ]),
        4,
    );
    assert!(err.contains("`min` cannot take a negative int"), "{err}");
    assert_eq!(stdout(db().args(["-q", "/<>"])), "", "nothing was written");
}

#[test]
fn fmt_prints_atomic_operations_canonically() {
    let script = "/a(1)=bit_or(1[i64, be]) % c\n/b(1)=append_if_fits((1, % one\n  2))\n/c(\"k\")=compare_and_clear(:who!str)\n";
    let once = stdout(fql().arg("fmt").write_stdin(script));
    assert_eq!(
        once,
        "/a(1)=bit_or(1[i64,be]) % c\n/b(1)=append_if_fits((\n  1, % one\n  2,\n))\n/c(\"k\")=compare_and_clear(:who!str)\n"
    );
    assert_eq!(stdout(fql().arg("fmt").write_stdin(once.as_str())), once);
}

#[test]
fn explain_shows_an_atomic_operation() {
    let plan =
        stdout(fql().args(["--memory", "explain"]).write_stdin(
            "/stats(\"hits\")=add(1[i64])\n/locks(\"job\")=compare_and_clear(\"ann\")\n",
        ));
    assert_eq!(
        plan,
        "transaction 1 (read-write)\n\
         \x20 atomic operation: /stats(\"hits\")=add(1[i64])\n\
         \x20   directories: /stats (created if missing)\n\
         \x20   key: (\"hits\")\n\
         \x20   mutation: add at commit, reading nothing (no read conflict)\n\
         \x20 atomic operation: /locks(\"job\")=compare_and_clear(\"ann\")\n\
         \x20   directories: /locks\n\
         \x20   key: (\"job\")\n\
         \x20   mutation: compare_and_clear at commit, reading nothing (no read conflict)\n"
    );
}
