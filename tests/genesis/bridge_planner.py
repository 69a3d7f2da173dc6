#!/usr/bin/env python3
"""The unchanged Genesis planning scene (scenes/planner.py: inverse kinematics, then RRT-Connect's
plan_path around a box, then following the path) on a qdbuild store against the same scene on
Quadrants. The planner draws its samples with qd.random: the served kernels draw from Quadrants'
own generator states (docs/runtime.md "Random numbers"), so the store plans the same path.

  bridge_planner.py [--repeat 2] [--performance-mode] [--qdbuild build/bin/qdbuild]
                    [--python build/genesis-venv/bin/python]

Records the scene, builds the record into a fresh store, runs it on Quadrants and on the store
(--repeat plans each), and requires every call served (0 fallbacks), the IK solution and every
waypoint of the path within TOLERANCE of Quadrants' (another sample sequence would give another
path, far apart), and the followed trajectory within TOLERANCE. Prints both runs' plan_path
times. Exit 0/1; 125 without Genesis (no-genesis-venv).
"""
import argparse
import json
import os
import sys
import tempfile

import genesis_env
from bridge_particles import run

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import qdtest  # noqa: E402
import skip_policy  # noqa: E402

TOLERANCE = 1e-4
CHECKS = qdtest.Checks("genesis bridge, planner")
check = CHECKS.check


def largest(a, b):
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--performance-mode", action="store_true")
    opts = ap.parse_args()

    site = genesis_env.site_packages()
    if site is None or not os.path.exists(opts.python):
        skip_policy.skip("no-genesis-venv", "the bridge runs the Genesis scene")
    scene = [os.path.join(HERE, "scenes", "planner.py"), "--steps", "20"]
    if opts.performance_mode:
        scene.append("--performance-mode")
    with tempfile.TemporaryDirectory(prefix="qd-bridge-planner-") as tmp:
        env = dict(os.environ)
        for k in ("QDRT_RECORD", "QDRT_STORE", "QDRT_STORE_STATS"):
            env.pop(k, None)
        pyenv = dict(env, PYTHONPATH=os.path.join(ROOT, "runtime", "python"))
        record = os.path.join(tmp, "rec.json")
        run(opts.python, ["-m", "qdrt.record", "-o", record, "--", *scene,
                          "--out", os.path.join(tmp, "rec_out.json")], pyenv)
        store = os.path.join(tmp, "store")
        p = genesis_env.build_store(opts.qdbuild, site, record, store)
        if p.returncode != 0:
            print(f"FAIL: qdbuild build exited {p.returncode}\n{p.stderr[-3000:]}")
            return 1
        repeat = ["--repeat", str(opts.repeat)]
        plain, _ = run(opts.python, [*scene, *repeat, "--out", os.path.join(tmp, "plain.json")],
                       env)
        stats = os.path.join(tmp, "stats.json")
        benv = dict(pyenv, QDRT_STORE=store, QDRT_STORE_STATS=stats,
                    QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY",
                                                os.path.join(ROOT, "build", "lib", "libqdrt.so")))
        bridged, _ = run(opts.python, [*scene, *repeat, "--out", os.path.join(tmp, "bridge.json")],
                         benv)
        a = json.load(open(os.path.join(tmp, "plain.json")))
        b = json.load(open(os.path.join(tmp, "bridge.json")))
        s = json.load(open(stats))
        kernels = json.load(open(record))["kernels"]
    check(not s["fallback"], f"calls fell back to Quadrants: {s['fallback']}")
    check(len(s["served"]) == len(kernels),
          f"{len(s['served'])} kernels served of the {len(kernels)} recorded")
    random = [k for k in s["served"] if "rrt_connect_step1" in k]
    check(random, "the planner's sampling kernel (qd.random) was not served")
    ik = largest(a["ik"], b["ik"])
    check(len(a["path"]) == len(b["path"]),
          f"paths of {len(a['path'])} and {len(b['path'])} waypoints")
    path = max((largest(x, y) for x, y in zip(a["path"], b["path"])), default=0.0)
    qpos = max((largest(x, y) for x, y in zip(a["qpos"], b["qpos"])), default=0.0)
    for what, d in (("the IK solution", ik), ("the path", path), ("the followed qpos", qpos)):
        check(d <= TOLERANCE, f"{what} differs by {d:.3g} > {TOLERANCE:g}")
    print(f"served {sum(s['served'].values())} calls of {len(s['served'])} kernels (of "
          f"{len(kernels)} recorded; sampling: {random}); fallback: {s['fallback'] or 'none'}")
    print(f"largest difference from Quadrants: IK {ik:.3g}, path ({len(b['path'])} waypoints) "
          f"{path:.3g}, followed qpos {qpos:.3g}")
    print("plan_path: Quadrants " + ", ".join(f"{t:.2f}" for t in plain["plan_path_s"]) +
          " s; store " + ", ".join(f"{t:.2f}" for t in bridged["plan_path_s"]) +
          f" s; scene.build(): Quadrants {plain['build_s']:.2f} s (warm offline cache), store "
          f"{bridged['build_s']:.2f} s")
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
