#!/usr/bin/env python3
"""A watch's latency from commit to print, through the real binary.

A writer process (this one, through fql's libfdb_c and the official
Python binding) commits a new value; `fql watch`, another process on the
same database file, prints it. Each sample is the time from the start of
the writer's commit to the line being read from the watcher's output, so
it holds the commit itself (durable on the file), the file's wake-up of
another process's watches (at once on Linux, through the kernel; a 10 ms
poll elsewhere), the watcher's read of the key and its print.

    python3 benches/watch_latency.py [FQL] [SAMPLES]

FQL defaults to target/debug/fql, whose directory must hold libfdb_c.so
(cargo build -p fql-fdb-c). Two cases: one key (`/bench(1)`), and one key
of a 100-key range (`/bench(<int>)`).
"""

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

FQL = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/fql")
SAMPLES = int(sys.argv[2]) if len(sys.argv) > 2 else 100

if os.path.dirname(FQL) not in os.environ.get("LD_LIBRARY_PATH", ""):
    # The loader reads the variable at start: start again with it set.
    os.environ["LD_LIBRARY_PATH"] = os.path.dirname(FQL)
    os.execv(sys.executable, [sys.executable] + sys.argv)

import fdb  # noqa: E402  (after LD_LIBRARY_PATH names fql's libfdb_c)

fdb.api_version(730)


def measure(db, dirs, path, query, key):
    watcher = subprocess.Popen(
        [FQL, "--db", path, "watch", query],
        stdout=subprocess.PIPE,
        text=True,
    )
    # The first read's lines: one per key found.
    found = 100 if "<int>" in query else 1
    for _ in range(found):
        watcher.stdout.readline()
    times = []
    for i in range(SAMPLES):
        time.sleep(random.uniform(0.01, 0.03))
        start = time.perf_counter()
        db[dirs.pack((key,))] = fdb.tuple.pack((i + 1000,))
        line = watcher.stdout.readline()
        times.append((time.perf_counter() - start) * 1000)
        assert str(i + 1000) in line, line
    watcher.terminate()
    watcher.wait()
    return times


def report(name, times):
    times.sort()
    p90 = times[int(len(times) * 0.9) - 1]
    print(
        f"{name}: median {statistics.median(times):.1f} ms, p90 {p90:.1f} ms, "
        f"max {times[-1]:.1f} ms ({len(times)} samples)"
    )


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "watch.db")
        cluster = os.path.join(tmp, "fdb.cluster")
        with open(cluster, "w") as f:
            subprocess.run([FQL, "--db", path, "cluster-file"], stdout=f, check=True)
        db = fdb.open(cluster)
        dirs = fdb.directory.create_or_open(db, ("bench",))
        for k in range(100):
            db[dirs.pack((k,))] = fdb.tuple.pack((0,))
        report("one key", measure(db, dirs, path, "/bench(1)", 1))
        report("range of 100", measure(db, dirs, path, "/bench(<int>)", 50))


main()
