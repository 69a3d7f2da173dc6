"""Runs the fields app and prints its state as JSON (tests/record/test_bridge_fields.py):
  main.py [--n N] [--steps S]"""
import argparse
import json
import sys

import quadrants as qd

import particles

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=64)
ap.add_argument("--steps", type=int, default=5)
args = ap.parse_args()
qd.init(arch=qd.cpu, offline_cache=False, cpu_max_num_threads=1)
s = particles.Particles(args.n)
s.init(0.5)
for _ in range(args.steps):
    s.step(0.01)
    particles.scale(s.force, 0.5)
s.hist.fill(3)
s.p.rho.fill(2.0)
s.step(0.01)
state = {"pos": s.p.pos.to_numpy().tolist(), "vel": s.p.vel.to_numpy().tolist(),
         "rho": s.p.rho.to_numpy().tolist(), "cell": s.p.cell.to_numpy().tolist(),
         "force": s.force.to_numpy().tolist(), "frame": s.frame.to_numpy().tolist(),
         "energy": float(s.energy[None]), "hist": s.hist.to_numpy().tolist()}
json.dump(state, sys.stdout)
