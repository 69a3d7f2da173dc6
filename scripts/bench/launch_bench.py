#!/usr/bin/env python3
"""Launch overhead of the Python binding: an empty serial kernel (rt.basic:noop(x, n) from the
runtime tests' store) called through qdrt, against a plain Python function with the same
arguments (baseline), measured in the same run. Also runs build/bin/qd_launch_bench (C API vs
direct task call) when it exists.

Usage: scripts/bench/launch_bench.py [--store build/runtime_test_store] [--calls N]
(build the store first: ctest --test-dir build -L runtime, or runtime/tests/make_test_store.py)
"""
import argparse
import array
import os
import subprocess
import sys
import timeit

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
import qdrt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default=os.path.join(ROOT, "build", "runtime_test_store"))
    ap.add_argument("--calls", type=int, default=200000)
    a = ap.parse_args()
    store = qdrt.open(os.path.join(a.store, "good"))
    noop = store.kernel("rt.basic:noop")
    x = array.array("f", [0.0] * 16)

    def plain(x, n):
        pass

    def best(fn):
        return min(timeit.repeat(fn, number=a.calls, repeat=5)) / a.calls

    t_plain = best(lambda: plain(x, 3))
    t_qdrt = best(lambda: noop(x, 3))
    print("Python: empty serial kernel (array.array + int), best of 5 x %d calls:" % a.calls)
    print("  plain Python function (baseline)  %8.0f ns" % (t_plain * 1e9))
    print("  qdrt kernel call                  %8.0f ns" % (t_qdrt * 1e9))
    print("  ratio qdrt / plain                %8.1f" % (t_qdrt / t_plain))
    bench = os.path.join(ROOT, "build", "bin", "qd_launch_bench")
    if os.path.exists(bench):
        sys.stdout.flush()
        subprocess.run([bench, a.store], check=True)


if __name__ == "__main__":
    main()
