"""The Franka arm on a plane (Genesis rigid solver, CPU): the first scene qdbuild builds.

  python franka.py [--steps N] [--out FILE.json] [--backend cpu|cuda] [--performance-mode]
                   [--cuda-arms] [--cuda-simt] [--simt-trace] [--capture DIR]

Prints the time of scene.build() and of the first step; with --out writes every step's qpos,
qvel and contact count (for comparing runs). --performance-mode: gs.init(performance_mode=True),
Genesis's solver state in qd.fields instead of ndarrays. --cuda-arms: on the CPU, the rigid solver
configured as on CUDA where Quadrants can run it (cuda_arms.py: the decomposed solver's graph
kernel, the kernels' CUDA arms). --cuda-simt: as on CUDA with the block-level arms too, which only
a store runs on the CPU; --simt-trace: Quadrants traces them (for the recorder) and launches none
(simt_trace.py). --capture DIR: the first call of each kernel instance the store serves, with
its inputs and outputs (capture_calls.py)."""

import argparse
import json
import os
import sys
import time

import genesis as gs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--out")
    ap.add_argument("--backend", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--performance-mode", action="store_true")
    ap.add_argument("--cuda-arms", action="store_true")
    ap.add_argument("--cuda-simt", action="store_true")
    ap.add_argument("--simt-trace", action="store_true")
    ap.add_argument("--capture", metavar="DIR")
    opts = ap.parse_args()
    if opts.simt_trace:
        # Quadrants' caches would skip the trace simt_trace.py watches.
        os.environ["QD_OFFLINE_CACHE"] = os.environ["QD_SRC_LL_CACHE"] = "0"
    gs.init(backend=getattr(gs, opts.backend), logging_level="warning",
            **({"performance_mode": True} if opts.performance_mode else {}))
    if opts.cuda_arms or opts.cuda_simt:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import cuda_arms
        cuda_arms.force(gs, simt=opts.cuda_simt)
    if opts.simt_trace:
        import simt_trace
        simt_trace.enable()
    if opts.capture:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import capture_calls
        capture_calls.enable(opts.capture)
    scene = gs.Scene(show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    franka = scene.add_entity(gs.morphs.MJCF(file="xml/franka_emika_panda/panda.xml"))
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    trace = []
    for step in range(opts.steps):
        scene.step()
        if step == 0:
            t2 = time.perf_counter()
        if opts.out:
            trace.append({"qpos": franka.get_qpos().tolist(), "qvel": franka.get_dofs_velocity().tolist(),
                          "contacts": int(scene.rigid_solver.collider.collider_state.n_contacts.to_numpy().sum())
                          if hasattr(scene.rigid_solver, "collider") else 0})
    t3 = time.perf_counter()
    print(json.dumps({"build_s": t1 - t0, "first_step_s": t2 - t1, "steps": opts.steps,
                      "later_steps_s": t3 - t2}))
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump(trace, f)


if __name__ == "__main__":
    main()
