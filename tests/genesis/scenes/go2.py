"""The Go2 quadruped on a plane with 4 environments (Genesis rigid solver with collisions, CPU).

  python go2.py [--steps N] [--envs N] [--out FILE.json] [--backend cpu|cuda] [--performance-mode]

Prints the time of scene.build() and of the first step; with --out writes every step's qpos and
qvel of each environment and the contact count (for comparing runs)."""

import argparse
import json
import time

import genesis as gs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--envs", type=int, default=4)
    ap.add_argument("--out")
    ap.add_argument("--backend", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--performance-mode", action="store_true",
                    help="gs.init(performance_mode=True): Genesis's state in qd.fields")
    opts = ap.parse_args()
    gs.init(backend=getattr(gs, opts.backend), logging_level="warning",
            **({"performance_mode": True} if opts.performance_mode else {}))
    scene = gs.Scene(show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    go2 = scene.add_entity(gs.morphs.URDF(file="urdf/go2/urdf/go2.urdf", pos=(0.0, 0.0, 0.42)))
    t0 = time.perf_counter()
    scene.build(n_envs=opts.envs)
    t1 = time.perf_counter()
    trace = []
    t2 = t1
    for step in range(opts.steps):
        scene.step()
        if step == 0:
            t2 = time.perf_counter()
        if opts.out:
            trace.append({"qpos": go2.get_qpos().tolist(), "qvel": go2.get_dofs_velocity().tolist(),
                          "contacts": int(scene.rigid_solver.collider.collider_state.n_contacts.to_numpy().sum())})
    t3 = time.perf_counter()
    print(json.dumps({"build_s": t1 - t0, "first_step_s": t2 - t1, "steps": opts.steps,
                      "later_steps_s": t3 - t2}))
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump(trace, f)


if __name__ == "__main__":
    main()
