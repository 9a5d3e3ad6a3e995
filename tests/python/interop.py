"""FoundationDB's official Python bindings against fql's libfdb_c.

Run by tests/fdb_client (cargo test), which builds the library and the
`fql` binary and sets FQL_BIN and LD_LIBRARY_PATH. Each test makes its own
database file and cluster file with `fql cluster-file`, so what the bindings
write fql reads from the same file, and the other way round.

The checks are exact: FoundationDB's directory and tuple layers write keys
and values that fql must print as the elements the bindings packed, and
what fql writes the bindings must unpack to the values fql was given.
"""

import base64
import json
import math
import os
import struct
import subprocess
import sys
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
    env = {k: v for k, v in os.environ.items() if k != "FQL_FAULTS"}
    done = subprocess.run(
        [FQL, "--db", db_path, *args],
        env=env,
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
            return {"num": "-nan" if math.copysign(1.0, value) < 0 else "nan"}
        if math.isinf(value):
            return {"num": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, fdb.tuple.SingleFloat):
        return {"f32": f32_bits(value.value)}
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


def f32_bits(x):
    """The bits of the binary32 nearest `x`."""
    return struct.unpack(">I", struct.pack(">f", x))[0]


def comparable(value):
    """fql's JSON with each 32-bit float as its bits: `{"f32":"f32(1.5)"}`
    holds the shortest text that reads back as the float, which Python
    does not print, so the floats are compared as binary32."""
    if isinstance(value, list):
        return [comparable(v) for v in value]
    if isinstance(value, dict) and set(value) == {"f32"}:
        return {"f32": f32_bits(float(value["f32"][len("f32(") : -1]))}
    return value


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
    (fdb.tuple.SingleFloat(0.1), fdb.tuple.SingleFloat(float("-inf")), 1.5),
    (fdb.tuple.SingleFloat(3.4028234663852886e38), fdb.tuple.SingleFloat(1e-45)),
    (float("nan"), -float("nan")),
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
            self.assertEqual(comparable(row["key"]), as_json(key), f"key {key!r}")
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
                '/fql/made/here(f32(1.5),f32(-0.0),f32(0.1))=11',
                '/fql/made/here(-nan,nan)=f32(-inf)',
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
            (
                fdb.tuple.SingleFloat(1.5),
                fdb.tuple.SingleFloat(-0.0),
                fdb.tuple.SingleFloat(0.1),
            ): (11,),
            ("v",): ("text",),
            # A tuple value is the tuple packed, not nested in another.
            ("w",): (1, "two", None),
        }
        directory = fdb.directory.open(d.db, ("fql", "made", "here"))
        got = {}
        nans = []
        for kv in d.db[directory.range()]:
            key = directory.unpack(kv.key)
            if isinstance(key[0], float) and math.isnan(key[0]):
                # A NaN equals nothing: checked by its bytes instead.
                nans.append((kv.key, fdb.tuple.unpack(kv.value)))
                continue
            got[key] = fdb.tuple.unpack(kv.value)
        # -nan and nan as the bindings pack them, and a 32-bit -inf value.
        self.assertEqual(len(nans), 1)
        packed = fdb.tuple.pack((-float("nan"), float("nan")))
        self.assertEqual(nans[0][0], directory.key() + packed)
        self.assertEqual(nans[0][1], (fdb.tuple.SingleFloat(float("-inf")),))
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


def rows(db_path, query):
    """fql's JSON lines for `query`, parsed."""
    out = fql(db_path, "--format", "jsonl", "-q", query)
    return [json.loads(line) for line in out.splitlines()]


