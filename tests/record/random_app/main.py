"""An app that draws qd.random (tests/record/test_bridge_random.py): a parallel sampler, a
serial random walk in a @qd.func, and a data_oriented solver whose kernel jitters a field.

  python main.py [--seed N] [--threads N] [--rounds N] [--skip sample]

Prints one JSON line: every array the kernels wrote, as lists (bit patterns compare exactly)."""

import argparse
import json

import numpy as np
import quadrants as qd

from draws import Jitter, sample, walk


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip", action="append", default=[],
                    help="a kernel this run does not call (a record of it lacks that kernel)")
    opts = ap.parse_args()
    qd.init(arch=qd.cpu, random_seed=opts.seed, cpu_max_num_threads=opts.threads)
    jitter = Jitter(8)
    out = {"sample": [], "walk": [], "turns": []}
    for _ in range(opts.rounds):
        if "sample" not in opts.skip:
            s = np.zeros((5, 3), np.float32)
            sample(s, -1.0, 2.0)
            out["sample"].append(s.tolist())
        path = np.zeros(16, np.float64)
        out["turns"].append(int(walk(path, 0.25)))
        out["walk"].append(path.tolist())
        if "shake" not in opts.skip:
            jitter.shake(0.1)
    out["pos"] = jitter.pos.to_numpy().tolist()
    out["hits"] = jitter.hits.to_numpy().tolist()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
