#!/usr/bin/env python3
"""Parse benchmark: qdbuild's parser vs CPython 3.12's ast.parse on the standard library.

In one run, over the same files (all *.py under the stdlib, site-packages included):
  - the floor: reading the bytes (qd_parse_bench, best of N)
  - qdbuild's parser, one thread (qd_parse_bench: parse_bytes, best of N)
  - CPython 3.12 ast.parse on the same bytes held in memory, one process (best of N)
  - `qdbuild scan` of the corpus, wall clock (both cores), vs that CPython time
and prints lines/s, MB/s and the ratios. Never fails on timings (benchmark, not a test).

Usage: parse_bench.py [--build-dir build] [--corpus DIR] [--repeat N] [--quick]
  --quick: the first 300 files, one repetition (the ctest `perf` label runs this).
Exit: 0; 1 if a tool failed; 125 if not running under CPython 3.12 (no baseline to compare).
"""
import argparse
import ast
import json
import os
import subprocess
import sys
import sysconfig
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "lib"))
import qdtest  # noqa: E402


def corpus_files(root):
    files = []
    for d, dirs, names in os.walk(root):
        dirs.sort()
        files.extend(os.path.join(d, n) for n in sorted(names) if n.endswith(".py"))
    return files


def time_cpython(datas, repeat):
    best = float("inf")
    ok = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeat):
            ok = 0
            t0 = time.perf_counter()
            for b in datas:
                try:
                    ast.parse(b)
                    ok += 1
                except (SyntaxError, ValueError, MemoryError, RecursionError):
                    pass
            best = min(best, time.perf_counter() - t0)
    return best, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default=str(qdtest.ROOT / "build"))
    ap.add_argument("--corpus", default=None, help="default: this Python's stdlib directory")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    qdtest.require_python312("the parse benchmark's CPython baseline")

    bindir = Path(a.build_dir) / "bin"
    bench = qdtest.require_qdbuild(bindir / "qd_parse_bench")
    qdbuild = qdtest.require_qdbuild(bindir / "qdbuild")
    root = a.corpus or sysconfig.get_paths()["stdlib"]
    files = corpus_files(root)
    repeat = a.repeat
    if a.quick:
        files = files[:300]
        repeat = 1
    datas = []
    for f in files:
        with open(f, "rb") as fh:
            datas.append(fh.read())
    nbytes = sum(len(b) for b in datas)
    print(f"corpus: {len(files)} files, {nbytes / 1e6:.1f} MB under {root}"
          f"{' (quick: first 300 files)' if a.quick else ''}; best of {repeat}")
    sys.stdout.flush()

    # qdbuild's parser, single thread; the file list is passed explicitly so both sides parse
    # exactly the same files.
    listing = subprocess.run([str(bench), "--json", "--repeat", str(repeat), *files],
                             capture_output=True, text=True)
    if listing.returncode != 0:
        print(f"FAIL: qd_parse_bench {qdtest.describe_rc(listing.returncode)}\n{listing.stderr}")
        return 1
    ours = json.loads(listing.stdout)
    lines = ours["lines"]

    cp_s, cp_ok = time_cpython(datas, repeat)

    # qdbuild scan, wall clock (parallel over both cores); exit 1 = some file had syntax errors.
    scan_args = [str(qdbuild), "scan", "--json"] + (files if a.quick else [root])
    scan_best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run(scan_args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            print(f"FAIL: qdbuild scan {qdtest.describe_rc(p.returncode)}: "
                  f"{p.stderr.decode('utf-8', 'replace')[-500:]}")
            return 1
        scan_best = min(scan_best, elapsed)

    mb = nbytes / 1e6

    def row(name, secs, note=""):
        print(f"  {name:<28} {secs:8.3f} s  {lines / secs:>12,.0f} lines/s  {mb / secs:8.1f} MB/s"
              f"  {note}")

    print(f"lines: {lines:,}; parsed without errors: qdbuild {ours['ok']}, CPython {cp_ok}")
    row("read bytes (floor)", ours["read_s"])
    row("qdbuild parse (1 thread)", ours["parse_s"])
    row("CPython 3.12 ast.parse", cp_s)
    row("qdbuild scan (wall, 2 cores)", scan_best)
    print(f"parse speed-up vs ast.parse (1 thread):      {cp_s / ours['parse_s']:6.1f}x"
          f"  (acceptance: >= 10x, goal 20x)")
    print(f"scan speed-up vs CPython parsing the corpus: {cp_s / scan_best:6.1f}x"
          f"  (acceptance: >= 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
