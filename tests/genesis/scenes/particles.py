"""One small scene per particle solver of Genesis (CPU): MPM (an elastic cube), SPH (a block
of liquid) or PBD (a block of liquid), falling onto the domain's floor.

  python particles.py --solver mpm|sph|pbd [--steps N]

Prints the time of scene.build() and of the first step."""

import argparse
import json
import time

import genesis as gs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", choices=["mpm", "sph", "pbd"], required=True)
    ap.add_argument("--steps", type=int, default=20)
    opts = ap.parse_args()
    gs.init(backend=gs.cpu, logging_level="warning")
    lower, upper = (-0.5, -0.5, 0.0), (0.5, 0.5, 1.0)
    box = gs.morphs.Box(pos=(0.0, 0.0, 0.4), size=(0.2, 0.2, 0.2))
    if opts.solver == "mpm":
        scene = gs.Scene(show_viewer=False, mpm_options=gs.options.MPMOptions(
            lower_bound=lower, upper_bound=upper, grid_density=32))
        scene.add_entity(material=gs.materials.MPM.Elastic(), morph=box)
    elif opts.solver == "sph":
        scene = gs.Scene(show_viewer=False, sph_options=gs.options.SPHOptions(
            lower_bound=lower, upper_bound=upper, particle_size=0.04))
        scene.add_entity(material=gs.materials.SPH.Liquid(), morph=box)
    else:
        scene = gs.Scene(show_viewer=False, pbd_options=gs.options.PBDOptions(
            lower_bound=lower, upper_bound=upper, particle_size=0.04))
        scene.add_entity(material=gs.materials.PBD.Liquid(), morph=box)
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    t2 = t1
    for step in range(opts.steps):
        scene.step()
        if step == 0:
            t2 = time.perf_counter()
    print(json.dumps({"solver": opts.solver, "build_s": t1 - t0, "first_step_s": t2 - t1,
                      "steps": opts.steps}))


if __name__ == "__main__":
    main()
