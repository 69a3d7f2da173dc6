#!/usr/bin/env python3
"""Genesis's kernels compiled by qdbuild against Genesis's kernels on Quadrants, on the same inputs:
the first call of every kernel a scene makes (--scene franka or go2, recorded in
tests/genesis/<scene>.qdrecord.json).

  compare_kernels.py [--scene franka] [--qdbuild build/bin/qdbuild]
                     [--python build/genesis-venv/bin/python] [--steps 3]
                     [--from-step S] [--dump DIR]

The scene runs under the real Genesis and Quadrants (it is not changed: a hook on Quadrants'
Kernel class watches it). At the first call of each kernel instance the hook copies every
argument the built instance takes (qdrt Kernel.arguments: parameters and dataclass member paths;
laid-out ndarrays in memory order), lets Quadrants run the call, then runs the store's instance
(selected with qdrt.instances from the call's description) on the copies through libqdrt and
compares every array afterwards with what Quadrants left, and the return value. Floats within
rtol 1e-4 and an absolute 1e-5 times the array's largest magnitude (fast math on both sides; a
solver residual near zero differs in the last bits of its larger terms), integers and bools
exactly. --from-step S also compares every call from step S on (0-based), floats within LATER
times those tolerances (see LATER below: iterative collision and solver paths) and EPA's working
storage left out; --dump DIR writes both sides' arrays of each differing call to DIR (npz).

Exit 0 when every compared call agrees and every kernel of the record was compared; 1 otherwise;
125 (skip policy "no-genesis-venv") without Genesis.
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

RUNNER = r'''
import inspect, json, os, sys, traceback
import numpy as np
sys.path.insert(0, os.environ["QD_COMPARE_BINDING"])
import qdrt
from qdrt import instances, record
store = qdrt.open(os.environ["QD_COMPARE_STORE"])
have = set(store.kernels())
report = {"compared": {}, "errors": {}}
pending = {}
# The constraint solver's gradient of its converged solve: both sides reach ~0 and stop at the
# solver's tolerance after float32 paths that differ in the last bits (Franka: 6e-05 against
# -2e-05; Go2 with contacts: 1.2e-03 against 8.8e-05). Genesis declares them SCRATCH (written
# before they are read by the next solve), so they are compared within an absolute 1e-2; qacc,
# the forces and every other output keep the tolerance above.
RESIDUALS = {"constraint_state.grad", "constraint_state.Mgrad"}

# Calls after the first (--from-step): floats within 100x the tolerances above (rtol 1e-2, atol
# 1e-3 of the array's largest magnitude); integers still exactly. Contacts between meshes are
# found by GJK/EPA, which stops at a tolerance of 1e-6 with a normal that is a minimum over
# nearly equidistant polytope faces, and the constraint solver stops at its tolerance or its 25th
# iteration. On Go2's first impacts (steps 14-15) both sides agree on every integer and every
# penetration depth within 2e-6, but on a contact normal within 2.3e-3 and the solved qacc within
# 4.3e-4 of its largest magnitude 10.1: float32 paths that differ in the last bits (Quadrants' own
# fast_math=False run of the scene departs from its default run by 0.44 in qvel at step 14,
# qdbuild's by 3.4e-3).
LATER = 100.0
# EPA's working polytope (reset at the start of every EPA run, genesis epa.py) and the hull stack
# of a contact patch (scratch of contact.py's convex hull): after a near tie EPA expands another
# face and a nearly collinear contact point enters the hull or not; the contacts they yield are
# compared.
WORKING = ("gjk_state.polytope", "collider_state.contact_hull_stack")

def physical(v):
    """A numpy copy of an array argument in memory order; None for a non-array."""
    impl = getattr(v, "_impl", v)  # qd.Tensor -> its ndarray
    if hasattr(impl, "to_numpy") and hasattr(impl, "arr"):
        a = impl.to_numpy()
        if len(tuple(impl.shape)) == 0 and a.shape[:1] == (1,):
            a = a.reshape(a.shape[1:])  # a 0-d ndarray: to_numpy() gives it one axis
        layout = getattr(impl, "_qd_layout", None)
        if layout is not None and tuple(layout) != tuple(range(len(layout))):
            rest = tuple(range(len(layout), a.ndim))
            a = a.transpose(tuple(layout) + rest)
        return np.array(a, order="C", copy=True)  # (ascontiguousarray makes a 0-d array 1-d)
    if isinstance(v, np.ndarray):
        return np.array(v, order="C", copy=True)
    if type(v).__module__.startswith("torch"):
        return v.detach().cpu().numpy().copy()
    return None

def member(obj, path):
    for p in path.split(".") if path else []:
        obj = getattr(obj, p)
    return obj

def snapshot(kernel, py_args):
    kid = record.kernel_id(kernel.func)
    if kid not in have:
        return None
    metas = list(kernel.arg_metas)
    desc = {m.name: record.describe_param(m.annotation, v) for m, v in zip(metas, py_args)}
    k = store.kernel(kid)
    built = k.instances
    idx = instances.select(built, desc)
    if idx is None:
        report["errors"][kid] = "no built instance selected for the call"
        return None
    segments = instances.split_instance(built[idx])
    by_name = {m.name: v for m, v in zip(metas, py_args)}
    templates = {m.name for m in metas if record._annotation_kind(m.annotation) == "template"}
    flat, originals = [], []
    for name in k.arguments(idx):
        root, _, path = name.partition(".")
        if root in templates and not path:
            flat.append(segments[name])
            originals.append(None)
            continue
        v = member(by_name[root], path)
        a = physical(v)
        if a is None:
            flat.append(v)
            originals.append(None)
        else:
            flat.append(a)
            originals.append(v)
    return kid, k, k.arguments(idx), flat, originals

def compare(p, ret):
    (kid, k, names, flat, originals), later = p
    try:
        ours_ret = k(*flat)
    except Exception as e:
        report["errors"][kid] = f"launch: {type(e).__name__}: {e}"
        return
    bad = []
    for name, mine, orig in zip(names, flat, originals):
        if orig is None or (later and name.startswith(WORKING)):
            continue
        theirs = physical(orig)
        if theirs.shape != mine.shape:
            bad.append(f"{name}: shape {mine.shape} against {theirs.shape}")
        elif theirs.dtype.kind == "f":
            # Absolute tolerance relative to the array's scale: a residual near zero (an
            # iterative solver's gradient) differs in the last bits of its larger terms.
            scale = float(np.nanmax(np.abs(theirs))) if theirs.size else 0.0
            atol = 1e-5 * max(1.0, scale if np.isfinite(scale) else 1.0)
            rtol = 1e-4
            if name in RESIDUALS:
                atol = max(atol, 1e-2)  # scratch residuals near 0 (see RESIDUALS)
            if later:
                atol, rtol = atol * LATER, rtol * LATER  # see LATER
            ok = np.isclose(mine, theirs, rtol=rtol, atol=atol, equal_nan=True)
            if not ok.all():
                i = tuple(int(x) for x in np.unravel_index(np.argmin(ok), ok.shape))
                bad.append(f"{name}{list(i)}: {float(mine[i])!r} against {float(theirs[i])!r} "
                           f"({int((~ok).sum())} of {ok.size} differ; max |value| {scale:.3g})")
        elif not np.array_equal(mine, theirs):
            i = np.unravel_index(np.argmax(mine != theirs), mine.shape)
            bad.append(f"{name}{list(i)}: {mine[i]!r} against {theirs[i]!r}")
    if ret is not None and ours_ret != ret and not (
            isinstance(ret, float) and abs(ours_ret - ret) <= 1e-5 + 1e-4 * abs(ret)):
        bad.append(f"return: {ours_ret!r} against {ret!r}")
    if bad and os.environ.get("QD_COMPARE_DUMP"):
        # Every array of the call, both sides, for triage (--dump DIR).
        np.savez(os.path.join(os.environ["QD_COMPARE_DUMP"], f"{kid}@{steps_done[0]}.npz"),
                 **{f"ours:{n}": m for n, m, o in zip(names, flat, originals) if o is not None},
                 **{f"quadrants:{n}": physical(o) for n, o in zip(names, originals)
                    if o is not None})
    arrays = sum(o is not None for o in originals)
    report["compared"].setdefault(kid, []).append({"arrays": arrays, "differences": bad,
                                                   "step": steps_done[0]})

import quadrants
Kernel = sys.modules["quadrants.lang.kernel"].Kernel
orig_materialize = Kernel.materialize
orig_call = Kernel.__call__

def watch(kernel, py_args, later):
    """Copies the call's arguments before Quadrants runs it (compared after: call())."""
    try:
        s = snapshot(kernel, py_args)
        if s is not None:
            pending[id(kernel)] = (s, later)
    except Exception:
        report["errors"][record.kernel_id(kernel.func)] = "snapshot: " + traceback.format_exc(limit=3)

