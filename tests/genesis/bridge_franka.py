#!/usr/bin/env python3
"""An unchanged Genesis scene on a qdbuild store (QDRT_STORE, qdrt.bridge) against the same scene
on Quadrants: 200 steps, every step's qpos, qvel and contact count.

  bridge_franka.py [--scene franka|go2] [--envelope] [--backend cpu|cuda]
                   [--qdbuild build/bin/qdbuild] [--python build/genesis-venv/bin/python]
                   [--steps 200] [--performance-mode] [--cuda-arms] [--timing] [--keep DIR]

Builds the committed record (tests/genesis/<scene>.qdrecord.json) into a fresh store, runs
tests/genesis/scenes/<scene>.py --out twice (plain, then with PYTHONPATH=runtime/python
QDRT_STORE=store QDRT_STORE_STATS=stats), and requires: every recorded kernel served by the store,
fallbacks only for kernels the record does not have (the --out path's ndarray_to_ext_arr), the
contact count equal at every step, qpos and qvel within 1e-2 absolute (float32 differences of
fast-math code grow over a contact-rich trajectory: 1.9e-3 after 200 steps here). Prints both
runs' scene.build() and first-step times. The store's scene runs once more without --out and
must not fall back at all. --timing adds Quadrants' run without --out and prints the steady-state
time per step of both (never asserted). Exit 0/1; 125 without Genesis (no-genesis-venv).

--performance-mode: the scene with gs.init(performance_mode=True) (Genesis's state in qd.fields,
passed in place by the bridge), built from tests/genesis/<scene>_perf.qdrecord.json; the same
requirements.

--cuda-arms: the scene with its rigid solver configured as on CUDA (scenes/cuda_arms.py: the
decomposed constraint solver, whose iterations are the graph kernel
solver_breakdown._kernel_solve_graph with qd.graph.do_while; the kernels' CUDA arms) and, on the
store's side, with its block-level arms too (--cuda-simt: the level sweep, the shared-memory
mass-matrix factor and smooth solve, the register-tiled island factor and the cooperative
constraint kernels, the collider's split narrowphase and cooperative contact dedup;
qd.simt.block.sync, shared arrays, subgroup operations, register tiles),
which Quadrants runs on GPUs only. The scene is first recorded so (3 steps, scenes/simt_trace.py:
Quadrants traces the block-level kernels as on CUDA and launches none of them) and built for cpu
and cuda:sm_90 from that record; the graph kernel and the block-level kernels must be recorded
and served (on the CPU each block's threads run in lockstep). Quadrants' run is the same scene
without the block-level arms (--cuda-arms), so the two differ in the algorithms of those
kernels (no timing runs: the two sides run different kernels); the same requirements.

--backend cuda (scripts/gpu-check.sh, on a machine with a GPU): both runs on gs.cuda; the scene is
first recorded on CUDA (3 steps) and built --target cuda from that record.

--envelope (the Go2 scene): a trajectory through impacts between meshes is not determined by
Quadrants itself beyond its float path (GJK/EPA normals and the constraint solver's stopping
iterate; compare_kernels.py --from-step checks each call on equal inputs). The scene runs a third
time on Quadrants with fast_math=False, and the store's run must stay, at every step, within the
largest difference that run shows from the default one so far (at least 1e-2), with contact counts
equal at every step before the first at which that run's differ.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import genesis_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import qdtest  # noqa: E402
import skip_policy  # noqa: E402

TOLERANCE = 1e-2
CHECKS = qdtest.Checks("genesis bridge")
check = CHECKS.check


def recorded_values(node, key):
    """Every value the record gives `key` anywhere (a config member's recorded values, a
    template argument's {"template": value})."""
    found = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key and isinstance(v, dict) and set(v) == {"template"}:
                v = v["template"]
            if k == key and not isinstance(v, (dict, list)):
                found.add(v)
            found |= recorded_values(v, key)
    elif isinstance(node, list):
        for v in node:
            found |= recorded_values(v, key)
    return found


def flat(x):
    if isinstance(x, list):
        for y in x:
            yield from flat(y)
    else:
        yield x


# Runs a scene script with quadrants.init(fast_math=False): Quadrants' other float path.
IEEE_RUNNER = """
import runpy, sys, quadrants
init = quadrants.init
quadrants.init = lambda *a, **k: init(*a, **dict(k, fast_math=False))
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def run_scene(python, steps, out, env, scene="franka", ieee=False, backend="cpu", prefix=(),
              extra=()):
    cmd = [python] + (["-c", IEEE_RUNNER] if ieee else list(prefix))
    p = subprocess.run(cmd + [os.path.join(HERE, "scenes", f"{scene}.py"), "--steps", str(steps)]
                       + (["--out", out] if out else []) + list(extra)
                       + (["--backend", backend] if backend != "cpu" else []),
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"the scene exited {p.returncode}: {p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


def trajectory_difference(a, b):
    """Per step: (largest |qpos/qvel difference|, (step, key, value, value)); the steps whose
    contact counts differ."""
    deviation, contacts = [], []
    for step, (p, q) in enumerate(zip(a, b)):
        if p["contacts"] != q["contacts"]:
            contacts.append(step)
        d, at = 0.0, None
        for key in ("qpos", "qvel"):
            for u, v in zip(flat(p[key]), flat(q[key])):
                if abs(u - v) > d:
                    d, at = abs(u - v), (step, key, u, v)
        deviation.append((d, at))
    return deviation, contacts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--scene", default="franka", choices=["franka", "go2"])
    ap.add_argument("--envelope", action="store_true",
                    help="judge the trajectory against Quadrants' own fast_math=False run")
    ap.add_argument("--backend", default="cpu", choices=["cpu", "cuda"],
                    help="cuda (scripts/gpu-check.sh): record the scene on CUDA first, build "
                         "--target cuda")
    ap.add_argument("--performance-mode", action="store_true",
                    help="gs.init(performance_mode=True): the state in qd.fields")
    ap.add_argument("--cuda-arms", action="store_true",
                    help="the rigid solver configured as on CUDA where the CPU can run it")
    ap.add_argument("--timing", action="store_true",
                    help="also run Quadrants without --out and print both sides' steady-state "
                         "time per step")
    ap.add_argument("--keep", metavar="DIR",
                    help="keep the store, the record and the first call of each kernel instance "
                         "of the store's run (capture_calls.py) in DIR/store, DIR/record.json, "
                         "DIR/calls (the device bundle takes them)")
    opts = ap.parse_args()
    perf = "_perf" if opts.performance_mode else ""
    RECORD = os.path.join(HERE, f"{opts.scene}{perf}.qdrecord.json")
    extra = (["--performance-mode"] if opts.performance_mode else []) + (
        ["--cuda-arms"] if opts.cuda_arms else [])
    # The store runs the block-level arms too; Quadrants cannot on the CPU (see above).
    store_extra = ["--cuda-simt"] if opts.cuda_arms else extra

    site = genesis_env.site_packages()
    if site is None or not os.path.exists(opts.python):
        skip_policy.skip("no-genesis-venv", "the bridge runs the Genesis scene")
    with tempfile.TemporaryDirectory(prefix="qd-bridge-") as tmp:
        store = os.path.join(tmp, "store")
        env = dict(os.environ)
        for k in ("QDRT_RECORD", "QDRT_STORE", "QDRT_STORE_STATS"):
            env.pop(k, None)
        target = []
        if opts.backend == "cuda":
            # The CUDA run's own instances (Genesis may configure its kernels per backend).
            RECORD = os.path.join(tmp, "cuda.qdrecord.json")
            run_scene(opts.python, 3, None, dict(env, PYTHONPATH=os.path.join(ROOT, "runtime",
                                                                              "python")),
                      opts.scene, backend="cuda", prefix=("-m", "qdrt.record", "-o", RECORD, "--"), extra=extra)
            target = ["--target", "cuda"]
        elif opts.cuda_arms:
            # Recorded with the CUDA arms (the record differs from the committed one by the
            # solver's kernels and rigid_config's values), built for the CPU and for CUDA.
            RECORD = os.path.join(tmp, "cuda_arms.qdrecord.json")
            run_scene(opts.python, 3, None, dict(env, PYTHONPATH=os.path.join(ROOT, "runtime",
                                                                              "python")),
                      opts.scene, prefix=("-m", "qdrt.record", "-o", RECORD, "--"),
                      extra=store_extra + ["--simt-trace"])
            target = ["--target", "cpu", "--target", "cuda:sm_90"]
        p = genesis_env.build_store(opts.qdbuild, site, RECORD, store, *target)
        if p.returncode != 0:
            print(f"FAIL: qdbuild build exited {p.returncode}\n{p.stderr[-3000:]}")
            return 1
        plain, _ = run_scene(opts.python, opts.steps, os.path.join(tmp, "plain.json"), env,
                             opts.scene, backend=opts.backend, extra=extra)
        stats = os.path.join(tmp, "stats.json")
        benv = dict(env, PYTHONPATH=os.path.join(ROOT, "runtime", "python"), QDRT_STORE=store,
                    QDRT_STORE_STATS=stats,
                    QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY",
                                                os.path.join(ROOT, "build", "lib", "libqdrt.so")))
        calls = os.path.join(tmp, "calls")
        bridged, err = run_scene(opts.python, opts.steps, os.path.join(tmp, "bridge.json"), benv,
                                 opts.scene, backend=opts.backend,
                                 extra=store_extra + (["--capture", calls] if opts.keep else []))
        if opts.keep:
            shutil.rmtree(opts.keep, ignore_errors=True)
            os.makedirs(opts.keep)
            shutil.copytree(store, os.path.join(opts.keep, "store"))
            shutil.copytree(calls, os.path.join(opts.keep, "calls"))
            shutil.copy(RECORD, os.path.join(opts.keep, "record.json"))
        # Runs without --out (which reads the state back every step): the store's must not fall
        # back at all; with --timing, Quadrants' too, for the steady-state times. Not with
        # --cuda-arms: the two sides run different kernels there, so the times say nothing.
        plain_t = bridged_t = None
        timing_fallback = {}
        if not opts.cuda_arms:
            if opts.timing:
                plain_t, _ = run_scene(opts.python, opts.steps, None, env, opts.scene,
                                       backend=opts.backend, extra=extra)
            stats_t = os.path.join(tmp, "stats_timing.json")
            bridged_t, _ = run_scene(opts.python, opts.steps, None,
                                     dict(benv, QDRT_STORE_STATS=stats_t), opts.scene,
                                     backend=opts.backend, extra=store_extra)
            # The scene itself (no --out, which reads the state back through Quadrants' own
            # ndarray_to_ext_arr, a kernel no record of the scene has): nothing falls back.
            timing_fallback = json.load(open(stats_t))["fallback"]
        a = json.load(open(os.path.join(tmp, "plain.json")))
        b = json.load(open(os.path.join(tmp, "bridge.json")))
        s = json.load(open(stats))
        ref = None
        if opts.envelope:
            run_scene(opts.python, opts.steps, os.path.join(tmp, "ieee.json"), env, opts.scene,
                      ieee=True, backend=opts.backend, extra=extra)
            ref = json.load(open(os.path.join(tmp, "ieee.json")))
        record_json = json.load(open(RECORD))
        recorded = record_json["kernels"]
    if opts.cuda_arms:
        graph = "genesis.engine.solvers.rigid.constraint.solver_breakdown:_kernel_solve_graph"
        check(graph in recorded and graph in s["served"],
              f"the decomposed solver's graph kernel was not recorded and served: {graph}")
        rigid = "genesis.engine.solvers.rigid."
        block_level = [rigid + "rigid_solver:kernel_substep_dynamics",
                       rigid + "abd.forward_dynamics:kernel_refresh_invweight_and_meaninertia",
                       rigid + "rigid_solver:kernel_substep_post"]
        absent = [k for k in block_level if k not in recorded or k not in s["served"]]
        check(not absent, f"block-level kernels not recorded and served: {absent}")
        # The register-tile arms (qd.simt.Tile32x32 here): the tiled island factor and the
        # cooperative constraint kernels, as Genesis configures them on an H200.
        for arm in ("enable_tiled_island_seed", "enable_cooperative_constraint_kernels"):
            seen = recorded_values(record_json, arm)
            check(seen == {True}, f"rigid_config.{arm} recorded as {seen or 'absent'}, not True")
        # The collider's CUDA arms (kernel_detection's template arguments): the split narrowphase
        # and the cooperative contact dedup.
        for arm in ("split_narrowphase", "coop_dedup"):
            seen = recorded_values(record_json, arm)
            check(seen == {True}, f"the collider's {arm} recorded as {seen or 'absent'}, not True")
        print(f"built for cpu and cuda:sm_90 from the CUDA arms' record: {len(recorded)} "
              f"kernels, {sum(len(v) for v in recorded.values())} instances")
    missing = sorted(k for k in recorded if k not in s["served"])
    check(not missing, f"recorded kernels not served by the store: {missing}")
    bad_fallback = {k: v for k, v in s["fallback"].items() if k in recorded}
    check(not bad_fallback, f"recorded kernels that fell back to Quadrants: {bad_fallback}")
    check(not timing_fallback,
          f"the scene without --out fell back to Quadrants: {timing_fallback}")
    deviation, contacts = trajectory_difference(a, b)
    worst = max(deviation, key=lambda t: t[0], default=(0.0, None))
    check(len(a) == opts.steps and len(b) == opts.steps,
          f"steps: {len(a)} plain, {len(b)} on the store")
    if ref is None:
        check(not contacts, f"contact counts differ at steps {contacts[:10]}")
        check(not worst[0] > TOLERANCE,
              f"qpos/qvel differ by {worst[0]:.3g} > {TOLERANCE} at {worst[1]}")
    else:
        # The envelope: how far Quadrants' own fast_math=False run is from its default run by
        # each step (the largest difference so far), at least TOLERANCE. Contact counts must be
        # equal at every step before the first at which that run's differ.
        ref_dev, ref_contacts = trajectory_difference(a, ref)
        limit = TOLERANCE
        first_ref = ref_contacts[0] if ref_contacts else opts.steps
        for step, (d, at) in enumerate(deviation):
            limit = max(limit, ref_dev[step][0])
            if not check(not d > limit, f"qpos/qvel differ by {d:.3g} at {at}, beyond the "
                         f"envelope {limit:.3g}"):
                break
        early = [c for c in contacts if c < first_ref]
        check(not early, f"contact counts differ at steps {early[:10]}, before the fast_math="
              f"False run's first difference (step {first_ref})")
        print(f"Quadrants fast_math=False against its default run: contact counts differ first "
              f"at step {first_ref} ({len(ref_contacts)} steps in all), max |qpos/qvel "
              f"difference| {max(d for d, _ in ref_dev):.3g}; the store's: first at "
              f"step {contacts[0] if contacts else 'none'} ({len(contacts)} steps), "
              f"{worst[0]:.3g}")
        for step in sorted({0, 10, opts.steps // 4, opts.steps // 2, opts.steps - 1}):
            print(f"  step {step}: store {deviation[step][0]:.3g}, fast_math=False "
                  f"{ref_dev[step][0]:.3g}")
    print(f"served {sum(s['served'].values())} calls of {len(s['served'])} kernels; fallback: "
          f"{s['fallback'] or 'none'}; without --out: {timing_fallback or 'none'}")
    print(f"{opts.steps} steps: contact counts equal at {opts.steps - len(contacts)} steps, "
          f"max |qpos/qvel difference| {worst[0]:.3g} (step, value: {worst[1]})")
    print(f"scene.build(): Quadrants {plain['build_s']:.2f} s (warm offline cache), store "
          f"{bridged['build_s']:.2f} s; first step {plain['first_step_s']:.3f} s against "
          f"{bridged['first_step_s']:.3f} s")
    if plain_t is not None:
        per_step = [t["later_steps_s"] / max(1, opts.steps - 1) * 1e3
                    for t in (plain_t, bridged_t)]
        print(f"steady state (steps 2..{opts.steps}, no --out): Quadrants {per_step[0]:.3f} "
              f"ms/step, store {per_step[1]:.3f} ms/step ({per_step[1] / per_step[0]:.2f}x)")
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
