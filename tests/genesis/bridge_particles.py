#!/usr/bin/env python3
"""An unchanged Genesis particle scene (SPH, PBD or MPM: scenes/particles.py) or FEM scene (an
elastic cube on the ground, explicit or implicit: scenes/fem.py) on a qdbuild store against the
same scene on Quadrants: the solvers' kernels are methods of data_oriented objects over
qd.fields, which the bridge passes in place (docs/runtime.md "Fields").

  bridge_particles.py --scene sph|pbd|mpm|fem|fem-implicit [--steps 50]
                      [--qdbuild build/bin/qdbuild] [--python build/genesis-venv/bin/python]

Records the scene with --out (2 steps: the kernels that read the particles back are the scene's
too), builds the record into a fresh store, runs the scene --steps times with --out on Quadrants
and on the store (PYTHONPATH=runtime/python QDRT_STORE=... QDRT_STORE_STATS=...), and requires
every call served (0 fallbacks) and, at every step, the particles as close to Quadrants' as
Quadrants is to itself. A liquid is chaotic at the float level: the SPH block's first step
differs by 2e-8 between any two of Quadrants, Quadrants fast_math=False (a third run) and the
store, and each pair's difference grows about 2x a step past step 25, to 0.03-0.16 by step 49,
a few steps apart. So each particle's position and velocity must stay within ENVELOPE times the
largest difference the fast_math=False run shows from the default one so far (at least
TOLERANCE) while that is below HORIZON (the deterministic part of the run: all 50 steps of PBD
and MPM, 25 of SPH), and the particles' mean position and velocity within TOLERANCE at every
step (3e-4 at SPH's step 49). A wrong kernel shows at its first call, orders of magnitude above.
MPM runs at 16 substeps a step (at Genesis's default of one the cube's grid is unstable: NaN by
step 7 on either side). Prints both runs' scene.build() and
first-step times. Exit 0/1; 125 without Genesis (no-genesis-venv).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import genesis_env
from bridge_franka import IEEE_RUNNER, flat

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import qdtest  # noqa: E402
import skip_policy  # noqa: E402

TOLERANCE = 1e-3
ENVELOPE = 4.0
HORIZON = 1e-4
CHECKS = qdtest.Checks("genesis bridge, particles")
check = CHECKS.check


def run(python, args, env):
    p = subprocess.run([python, *args], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {p.returncode}: {p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


def difference(a, b):
    """Per step (largest |pos/vel difference|, (step, key, value, value)), and how many steps are
    bit-identical."""
    out, equal = [], 0
    for step, (x, y) in enumerate(zip(a, b)):
        equal += x == y
        d, at = 0.0, None
        for key in ("pos", "vel"):
            for u, v in zip(flat(x[key]), flat(y[key])):
                e = abs(u - v)
                if not e <= d:  # (a NaN on one side is the largest difference)
                    d, at = e, (step, key, u, v)
        out.append((d, at))
    return out, equal


def mean_difference(a, b):
    """Per step (largest |difference| of the particles' mean position or velocity, (step, key))."""
    out = []
    for step, (x, y) in enumerate(zip(a, b)):
        d, at = 0.0, None
        for key in ("pos", "vel"):
            n = max(len(x[key]), 1)
            for k in range(3):
                e = abs(sum(p[k] for p in x[key]) / n - sum(p[k] for p in y[key]) / n)
                if not e <= d:
                    d, at = e, (step, f"{key}[{k}]")
        out.append((d, at))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--scene", required=True, choices=["sph", "pbd", "mpm", "fem", "fem-implicit"])
    ap.add_argument("--steps", type=int, default=50)
    opts = ap.parse_args()

    site = genesis_env.site_packages()
    if site is None or not os.path.exists(opts.python):
        skip_policy.skip("no-genesis-venv", "the bridge runs the Genesis scene")
    if opts.scene.startswith("fem"):
        # The FEM cube's vertices, compared as the particles are (its coupling with the rigid
        # ground included: LegacyCoupler.fem_surface_force).
        scene = [os.path.join(HERE, "scenes", "fem.py")]
        if opts.scene == "fem-implicit":
            scene.append("--implicit")
    else:
        scene = [os.path.join(HERE, "scenes", "particles.py"), "--solver", opts.scene]
    if opts.scene == "mpm":
        scene += ["--substeps", "16"]
    with tempfile.TemporaryDirectory(prefix="qd-bridge-particles-") as tmp:
        env = dict(os.environ)
        for k in ("QDRT_RECORD", "QDRT_STORE", "QDRT_STORE_STATS"):
            env.pop(k, None)
        pyenv = dict(env, PYTHONPATH=os.path.join(ROOT, "runtime", "python"))
        record = os.path.join(tmp, "rec.json")
        run(opts.python, ["-m", "qdrt.record", "-o", record, "--", *scene, "--steps", "2",
                          "--out", os.path.join(tmp, "rec_out.json")], pyenv)
        store = os.path.join(tmp, "store")
        p = genesis_env.build_store(opts.qdbuild, site, record, store)
        if p.returncode != 0:
            print(f"FAIL: qdbuild build exited {p.returncode}\n{p.stderr[-3000:]}")
            return 1
        plain, _ = run(opts.python, [*scene, "--steps", str(opts.steps), "--out",
                                     os.path.join(tmp, "plain.json")], env)
        stats = os.path.join(tmp, "stats.json")
        benv = dict(pyenv, QDRT_STORE=store, QDRT_STORE_STATS=stats,
                    QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY",
                                                os.path.join(ROOT, "build", "lib", "libqdrt.so")))
        bridged, err = run(opts.python, [*scene, "--steps", str(opts.steps), "--out",
                                         os.path.join(tmp, "bridge.json")], benv)
        run(opts.python, ["-c", IEEE_RUNNER, *scene, "--steps", str(opts.steps), "--out",
                          os.path.join(tmp, "ieee.json")], env)
        ref = json.load(open(os.path.join(tmp, "ieee.json")))
        a = json.load(open(os.path.join(tmp, "plain.json")))
        b = json.load(open(os.path.join(tmp, "bridge.json")))
        s = json.load(open(stats))
        kernels = len(json.load(open(record))["kernels"])
    check(not s["fallback"], f"calls fell back to Quadrants: {s['fallback']}")
    check(len(s["served"]) == kernels,
          f"{len(s['served'])} kernels served of the {kernels} recorded")
    check(len(a) == opts.steps and len(b) == opts.steps,
          f"steps: {len(a)} plain, {len(b)} on the store")
    deviation, equal = difference(a, b)
    ref_dev, _ = difference(a, ref)
    limit, horizon = TOLERANCE, len(deviation)
    for step, (d, at) in enumerate(deviation):
        if ref_dev[step][0] > HORIZON:
            horizon = step
            break
        limit = max(limit, ENVELOPE * ref_dev[step][0])
        if not check(d <= limit,  # (NaN included)
                     f"particles differ by {d:.3g} at {at}, beyond the envelope {limit:.3g} "
                     f"({ENVELOPE:g}x Quadrants fast_math=False against its default run)"):
            break
    means = mean_difference(a, b)
    worst_mean = max(means, key=lambda t: t[0], default=(0.0, None))
    check(worst_mean[0] <= TOLERANCE,
          f"the particles' mean differs by {worst_mean[0]:.3g} > {TOLERANCE} at {worst_mean[1]}")
    worst, at = max(deviation, key=lambda t: t[0], default=(0.0, None))
    print(f"{opts.scene}: served {sum(s['served'].values())} calls of {len(s['served'])} kernels "
          f"(of {kernels} recorded); fallback: {s['fallback'] or 'none'}")
    print(f"{opts.steps} steps: {equal} bit-identical; max |pos/vel difference| {worst:.3g} "
          f"(step, key, values: {at}); Quadrants fast_math=False against its default run: "
          f"{max(d for d, _ in ref_dev):.3g}")
    print(f"each particle compared for {horizon} steps (until fast_math=False differs by more "
          f"than {HORIZON:g}); the mean at every step: max difference {worst_mean[0]:.3g} "
          f"(step, key: {worst_mean[1]})")
    for step in sorted({0, 9, opts.steps // 2, opts.steps - 1}):
        print(f"  step {step}: store {deviation[step][0]:.3g}, fast_math=False "
              f"{ref_dev[step][0]:.3g}")
    print(f"scene.build(): Quadrants {plain['build_s']:.2f} s (warm offline cache), store "
          f"{bridged['build_s']:.2f} s; first step: Quadrants {plain['first_step_s'] * 1e3:.1f} "
          f"ms, store {bridged['first_step_s'] * 1e3:.1f} ms")
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
