#!/usr/bin/env python3
"""The embedding API end to end (docs/embedding.md): examples/embed/main.cpp, linked against
libqdbuild.so, checks and builds a copy of examples/ into a fresh store and prints what it did;
then again on the unchanged tree (a no-op). Both outputs are compared exactly, only the build time
in the summary line masked ("in <t>s"). Also: the program links libqdbuild.so (ldd), not a copy
of the compiler, and the store it wrote is the one `qdbuild build` would write (verify clean).
Usage: run_embed.py --example PATH --examples DIR [--expect-lib DIR]     Exit: 0 pass; 1 fail.
"""
import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import qdtest  # noqa: E402

FIRST = """libqdbuild 0.1.0
check: 4 files, 12 kernels, 0 errors, 8 warnings
cpu: 12 kernels, 12 instances, 28 tasks (26 compiled, 2 reused), 3 modules linked
qdbuild: built 12 kernels (12 instances): 26 tasks compiled, 2 reused, 3 modules linked in <t>s
"""
SECOND = """libqdbuild 0.1.0
check: 4 files, 12 kernels, 0 errors, 8 warnings
cpu: no work to do
qdbuild: no work to do.
"""

CHECKS = qdtest.Checks("embed")
check = CHECKS.check


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--example", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--expect-lib", help="the directory libqdbuild.so must be loaded from")
    a = ap.parse_args()
    with CHECKS.workdir("qd-embed-") as tmp:
        src = tmp / "examples"
        src.mkdir()
        for f in sorted(Path(a.examples).glob("*.py")):
            shutil.copy(f, src / f.name)
        example = str(Path(a.example).resolve())
        ldd = subprocess.run(["ldd", example], capture_output=True, text=True).stdout
        lib = [line for line in ldd.splitlines() if "libqdbuild.so" in line]
        if check(lib, f"the example does not load libqdbuild.so: {ldd}") and a.expect_lib:
            check(str(Path(a.expect_lib).resolve()) + "/libqdbuild.so" in lib[0],
                  f"libqdbuild.so not from {a.expect_lib}: {lib[0]}")
        for n, expected in enumerate((FIRST, SECOND), 1):
            p = subprocess.run([example, "examples", "store"], cwd=tmp, capture_output=True,
                               text=True, timeout=500)
            out = re.sub(r" in [0-9.]+s\n", " in <t>s\n", p.stdout)
            if check(p.returncode == 0 and out == expected,
                     f"run {n}: exit {p.returncode}\n--- expected\n{expected}--- got\n"
                     f"{out}--- stderr\n{p.stderr[-2000:]}"):
                print(f"ok   run {n}:\n{p.stdout}", end="")
        check((tmp / "store" / "index.qdi").exists(), "no index in the store")
        check((tmp / "store" / "CACHEDIR.TAG").exists(), "the store has no CACHEDIR.TAG")
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
