#!/usr/bin/env python3
"""qd.random through the bridge, end to end, under the real Quadrants (build/venv):
tests/record/random_app (a parallel sampler, a serial walk drawing in a @qd.func, a
data_oriented kernel drawing into fields).

  test_bridge_random.py --qdbuild build/bin/qdbuild [--python build/venv/bin/python]

  * recorded, built, run on Quadrants and on the store with one thread: every call served (no
    fallback) and every number equal to Quadrants' (a served call draws from Quadrants' own
    generator states and leaves them where Quadrants continues);
  * another random_seed with the same store: still Quadrants' numbers;
  * a store without the sampler (recorded with --skip sample; its template parameters need a
    record): the sampler runs on Quadrants
    between served calls of the others, and the numbers are still Quadrants' (the two share one
    sequence);
  * two threads: Quadrants' own draws in a parallel loop depend on which thread runs which
    iteration, so the serial walk is compared when it runs alone; with every kernel, each call
    is still served.

Exit 0 / 1; 125 without build/venv (skip policy "no-quadrants-venv").
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
APP = os.path.join(HERE, "random_app")
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import qdtest  # noqa: E402
import skip_policy  # noqa: E402

CHECKS = qdtest.Checks("qd.random through the bridge")
check = CHECKS.check


def run(python, args, **extra):
    env = dict(os.environ)
    for k in ("QDRT_RECORD", "QDRT_STORE", "QDRT_STORE_STATS"):
        env.pop(k, None)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "runtime", "python"), APP])
    env["QDRT_LIBRARY"] = os.environ.get("QDRT_LIBRARY",
                                         os.path.join(ROOT, "build", "lib", "libqdrt.so"))
    env.update(extra)
    p = subprocess.run([python, *args], cwd=APP, env=env, capture_output=True, text=True)
    if not check(p.returncode == 0, f"{' '.join(args)}: exit {p.returncode}\n{p.stderr[-3000:]}"):
        return None
    return json.loads(p.stdout.strip().splitlines()[-1])


def build(qdbuild, tree, record, store):
    p = subprocess.run([qdbuild, "build", "--root", tree, os.path.join(tree, "draws.py"),
                        os.path.join(tree, "quadrants", "_kernels.py"), "--instances", record,
                        "--store", store], capture_output=True, text=True)
    check(p.returncode == 0, f"qdbuild build: exit {p.returncode}\n{p.stderr[-3000:]}")


def served(python, store, tmp, args, expect, what, kernels=None, fallback=None):
    stats = os.path.join(tmp, "stats.json")
    got = run(python, ["main.py", *args], QDRT_STORE=store, QDRT_STORE_STATS=stats)
    if got is None or expect is None:
        return
    keys = list(expect) if kernels is None else kernels
    check(all(got[k] == expect[k] for k in keys),
          f"{what}: the numbers differ from Quadrants' in " +
          ", ".join(k for k in keys if got[k] != expect[k]))
    s = json.load(open(stats))
    fb = {k: v["reason"] for k, v in s["fallback"].items()}
    check(set(fb) == set(fallback or ()), f"{what}: fallbacks {fb}, expected {fallback or []}")
    print(f"{what}: {sum(s['served'].values())} calls of {len(s['served'])} kernels served, "
          f"fallback {fb or 'none'}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "venv", "bin", "python"))
    opts = ap.parse_args()
    site = glob.glob(os.path.join(os.path.dirname(os.path.dirname(opts.python)), "lib",
                                  "python3*", "site-packages", "quadrants"))
    if not os.path.exists(opts.python) or not site:
        skip_policy.skip("no-quadrants-venv", "the random app runs on the real Quadrants")
    py = opts.python
    with tempfile.TemporaryDirectory(prefix="qd-bridge-random-") as tmp:
        # The app's file and Quadrants' package under one root (module ids draws:...,
        # quadrants._kernels:... for the fields' to_numpy).
        tree = os.path.join(tmp, "tree")
        os.makedirs(tree)
        os.symlink(os.path.join(APP, "draws.py"), os.path.join(tree, "draws.py"))
        os.symlink(site[0], os.path.join(tree, "quadrants"))
        record, store = os.path.join(tmp, "r.json"), os.path.join(tmp, "store")
        run(py, ["-m", "qdrt.record", "-o", record, "--", "main.py"])
        build(opts.qdbuild, tree, record, store)

        plain = run(py, ["main.py"])
        served(py, store, tmp, [], plain, "seed 0, one thread")
        plain3 = run(py, ["main.py", "--seed", "3"])
        check(plain3 is None or plain is None or plain3["walk"] != plain["walk"],
              "random_seed 3 draws what random_seed 0 draws")
        served(py, store, tmp, ["--seed", "3"], plain3, "seed 3 on the same store")

        partial_record, partial = os.path.join(tmp, "p.json"), os.path.join(tmp, "partial")
        run(py, ["-m", "qdrt.record", "-o", partial_record, "--", "main.py", "--skip", "sample"])
        build(opts.qdbuild, tree, partial_record, partial)
        served(py, partial, tmp, [], plain, "sampler on Quadrants between served calls",
               fallback=["draws:sample"])

        # Two threads: the serial walk alone (a parallel kernel's draws depend on which thread
        # takes which iteration, in Quadrants as on the store, and move the states the walk
        # draws from), then everything, served, the walk's numbers not compared.
        two = ["--threads", "2", "--skip", "sample", "--skip", "shake"]
        served(py, store, tmp, two, run(py, ["main.py", *two]), "two threads, the walk alone")
        served(py, store, tmp, ["--threads", "2"], run(py, ["main.py", "--threads", "2"]),
               "two threads, every kernel (not compared)", kernels=[])
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
