#!/usr/bin/env python3
"""Genesis's kernels compiled by qdbuild against Genesis's kernels on Quadrants, on the same inputs:
the first call of every kernel a scene makes (--scene franka, go2, or the particle scenes sph,
pbd, mpm of scenes/particles.py; recorded in tests/genesis/<scene>.qdrecord.json).

  compare_kernels.py [--scene franka] [--qdbuild build/bin/qdbuild] [--expect-missing KERNEL]
                     [--python build/genesis-venv/bin/python] [--steps 3]
                     [--from-step S] [--dump DIR] [--quadrants-cpu host|x86-64-v3]
                     [--quadrants-fast-math on|off] [--replay CALL=FILE] [--build-site DIR]
                     [--no-arbiter] [--arbitrated-calls N]

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
order (through contact_sort_idx; see CONTACTS below), not slot by slot; --dump DIR writes both
sides' arrays and the inputs of each differing call to DIR (KERNEL@STEP.N.npz). The U, S, V
of an SVD are compared as S, U @ V.T and U @ S @ V.T (see compare()).

A call that differs is replayed on its saved inputs against Quadrants' fast_math=False path
(up to ARBITRATED_CALLS calls; --no-arbiter: none) and passes if it agrees there: Quadrants' own
two float paths fall on either side of a knife edge of the narrow phase (see ARBITRATED_CALLS).
--quadrants-cpu x86-64-v3 runs Quadrants as on an AVX2 Haswell whatever this machine's CPU
(libqd_cpuid_mask); --quadrants-fast-math off, --replay CALL=FILE and --build-site DIR (a
planted-bug copy of site-packages to build from) are the pieces the arbiter and
planted_bug.py use.

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
from qdrt import describe, instances
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
    kid = describe.kernel_id(kernel.func)
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
            desc[m.name] = describe.describe_param(m.annotation, v, reads)
        elif j == 0 and m.name == "self" and id(kernel) in self_desc:
            desc[m.name] = self_desc[id(kernel)]
        else:
            desc[m.name] = describe.describe_param(m.annotation, v)
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
    templates = {m.name for m in metas if describe.annotation_kind(m.annotation) == "template"}
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

def compare(p, ret, cid):
    (kid, k, names, flat, originals), later = p
    # The call's inputs, for --dump (a differing call can be replayed: --replay).
    inputs = {n: np.copy(a) for n, a, o in zip(names, flat, originals)
              if o is not None} if os.environ.get("QD_COMPARE_DUMP") else {}
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
        np.savez(os.path.join(os.environ["QD_COMPARE_DUMP"], f"{cid}.npz"),
                 **{f"ours:{n}": m for n, m, o in zip(names, flat, originals) if o is not None},
                 **{f"quadrants:{n}": physical(o) for n, o in zip(names, originals)
                    if o is not None},
                 **{f"input:{n}": a for n, a in inputs.items()})
    arrays = sum(o is not None for o in originals)
    report["compared"].setdefault(kid, []).append({"arrays": arrays, "differences": bad,
                                                   "step": steps_done[0], "call": cid,
                                                   "later": later})

import quadrants
if os.environ.get("QD_COMPARE_FAST_MATH") == "off":
    # Quadrants' other float path (--quadrants-fast-math off), as bridge_franka.py's IEEE run.
    _init = quadrants.init
    quadrants.init = lambda *a, **k: _init(*a, **dict(k, fast_math=False))
Kernel = sys.modules["quadrants.lang.kernel"].Kernel
describe.patch_attributes(sys.modules["quadrants.lang.ast.ast_transformer"])
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
        report["errors"][describe.kernel_id(kernel.func)] = "snapshot: " + traceback.format_exc(limit=3)

def materialize(self, key=None, py_args=(), arg_features=None):
    if busy[0]:
        return orig_materialize(self, key, py_args, arg_features)
    new = key is None or key not in self.materialized_kernels
    # Quadrants traces a new instance here, before it launches it: what the trace reads of a
    # data_oriented self describes it (as the recorder does); the arguments are copied after.
    describe.capture.reads = {} if new else None
    try:
        r = orig_materialize(self, key, py_args, arg_features)
        reads = describe.capture.reads
    finally:
        describe.capture.reads = None
    if new:
        watch(self, py_args, False, reads)
    return r

EVERY_FROM = int(os.environ.get("QD_COMPARE_FROM_STEP", "-1"))
first_seen = set()  # id(kernel): called outside a copy at least once
steps_done = [0]

def restore(v, a):
    """Writes a (as physical() reads it) into the live argument v."""
    impl = getattr(v, "_impl", v)
    busy[0] = True
    try:
        if type(impl).__name__ in FIELDS and type(impl).__module__.startswith("quadrants"):
            impl.from_numpy(a)
        elif hasattr(impl, "from_numpy") and hasattr(impl, "arr"):
            layout = getattr(impl, "_qd_layout", None)
            if layout is not None and tuple(layout) != tuple(range(len(layout))):
                perm = tuple(layout) + tuple(range(len(layout), a.ndim))
                a = a.transpose(tuple(int(i) for i in np.argsort(perm)))
            if len(tuple(impl.shape)) == 0:
                a = a.reshape(())  # a 0-d ndarray (saved as physical() reads it, or with one axis)
            impl.from_numpy(np.array(a, order="C"))  # (ascontiguousarray makes 0-d 1-d)
        elif isinstance(v, np.ndarray):
            v[...] = a
        elif type(v).__module__.startswith("torch"):
            import torch
            v.copy_(torch.from_numpy(a))
    finally:
        busy[0] = False

# --replay CALL=FILE.npz: the inputs a --dump saved for that call (CALL: KERNEL@STEP.N, the N-th
# call of the kernel in that step, 0-based) are written into the call's arguments before it runs,
# so both sides run it on exactly those inputs (for a run of Quadrants with another float path).
REPLAY = os.environ.get("QD_COMPARE_REPLAY", "")
replayed = []
calls_in_step = {}  # kernel id -> [step, calls of it in that step so far]

def call_id(kernel):
    kid = describe.kernel_id(kernel.func)
    seen = calls_in_step.setdefault(kid, [steps_done[0], 0])
    if seen[0] != steps_done[0]:
        seen[:] = [steps_done[0], 0]
    seen[1] += 1
    return f"{kid}@{steps_done[0]}.{seen[1] - 1}"

def replay(kernel, py_args, cid):
    at, _, path = REPLAY.partition("=")
    if cid != at:
        return
    saved = np.load(path)
    by_name = {m.name: v for m, v in zip(kernel.arg_metas, py_args)}
    n = 0
    for key in saved.files:
        if not key.startswith("input:"):
            continue
        root, _, member_path = key[len("input:"):].partition(".")
        restore(member(by_name[root], member_path), saved[key])
        n += 1
    replayed.append(f"{cid}: {n} inputs written")

def call(self, *args, **kwargs):
    if busy[0]:
        return orig_call(self, *args, **kwargs)
    cid = call_id(self)
    if REPLAY and not kwargs:
        replay(self, args, cid)
    if EVERY_FROM >= 0 and steps_done[0] >= EVERY_FROM and id(self) not in pending and not kwargs:
        watch(self, args, True)
    elif id(self) not in pending and not kwargs and getattr(self, "materialized_kernels", None) \
            and describe.kernel_id(self.func) not in report["compared"] and \
            id(self) not in first_seen:
        # A kernel first called while arguments were being copied (Quadrants' field copies):
        # compared at its first call of its own.
        watch(self, args, False)
    first_seen.add(id(self))
    r = orig_call(self, *args, **kwargs)
    p = pending.pop(id(self), None)
    if p is not None:
        try:
            compare(p, r, cid)
        except Exception:
            report["errors"][p[0][0]] = "compare: " + traceback.format_exc(limit=3)
    return r

Kernel.materialize = materialize
Kernel.__call__ = call
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
        report["replayed"] = replayed
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
    # The flag can be there while the kernel refuses the call (a seccomp filter): the library
    # then exits 125 at load.
    p = subprocess.run(["true"], env=dict(os.environ, LD_PRELOAD=lib, QD_CPUID_MASK="x86-64-v3"),
                       capture_output=True, text=True)
    if p.returncode == 125:
        skip_policy.skip("no-cpuid-faulting", f"Quadrants on another CPU: {p.stderr.strip()}")
    if p.returncode != 0:
        print(f"FAIL: {lib} under QD_CPUID_MASK=x86-64-v3: exit {p.returncode} {p.stderr}")
        sys.exit(1)
    return lib


PARTICLES = {s: ["particles.py", "--solver", s] for s in ("sph", "pbd", "mpm")}


# A call that differs is judged again on exactly its inputs against Quadrants' other float path
# (fast_math=False), up to this many calls per run: Genesis's narrow phase decides some contacts on
# a knife edge (EPA's nearest of nearly equidistant faces, whether two faces count as aligned for a
# multi-contact patch), and Quadrants' fast-math code, whose reassociations LLVM picks for the CPU
# it JIT-compiles for, falls on either side of it. Go2's step-14 kernel_detection with Quadrants at
# x86-64-v3: fast_math on finds 28 contacts, fast_math off 27 on the same inputs, as qdbuild does.
# The call passes only if qdbuild agrees with that run within the same tolerances: a difference
# from both of Quadrants' float paths (a planted narrow-phase bug) still fails.
ARBITRATED_CALLS = 4


def run_scene(opts, tmp, store, steps, from_step, dump, fast_math, replay, name):
    """Runs the scene under the comparing runner; (report or None, process)."""
    report_path = os.path.join(tmp, f"report-{name}.json")
    env = dict(os.environ, QD_COMPARE_BINDING=os.path.join(ROOT, "runtime", "python"),
               QD_COMPARE_STORE=store, QD_COMPARE_REPORT=report_path,
               QD_COMPARE_SCENE=os.path.join(HERE, "scenes", PARTICLES.get(
                   opts.scene, [f"{opts.scene}.py"])[0]),
               QD_COMPARE_SCENE_ARGS=json.dumps(PARTICLES.get(opts.scene, [""])[1:]),
               QD_COMPARE_STEPS=str(steps), QD_COMPARE_FROM_STEP=str(from_step),
               QD_COMPARE_DUMP=dump or "", QD_COMPARE_FAST_MATH=fast_math,
               QD_COMPARE_REPLAY=replay or "",
               QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY",
                                           os.path.join(ROOT, "build", "lib", "libqdrt.so")))
    env.pop("QDRT_RECORD", None)
    if opts.quadrants_cpu != "host":
        # Quadrants JIT-compiles for the CPU LLVM detects, and its trajectory (the inputs of every
        # compared call) depends on it: from step 0 on Go2 (3.3e-6 at step 0, 0.6 in qvel at step
        # 60 between this CPU and an x86-64-v3 one). The scene runs with the CPU's features masked,
        # and with an offline cache of its own: Quadrants' cache key does not name the CPU, so a
        # warm cache would bring the host's code back.
        env.update(LD_PRELOAD=cpuid_mask(), QD_CPUID_MASK=opts.quadrants_cpu,
                   QD_OFFLINE_CACHE_FILE_PATH=os.path.join(tmp, "quadrants-cache"))
    p = subprocess.run([opts.python, os.path.join(tmp, "runner.py")], env=env,
                       capture_output=True, text=True)
    if not os.path.exists(report_path):
        return None, p
    return json.load(open(report_path)), p


def arbitrate(opts, tmp, store, run, dump):
    """Replays a differing call on its own inputs against Quadrants with fast_math=False:
    (True, "") when qdbuild agrees with it, else (False, why)."""
    kid, at = run["call"].rsplit("@", 1)
    step = int(at.split(".")[0])
    saved = os.path.join(dump, run["call"] + ".npz")
    report, p = run_scene(opts, tmp, store, step + 1, step if run["later"] else -1, "",
                          "off", f"{run['call']}={saved}", "arbiter")
    if report is None or not report.get("replayed"):
        return False, f"the fast_math=False replay did not run the call (exit {p.returncode}): " \
                      f"{p.stderr[-500:]}"
    mine = [r for r in report["compared"].get(kid, []) if r.get("call") == run["call"]]
    if not mine:
        return False, "the fast_math=False replay compared no such call"
    if mine[0]["differences"]:
        return False, "against fast_math=False too: " + "; ".join(mine[0]["differences"][:3])
    return True, ""


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
    ap.add_argument("--dump", help="write both sides' arrays and the inputs of every differing "
                                   "call to DIR (CALL.npz; CALL is KERNEL@STEP.N)")
    ap.add_argument("--quadrants-cpu", default="host", choices=["host", "x86-64-v3"],
                    help="the CPU Quadrants' JIT compiles for: this machine's (host), or an AVX2 "
                         "Haswell whatever the machine (x86-64-v3: build/lib/libqd_cpuid_mask.so)")
    ap.add_argument("--quadrants-fast-math", default="on", choices=["on", "off"],
                    help="off: Quadrants runs the scene with fast_math=False (its IEEE path)")
    ap.add_argument("--replay", metavar="CALL=FILE",
                    help="before that call (KERNEL@STEP.N), write the inputs a --dump saved for it "
                         "(FILE.npz) into its arguments: both sides run it on exactly those inputs")
    ap.add_argument("--build-site", metavar="DIR",
                    help="build the store from this copy of the venv's site-packages (genesis/, "
                         "quadrants/_kernels.py, _funcs.py) instead: a planted bug in the copy "
                         "must make the comparison fail")
    ap.add_argument("--no-arbiter", action="store_true",
                    help="a differing call fails without being replayed against Quadrants' "
                         "fast_math=False path (see ARBITRATED_CALLS)")
    ap.add_argument("--arbitrated-calls", type=int, default=ARBITRATED_CALLS, metavar="N",
                    help=f"replay at most N differing calls (default {ARBITRATED_CALLS})")
    opts = ap.parse_args()
    record_path = os.path.join(HERE, f"{opts.scene}.qdrecord.json")
    sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
    import skip_policy

    site = genesis_env.site_packages()
    if site is None or not os.path.exists(opts.python):
        skip_policy.skip("no-genesis-venv", "the comparison runs the Genesis scene")
    arbiter = not opts.no_arbiter and not opts.replay and opts.quadrants_fast_math == "on"
    with tempfile.TemporaryDirectory(prefix="qd-genesis-compare-") as tmp:
        store = os.path.join(tmp, "store")
        p = genesis_env.build_store(opts.qdbuild, opts.build_site or site, record_path, store,
                                    "--json")
        failed = set(json.loads(p.stdout).get("failed") or []) if p.stdout.strip() else set()
        if p.returncode != 0 and not (failed and failed <= set(opts.expect_missing)):
            print(f"FAIL: qdbuild build exited {p.returncode}\n{p.stderr[-3000:]}")
            return 1
        with open(os.path.join(tmp, "runner.py"), "w") as f:
            f.write(RUNNER)
        dump = os.path.abspath(opts.dump) if opts.dump else (
            os.path.join(tmp, "dump") if arbiter else "")
        if dump:
            os.makedirs(dump, exist_ok=True)
        report, p = run_scene(opts, tmp, store, opts.steps, opts.from_step, dump,
                              opts.quadrants_fast_math, opts.replay, "main")
        if report is None:
            print(f"FAIL: the scene exited {p.returncode} without a report\n{p.stderr[-3000:]}")
            return 1
        for line in report.get("replayed", []):
            print(f"REPLAY {line}")
        if opts.replay and not report.get("replayed"):
            print(f"FAIL: --replay {opts.replay}: no such call was made (the scene exited "
                  f"{p.returncode})\n{p.stderr[-3000:]}")
            return 1
        recorded = json.load(open(record_path))["kernels"]
        failures = []
        arbitrated = 0
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
            settled = []
            for r in differing:
                if not arbiter or arbitrated >= opts.arbitrated_calls:
                    break
                arbitrated += 1
                ok, why = arbitrate(opts, tmp, store, r, dump)
                print(f"{'ARBIT' if ok else 'DIFF '} {r['call']}: "
                      f"{'; '.join(r['differences'][:3])}")
                if ok:
                    print(f"      agrees on the same inputs with Quadrants' fast_math=False run")
                    settled.append(r)
                else:
                    print(f"      {why}")
            differing = [r for r in differing if r not in settled]
            if differing:
                r = differing[0]
                failures.append(f"{kid}: {r['differences'][:3]}")
                print(f"DIFF  {kid}: {len(differing)} of {len(runs)} calls differ; first "
                      f"{r['call']}: {'; '.join(r['differences'][:3])}")
            else:
                print(f"SAME  {kid}: {len(runs)} call(s), {runs[0]['arrays']} arrays"
                      + (f" ({len(settled)} as Quadrants' fast_math=False)" if settled else ""))
    n = sum(len(v) for v in report["compared"].values())
    print(f"genesis kernels, compiled vs Quadrants: {n} calls compared, {arbitrated} replayed "
          f"against fast_math=False, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