class KeysOutsideDirectories(unittest.TestCase):
    """Keys the bindings pack at the root and under subspaces, with no
    directory layer: fql names them `/(...)` and `0xPREFIX(...)`."""

    RAW = b"\xabraw"

    def fill(self, d):
        directory = fdb.directory.create_or_open(d.db, ("dir",))
        users = fdb.Subspace(("users",))
        raw = fdb.Subspace(rawPrefix=self.RAW)
        for n in range(4):
            d.db[fdb.tuple.pack(("app", n, "name"))] = fdb.tuple.pack((n * 10,))
            d.db[users.pack((n,))] = fdb.tuple.pack((f"user {n}",))
            d.db[raw.pack(("k", n))] = b"v%d" % n
            d.db[directory.pack((n,))] = b""
        return users, raw

    def test_what_the_bindings_write_outside_directories_fql_reads(self):
        d = Database(self)
        _, raw = self.fill(d)
        app = rows(d.path, '/("app",<int>,"name")=<int>')
        self.assertEqual([r["path"] for r in app], [[]] * 4)
        self.assertEqual([r["key"] for r in app], [["app", n, "name"] for n in range(4)])
        self.assertEqual([r["value"] for r in app], [n * 10 for n in range(4)])
        # A tuple-packed subspace is a tuple at the root, or a raw prefix.
        users = rows(d.path, '/("users",<int>)=<str>')
        self.assertEqual([r["key"] for r in users], [["users", n] for n in range(4)])
        prefixed = rows(d.path, "0x" + fdb.tuple.pack(("users",)).hex() + "(<int>)=<str>")
        self.assertEqual([r["key"] for r in prefixed], [[n] for n in range(4)])
        self.assertEqual([r["value"] for r in prefixed], [f"user {n}" for n in range(4)])
        sub = rows(d.path, '0xab726177("k",<int>)=<bytes>')
        self.assertEqual([r["prefix"] for r in sub], [{"bytes": self.RAW.hex()}] * 4)
        self.assertEqual([r["key"] for r in sub], [["k", n] for n in range(4)])
        self.assertEqual([r["value"] for r in sub], [{"bytes": (b"v%d" % n).hex()} for n in range(4)])
        # Holes filter: a value that is no int is passed over.
        self.assertEqual(rows(d.path, '/("app",2,<str>)=<int>')[0]["value"], 20)
        self.assertEqual(rows(d.path, '/("app",<int>,"name")=<str>'), [])
        # The root holds the tuples, and the raw subspace's keys, which
        # are no tuples, as bytes; never the directory's keys or nodes.
        every = rows(d.path, "/(...)")
        kinds = [(r["type"], r.get("path")) for r in every]
        self.assertEqual(kinds, [("kv", [])] * 8 + [("raw", None)] * 4, every)
        self.assertEqual(every[8]["key"], {"bytes": raw.pack(("k", 0)).hex()})
        # A count counts the keys that are tuples, as in a directory.
        counted = fql(d.path, "-q", "/(...)=<count>", "-q", "0xab726177(...)=<count>")
        self.assertEqual(counted, "/(...)=8\n0xab726177(...)=4\n")

    def test_fql_clears_what_the_bindings_wrote_outside_directories(self):
        d = Database(self)
        users, raw = self.fill(d)
        fql(d.path, "-w", "-q", '/("app",2,...)=clear', "-q", "0xab726177(...)=clear")
        left = [fdb.tuple.unpack(kv.key) for kv in d.db[fdb.tuple.range(("app",))]]
        self.assertEqual(left, [("app", 0, "name"), ("app", 1, "name"), ("app", 3, "name")])
        self.assertEqual(list(d.db[raw.range()]), [])
        self.assertEqual(len(list(d.db[users.range()])), 4)
        directory = fdb.directory.open(d.db, ("dir",))
        self.assertEqual(len(list(d.db[directory.range()])), 4)
        # A clear of the whole root leaves the directory layer whole.
        fql(d.path, "-w", "-q", "/(...)=clear")
        self.assertEqual(len(list(d.db[directory.range()])), 4)
        self.assertEqual(list(d.db[users.range()]), [])
        self.assertEqual(fdb.directory.list(d.db), ["dir"])

    def test_what_fql_writes_outside_directories_the_bindings_read(self):
        d = Database(self)
        script = "\n".join(
            [
                '/("app",7,"x")="seven"',
                '/("app",8)=(1,"two",nil)',
                '/("users",3)=add(5[i64])',
                '/("users",3)=add(-7[i64])',
                '0xab726177("k",1)=0x00ff',
                '0xab726177(f32(1.5),nil)=true',
            ]
        )
        fql(d.path, "-w", "-1", "-f", "-", stdin=script + "\n")
        raw = fdb.Subspace(rawPrefix=self.RAW)
        self.assertEqual(d.db[fdb.tuple.pack(("app", 7, "x"))], fdb.tuple.pack(("seven",)))
        self.assertEqual(d.db[fdb.tuple.pack(("app", 8))], fdb.tuple.pack((1, "two", None)))
        self.assertEqual(d.db[fdb.tuple.pack(("users", 3))], struct.pack("<q", -2))
        self.assertEqual(d.db[raw.pack(("k", 1))], b"\x00\xff")
        got = [raw.unpack(kv.key) for kv in d.db[raw.range()]]
        self.assertEqual(got, [("k", 1), (fdb.tuple.SingleFloat(1.5), None)])


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


