#!/usr/bin/env python3
"""Cold compile throughput (issue 5, Acceptance "Benchmarks"): tasks/s of qdbuild's in-process
backend against spawning `clang++-19 -c` per unit with the same flags and the same parallelism,
on the task units codegen writes for a corpus (default: tests/diff/cases, examples,
tools/bench/codegen_bench_kernels, tests/codegen/fixtures).

  1. `qd_codegen_dump PATH --no-ir` for every corpus path -> the units (BUILD/bench/compile_units/).
  2. `qd_compile_bench DUMPS --jobs J`: compile_cpu_task on J threads (the cold first pass of a
     fresh process and one warm pass) against J spawned clang++-19 at a time, with
     qd::backend::driver_arguments (identical TUs once, as task keys do); objects compared.
  3. End to end, after each run of 2 (the reps interleave, so load changes hit every side): `qdbuild build CORPUS --store FRESH --jobs J --json`, cold (a new empty store each
     time, so no task is reused and there is no build log): tasks compiled (from --json) / wall
     time, which also pays scanning, analysis, lowering, linking one module per file and
     publishing. Its ratio is against the spawned compiles alone (no link), so it is conservative.

Usage: scripts/bench/compile_bench.py [--build-dir build] [--jobs J] [--reps R] [PATH...]
Exit: 0 measured (prints numbers, asserts nothing); 1 on a failure (a missing built binary
included); 125 without clang++-19 (tests/lib/skip_policy.py "no-tool": a failure under CI=true).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import skip_policy  # noqa: E402
CORPUS = ["tests/diff/cases", "examples", "tools/bench/codegen_bench_kernels",
          "tests/codegen/fixtures"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("paths", nargs="*")
    args = ap.parse_args()
    paths = [os.path.join(ROOT, p) for p in (args.paths or CORPUS)]
    bindir = os.path.join(args.build_dir, "bin")
    tools = {t: os.path.join(bindir, t) for t in ("qdbuild", "qd_codegen_dump", "qd_compile_bench")}
    for t, path in tools.items():
        if not os.access(path, os.X_OK):
            print("compile_bench: %s is missing (scripts/build.sh qdbuild qd_codegen_dump "
                  "qd_compile_bench)" % path, file=sys.stderr)
            return 1
    if shutil.which("clang++-19") is None:
        skip_policy.skip("no-tool", "compile_bench: clang++-19 is not on PATH (the spawned baseline)")

    # 1. The units.
    unit_dir = os.path.join(args.build_dir, "bench", "compile_units")
    os.makedirs(unit_dir, exist_ok=True)
    dumps = []
    for i, p in enumerate(paths):
        out = os.path.join(unit_dir, "%02d_%s.dump" % (i, os.path.basename(p.rstrip("/"))))
        with open(out, "w") as f:
            r = subprocess.run([tools["qd_codegen_dump"], p, "--no-ir"], stdout=f,
                               stderr=subprocess.PIPE, text=True)
        if r.returncode not in (0, 1):  # 1: some kernel did not lower (its units are absent)
            # A crash can cut the last unit short: keep the instances before the last one.
            with open(out) as f:
                text = f.read()
            cut = text.rfind("\n=== ")
            with open(out, "w") as f:
                f.write(text[:cut + 1] if cut >= 0 else "")
            print("compile_bench: warning: qd_codegen_dump %s failed (exit %d); using the units of "
                  "the instances before the last one:\n%s"
                  % (p, r.returncode, r.stderr[-2000:]), file=sys.stderr)
        dumps.append(out)
    load = os.getloadavg()
    print("compile_bench: corpus %s; %d jobs; load average %.2f %.2f %.2f"
          % (" ".join(os.path.relpath(p, ROOT) for p in paths), args.jobs, *load))

    # 2 and 3, interleaved rep by rep so that a change of machine load hits every side: a fresh
    # qd_compile_bench process (its first pass is cold) and a cold qdbuild build.
    def median(v):
        v = sorted(v)
        return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])

    runs = []
    walls = []
    paired = []  # per rep: qdbuild tasks/s over spawned tasks/s (the least load-biased ratio)
    summary = None
    for rep in range(args.reps):
        r = subprocess.run([tools["qd_compile_bench"], *dumps, "--jobs", str(args.jobs), "--reps",
                            "1"], stdout=subprocess.PIPE, text=True)
        if rep == 0:
            sys.stdout.write(r.stdout)
        if r.returncode != 0:
            print("compile_bench: qd_compile_bench failed (exit %d)" % r.returncode,
                  file=sys.stderr)
            return 1
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
        store = tempfile.mkdtemp(prefix="qd-compile-bench-store-")
        try:
            t0 = time.perf_counter()
            b = subprocess.run([tools["qdbuild"], "build", *paths, "--store", store, "--jobs",
                                str(args.jobs), "--json"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            wall = time.perf_counter() - t0
        finally:
            shutil.rmtree(store, ignore_errors=True)
        try:
            summary = json.loads(b.stdout)
        except ValueError:
            print("compile_bench: qdbuild build failed (exit %d):\n%s%s"
                  % (b.returncode, b.stdout[-2000:], b.stderr[-2000:]), file=sys.stderr)
            return 1
        if summary.get("failed"):
            print("compile_bench: note: %d kernels failed to build: %s"
                  % (len(summary["failed"]), " ".join(summary["failed"][:10])), file=sys.stderr)
        if summary["tasks"]["compiled"] == 0:
            print("compile_bench: qdbuild build compiled nothing (exit %d):\n%s"
                  % (b.returncode, b.stderr[-2000:]), file=sys.stderr)
            return 1
        walls.append((wall, summary["tasks"]["compiled"]))
        x = runs[-1]
        paired.append((summary["tasks"]["compiled"] / wall) / (x["units"] / x["spawned_s"]))
        print("rep %d: in-process cold %.3f s, warm %.3f s; spawned %.3f s; qdbuild build cold "
              "%.3f s (%d tasks compiled): qdbuild vs spawned %.2fx; load %.2f"
              % (rep + 1, x["cold_s"], x["warm_s"], x["spawned_s"], wall,
                 summary["tasks"]["compiled"], paired[-1], os.getloadavg()[0]))
    units = runs[0]["units"]
    cold = median([x["cold_s"] for x in runs])
    warm = median([x["warm_s"] for x in runs])
    spawned = median([x["spawned_s"] for x in runs])
    if len({c for _, c in walls}) != 1:
        print("compile_bench: warning: the task count changed between reps (the corpus or qdbuild "
              "changed during the run)", file=sys.stderr)
    wall = median([w for w, _ in walls])
    compiled = summary["tasks"]["compiled"]
    tps = median([c / w for w, c in walls])
    spawned_tps = units / spawned
    print("qdbuild build, cold (fresh store), median of %d: %d tasks compiled (of %d) in %.3f s "
          "wall = %.1f tasks/s (%d modules linked)"
          % (args.reps, compiled, summary["tasks"]["total"], wall, tps, summary["modules_linked"]))
    print("summary (medians of %d interleaved reps, %d jobs): qdbuild build cold %.1f tasks/s, "
          "in-process backend %.1f (cold process) / %.1f (warm) tasks/s, spawned clang++-19 -c "
          "%.1f tasks/s; qdbuild build vs spawned %.2fx, in-process backend vs spawned %.2fx "
          "(cold) / %.2fx (warm); qdbuild vs spawned per rep %s; load average now %.2f"
          % (args.reps, args.jobs, tps, units / cold, units / warm, spawned_tps, tps / spawned_tps,
             spawned / cold, spawned / warm, " ".join("%.2fx" % r for r in paired),
             os.getloadavg()[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
