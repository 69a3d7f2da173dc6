"""Side-by-side launch overhead against the real Quadrants (run by launch_bench.py under the
Quadrants virtualenv, build/venv/bin/python): in one interpreter, with the same numpy array and
int, times
  plain   a plain Python function call (the baseline)
  qd      Quadrants' own launch of the same empty kernel on qd.cpu (compiled before timing)
  qdrt    the qdrt binding's launch of the qdbuild-compiled kernel (STORE, KERNEL_ID)
and prints one line of key=value pairs (nanoseconds per call, best of 5).

Usage: quadrants_launch.py SOURCE_FILE STORE KERNEL_ID CALLS
"""
import importlib.util
import os
import sys
import timeit

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))


def main():
    source, store_dir, kernel_id, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    import numpy as np
    import quadrants as qd
    import qdrt

    qd.init(arch=qd.cpu, log_level=qd.ERROR, cpu_max_num_threads=1)
    spec = importlib.util.spec_from_file_location("bench_launch", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the same file qdbuild compiled
    x = np.zeros(16, dtype=np.float32)
    module.noop(x, 3)  # Quadrants compiles on the first call
    kernel = qdrt.open(store_dir).kernel(kernel_id)
    kernel(x, 3)

    def plain(x, n):
        pass

    def best(fn):
        return min(timeit.repeat(fn, number=calls, repeat=5)) / calls * 1e9

    print("plain=%.1f qd=%.1f qdrt=%.1f" %
          (best(lambda: plain(x, 3)), best(lambda: module.noop(x, 3)), best(lambda: kernel(x, 3))))


if __name__ == "__main__":
    main()