def faults_plan():
    """The FQL_FAULTS plan this run injects, as (fault, rate) pairs; the
    library reads the variable itself."""
    plan = os.environ.get("FQL_FAULTS", "")
    items = [i for i in plan.replace(";", ",").split(",") if ":" in i]
    return [(i.split(":")[0].split("@")[0].strip(), float(i.split(":")[1])) for i in items]


@unittest.skipUnless(os.environ.get("FQL_FAULTS"), "FQL_FAULTS is not set")
class Faults(unittest.TestCase):
    """The bindings' retry loop against the library's injected faults, one
    plan a process (tests/client runs each): what FQL_FAULTS says."""

    INCREMENTS = 40

    def faults(self):
        return {f for f, _ in faults_plan()}

    def test_transactional_commits_each_increment_once(self):
        """A read-modify-write increment under @fdb.transactional: every
        fault of the plan is retried by on_error and none applied twice,
        so the counter ends at the number of calls. With 1021 in the plan
        the transactions run with automatic_idempotency, which FDB 7.3
        documents as preventing commit_unknown_result."""
        if any(r == 1.0 for _, r in faults_plan()):
            self.skipTest("every attempt fails alike: the loop could never end")
        d = Database(self)
        if any(f.startswith("1021") for f in self.faults()):
            d.db.options.set_transaction_automatic_idempotency()
        attempts = [0]

        @fdb.transactional
        def increment(tr):
            attempts[0] += 1
            value = tr[b"counter"]
            n = int(value) if value.present() else 0
            tr[b"counter"] = str(n + 1).encode()

        for _ in range(self.INCREMENTS):
            increment(d.db)
        self.assertEqual(int(fql_get(d, b"counter")), self.INCREMENTS)
        self.assertGreater(attempts[0], self.INCREMENTS, "no fault was injected")

    def test_commit_unknown_result_is_reported(self):
        """Without automatic_idempotency a commit reported 1021 raises
        FDBError 1021, maybe committed, as FDB reports it; the write is
        there exactly when the plan applies it. With the option the same
        commit succeeds when applied and fails with transaction_too_old
        (1007, retryable, not committed) when not."""
        unknown = [f for f, r in faults_plan() if f.startswith("1021") and r == 1.0]
        if not unknown:
            self.skipTest("the plan does not report every commit as 1021")
        applied = unknown[0] == "1021-applied"
        d = Database(self)
        for idempotent, key in ((False, b"plain"), (True, b"idempotent")):
            tr = d.db.create_transaction()
            if idempotent:
                tr.options.set_automatic_idempotency()
            tr[key] = b"v"
            try:
                tr.commit().wait()
                code = 0
            except fdb.FDBError as e:
                code = e.code
            if not idempotent:
                self.assertEqual(code, 1021)
                self.assertTrue(fdb.predicates.is_maybe_committed(fdb.FDBError(code)))
            elif applied:
                self.assertEqual(code, 0)
                self.assertGreater(tr.get_committed_version(), 0)
            else:
                self.assertEqual(code, 1007)
                self.assertTrue(
                    fdb.predicates.is_retryable_not_committed(fdb.FDBError(code))
                )
            self.assertEqual(fql_get(d, key), b"v" if applied else None)


