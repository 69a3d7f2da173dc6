"""What the Genesis tests and benchmarks share: the Genesis venv's site-packages and a store built from a
scene's record (every kernel the scene calls: Genesis's and Quadrants' own _kernels.py)."""
import glob
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def site_packages():
    """build/genesis-venv's site-packages, or None without the venv."""
    found = glob.glob(os.path.join(ROOT, "build", "genesis-venv", "lib", "python3*",
                                   "site-packages"))
    return found[0] if found else None


def build_args(site, record):
    """The `qdbuild build` arguments that build a record's kernels (Genesis's and Quadrants' own
    _kernels.py, with the funcs of _funcs.py they call), less the store."""
    return ["--root", site, os.path.join(site, "genesis"),
            os.path.join(site, "quadrants", "_kernels.py"),
            os.path.join(site, "quadrants", "_funcs.py"), "--instances", record]


def build_store(qdbuild, site, record, store, *extra):
    """`qdbuild build` of the record's kernels into `store`; the CompletedProcess."""
    return subprocess.run([qdbuild, "build", *build_args(site, record), "--store", store, *extra],
                          capture_output=True, text=True)
