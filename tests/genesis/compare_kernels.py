#!/usr/bin/env python3
"""Genesis's kernels compiled by qdbuild against Genesis's kernels on Quadrants, on the same inputs:
the first call of every kernel a scene makes (--scene franka, go2, or the particle scenes sph,
pbd, mpm of scenes/particles.py; recorded in tests/genesis/<scene>.qdrecord.json).

  compare_kernels.py [--scene franka] [--qdbuild build/bin/qdbuild] [--expect-missing KERNEL]
                     [--python build/genesis-venv/bin/python] [--steps 3]
                     [--from-step S] [--dump DIR] [--quadrants-cpu host|x86-64-v3]

The scene runs under the real Genesis and Quadrants (it is not changed: a hook on Quadrants'
Kernel class watches it). At the first call of each kernel instance the hook copies every
argument the built instance takes (qdrt Kernel.arguments: parameters and dataclass member paths;
laid-out ndarrays in memory order), lets Quadrants run the call, then runs the store's instance
(selected with qdrt.instances from the call's description) on the copies through libqdrt and
compares every array afterwards with what Quadrants left, and the return value. The fields of a
data_oriented solver's self are arguments of the built instance (copied with to_numpy, compared
the same way); self itself is described from what Quadrants' trace read of it, as the recorder
describes it. Floats within
rtol 1e-4 and an absolute 1e-5 times the array's largest magnitude (fast math on both sides; a
solver residual near zero differs in the last bits of its larger terms), integers and bools
exactly. --from-step S also compares every call from step S on (0-based), floats within LATER
times those tolerances (see LATER below: iterative collision and solver paths) and EPA's working
storage left out. The contact buffer (collider_state.contact_data) is compared in its logical
order (through contact_sort_idx; see CONTACTS below), not slot by slot; --dump DIR writes both sides' arrays of each differing call to DIR (npz). The
U, S, V of an SVD are compared as S, U @ V.T and U @ S @ V.T (see compare()).

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
# Opened at the first compared call, once Quadrants is initialized, with its thread count (as
# the bridge opens it): Genesis's particle solvers hand out slots with atomic_add in parallel
# loops (SpatialHasher.compute_reordered_idx, MPM's dirty-cell list), whose order is the threads'.
store = None
have = set(qdrt.open(os.environ["QD_COMPARE_STORE"]).kernels())
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

# The contact buffer is compared in its logical order, as Genesis defines it: a contact's raw slot
# is the narrowphase's allocation order (atomics on a GPU; on the CPU the order in which a contact
# patch's points come out of its float path), and contact_sort_idx[:n_contacts] lists the slots in
# the order every later kernel reads them (sorted by geom pair, then position along a fixed
# direction: collider/contact.py, constraint/island.py). So the count is compared exactly, each
# logical contact's data with the tolerances below, and the slots no contact uses exactly; the
# permutation's values themselves are the raw slots and are not compared. A missing, extra or moved
# contact, or one with another pair or depth, still differs.
CONTACTS = ("collider_state.contact_data.", "collider_state.contact_sort_idx",
            "collider_state.n_contacts")

FIELDS = ("ScalarField", "MatrixField")
busy = [False]  # copying a field runs Quadrants' own kernels: those calls are not watched

def physical(v):
    """A numpy copy of an array argument in memory order; None for a non-array."""
    impl = getattr(v, "_impl", v)  # qd.Tensor -> its ndarray (or field)
    if type(impl).__name__ in FIELDS and type(impl).__module__.startswith("quadrants"):
        busy[0] = True
        try:
            return np.array(impl.to_numpy(), order="C", copy=True)  # a field: canonical shape
        finally:
            busy[0] = False
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

def is_self(metas, k):
    return k == 0 and metas and metas[0].name == "self" and metas[0].annotation in (
        None, inspect.Parameter.empty)

def snapshot(kernel, py_args, reads=None):
    kid = record.kernel_id(kernel.func)
    if kid not in have:
        return None
    global store
    if store is None:
        from qdrt import bridge
        store = qdrt.open(os.environ["QD_COMPARE_STORE"], num_threads=bridge._quadrants_threads())
    metas = list(kernel.arg_metas)
    # A data_oriented self is described as the recorder describes it: by what Quadrants' trace
    # of this call read (reads; a later call of the instance reuses the first one's).
    desc = {}
    for j, (m, v) in enumerate(zip(metas, py_args)):
        if j == 0 and m.name == "self" and id(v) in (reads or {}):
            desc[m.name] = record.describe_param(m.annotation, v, reads)
        elif j == 0 and m.name == "self" and id(kernel) in self_desc:
            desc[m.name] = self_desc[id(kernel)]
        else:
            desc[m.name] = record.describe_param(m.annotation, v)
    if metas and metas[0].name == "self" and "self" in desc:
        self_desc.setdefault(id(kernel), desc["self"])
    k = store.kernel(kid)
    built = k.instances
    idx = instances.select(built, desc)
    if idx is None:
        report["errors"][kid] = "no built instance selected for the call"
        return None
    segments = instances.split_instance(built[idx])
    by_name = {m.name: v for m, v in zip(metas, py_args)}
    templates = {m.name for m in metas if record._annotation_kind(m.annotation) == "template"}
    if metas and metas[0].name == "self":
        templates.add("self")  # a method kernel's object: a template value
    flat, originals = [], []
    for name in k.arguments(idx):
        root, _, path = name.partition(".")
        v = member(by_name[root], path)
        if root in templates and not path and physical(v) is None:
            flat.append(segments[name])  # (a field as a template value is an array)
            originals.append(None)
            continue
        a = physical(v)
        if a is None:
            flat.append(v)
            originals.append(None)
        else:
            flat.append(a)
            originals.append(v)
    return kid, k, k.arguments(idx), flat, originals

def contact_order(by_name, bad):
    """Per side, per environment, the raw slots of the logical contacts followed by the unused
    slots (see CONTACTS); None when the call has no contact buffer (or one side's count is off:
    then the buffers are compared slot by slot, and the count's difference is reported)."""
    if CONTACTS[1] not in by_name or CONTACTS[2] not in by_name:
        return None
    sides = []
    for k in (0, 1):  # ours, then Quadrants'
        v = by_name[CONTACTS[1]][k] if k == 0 else physical(by_name[CONTACTS[1]][1])
        n = by_name[CONTACTS[2]][k] if k == 0 else physical(by_name[CONTACTS[2]][1])
        if v is None or n is None or v.ndim != 2 or n.shape != (v.shape[1],):
            return None
        sides.append((v, n))
    (idx_a, n_a), (idx_b, n_b) = sides
    if not np.array_equal(n_a, n_b):
        return None
    perms = ([], [])
    for b in range(idx_a.shape[1]):
        for k, idx in enumerate((idx_a, idx_b)):
            used = [int(x) for x in idx[:int(n_a[b]), b]]
            if sorted(used) != sorted(set(used)) or any(not 0 <= x < idx.shape[0] for x in used):
                bad.append(f"{CONTACTS[1]}[:, {b}]: not a permutation of slots "
                           f"({'ours' if k == 0 else 'Quadrants'}): {used}")
                return None
            rest = sorted(set(range(idx.shape[0])) - set(used))
            perms[k].append(np.array(used + rest, dtype=np.int64))
    return perms

def logical(a, perm):
    """The contact array a ([slot, env, ...]) with each environment's slots in logical order."""
    if a.ndim < 2 or a.shape[1] != len(perm) or any(len(p) != a.shape[0] for p in perm):
        return a
    out = np.empty_like(a)
    for b, p in enumerate(perm):
        out[:, b] = a[p, b]
    return out

def compare(p, ret):
    (kid, k, names, flat, originals), later = p
    try:
        ours_ret = k(*flat)
    except Exception as e:
        report["errors"][kid] = f"launch: {type(e).__name__}: {e}"
        return
    bad = []
    # U, S, V of an SVD (MPM's compute_F_tmp_and_svd): where singular values repeat, any rotation
    # of their subspace is a valid U and V, and Quadrants' JIT fuses multiply-adds that qdbuild's
    # tasks do not, so the two may pick different ones. What the solver uses of them is U @ f(S)
    # @ V.T (every material); compared: S, U @ V.T and U @ S @ V.T.
    by_name = dict(zip(names, zip(flat, originals)))
    svd_parts = set()
    for name in names:
        base = name[:-2]
        if name.endswith(".U") and all(base + x in by_name for x in (".S", ".V")):
            got = [by_name[base + x][0] for x in (".U", ".S", ".V")]
            want = [physical(by_name[base + x][1]) for x in (".U", ".S", ".V")]
            if got[0].shape[-2:] != (3, 3):
                continue
            svd_parts |= {base + x for x in (".U", ".S", ".V")}
            for what, f in (("S", lambda u, s_, v: s_),
                            ("U @ V.T", lambda u, s_, v: u @ np.swapaxes(v, -1, -2)),
                            ("U @ S @ V.T", lambda u, s_, v: u @ s_ @ np.swapaxes(v, -1, -2))):
                a, b = f(*got), f(*want)
                ok = np.isclose(a, b, rtol=1e-4 * (LATER if later else 1), atol=1e-5 * (
                    LATER if later else 1) * max(1.0, float(np.abs(b).max(initial=0.0))))
                if not ok.all():
                    i = tuple(int(x) for x in np.unravel_index(np.argmin(ok), ok.shape))
                    bad.append(f"{base} ({what}){list(i)}: {float(a[i])!r} against {float(b[i])!r}")
    order = contact_order(by_name, bad)
    for name, mine, orig in zip(names, flat, originals):
        if orig is None or (later and name.startswith(WORKING)) or name in svd_parts:
            continue
        theirs = physical(orig)
        if name == CONTACTS[1] and order is not None:
            continue  # raw slots (see CONTACTS): the data they order is compared
        if name.startswith(CONTACTS[0]) and order is not None and theirs.shape == mine.shape:
            mine, theirs = logical(mine, order[0]), logical(theirs, order[1])
            name += " (logical order)"
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
record._patch_attributes(sys.modules["quadrants.lang.ast.ast_transformer"])
orig_materialize = Kernel.materialize
orig_call = Kernel.__call__
self_desc = {}  # id(kernel) -> its self's description at its first call

def watch(kernel, py_args, later, reads=None):
    """Copies the call's arguments before Quadrants runs it (compared after: call())."""
    try:
        s = snapshot(kernel, py_args, reads)
        if s is not None:
            pending[id(kernel)] = (s, later)
    except Exception:
        report["errors"][record.kernel_id(kernel.func)] = "snapshot: " + traceback.format_exc(limit=3)

def materialize(self, key=None, py_args=(), arg_features=None):
    if busy[0]:
        return orig_materialize(self, key, py_args, arg_features)
    new = key is None or key not in self.materialized_kernels
    # Quadrants traces a new instance here, before it launches it: what the trace reads of a
    # data_oriented self describes it (as the recorder does); the arguments are copied after.
    record._capture.reads = {} if new else None
    try:
        r = orig_materialize(self, key, py_args, arg_features)
        reads = record._capture.reads
    finally:
        record._capture.reads = None
    if new:
        watch(self, py_args, False, reads)
    return r

EVERY_FROM = int(os.environ.get("QD_COMPARE_FROM_STEP", "-1"))
first_seen = set()  # id(kernel): called outside a copy at least once
steps_done = [0]

def call(self, *args, **kwargs):
    if busy[0]:
        return orig_call(self, *args, **kwargs)
    if EVERY_FROM >= 0 and steps_done[0] >= EVERY_FROM and id(self) not in pending and not kwargs:
        watch(self, args, True)
    elif id(self) not in pending and not kwargs and getattr(self, "materialized_kernels", None) \
            and record.kernel_id(self.func) not in report["compared"] and \
            id(self) not in first_seen:
        # A kernel first called while arguments were being copied (Quadrants' field copies):
        # compared at its first call of its own.
        watch(self, args, False)
    first_seen.add(id(self))
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
sys.argv = [os.environ["QD_COMPARE_SCENE"], *json.loads(os.environ["QD_COMPARE_SCENE_ARGS"]),
            "--steps", os.environ["QD_COMPARE_STEPS"]]
import runpy
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
finally:
    with open(os.environ["QD_COMPARE_REPORT"], "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
'''


def cpuid_mask():
    """build/lib/libqd_cpuid_mask.so (tests/support/cpuid_mask.c); skips without CPUID faulting."""
    import re
    import skip_policy
    if not re.search(r"^flags\s*:.*\bcpuid_fault\b", open("/proc/cpuinfo").read(), re.M):
        skip_policy.skip("no-cpuid-faulting", "Quadrants on another CPU (--quadrants-cpu)")
    lib = os.environ.get("QD_CPUID_MASK_LIBRARY",
                         os.path.join(ROOT, "build", "lib", "libqd_cpuid_mask.so"))
    if not os.path.exists(lib):
        skip_policy.skip("no-tool", f"{lib} (scripts/build.sh qd_cpuid_mask)")
    return lib


PARTICLES = {s: ["particles.py", "--solver", s] for s in ("sph", "pbd", "mpm")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--steps", default="3")
    ap.add_argument("--scene", default="franka", choices=["franka", "go2", "sph", "pbd", "mpm"])
    ap.add_argument("--expect-missing", action="append", default=[], metavar="KERNEL",
                    help="a recorded kernel the store does not have (a known gap): not compared")
    ap.add_argument("--from-step", type=int, default=-1,
                    help="also compare every later call from this step on (0-based)")
    ap.add_argument("--dump", help="write both sides' arrays of every differing call to DIR")
    ap.add_argument("--quadrants-cpu", default="host", choices=["host", "x86-64-v3"],
                    help="the CPU Quadrants' JIT compiles for: this machine's (host), or an AVX2 "
                         "Haswell whatever the machine (x86-64-v3: build/lib/libqd_cpuid_mask.so)")
    opts = ap.parse_args()
    record_path = os.path.join(HERE, f"{opts.scene}.qdrecord.json")
    sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
    import skip_policy

    site = genesis_env.site_packages()
    if site is None or not os.path.exists(opts.python):
        skip_policy.skip("no-genesis-venv", "the comparison runs the Genesis scene")
    with tempfile.TemporaryDirectory(prefix="qd-genesis-compare-") as tmp:
        store = os.path.join(tmp, "store")
        p = genesis_env.build_store(opts.qdbuild, site, record_path, store, "--json")
        failed = set(json.loads(p.stdout).get("failed") or []) if p.stdout.strip() else set()
        if p.returncode != 0 and not (failed and failed <= set(opts.expect_missing)):
            print(f"FAIL: qdbuild build exited {p.returncode}\n{p.stderr[-3000:]}")
            return 1
        runner = os.path.join(tmp, "runner.py")
        with open(runner, "w") as f:
            f.write(RUNNER)
        report_path = os.path.join(tmp, "report.json")
        env = dict(os.environ, QD_COMPARE_BINDING=os.path.join(ROOT, "runtime", "python"),
                   QD_COMPARE_STORE=store, QD_COMPARE_REPORT=report_path,
                   QD_COMPARE_SCENE=os.path.join(HERE, "scenes", PARTICLES.get(
                       opts.scene, [f"{opts.scene}.py"])[0]),
                   QD_COMPARE_SCENE_ARGS=json.dumps(PARTICLES.get(opts.scene, [""])[1:]),
                   QD_COMPARE_STEPS=opts.steps, QD_COMPARE_FROM_STEP=str(opts.from_step),
                   QD_COMPARE_DUMP=os.path.abspath(opts.dump) if opts.dump else "",
                   QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY",
                                               os.path.join(ROOT, "build", "lib", "libqdrt.so")))
        env.pop("QDRT_RECORD", None)
        if opts.quadrants_cpu != "host":
            # Quadrants JIT-compiles for the CPU LLVM detects, and its trajectory (the inputs of
            # every compared call) depends on it: from step 0 on Go2 (3.3e-6 at step 0, 0.6 in qvel
            # at step 60 between this CPU and an x86-64-v3 one). The scene runs with the CPU's
            # features masked, and with an offline cache of its own: Quadrants' cache key does not
            # name the CPU, so a warm cache would bring the host's code back.
            env.update(LD_PRELOAD=cpuid_mask(), QD_CPUID_MASK=opts.quadrants_cpu,
                       QD_OFFLINE_CACHE_FILE_PATH=os.path.join(tmp, "quadrants-cache"))
        p = subprocess.run([opts.python, runner], env=env, capture_output=True, text=True)
        if not os.path.exists(report_path):
            print(f"FAIL: the scene exited {p.returncode} without a report\n{p.stderr[-3000:]}")
            return 1
        report = json.load(open(report_path))
    recorded = json.load(open(record_path))["kernels"]
    failures = []
    for kid in sorted(recorded):
        if kid in opts.expect_missing:
            print(f"GAP   {kid}: not built (a known gap), not compared")
            continue
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
