#!/usr/bin/env python3
"""Building a Genesis scene's kernels ahead of time against Quadrants compiling them at run time,
in the same run on this machine (issue "Genesis, part 2").

For each scene (tests/genesis/scenes, recorded as tests/genesis/<scene>.qdrecord.json):
  qdbuild cold   `qdbuild build --root SITE SITE/genesis SITE/quadrants/_kernels.py --instances
                 RECORD` into a fresh store: kernels, instances, tasks, seconds
  Quadrants      the scene script (1 step) with an empty offline cache (QD_OFFLINE_CACHE_FILE_PATH
                 a fresh directory), then again with that now warm cache: scene.build() + first step
                 each; Quadrants' compile time is the difference
  incremental    one loop body of kernel_substep_post edited in a copy of the tree: tasks compiled
                 (on the CPU every Genesis loop is serialized, para_level NEVER, so a kernel is one
                 serial task: the edit recompiles the kernels whose task holds the loop)

Usage: genesis_build_bench.py [--scenes franka,go2,sph,pbd,mpm] [--qdbuild PATH]
                              [--python GENESIS_PY]
Prints one block per scene and the ratio (Quadrants cold compile / qdbuild cold build).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENES = os.path.join(ROOT, "tests", "genesis", "scenes")
SCENE_ARGS = {"franka": ["franka.py", "--steps", "1"], "go2": ["go2.py", "--steps", "1"],
              **{s: ["particles.py", "--solver", s, "--steps", "1"] for s in ("sph", "pbd", "mpm")}}
EDIT_FILE = os.path.join("genesis", "engine", "solvers", "rigid", "constraint", "solver.py")


def site_packages():
    found = glob.glob(os.path.join(ROOT, "build", "genesis-venv", "lib", "python3*",
                                   "site-packages"))
    return found[0] if found else None


def qdbuild_build(qdbuild, site, tree, record, store):
    t0 = time.perf_counter()
    p = subprocess.run([qdbuild, "build", "--root", site, os.path.join(tree, "genesis"),
                        os.path.join(tree, "quadrants", "_kernels.py"),
                        os.path.join(tree, "quadrants", "_funcs.py"), "--instances", record,
                        "--store", store, "--json"], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    doc = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
    return p.returncode, doc, wall, p.stderr


def scene_times(python, scene, cache):
    env = dict(os.environ, QD_OFFLINE_CACHE_FILE_PATH=cache)
    env.pop("QDRT_RECORD", None)
    p = subprocess.run([python, os.path.join(SCENES, SCENE_ARGS[scene][0]),
                        *SCENE_ARGS[scene][1:]], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{scene} exited {p.returncode}: {p.stderr[-2000:]}")
    doc = json.loads(p.stdout.strip().splitlines()[-1])
    return doc["build_s"] + doc["first_step_s"]


def incremental(qdbuild, site, record, tmp):
    """Copies the Python files of genesis + quadrants/_kernels.py, builds, edits one loop body of
    the rigid solver's forward dynamics, rebuilds: the second build's task counts."""
    tree = os.path.join(tmp, "site")
    for rel in ("genesis",):
        shutil.copytree(os.path.join(site, rel), os.path.join(tree, rel),
                        ignore=lambda d, names: [n for n in names if not n.endswith(".py") and
                                                 not os.path.isdir(os.path.join(d, n))])
    os.makedirs(os.path.join(tree, "quadrants"), exist_ok=True)
    for f in ("_kernels.py", "_funcs.py"):
        shutil.copy(os.path.join(site, "quadrants", f), os.path.join(tree, "quadrants"))
    store = os.path.join(tmp, "inc-store")
    rc, first, _, err = qdbuild_build(qdbuild, tree, tree, record, store)
    if rc != 0:
        return f"first build failed ({rc}): {err[-500:]}"
    path = os.path.join(tree, EDIT_FILE)
    with open(path) as f:
        text = f.read()
    # func_resolve_post's loop body (one top-level loop of kernel_substep_post; the func is also
    # called by one other kernel).
    needle = "dyn_state.dofs.acc[i_d, i_b] = constraint_state.qacc[i_d, i_b]"
    if needle not in text:
        return "the edited line is not in this Genesis version"
    with open(path, "w") as f:
        f.write(text.replace(needle, needle + " * 1.0", 1))
    rc, second, wall, err = qdbuild_build(qdbuild, tree, tree, record, store)
    if rc != 0:
        return f"rebuild failed ({rc}): {err[-500:]}"
    t = second["tasks"]
    return (f"{t['compiled']} task(s) compiled, {t['reused']} reused; {second['kernels']} kernels "
            f"re-lowered (their keys hash the edited file), {second['modules_linked']} module(s) "
            f"linked; {wall:.2f}s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", default="franka,go2,sph,pbd,mpm")
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--no-quadrants", action="store_true", help="skip the Quadrants runs")
    opts = ap.parse_args()
    site = site_packages()
    if site is None:
        print("genesis_build_bench: no build/genesis-venv (scripts/setup.sh)")
        return 125
    with tempfile.TemporaryDirectory(prefix="qd-genesis-bench-") as tmp:
        for scene in opts.scenes.split(","):
            record = os.path.join(ROOT, "tests", "genesis", f"{scene}.qdrecord.json")
            if not os.path.exists(record):
                print(f"{scene}: no record {record}")
                continue
            store = os.path.join(tmp, f"{scene}-store")
            rc, doc, wall, err = qdbuild_build(opts.qdbuild, site, site, record, store)
            print(f"== {scene}")
            if rc != 0 and not doc.get("failed"):
                print(f"  qdbuild build exited {rc}: {err[-1500:]}")
                continue
            if doc.get("failed"):
                print(f"  not built: {', '.join(doc['failed'])} (the rest is timed)")
            print(f"  qdbuild cold build: {doc['kernels']} kernels, {doc['instances']} instances, "
                  f"{doc['tasks']['compiled']} tasks, {wall:.1f}s")
            if not opts.no_quadrants:
                cache = os.path.join(tmp, f"{scene}-qdcache")
                os.makedirs(cache)
                cold = scene_times(opts.python, scene, cache)
                warm = scene_times(opts.python, scene, cache)
                compile_s = cold - warm
                print(f"  Quadrants: scene.build() + first step {cold:.1f}s cold, {warm:.1f}s warm "
                      f"cache: {compile_s:.1f}s compiling")
                print(f"  ratio: Quadrants cold compile / qdbuild cold build = "
                      f"{compile_s / wall:.2f}")
            if scene == "franka":
                print("  incremental (one loop body of kernel_substep_post edited): "
                      + incremental(opts.qdbuild, site, record, tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
