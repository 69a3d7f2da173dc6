#!/usr/bin/env python3
"""A store missing one instance: the unchanged Franka scene on the bridge falls back to Quadrants
for that kernel's calls only, says so once, records them, and the next build serves them.

  bridge_missing.py [--qdbuild build/bin/qdbuild] [--python build/genesis-venv/bin/python]
                    [--steps 20]

The committed Franka record without the second instance of rigid_solver:kernel_substep_dynamics
(the one the scene calls at every step) is built into a store, and the scene runs on it with
QDRT_STORE_STATS and QDRT_RECORD. Required:
- the stats name exactly that kernel (and the --out path's ndarray_to_ext_arr, which no record
  has) as falling back, with the reason "no built instance is this call: ... in the built
  instance (record it and build again)" naming how the call differs from the built instance
  that is closest, and every other recorded kernel as served;
- stderr carries one warning line for it, however many calls fell back;
- the trajectory equals the plain Quadrants run's (contacts equal, qpos/qvel within 1e-2);
- the record written holds the dropped instance, and a build with it added serves it on the next
  run (nothing falls back but, at most, ndarray_to_ext_arr).
Exit 0/1; 125 without Genesis (no-genesis-venv).
"""
import argparse
import json
import os
import sys
import tempfile

import genesis_env
from bridge_franka import TOLERANCE, run_scene, trajectory_difference

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import qdtest  # noqa: E402
import skip_policy  # noqa: E402

DROPPED = "genesis.engine.solvers.rigid.rigid_solver:kernel_substep_dynamics"
REASON = ("no built instance is this call: ", " in the built instance (record it and build again)")
OUT_ONLY = "quadrants._kernels:ndarray_to_ext_arr"  # read back by --out; in no record
CHECKS = qdtest.Checks("genesis bridge, a missing instance")
check = CHECKS.check


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--steps", type=int, default=20)
    opts = ap.parse_args()

    site = genesis_env.site_packages()
    if site is None or not os.path.exists(opts.python):
        skip_policy.skip("no-genesis-venv", "the bridge runs the Genesis scene")
    full = json.load(open(os.path.join(HERE, "franka.qdrecord.json")))
    dropped_instance = full["kernels"][DROPPED][1]
    reduced = json.loads(json.dumps(full))
    del reduced["kernels"][DROPPED][1]
    with tempfile.TemporaryDirectory(prefix="qd-bridge-missing-") as tmp:
        record = os.path.join(tmp, "reduced.qdrecord.json")
        with open(record, "w") as f:
            json.dump(reduced, f)
        store = os.path.join(tmp, "store")
        p = genesis_env.build_store(opts.qdbuild, site, record, store)
        if p.returncode != 0:
            print(f"FAIL: qdbuild build exited {p.returncode}\n{p.stderr[-3000:]}")
            return 1
        env = {k: v for k, v in os.environ.items()
               if k not in ("QDRT_RECORD", "QDRT_STORE", "QDRT_STORE_STATS")}
        plain, _ = run_scene(opts.python, opts.steps, os.path.join(tmp, "plain.json"), env)
        stats = os.path.join(tmp, "stats.json")
        recorded = os.path.join(tmp, "fallbacks.qdrecord.json")
        benv = dict(env, PYTHONPATH=os.path.join(ROOT, "runtime", "python"), QDRT_STORE=store,
                    QDRT_STORE_STATS=stats, QDRT_RECORD=recorded,
                    QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY",
                                                os.path.join(ROOT, "build", "lib", "libqdrt.so")))
        _, err = run_scene(opts.python, opts.steps, os.path.join(tmp, "bridge.json"), benv)
        s = json.load(open(stats))
        fallback = s["fallback"]
        if check(set(fallback) == {DROPPED, OUT_ONLY},
                 f"fell back: {sorted(fallback)}, expected {[DROPPED, OUT_ONLY]}"):
            reason = fallback[DROPPED]["reason"]
            if check(reason.startswith(REASON[0]) and reason.endswith(REASON[1]),
                     f"reason: {reason!r}"):
                print(f"{DROPPED} fell back: {reason}")
        calls = fallback.get(DROPPED, {}).get("calls", 0)
        warnings = [line for line in err.splitlines() if line.startswith("qdrt.bridge: " + DROPPED)]
        check(len(warnings) == 1,
              f"{len(warnings)} warning lines for {DROPPED} (expected 1): {warnings}")
        unserved = sorted(k for k in full["kernels"] if k != DROPPED and k not in s["served"])
        check(not unserved, f"recorded kernels not served: {unserved}")
        a = json.load(open(os.path.join(tmp, "plain.json")))
        b = json.load(open(os.path.join(tmp, "bridge.json")))
        deviation, contacts = trajectory_difference(a, b)
        worst = max((d for d, _ in deviation), default=0.0)
        check(not (contacts or worst > TOLERANCE or len(b) != opts.steps),
              f"trajectory: contacts differ at {contacts[:5]}, max |difference| {worst:.3g}, "
              f"{len(b)} steps")
        rec = json.load(open(recorded)) if os.path.exists(recorded) else {"kernels": {}}
        got = rec["kernels"].get(DROPPED, [])
        check(any(i["params"] == dropped_instance["params"] for i in got),
              f"the record of the run lacks the dropped instance ({len(got)} instances of "
              f"{DROPPED} recorded)")
        # The next build (the reduced record and the run's record) serves it.
        store2 = os.path.join(tmp, "store2")
        p = genesis_env.build_store(opts.qdbuild, site, record, store2, "--instances", recorded)
        if check(p.returncode == 0, f"rebuild exited {p.returncode}: {p.stderr[-2000:]}"):
            stats2 = os.path.join(tmp, "stats2.json")
            run_scene(opts.python, opts.steps, os.path.join(tmp, "bridge2.json"),
                      {**{k: v for k, v in benv.items() if k != "QDRT_RECORD"},
                       "QDRT_STORE": store2, "QDRT_STORE_STATS": stats2})
            s2 = json.load(open(stats2))
            # (the run's record also has ndarray_to_ext_arr: now it may be served too)
            check(not (set(s2["fallback"]) - {OUT_ONLY} or DROPPED not in s2["served"]),
                  f"after the rebuild: falling back {sorted(s2['fallback'])}, "
                  f"{DROPPED} served {s2['served'].get(DROPPED, 0)} times")
    if not CHECKS.failures:
        print(f"store without {DROPPED}#1: {calls} of its calls fell back with one warning "
              f"({warnings[0] if warnings else 'none'}); served "
              f"{sum(n for k, n in s['served'].items())} calls of {len(s['served'])} kernels; "
              f"trajectory max |difference| {worst:.3g}; the run's record has the instance and "
              f"the rebuilt store serves it")
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
