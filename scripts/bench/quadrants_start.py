"""Side-by-side start time against the real Quadrants (run by start_bench.py under the Quadrants
virtualenv, build/venv/bin/python), in a fresh process: import quadrants, qd.init(arch=qd.cpu)
with the offline cache in CACHE_DIR, then import the first MODULES generated modules and make
every kernel in them ready the only way Quadrants can: call it once (small numpy arguments; with
a warm offline cache this re-parses and re-analyses the kernel, then loads the cached binary).
Prints one line of key=value pairs: init_ms (import quadrants + qd.init), import_ms (executing the
modules: decorators only), ready_ms (the first call of every kernel), kernels.

Usage: quadrants_start.py SRC_DIR MODULES CACHE_DIR
"""
import importlib.util
import os
import sys
import time


KINDS = ("saxpy", "blend", "stencil", "dot", "count", "normalize")


def arguments(name, np):
    """Arguments for the generated kernel kinds (start_bench.py's KINDS), by name prefix."""
    f = lambda n=8: np.linspace(0.0, 1.0, n, dtype=np.float32)  # noqa: E731
    kind = name.rsplit("_", 1)[0]
    if kind == "saxpy":
        return (np.float32(2.0), f(), f())
    if kind == "blend":
        return (f(), f(), f(), np.float32(0.5))
    if kind == "stencil":
        return (np.ones((8, 8), np.float32), np.zeros((8, 8), np.float32))
    if kind == "dot":
        return (f(), f())
    if kind == "count":
        return (f(), np.zeros(4, np.int32))
    if kind == "normalize":
        return (f(), f())
    raise SystemExit("quadrants_start: unknown kernel kind '%s'" % name)


def main():
    src, modules, cache = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    t0 = time.perf_counter()
    import numpy as np
    import quadrants as qd

    qd.init(arch=qd.cpu, log_level=qd.ERROR, offline_cache=True, offline_cache_file_path=cache)
    t1 = time.perf_counter()
    files = sorted(f for f in os.listdir(src) if f.endswith(".py"))[:modules]
    loaded = []
    for fname in files:
        spec = importlib.util.spec_from_file_location(fname[:-3], os.path.join(src, fname))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        loaded.append(module)
    t2 = time.perf_counter()
    kernels = 0
    for module in loaded:
        for name in sorted(vars(module)):
            if name.split("_")[0] in KINDS:
                getattr(module, name)(*arguments(name, np))
                kernels += 1
    t3 = time.perf_counter()
    print("init_ms=%.3f import_ms=%.3f ready_ms=%.3f kernels=%d" %
          ((t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, kernels))

if __name__ == "__main__":
    main()
