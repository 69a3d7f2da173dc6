#!/usr/bin/env python3
"""Start time of a Genesis scene on a qdbuild store against Quadrants (issue "Genesis, part 3"):
the sum of the first-call times of the scene's kernels, and scene.build() + the first step.

  genesis_start_bench.py [--scene franka|go2] [--performance-mode] [--qdbuild PATH]
                         [--python GENESIS_PY]

Builds the scene's committed record into a fresh store (timed: the cold build), then runs the
scene (1 step) three times: on Quadrants with an empty offline cache of its own (its cold
compile, which fills the cache), again with that warm cache (and fastcache, where it applies),
and with QDRT_STORE.
A wrapper around Quadrants' Kernel.__call__ (outside the bridge's) times the first call of every
kernel. Prints the sums, the ratios, and the scene.build() + first-step times.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "genesis"))
import genesis_env  # noqa: E402

WRAPPER = r'''
import json, os, runpy, sys, time
import quadrants
Kernel = sys.modules["quadrants.lang.kernel"].Kernel
inner = Kernel.__call__
first = {}
def timed(self, *a, **k):
    kid = self.func.__module__ + ":" + self.func.__qualname__
    if kid in first:
        return inner(self, *a, **k)
    t = time.perf_counter()
    try:
        return inner(self, *a, **k)
    finally:
        first[kid] = time.perf_counter() - t
Kernel.__call__ = timed
sys.argv = [os.environ["QD_SCENE"], "--steps", "1", *os.environ.get("QD_SCENE_ARGS", "").split()]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
finally:
    with open(os.environ["QD_TIMES"], "w") as f:
        json.dump(first, f)
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default="franka", choices=["franka", "go2"])
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--performance-mode", action="store_true",
                    help="gs.init(performance_mode=True) (the record <scene>_perf.qdrecord.json); "
                         "Quadrants' fastcache never applies there")
    opts = ap.parse_args()
    site = genesis_env.site_packages()
    if site is None:
        print("genesis_start_bench: no build/genesis-venv (scripts/setup.sh)")
        return 125
    perf = "_perf" if opts.performance_mode else ""
    record = os.path.join(ROOT, "tests", "genesis", f"{opts.scene}{perf}.qdrecord.json")
    scene = os.path.join(ROOT, "tests", "genesis", "scenes", f"{opts.scene}.py")
    with tempfile.TemporaryDirectory(prefix="qd-start-") as tmp:
        store = os.path.join(tmp, "store")
        t = time.perf_counter()
        p = genesis_env.build_store(opts.qdbuild, site, record, store)
        cold_build = time.perf_counter() - t
        if p.returncode != 0:
            print(p.stderr[-2000:])
            return 1
        wrapper = os.path.join(tmp, "wrapper.py")
        with open(wrapper, "w") as f:
            f.write(WRAPPER)
        base = {k: v for k, v in os.environ.items()
                if k not in ("QDRT_STORE", "QDRT_RECORD", "QDRT_STORE_STATS")}
        base["QD_SCENE"] = scene
        base["QD_SCENE_ARGS"] = "--performance-mode" if opts.performance_mode else ""
        # Quadrants' offline cache in a directory of this run: the first run compiles cold (and
        # fills it), the second starts warm.
        base["QD_OFFLINE_CACHE_FILE_PATH"] = os.path.join(tmp, "quadrants-cache")
        results = {}
        for mode in ("cold", "quadrants", "store"):
            env = dict(base, QD_TIMES=os.path.join(tmp, f"{mode}.json"))
            if mode == "store":
                env.update(PYTHONPATH=os.path.join(ROOT, "runtime", "python"), QDRT_STORE=store,
                           QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY", os.path.join(
                               ROOT, "build", "lib", "libqdrt.so")))
            p = subprocess.run([opts.python, wrapper], capture_output=True, text=True, env=env)
            if p.returncode != 0:
                print(f"{mode}: exit {p.returncode}: {p.stderr[-2000:]}")
                return 1
            scene_times = json.loads(p.stdout.strip().splitlines()[-1])
            times = json.load(open(env["QD_TIMES"]))
            results[mode] = (sum(times.values()), len(times), scene_times)
    (q, nq, qs), (s, ns, ss) = results["quadrants"], results["store"]
    c, nc, cs = results["cold"]
    what = "warm offline cache" + ("" if opts.performance_mode else " + fastcache")
    name = opts.scene + (" (performance mode)" if opts.performance_mode else "")
    print(f"{name}: first calls of {nq} kernels: Quadrants ({what}) {q:.3f} s, store {s:.4f} s "
          f"({ns} kernels): {q / s:.0f}x")
    print(f"cold: qdbuild build of the record into an empty store {cold_build:.1f} s; Quadrants' "
          f"first calls with an empty offline cache {c:.1f} s ({c / cold_build:.1f}x)")
    print(f"scene.build() + first step: Quadrants {qs['build_s'] + qs['first_step_s']:.2f} s, "
          f"store {ss['build_s'] + ss['first_step_s']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
