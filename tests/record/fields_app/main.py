"""Runs the fields app and prints its state as JSON (tests/record/test_bridge_fields.py):
  main.py [--n N] [--steps S] [--refusals]

--refusals also calls kernels on fields the bridge cannot pass (an offset, a sparse SNode,
nested dense SNodes: nested_scale's instance built for a dense 4x2 field fits the last one's
description) and a reverse-mode autodiff kernel."""
import argparse
import json
import sys

import quadrants as qd

import particles

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=64)
ap.add_argument("--steps", type=int, default=5)
ap.add_argument("--refusals", action="store_true")
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
if args.refusals:
    dense = qd.field(qd.f32, shape=(4, 2))
    shifted = qd.field(qd.f32, shape=(4, 2), offset=(-2, 0))
    sparse = qd.field(qd.f32)
    qd.root.pointer(qd.i, 4).dense(qd.j, 2).place(sparse)
    nested = qd.field(qd.f32)
    qd.root.dense(qd.i, 4).dense(qd.j, 2).place(nested)
    x = qd.field(qd.f32, shape=(8,), needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)
    for f in (dense, shifted, nested):
        f.fill(1.5)
    for i in range(4):
        for j in range(2):
            sparse[i, j] = 1.5 + i
    particles.shifted_scale(shifted, 3.0)
    particles.sparse_scale(sparse, 3.0)
    particles.nested_scale(dense, 3.0)
    particles.nested_scale(nested, 3.0)
    x.from_numpy(__import__("numpy").arange(8, dtype="float32"))
    particles.square_sum(x, loss)
    loss.grad[None] = 1.0
    particles.square_sum.grad(x, loss)
    state.update({"dense": dense.to_numpy().tolist(), "shifted": shifted.to_numpy().tolist(),
                  "sparse": [[float(sparse[i, j]) for j in range(2)] for i in range(4)],
                  "nested": nested.to_numpy().tolist(), "loss": float(loss[None]),
                  "x.grad": x.grad.to_numpy().tolist()})
json.dump(state, sys.stdout)
