#!/usr/bin/env python3
"""An unchanged Genesis scene on a qdbuild store (QDRT_STORE, qdrt.bridge) against the same scene
on Quadrants: 200 steps, every step's qpos, qvel and contact count.

  bridge_franka.py [--scene franka|go2] [--qdbuild build/bin/qdbuild]
                   [--python build/genesis-venv/bin/python] [--steps 200]

Builds the committed record (tests/genesis/<scene>.qdrecord.json) into a fresh store, runs
tests/genesis/scenes/<scene>.py --out twice (plain, then with PYTHONPATH=runtime/python
QDRT_STORE=store QDRT_STORE_STATS=stats), and requires: every recorded kernel served by the store,
fallbacks only for kernels the record does not have (the --out path's ndarray_to_ext_arr), the
contact count equal at every step, qpos and qvel within 1e-2 absolute (float32 differences of
fast-math code grow over a contact-rich trajectory: 1.9e-3 after 200 steps here). Prints both
runs' scene.build() and first-step times, and the steady-state time per step of two more runs
without --out (never asserted). Exit 0/1; 125 without Genesis (no-genesis-venv).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import genesis_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOLERANCE = 1e-2


def flat(x):
    if isinstance(x, list):
        for y in x:
            yield from flat(y)
    else:
        yield x


def run_scene(python, steps, out, env, scene="franka"):
    p = subprocess.run([python, os.path.join(HERE, "scenes", f"{scene}.py"), "--steps", str(steps)]
                       + (["--out", out] if out else []), capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"the scene exited {p.returncode}: {p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--scene", default="franka", choices=["franka", "go2"])
    opts = ap.parse_args()
    RECORD = os.path.join(HERE, f"{opts.scene}.qdrecord.json")
    sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
    import skip_policy

    site = genesis_env.site_packages()
    if site is None or not os.path.exists(opts.python):
        skip_policy.skip("no-genesis-venv", "the bridge runs the Genesis scene")
    failures = []
    with tempfile.TemporaryDirectory(prefix="qd-bridge-") as tmp:
        store = os.path.join(tmp, "store")
        p = genesis_env.build_store(opts.qdbuild, site, RECORD, store)
        if p.returncode != 0:
            print(f"FAIL: qdbuild build exited {p.returncode}\n{p.stderr[-3000:]}")
            return 1
        env = dict(os.environ)
        for k in ("QDRT_RECORD", "QDRT_STORE", "QDRT_STORE_STATS"):
            env.pop(k, None)
        plain, _ = run_scene(opts.python, opts.steps, os.path.join(tmp, "plain.json"), env, opts.scene)
        stats = os.path.join(tmp, "stats.json")
        benv = dict(env, PYTHONPATH=os.path.join(ROOT, "runtime", "python"), QDRT_STORE=store,
                    QDRT_STORE_STATS=stats,
                    QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY",
                                                os.path.join(ROOT, "build", "lib", "libqdrt.so")))
        bridged, err = run_scene(opts.python, opts.steps, os.path.join(tmp, "bridge.json"), benv,
                                opts.scene)
        # Timing runs without --out (which reads the state back every step).
        plain_t, _ = run_scene(opts.python, opts.steps, None, env, opts.scene)
        bridged_t, _ = run_scene(opts.python, opts.steps, None,
                                 {k: v for k, v in benv.items() if k != "QDRT_STORE_STATS"},
                                 opts.scene)
        a = json.load(open(os.path.join(tmp, "plain.json")))
        b = json.load(open(os.path.join(tmp, "bridge.json")))
        s = json.load(open(stats))
    recorded = json.load(open(RECORD))["kernels"]
    missing = sorted(k for k in recorded if k not in s["served"])
    if missing:
        failures.append(f"recorded kernels not served by the store: {missing}")
    bad_fallback = {k: v for k, v in s["fallback"].items() if k in recorded}
    if bad_fallback:
        failures.append(f"recorded kernels that fell back to Quadrants: {bad_fallback}")
    worst, where, contacts = 0.0, None, []
    for step, (p, q) in enumerate(zip(a, b)):
        if p["contacts"] != q["contacts"]:
            contacts.append(step)
        for key in ("qpos", "qvel"):
            for u, v in zip(flat(p[key]), flat(q[key])):
                if abs(u - v) > worst:
                    worst, where = abs(u - v), (step, key, u, v)
    if len(a) != opts.steps or len(b) != opts.steps:
        failures.append(f"steps: {len(a)} plain, {len(b)} on the store")
    if contacts:
        failures.append(f"contact counts differ at steps {contacts[:10]}")
    if worst > TOLERANCE:
        failures.append(f"qpos/qvel differ by {worst:.3g} > {TOLERANCE} at {where}")
    print(f"served {sum(s['served'].values())} calls of {len(s['served'])} kernels; fallback: "
          f"{s['fallback'] or 'none'}")
    print(f"{opts.steps} steps: contact counts equal at {opts.steps - len(contacts)} steps, "
          f"max |qpos/qvel difference| {worst:.3g} (step, value: {where})")
    print(f"scene.build(): Quadrants {plain['build_s']:.2f} s (warm offline cache), store "
          f"{bridged['build_s']:.2f} s; first step {plain['first_step_s']:.3f} s against "
          f"{bridged['first_step_s']:.3f} s")
    per_step = [t["later_steps_s"] / max(1, opts.steps - 1) * 1e3 for t in (plain_t, bridged_t)]
    print(f"steady state (steps 2..{opts.steps}, no --out): Quadrants {per_step[0]:.3f} ms/step, "
          f"store {per_step[1]:.3f} ms/step ({per_step[1] / per_step[0]:.2f}x)")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
