"""FoundationDB's official Python bindings against fql's libfdb_c.

Run by tests/fdb_client (cargo test), which builds the library and the
`fql` binary and sets FQL_BIN and LD_LIBRARY_PATH. Each test makes its own
database file and cluster file with `fql cluster-file`, so what the bindings
write fql reads from the same file, and the other way round.

The checks are exact: FoundationDB's directory and tuple layers write keys
and values that fql must print as the elements the bindings packed, and
what fql writes the bindings must unpack to the values fql was given.
"""

import json
import math
import os
import subprocess
import tempfile
import threading
import unittest
import uuid

import fdb
import fdb.tuple

fdb.api_version(730)

FQL = os.environ["FQL_BIN"]


def fql(db_path, *args, stdin=None):
    """Runs fql on the database file; returns its standard output."""
    done = subprocess.run(
        [FQL, "--db", db_path, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise AssertionError(f"fql {args} exited {done.returncode}: {done.stderr}")
    return done.stdout


class Database:
    """A fresh database file, its cluster file, and the bindings' handle;
    the files go when the test ends."""

    def __init__(self, test):
        self.dir = tempfile.TemporaryDirectory()
        test.addCleanup(self.dir.cleanup)
        self.path = os.path.join(self.dir.name, "interop.db")
        self.cluster = os.path.join(self.dir.name, "fdb.cluster")
        with open(self.cluster, "w") as f:
            f.write(fql(self.path, "cluster-file"))
        self.db = fdb.open(self.cluster)


def as_json(value):
    """An element as fql's --format jsonl prints it (docs/cli.md)."""
    if value is None or isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"num": "nan"}
        if math.isinf(value):
            return {"num": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, fdb.tuple.SingleFloat):
        return as_json(value.value)
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, uuid.UUID):
        return {"uuid": str(value)}
    if isinstance(value, fdb.tuple.Versionstamp):
        tr = value.tr_version.hex()
        return {"vstamp": f"#{tr}:{value.user_version:04x}"}
    if isinstance(value, tuple):
        return [as_json(v) for v in value]
    raise TypeError(f"no JSON form for {value!r}")


# Keys of every tuple type the bindings write, with edges of each.
KEYS = [
    (None,),
    (b"",),
    (b"\x00\xff\x00",),
    ("",),
    ("a\x00b é ☃",),
    ((),),
    ((None, 1, ("x", (b"\x00",))),),
    (0,),
    (1, -1, 255, -255, 256, -256),
    (2**63 - 1, -(2**63)),
    (2**64, -(2**64), 2**200, -(2**200)),
    (1.5, -0.0, 0.0, 1e300, -2.5e-300),
    (float("inf"), float("-inf")),
    (fdb.tuple.SingleFloat(1.5), fdb.tuple.SingleFloat(-0.0)),
    (True, False),
    (uuid.UUID("5a5ebefd-2193-47e2-8def-f464fc698e31"),),
    (fdb.tuple.Versionstamp(b"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", 7),),
    ("mixed", 42, None, (1.25, b"z"), True),
]