class FaultPlanErrors(unittest.TestCase):
    def test_a_plan_the_library_cannot_read_fails_open(self):
        """A bad FQL_FAULTS fails fdb.open with invalid_option_value (2006),
        every time, and says why on standard error once."""
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        path = os.path.join(d.name, "bad.db")
        cluster = os.path.join(d.name, "fdb.cluster")
        with open(cluster, "w") as f:
            # The documented line, written here: `fql cluster-file` would
            # create the database.
            f.write(f"fql:embedded@{path}\n")
        probe = (
            "import fdb\n"
            "fdb.api_version(730)\n"
            "for _ in range(2):\n"
            "    try:\n"
            f"        fdb.open({cluster!r})\n"
            "        print('opened')\n"
            "    except fdb.FDBError as e:\n"
            "        print(e.code)\n"
        )
        done = subprocess.run(
            ["python3", "-c", probe],
            env={**os.environ, "FQL_FAULTS": "1020@read:0.1"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        self.assertEqual(done.stdout.split(), ["2006", "2006"], done.stderr)
        said = [l for l in done.stderr.splitlines() if "FQL_FAULTS" in l]
        self.assertEqual(len(said), 1, done.stderr)
        self.assertIn("not_committed (1020) happens only at commit", said[0])
        self.assertFalse(os.path.exists(path), "no database was created")


METADATA_VERSION = b"\xff/metadataVersion"


class MetadataVersion(unittest.TestCase):
    def test_fql_stamps_it_and_the_bindings_read_and_stamp_it(self):
        d = Database(self)
        self.assertIsNone(fql_get(d, METADATA_VERSION))
        fql(d.path, "-w", "-f", "-", stdin="/made/here(1)=2\n")
        first = fql_get(d, METADATA_VERSION)
        self.assertEqual(len(first), 10, "a directory made by fql stamps it")
        fql(d.path, "-w", "-f", "-", stdin="/made/here(2)=3\n")
        self.assertEqual(fql_get(d, METADATA_VERSION), first, "no directory made")

        @fdb.transactional
        def stamp(tr):
            tr.set_versionstamped_value(METADATA_VERSION, b"\x00" * 14)
            with self.assertRaises(fdb.FDBError) as raised:
                tr[METADATA_VERSION].present()
            self.assertEqual(raised.exception.code, 1036)

        stamp(d.db)
        self.assertGreater(fql_get(d, METADATA_VERSION), first)


TENANT_MAP = b"\xff\xff/management/tenant/map/"

# Reads tenant t1's key k in a process of its own, from the cluster file
# given.
OTHER_PROCESS = """
import sys, fdb
fdb.api_version(730)
print(fdb.open(sys.argv[1]).open_tenant(b"t1")[b"k"].decode())
"""


class FdbBehaviour(unittest.TestCase):
    """What FoundationDB 7.3's own test suites ask of a client library,
    through the official bindings: the read-your-writes options,
    special-key writes and the tenant map, deferred option errors, lazy
    cluster-file errors and the read version cache."""

    def test_read_your_writes_disable_reads_what_is_committed(self):
        d = Database(self)
        d.db[b"a"] = b"old"
        tr = d.db.create_transaction()
        tr.options.set_read_your_writes_disable()
        tr[b"a"] = b"new"
        tr[b"b"] = b"new"
        self.assertEqual(tr[b"a"], b"old")
        self.assertFalse(tr[b"b"].present())
        self.assertEqual([kv.key for kv in tr[b"a":b"c"]], [b"a"])
        tr.commit().wait()
        self.assertEqual(d.db[b"b"], b"new")
        late = d.db.create_transaction()
        late[b"c"] = b"1"
        late.options.set_read_your_writes_disable()
        with self.assertRaises(fdb.FDBError) as raised:
            late[b"c"].wait()
        self.assertEqual(raised.exception.code, 2000)

    def test_snapshot_ryw_disable_hides_writes_from_snapshot_reads(self):
        d = Database(self)
        tr = d.db.create_transaction()
        tr.options.set_snapshot_ryw_disable()
        tr[b"k"] = b"v"
        self.assertFalse(tr.snapshot[b"k"].present())
        self.assertEqual(tr[b"k"], b"v")
        tr.options.set_snapshot_ryw_enable()
        self.assertEqual(tr.snapshot[b"k"], b"v")

    def test_special_key_writes_and_the_tenant_map(self):
        d = Database(self)
        tr = d.db.create_transaction()
        del tr[TENANT_MAP : TENANT_MAP[:-1] + b"0"]
        with self.assertRaises(fdb.FDBError) as raised:
            tr.commit().wait()
        self.assertEqual(raised.exception.code, 2114)
        # What the bindingtester commits before each test: with no tenant,
        # nothing to delete.
        tr = d.db.create_transaction()
        tr.options.set_special_key_space_enable_writes()
        del tr[TENANT_MAP : TENANT_MAP[:-1] + b"0"]
        tr[b"user"] = b"u"
        tr.commit().wait()
        self.assertEqual(d.db[b"user"], b"u")
        self.assertEqual(list(fdb.tenant_management.list_tenants(d.db, b"", b"\xff", 100)), [])
        with self.assertRaises(fdb.FDBError) as raised:
            fdb.tenant_management.delete_tenant(d.db, b"missing")
        self.assertEqual(raised.exception.code, 2131)

    def test_tenants_are_prefixes_every_process_sees(self):
        d = Database(self)
        fdb.tenant_management.create_tenant(d.db, b"t1")
        fdb.tenant_management.create_tenant(d.db, b"t2")
        with self.assertRaises(fdb.FDBError) as raised:
            fdb.tenant_management.create_tenant(d.db, b"t1")
        self.assertEqual(raised.exception.code, 2132)
        listed = fdb.tenant_management.list_tenants(d.db, b"a", b"z", 10).to_list()
        self.assertEqual([kv.key for kv in listed], [b"t1", b"t2"])
        entry = json.loads(listed[0].value)
        self.assertEqual(entry["id"], 1)
        prefix = base64.b64decode(entry["prefix"]["base64"])
        self.assertEqual(prefix, b"\x00" * 7 + b"\x01")
        t1, t2 = d.db.open_tenant(b"t1"), d.db.open_tenant(b"t2")
        t1[b"k"] = b"one"
        t2[b"k"] = b"two"
        self.assertEqual(t1.get_id().wait(), 1)
        self.assertEqual(d.db[prefix + b"k"], b"one")
        self.assertEqual([(kv.key, kv.value) for kv in t1[b"":b"\xff"]], [(b"k", b"one")])
        # Another process opens the same file and finds the tenant and its key.
        child = subprocess.run(
            [sys.executable, "-c", OTHER_PROCESS, d.cluster],
            capture_output=True,
            text=True,
            timeout=60,
        )
        self.assertEqual(child.returncode, 0, child.stderr)
        self.assertEqual(child.stdout.strip(), "one")
        with self.assertRaises(fdb.FDBError) as raised:
            fdb.tenant_management.delete_tenant(d.db, b"t1")
        self.assertEqual(raised.exception.code, 2133)
        del t1[:]
        fdb.tenant_management.delete_tenant(d.db, b"t1")
        with self.assertRaises(fdb.FDBError) as raised:
            t1[b"k"].wait()
        self.assertEqual(raised.exception.code, 2131)
        self.assertEqual(t2[b"k"], b"two")


    def test_a_bad_option_value_fails_the_commit_not_the_call(self):
        d = Database(self)
        tr = d.db.create_transaction()
        tr.options.set_size_limit(31)
        tr[b"k"] = b"v"
        with self.assertRaises(fdb.FDBError) as raised:
            tr.commit().wait()
        self.assertEqual(raised.exception.code, 2006)

    def test_a_missing_cluster_file_fails_the_first_operation(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        db = fdb.open(os.path.join(d.name, "missing.cluster"))
        with self.assertRaises(fdb.FDBError) as raised:
            db.create_transaction().get_read_version().wait()
        self.assertEqual(raised.exception.code, 1515)

    def test_use_grv_cache_needs_the_multi_version_client(self):
        """In processes of their own: network options precede the network."""
        d = Database(self)
        probe = (
            "import sys, fdb\n"
            "fdb.api_version(730)\n"
            "if sys.argv[1] == 'bypass':\n"
            "    fdb.options.set_disable_client_bypass()\n"
            "if sys.argv[1] == 'single':\n"
            "    fdb.options.set_disable_multi_version_client_api()\n"
            f"db = fdb.open({d.cluster!r})\n"
            "tr = db.create_transaction()\n"
            "tr.options.set_use_grv_cache()\n"
            "try:\n"
            "    print(tr.get_read_version().wait() > 0)\n"
            "except fdb.FDBError as e:\n"
            "    print(e.code)\n"
        )
        said = {}
        for how in ["bypass", "plain", "single"]:
            done = subprocess.run(
                ["python3", "-c", probe, how],
                capture_output=True,
                text=True,
                timeout=120,
            )
            said[how] = done.stdout.strip() or done.stderr
        self.assertEqual(said, {"bypass": "True", "plain": "True", "single": "2007"})


class ReadVersions(unittest.TestCase):
    """A read version set with `set_read_version` a few commits old reads
    the state of then, as FDB serves any version of its five-second MVCC
    window: read-version caching, weak reads and readers sharing one
    version depend on it."""

    def commit_values(self, d, values):
        """Commits each value at `a` (and a key of its own), each in a
        transaction of its own; returns their commit versions."""
        versions = []
        for value in values:
            tr = d.db.create_transaction()
            tr[b"a"] = value
            tr[b"b" + value] = value
            tr.commit().wait()
            versions.append(tr.get_committed_version())
        return versions

    def test_an_older_read_version_reads_the_value_then(self):
        d = Database(self)
        values = [b"1", b"2", b"3"]
        versions = self.commit_values(d, values)
        for n, (version, value) in enumerate(zip(versions, values)):
            tr = d.db.create_transaction()
            tr.set_read_version(version)
            self.assertEqual(tr.get_read_version().wait(), version)
            self.assertEqual(tr.get(b"a").wait(), value)
            keys = [kv.key for kv in tr.get_range(b"b", b"c")]
            self.assertEqual(keys, [b"b" + v for v in values[: n + 1]])
            keys = [kv.key for kv in tr.get_range(b"b", b"c", reverse=True, limit=1)]
            self.assertEqual(keys, [b"b" + value])

    def test_readers_sharing_a_cached_read_version_read_alike(self):
        d = Database(self)
        self.commit_values(d, [b"1"])
        shared = d.db.create_transaction().get_read_version().wait()
        self.commit_values(d, [b"2", b"3"])

        @fdb.transactional
        def read(tr):
            tr.set_read_version(shared)
            return tr.get(b"a").wait()

        for _ in range(3):
            self.assertEqual(read(d.db.create_transaction()), b"1")
        self.assertEqual(fql_get(d, b"a"), b"3")

    def test_versions_the_database_does_not_hold_fail(self):
        d = Database(self)
        (latest,) = self.commit_values(d, [b"1"])
        for version, code in [(1, 1007), (latest + 10**12, 1009)]:
            tr = d.db.create_transaction()
            tr.set_read_version(version)
            with self.assertRaises(fdb.FDBError) as raised:
                tr.get(b"a").wait()
            self.assertEqual(raised.exception.code, code)
            tr.on_error(raised.exception).wait()
            self.assertEqual(tr.get(b"a").wait(), b"1")


def fql_get(d, key):
    """The value at `key`, read in a transaction with no faults to meet:
    reads fail only where the plan puts faults at reads, which these
    plans retry."""

    @fdb.transactional
    def get(tr):
        value = tr[key]
        return bytes(value) if value.present() else None

    return get(d.db)


if __name__ == "__main__":
    unittest.main()
