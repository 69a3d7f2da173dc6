"""A small Quadrants app: `python -m app.main [--variant 1|2] [--calls N]` (run from tests/record).

Variant 1 and 2 call the kernels with different argument types and template values, so two
recorded runs merge into more instances than either has."""
import argparse

import numpy as np
import quadrants as qd

from app import config, kernels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", type=int, default=1)
    ap.add_argument("--calls", type=int, default=1)
    opts = ap.parse_args()
    qd.init(arch=qd.cpu, offline_cache=False, print_kernel_llvm_ir=False)
    config.init(1e-6)
    v = opts.variant
    a = qd.ndarray(qd.f32 if v == 1 else qd.i32, shape=(4,))
    b = qd.ndarray(qd.math.vec3, shape=(3,))
    for _ in range(opts.calls):
        kernels.k_arrays(a, b, 2.0)
    x = qd.ndarray(qd.f32, shape=(8,))
    kernels.k_eps(x)
    st = kernels.State(pos=np.zeros(5, np.float32), vel=np.ones(5, np.float32))
    kernels.k_state(st, config.Mode.FAST if v == 1 else config.Mode.EXACT)
    solver = kernels.Solver(iterations=2 if v == 1 else 3, mode=config.Mode.FAST)
    kernels.k_solver(x, solver, kernels.damp if v == 1 else kernels.boost)
    particles = kernels.Particles(4 if v == 1 else 6, scene={"solver": solver})
    particles.step(0.25)
    qd.sync()
    print(f"app: variant {v} ran, x[0] = {x.to_numpy()[0]:.6f}")


if __name__ == "__main__":
    main()
