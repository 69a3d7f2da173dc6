#!/usr/bin/env python3
"""Records the Franka scene on CPU under the real Genesis and Quadrants and compares the record
with the committed one (tests/genesis/franka.qdrecord.json, which the tests that only need a
record use without the Genesis venv).

  record_franka.py [--python build/genesis-venv/bin/python] [--steps 5]

The record must be byte-identical: the same 24 Genesis kernels and 2 of Quadrants itself, 30
instances, the same run-time defines (gs.EPS, gs.qd_float, gs.cpu ...). QD_UPDATE_SNAPSHOTS=1
rewrites the committed file. The first run on a machine compiles Genesis's kernels (about a
minute and a half here); later runs use Quadrants' offline cache. Exit 0 / 1; 125 without the
venv (skip policy "no-genesis-venv").
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import skip_policy  # noqa: E402

COMMITTED = os.path.join(HERE, "franka.qdrecord.json")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--steps", type=int, default=5)
    opts = ap.parse_args()
    if not os.path.exists(opts.python) or subprocess.run(
            [opts.python, "-c", "import genesis"], capture_output=True).returncode != 0:
        skip_policy.skip("no-genesis-venv", "recording the Franka scene runs Genesis")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "franka.json")
        env = dict(os.environ)
        env.pop("QDRT_RECORD", None)
        env["PYTHONPATH"] = os.path.join(ROOT, "runtime", "python")
        p = subprocess.run([opts.python, "-m", "qdrt.record", "-o", out, "--",
                            os.path.join(HERE, "scenes", "franka.py"), "--steps",
                            str(opts.steps)], env=env, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            print(f"FAIL: the recorded Franka run exited {p.returncode}\n{p.stderr[-4000:]}")
            return 1
        print(p.stdout.strip().splitlines()[-1] if p.stdout.strip() else "(no output)")
        with open(out, "rb") as f:
            got = f.read()
    doc = json.loads(got)
    n_inst = sum(len(v) for v in doc["kernels"].values())
    ours = [k for k in doc["kernels"] if k.startswith("genesis.")]
    print(f"recorded {len(doc['kernels'])} kernels ({len(ours)} of Genesis), {n_inst} instances, "
          f"{len(doc['defines'])} defines")
    if os.environ.get("QD_UPDATE_SNAPSHOTS") == "1":
        with open(COMMITTED, "wb") as f:
            f.write(got)
        print(f"updated {COMMITTED}")
    with open(COMMITTED, "rb") as f:
        want = f.read()
    if got != want:
        old = json.loads(want)
        gone = sorted(set(old["kernels"]) - set(doc["kernels"]))
        new = sorted(set(doc["kernels"]) - set(old["kernels"]))
        print(f"FAIL: the record differs from {COMMITTED} (kernels gone {gone}, new {new}; "
              f"QD_UPDATE_SNAPSHOTS=1 rewrites it after review)")
        return 1
    checks = [(len(doc["kernels"]) == 26 and len(ours) == 24, "26 kernels, 24 of Genesis"),
              (n_inst == 30, "30 instances"),
              (doc["defines"].get("genesis.qd_float") == {"dtype": "f32"}, "gs.qd_float = f32"),
              (doc["defines"].get("genesis.EPS") == 1.1920928955078125e-07, "gs.EPS = 2**-23")]
    bad = [what for ok, what in checks if not ok]
    for what in bad:
        print(f"FAIL: {what}")
    if not bad:
        print("the Franka record matches the committed one")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
