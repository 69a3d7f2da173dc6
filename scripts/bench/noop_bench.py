#!/usr/bin/env python3
"""No-op rebuild benchmark (issue 5 acceptance): `qdbuild build` of an unchanged tree against
`qdbuild scan` of the same tree, measured in the same run (must be <= 1x).

The tree: PATH (default: the start-time benchmark's 1,000-kernel tree build/bench/start_src when
it exists, else tests/diff/cases). It is built once into a scratch store; then each run is a fresh
`qdbuild build PATH --store S --json` that must report "noop": true, and a fresh
`qdbuild scan PATH`. Prints the medians and the ratio.

Usage: scripts/bench/noop_bench.py [PATH] [--runs N]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
QD = os.path.join(ROOT, "build", "bin", "qdbuild")


def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return time.perf_counter() - t0, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("path", nargs="?")
    ap.add_argument("--runs", type=int, default=11)
    a = ap.parse_args()
    path = a.path
    if path is None:
        big = os.path.join(ROOT, "build", "bench", "start_src")
        path = big if os.path.isdir(big) else os.path.join(ROOT, "tests", "diff", "cases")
    files = sum(1 for _, _, fs in os.walk(path) for f in fs if f.endswith(".py"))
    store = tempfile.mkdtemp(prefix="qd-noop-bench-")
    try:
        _, r = timed([QD, "build", path, "--store", store, "--json"])
        if r.returncode not in (0, 1):
            print(r.stderr, file=sys.stderr)
            return 1
        first = json.loads(r.stdout)
        noop, scan = [], []
        for _ in range(a.runs):
            t, r = timed([QD, "build", path, "--store", store, "--json"])
            if not json.loads(r.stdout).get("noop"):
                print("not a no-op build: " + r.stdout, file=sys.stderr)
                return 1
            noop.append(t)
            t, r = timed([QD, "scan", path])
            scan.append(t)
        n, s = statistics.median(noop), statistics.median(scan)
        print(f"tree: {path} ({files} files, {first['kernels']} kernels, "
              f"{first['tasks']['total']} tasks); median of {a.runs} fresh processes; "
              f"load {os.getloadavg()[0]:.2f}")
        print(f"  no-op qdbuild build   {n * 1e3:8.2f} ms")
        print(f"  qdbuild scan          {s * 1e3:8.2f} ms")
        print(f"  ratio no-op / scan    {n / s:8.2f}   (must be <= 1)")
        return 0
    finally:
        shutil.rmtree(store, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
