"""One small scene per particle solver of Genesis (CPU): MPM (an elastic cube), SPH (a block
of liquid) or PBD (a block of liquid), falling onto the domain's floor.

  python particles.py --solver mpm|sph|pbd [--steps N] [--substeps K] [--out FILE]

Prints the time of scene.build() and of the first step; --out writes every step's particle
positions and velocities (JSON, one entry per step)."""

import argparse
import json
import time

import genesis as gs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", choices=["mpm", "sph", "pbd"], required=True)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--out")
    ap.add_argument("--substeps", type=int,
                    help="substeps per step (Genesis's default: 1; the MPM cube is stable from "
                         "16 on, the step's 10 ms over 625 us substeps)")
    opts = ap.parse_args()
    gs.init(backend=gs.cpu, logging_level="warning")
    lower, upper = (-0.5, -0.5, 0.0), (0.5, 0.5, 1.0)
    box = gs.morphs.Box(pos=(0.0, 0.0, 0.4), size=(0.2, 0.2, 0.2))
    sim = {} if opts.substeps is None else {
        "sim_options": gs.options.SimOptions(substeps=opts.substeps)}
    if opts.solver == "mpm":
        scene = gs.Scene(show_viewer=False, **sim, mpm_options=gs.options.MPMOptions(
            lower_bound=lower, upper_bound=upper, grid_density=32))
        entity = scene.add_entity(material=gs.materials.MPM.Elastic(), morph=box)
    elif opts.solver == "sph":
        scene = gs.Scene(show_viewer=False, **sim, sph_options=gs.options.SPHOptions(
            lower_bound=lower, upper_bound=upper, particle_size=0.04))
        entity = scene.add_entity(material=gs.materials.SPH.Liquid(), morph=box)
    else:
        scene = gs.Scene(show_viewer=False, **sim, pbd_options=gs.options.PBDOptions(
            lower_bound=lower, upper_bound=upper, particle_size=0.04))
        entity = scene.add_entity(material=gs.materials.PBD.Liquid(), morph=box)
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
            states.append({"pos": entity.get_particles_pos().tolist(),
                           "vel": entity.get_particles_vel().tolist()})
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump(states, f)
    print(json.dumps({"solver": opts.solver, "build_s": t1 - t0, "first_step_s": t2 - t1,
                      "steps": opts.steps}))


if __name__ == "__main__":
    main()
