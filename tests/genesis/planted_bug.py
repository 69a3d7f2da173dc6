#!/usr/bin/env python3
"""The Go2 comparison still fails on a real narrow-phase difference: a copy of Genesis with a
planted bug is built by qdbuild while Quadrants runs the real Genesis, and compare_kernels.py must
report kernel_detection as differing, also from Quadrants' fast_math=False run on the same inputs
(its arbiter must not settle a real difference).

  planted_bug.py [--qdbuild build/bin/qdbuild] [--python build/genesis-venv/bin/python]

The bug: narrowphase.py's repeated-contact check reads the slot after the pair's last contact
(`n_contacts - i_c` for `n_contacts - 1 - i_c`), so a multi-contact point that repeats the last one
is kept. Exit 0 when the comparison fails as it must; 1 otherwise; 125 without Genesis."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import genesis_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FILE = os.path.join("genesis", "engine", "solvers", "rigid", "collider", "narrowphase.py")
RIGHT = "idx_prev = collider_state.n_contacts[i_b] - 1 - i_c"
PLANTED = "idx_prev = collider_state.n_contacts[i_b] - i_c"
KERNEL = "genesis.engine.solvers.rigid.collider.collider:kernel_detection"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    opts = ap.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
    import skip_policy
    site = genesis_env.site_packages()
    if site is None or not os.path.exists(opts.python):
        skip_policy.skip("no-genesis-venv", "the comparison runs the Genesis scene")
    with tempfile.TemporaryDirectory(prefix="qd-planted-") as tmp:
        shutil.copytree(os.path.join(site, "genesis"), os.path.join(tmp, "genesis"),
                        ignore=shutil.ignore_patterns("__pycache__", "assets"))
        os.makedirs(os.path.join(tmp, "quadrants"))
        for f in ("_kernels.py", "_funcs.py"):
            shutil.copy(os.path.join(site, "quadrants", f), os.path.join(tmp, "quadrants", f))
        path = os.path.join(tmp, FILE)
        text = open(path).read()
        if text.count(RIGHT) != 1:
            print(f"FAIL: {FILE} has {text.count(RIGHT)} copies of the line to plant the bug in")
            return 1
        open(path, "w").write(text.replace(RIGHT, PLANTED))
        p = subprocess.run([sys.executable, os.path.join(HERE, "compare_kernels.py"),
                            "--qdbuild", opts.qdbuild, "--python", opts.python, "--scene", "go2",
                            "--steps", "1", "--arbitrated-calls", "1", "--build-site", tmp],
                           capture_output=True, text=True)
    out = p.stdout
    print(out[-4000:])
    differs = any(line.startswith(f"DIFF  {KERNEL}:") for line in out.splitlines())
    judged = "against fast_math=False too" in out
    if p.returncode == 1 and differs and judged:
        print("PASS: the planted narrow-phase bug fails the comparison, also against Quadrants' "
              "fast_math=False run")
        return 0
    print(f"FAIL: with the planted bug compare_kernels.py exited {p.returncode} (DIFF of "
          f"kernel_detection: {differs}; judged against fast_math=False: {judged})\n"
          f"{p.stderr[-2000:]}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