def materialize(self, key=None, py_args=(), arg_features=None):
    if key is None or key not in self.materialized_kernels:
        watch(self, py_args, False)
    return orig_materialize(self, key, py_args, arg_features)

EVERY_FROM = int(os.environ.get("QD_COMPARE_FROM_STEP", "-1"))
steps_done = [0]

def call(self, *args, **kwargs):
    if EVERY_FROM >= 0 and steps_done[0] >= EVERY_FROM and id(self) not in pending and not kwargs:
        watch(self, args, True)
    r = orig_call(self, *args, **kwargs)
    p = pending.pop(id(self), None)
    if p is not None:
        try:
            compare(p, r)
        except Exception:
            report["errors"][p[0][0]] = "compare: " + traceback.format_exc(limit=3)
    return r

Kernel.materialize = materialize
Kernel.__call__ = call
if EVERY_FROM >= 0:
    import genesis.engine.scene as _scene
    _orig_step = _scene.Scene.step
    def _step(self, *a, **k):
        try:
            return _orig_step(self, *a, **k)
        finally:
            steps_done[0] += 1
    _scene.Scene.step = _step
sys.argv = [os.environ["QD_COMPARE_SCENE"], "--steps", os.environ["QD_COMPARE_STEPS"]]
import runpy
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
finally:
    with open(os.environ["QD_COMPARE_REPORT"], "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--steps", default="3")
    ap.add_argument("--scene", default="franka", choices=["franka", "go2"])
    ap.add_argument("--from-step", type=int, default=-1,
                    help="also compare every later call from this step on (0-based)")
    ap.add_argument("--dump", help="write both sides' arrays of every differing call to DIR")
    opts = ap.parse_args()
    record_path = os.path.join(HERE, f"{opts.scene}.qdrecord.json")
    sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
    import skip_policy

    site = genesis_env.site_packages()
    if site is None or not os.path.exists(opts.python):
        skip_policy.skip("no-genesis-venv", "the comparison runs the Genesis scene")
    with tempfile.TemporaryDirectory(prefix="qd-genesis-compare-") as tmp:
        store = os.path.join(tmp, "store")
        p = genesis_env.build_store(opts.qdbuild, site, record_path, store)
        if p.returncode != 0:
            print(f"FAIL: qdbuild build exited {p.returncode}\n{p.stderr[-3000:]}")
            return 1
        runner = os.path.join(tmp, "runner.py")
        with open(runner, "w") as f:
            f.write(RUNNER)
        report_path = os.path.join(tmp, "report.json")
        env = dict(os.environ, QD_COMPARE_BINDING=os.path.join(ROOT, "runtime", "python"),
                   QD_COMPARE_STORE=store, QD_COMPARE_REPORT=report_path,
                   QD_COMPARE_SCENE=os.path.join(HERE, "scenes", f"{opts.scene}.py"),
                   QD_COMPARE_STEPS=opts.steps, QD_COMPARE_FROM_STEP=str(opts.from_step),
                   QD_COMPARE_DUMP=os.path.abspath(opts.dump) if opts.dump else "",
                   QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY",
                                               os.path.join(ROOT, "build", "lib", "libqdrt.so")))
        env.pop("QDRT_RECORD", None)
        p = subprocess.run([opts.python, runner], env=env, capture_output=True, text=True)
        if not os.path.exists(report_path):
            print(f"FAIL: the scene exited {p.returncode} without a report\n{p.stderr[-3000:]}")
            return 1
        report = json.load(open(report_path))
    recorded = json.load(open(record_path))["kernels"]
    failures = []
    for kid in sorted(recorded):
        runs = report["compared"].get(kid)
        if kid in report["errors"]:
            failures.append(f"{kid}: {report['errors'][kid]}")
            print(f"ERROR {kid}: {report['errors'][kid].strip().splitlines()[-1]}")
            continue
        if not runs:
            failures.append(f"{kid}: not compared")
            print(f"MISS  {kid}: no call compared")
            continue
        differing = [r for r in runs if r["differences"]]
        if differing:
            r = differing[0]
            failures.append(f"{kid}: {r['differences'][:3]}")
            print(f"DIFF  {kid}: {len(differing)} of {len(runs)} calls differ; first at step "
                  f"{r['step']}: {'; '.join(r['differences'][:3])}")
        else:
            print(f"SAME  {kid}: {len(runs)} call(s), {runs[0]['arrays']} arrays")
    n = sum(len(v) for v in report["compared"].values())
    print(f"genesis kernels, compiled vs Quadrants: {n} calls compared, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
