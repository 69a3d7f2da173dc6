#!/usr/bin/env python3
"""The device bundle without a GPU (docs/cuda.md "The device bundle"): scripts/gpu-bundle.sh
makes build/gpu-bundle (at most 56 MiB); a copy in an empty directory, run with nothing but bash
and python3 on PATH and no other environment (no build tree, no LLVM, no CUDA library path),
passes its CPU-side self checks (qd.random's draws among them) and stops at the GPU probe with
exit 125; every corpus case was built for cuda:sm_90. With one reference output changed, the
CPU-side check fails (exit 1) and names the case.

Usage: test_gpu_bundle.py    Exit: 0 all passed; 1 a failure.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import qdtest  # noqa: E402

CHECKS = qdtest.Checks("gpu_bundle")
check = CHECKS.check


def run_bundle(bundle, tmp):
    """run.sh of `bundle` in a clean environment: PATH holds bash and python3 only."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("bash", "python3"):
        link = bin_dir / tool
        if not link.exists():
            link.symlink_to(shutil.which(tool))
    out = tmp / "out"
    out.mkdir(exist_ok=True)
    return subprocess.run(["bash", str(bundle / "run.sh")], capture_output=True, text=True,
                          cwd=tmp, timeout=600,
                          env={"PATH": str(bin_dir), "HOME": str(tmp), "QD_BUNDLE_OUT": str(out)})


def main():
    p = subprocess.run([str(ROOT / "scripts" / "gpu-bundle.sh")], capture_output=True, text=True,
                       cwd=ROOT, timeout=1200, env=dict(os.environ, QD_BUNDLE_NO_BUILD="1"))
    print(p.stdout[-1500:], p.stderr[-1500:])
    if not check(p.returncode == 0, f"scripts/gpu-bundle.sh exits 0 (exit {p.returncode})"):
        return CHECKS.finish()
    not_built = (ROOT / "build" / "gpu-bundle" / "reference" / "not_built.txt").read_text()
    check(not_built == "", "every corpus case built for cuda:sm_90 (reference/not_built.txt "
          f"empty): {not_built[:500]}")
    size = sum(f.stat().st_size for f in (ROOT / "build" / "gpu-bundle").rglob("*") if f.is_file())
    check(size <= 56 * 1024 * 1024, f"the bundle is at most 56 MiB ({size} bytes)")
    with CHECKS.workdir("qd-gpu-bundle-") as tmp:
        bundle = tmp / "bundle"
        shutil.copytree(ROOT / "build" / "gpu-bundle", bundle)
        r = run_bundle(bundle, tmp)
        print(r.stdout[-2000:], r.stderr[-2000:])
        check(r.returncode == 125, f"no GPU: run.sh exits 125 (exit {r.returncode})")
        ref = json.loads((bundle / "reference" / "corpus_cpu.json").read_text())
        n = len(ref["cases"])
        check(n >= 150 and f"{n}/{n} cases the same" in r.stdout,
              f"the CPU-side check ran every recorded case ({n}) and all matched")
        check("qd.random (this CPU, one state)" in r.stdout and "4006 draws, 0 wrong" in r.stdout,
              "the CPU-side check drew qd.random as the model of Quadrants' generator does")
        # One recorded output changed: the check must fail and name the case.
        name = sorted(ref["cases"])[0]
        snap = ref["cases"][name]
        key = next(k for k in sorted(snap) if snap[k] not in (None, []))
        snap[key] = [v + 1 for v in snap[key]] if isinstance(snap[key], list) else snap[key] + 1
        (bundle / "reference" / "corpus_cpu.json").write_text(json.dumps(ref))
        r = run_bundle(bundle, tmp)
        check(r.returncode == 1 and f"FAIL {name}" in r.stdout,
              f"a changed reference fails the CPU-side check naming {name} (exit {r.returncode})")
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