class TupleAndDirectoryInterop(unittest.TestCase):
    def test_what_the_bindings_write_fql_reads_exactly(self):
        d = Database(self)
        directory = fdb.directory.create_or_open(d.db, ("py", "nested", "deep"))
        for n, key in enumerate(KEYS):
            d.db[directory.pack(key)] = fdb.tuple.pack((n,))
        out = fql(d.path, "--format", "jsonl", "-q", "/py/nested/deep(...)=<>")
        rows = [json.loads(line) for line in out.splitlines()]
        expected = sorted(
            ((directory.pack(k), n, k) for n, k in enumerate(KEYS)),
        )
        self.assertEqual(len(rows), len(KEYS), out)
        for row, (_, n, key) in zip(rows, expected):
            self.assertEqual(row["path"], ["py", "nested", "deep"])
            self.assertEqual(row["key"], as_json(key), f"key {key!r}")
            self.assertEqual(row["value"], n)

    def test_what_fql_writes_the_bindings_read_exactly(self):
        d = Database(self)
        script = "\n".join(
            [
                '/fql/made/here(nil)=0',
                '/fql/made/here(0x00ff)=1',
                '/fql/made/here("a é ☃")=2',
                '/fql/made/here((nil,1,("x",0x00)))=3',
                '/fql/made/here(-1,255,-256)=4',
                '/fql/made/here(9223372036854775807,-9223372036854775808)=5',
                '/fql/made/here(18446744073709551616,-18446744073709551616)=6',
                '/fql/made/here(1.5,-0.0)=7',
                '/fql/made/here(true,false)=8',
                '/fql/made/here(5a5ebefd-2193-47e2-8def-f464fc698e31)=9',
                '/fql/made/here(#0102030405060708090a:0007)=10',
                '/fql/made/here("v")="text"',
                '/fql/made/here("w")=(1,"two",nil)',
            ]
        )
        fql(d.path, "-w", "-1", "-f", "-", stdin=script + "\n")
        expected = {
            (None,): (0,),
            (b"\x00\xff",): (1,),
            ("a é ☃",): (2,),
            ((None, 1, ("x", b"\x00")),): (3,),
            (-1, 255, -256): (4,),
            (2**63 - 1, -(2**63)): (5,),
            (2**64, -(2**64)): (6,),
            (1.5, -0.0): (7,),
            (True, False): (8,),
            (uuid.UUID("5a5ebefd-2193-47e2-8def-f464fc698e31"),): (9,),
            (fdb.tuple.Versionstamp(bytes(range(1, 11)), 7),): (10,),
            ("v",): ("text",),
            # A tuple value is the tuple packed, not nested in another.
            ("w",): (1, "two", None),
        }
        directory = fdb.directory.open(d.db, ("fql", "made", "here"))
        got = {}
        for kv in d.db[directory.range()]:
            got[directory.unpack(kv.key)] = fdb.tuple.unpack(kv.value)
        self.assertEqual(got.keys(), expected.keys())
        for key, value in expected.items():
            self.assertEqual(got[key], value, f"key {key!r}")
        # Directory names the bindings list are the ones fql made.
        self.assertEqual(fdb.directory.list(d.db, ("fql",)), ["made"])

    def test_versionstamped_keys_the_bindings_write_fql_reads(self):
        d = Database(self)
        directory = fdb.directory.create_or_open(d.db, ("log",))

        @fdb.transactional
        def append(tr, n):
            key = directory.pack_with_versionstamp((fdb.tuple.Versionstamp(), n))
            tr.set_versionstamped_key(key, fdb.tuple.pack((n,)))
            return tr.get_versionstamp()

        stamps = [append(d.db, n).wait() for n in range(3)]
        out = fql(d.path, "--format", "jsonl", "-q", "/log(<vstamp>,<int>)=<>")
        rows = [json.loads(line) for line in out.splitlines()]
        self.assertEqual([r["key"][1] for r in rows], [0, 1, 2])
        for row, stamp in zip(rows, stamps):
            self.assertEqual(row["key"][0], {"vstamp": f"#{stamp.hex()}:0000"})


class ConcurrentDirectories(unittest.TestCase):
    def test_threads_and_processes_never_share_or_nest_a_prefix(self):
        d = Database(self)
        threads, per = 4, 25
        errors = []

        def python_creator(t):
            try:
                for j in range(per):
                    fdb.directory.create_or_open(d.db, ("conc", f"py{t}", f"d{j}"))
            except Exception as e:  # reported below, with the others
                errors.append(e)

        workers = [threading.Thread(target=python_creator, args=(t,)) for t in range(threads)]
        procs = [
            subprocess.Popen(
                [FQL, "--db", d.path, "-w", "-f", "-"],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(threads)
        ]
        for w in workers:
            w.start()
        for p, proc in enumerate(procs):
            script = "".join(f"/conc/fql{p}/d{j}(1)=1\n" for j in range(per))
            proc.stdin.write(script)
            proc.stdin.close()
        for w in workers:
            w.join()
        for proc in procs:
            self.assertEqual(proc.wait(timeout=120), 0, proc.stderr.read())
        self.assertEqual(errors, [])

        prefixes = []

        def walk(path):
            for name in fdb.directory.list(d.db, path):
                sub = fdb.directory.open(d.db, path + (name,))
                prefixes.append((path + (name,), sub.key()))
                walk(path + (name,))

        walk(("conc",))
        self.assertEqual(len(prefixes), 2 * threads + 2 * threads * per)
        keys = sorted(p for _, p in prefixes)
        self.assertEqual(len(set(keys)), len(keys), "two directories share a prefix")
        for a, b in zip(keys, keys[1:]):
            self.assertFalse(b.startswith(a), f"{a!r} is a prefix of {b!r}")


if __name__ == "__main__":
    unittest.main()
