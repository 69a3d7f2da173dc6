"""An elastic FEM cube dropped onto the ground plane (Genesis FEM solver coupled with the rigid
solver, CPU).

  python fem.py [--steps N] [--out FILE.json] [--substeps K] [--implicit]

Prints the time of scene.build() and of the first step; --out writes every step's FEM vertex
positions and velocities (JSON, one entry per step). --implicit uses the FEM solver's implicit
integrator (Newton iterations with its energy gradient and Hessian) instead of the explicit one."""

import argparse
import json
import time

import genesis as gs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--out")
    ap.add_argument("--substeps", type=int, default=10)
    ap.add_argument("--implicit", action="store_true")
    opts = ap.parse_args()
    gs.init(backend=gs.cpu, logging_level="warning")
    scene = gs.Scene(
        show_viewer=False,
        sim_options=gs.options.SimOptions(dt=1e-2, substeps=opts.substeps),
        fem_options=gs.options.FEMOptions(use_implicit_solver=opts.implicit),
    )
    scene.add_entity(gs.morphs.Plane())
    cube = scene.add_entity(
        morph=gs.morphs.Box(pos=(0.0, 0.0, 0.3), size=(0.2, 0.2, 0.2)),
        material=gs.materials.FEM.Elastic(E=1e5, nu=0.4, rho=1000.0),
    )
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    t2 = t1
    states = []
    for step in range(opts.steps):
        scene.step()
        if step == 0:
            t2 = time.perf_counter()
        if opts.out:
            state = cube.get_state()
            states.append({"pos": state.pos[0].tolist(), "vel": state.vel[0].tolist()})
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump(states, f)
    print(json.dumps({"solver": "fem", "build_s": t1 - t0, "first_step_s": t2 - t1,
                      "steps": opts.steps}))


if __name__ == "__main__":
    main()
