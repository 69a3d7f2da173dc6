#!/usr/bin/env python3
"""Records a scene on CPU under the real Genesis and Quadrants and compares the record with the
committed one (tests/genesis/SCENE.qdrecord.json, which the tests that only need a record use
without the Genesis venv).

  record_franka.py [--scene franka|sph|pbd|mpm] [--python build/genesis-venv/bin/python]
                   [--steps 5]

The record must be byte-identical; for Franka: the same 24 Genesis kernels and 2 of Quadrants
itself, 30 instances, the same run-time defines (gs.EPS, gs.qd_float, gs.cpu ...); for the
particle scenes (scenes/particles.py) the data_oriented solvers' `self` as Quadrants' trace read
it (fields with their shapes, the members the kernels read). QD_UPDATE_SNAPSHOTS=1
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

SCENES = {"franka": ["franka.py"], "sph": ["particles.py", "--solver", "sph"],
          "pbd": ["particles.py", "--solver", "pbd"], "mpm": ["particles.py", "--solver", "mpm"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--scene", choices=sorted(SCENES), default="franka")
    opts = ap.parse_args()
    committed = os.path.join(HERE, f"{opts.scene}.qdrecord.json")
    if not os.path.exists(opts.python) or subprocess.run(
            [opts.python, "-c", "import genesis"], capture_output=True).returncode != 0:
        skip_policy.skip("no-genesis-venv", "recording a scene runs Genesis")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, f"{opts.scene}.json")
        env = dict(os.environ)
        env.pop("QDRT_RECORD", None)
        env["PYTHONPATH"] = os.path.join(ROOT, "runtime", "python")
        p = subprocess.run([opts.python, "-m", "qdrt.record", "-o", out, "--",
                            os.path.join(HERE, "scenes", SCENES[opts.scene][0]),
                            *SCENES[opts.scene][1:], "--steps", str(opts.steps)],
                           env=env, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            print(f"FAIL: the recorded {opts.scene} run exited {p.returncode}\n"
                  f"{p.stderr[-4000:]}")
            return 1
        print(p.stdout.strip().splitlines()[-1] if p.stdout.strip() else "(no output)")
        with open(out, "rb") as f:
            got = f.read()
    doc = json.loads(got)
    # The "modules" table holds this machine's paths (site-packages): checked, then left out of
    # the comparison with the committed record, which does not carry it.
    modules = doc.pop("modules", {})
    site = subprocess.run([opts.python, "-c", "import os, genesis; print(os.path.dirname("
                           "os.path.dirname(os.path.abspath(genesis.__file__))))"],
                          capture_output=True, text=True).stdout.strip().splitlines()[-1:]
    bad_modules = [m for m, e in modules.items()
                   if not (os.path.isfile(e["file"]) and [e["root"]] == site)]
    if not modules or bad_modules:
        print(f"FAIL: the record's modules are not files under Genesis's site-packages: "
              f"{bad_modules or 'no modules table'}")
        return 1
    got = (json.dumps(doc, sort_keys=True, indent=1) + "\n").encode()
    n_inst = sum(len(v) for v in doc["kernels"].values())
    ours = [k for k in doc["kernels"] if k.startswith("genesis.")]
    print(f"recorded {len(doc['kernels'])} kernels ({len(ours)} of Genesis), {n_inst} instances, "
          f"{len(doc['defines'])} defines")
    if os.environ.get("QD_UPDATE_SNAPSHOTS") == "1":
        with open(committed, "wb") as f:
            f.write(got)
        print(f"updated {committed}")
    with open(committed, "rb") as f:
        want = f.read()
    if got != want:
        old = json.loads(want)
        gone = sorted(set(old["kernels"]) - set(doc["kernels"]))
        new = sorted(set(doc["kernels"]) - set(old["kernels"]))
        print(f"FAIL: the record differs from {committed} (kernels gone {gone}, new {new}; "
              f"QD_UPDATE_SNAPSHOTS=1 rewrites it after review)")
        return 1
    if opts.scene != "franka":
        print(f"the {opts.scene} record matches the committed one")
        return 0
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
