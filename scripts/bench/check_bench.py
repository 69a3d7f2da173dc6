#!/usr/bin/env python3
"""Check benchmark: `qdbuild check` vs the parse alone vs CPython 3.12's ast.parse.

Generates N kernel files (default 500; Genesis-style: constants, an options module imported by
every file, funcs calling funcs, qd.static loops, a data_oriented solver, a dataclass parameter,
fastcache kernels), then in one run, over the same files:
  - `qdbuild check DIR`                 wall clock, all cores and -j 1 (best of R)
  - `qdbuild check --keys DIR`          the same, computing every kernel key too
  - `qdbuild check --parse-only DIR`    the same process reading and parsing only (best of R)
  - CPython 3.12: read + ast.parse of every file in one process (best of R)
and prints the ratios. Targets (issue 3): check <= 3x parse-only (analysis at most 2x the parse),
and check >= 5x faster than ast.parse. A benchmark, not a test: never fails on timings.

Usage: check_bench.py [--build-dir build] [--files N] [--repeat R] [--keep DIR]
Exit: 0; 1 if qdbuild failed; 125 if not running under CPython 3.12.
"""
import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "lib"))
import qdtest  # noqa: E402

OPTIONS = '''"""Shared options of the generated tree."""
import enum

import quadrants as qd

EPS = 1e-8
N_SUBSTEPS = 4
DAMPING = 0.02
vec3 = qd.types.vector(3, qd.f32)


class Mode(enum.IntEnum):
    FAST = 0
    SAFE = 1
'''

TEMPLATE = '''"""Generated kernel file {i}."""
import dataclasses

import quadrants as qd
from quadrants.lang._fast_caching import FIELD_METADATA_CACHE_VALUE

from . import options
from .options import EPS, N_SUBSTEPS, Mode, vec3

SCALE_{i} = {i} * 0.5 + 1.0
OFFSETS_{i} = (1, 2, {i} % 7)
LIMIT_{i} = 2 ** ({i} % 10) + len(OFFSETS_{i})


@dataclasses.dataclass
class Params{i}:
    dt: float = 0.01
    layers: int = dataclasses.field(default={layers}, metadata={{FIELD_METADATA_CACHE_VALUE: True}})
    pos: qd.types.NDArray[qd.f32, 1] = None


@qd.func
def clamp{i}(x: qd.f32, lo: qd.f32, hi: qd.f32) -> qd.f32:
    return qd.max(lo, qd.min(x, hi))


@qd.func
def damp{i}(v: vec3, dt: qd.f32) -> vec3:
    return v * qd.exp(-options.DAMPING * dt)


@qd.func
def step{i}(p: vec3, v: vec3, dt: qd.f32) -> vec3:
    q = p + damp{i}(v, dt) * dt
    for k in qd.static(range(3)):
        q[k] = clamp{i}(q[k], -SCALE_{i}, SCALE_{i})
    return q


@qd.data_oriented
class Solver{i}:
    def __init__(self, n):
        self.n = n
        self.substeps = N_SUBSTEPS
        self.pos = qd.Vector.ndarray(3, qd.f32, (n,))
        self.vel = qd.Vector.ndarray(3, qd.f32, (n,))
        self.mass = qd.ndarray(qd.f32, (n,))

    @qd.func
    def _advance(self, i, dt: qd.f32):
        for _ in qd.static(range(self.substeps)):
            self.pos[i] = step{i}(self.pos[i], self.vel[i], dt / self.substeps)

    @qd.kernel(fastcache=True)
    def advance(self, dt: qd.f32):
        for i in range(self.pos.shape[0]):
            if self.mass[i] > EPS:
                self._advance(i, dt)

    @qd.kernel(fastcache=True)
    def energy(self) -> qd.f32:
        e = 0.0
        for i in range(self.vel.shape[0]):
            e += 0.5 * self.mass[i] * self.vel[i].norm_sqr()
        return e


@qd.kernel(fastcache=True)
def integrate{i}(params: Params{i}, x: qd.types.NDArray[qd.f32, 1], mode: qd.template()):
    for i in range(x.shape[0]):
        v = x[i]
        for _ in qd.static(range(params.layers)):
            if qd.static(mode == Mode.FAST):
                v = v * params.dt
            else:
                v = clamp{i}(v * params.dt, -1.0, 1.0)
        x[i] = v + params.pos[i]


@qd.kernel(fastcache=True)
def scatter{i}(src: qd.types.ndarray(dtype=qd.f32, ndim=2), dst: qd.types.NDArray[qd.f32, 2]):
    for i, j in qd.ndrange(src.shape[0], src.shape[1]):
        if i < LIMIT_{i}:
            qd.atomic_add(dst[i % dst.shape[0], j], src[i, j] * SCALE_{i})


@qd.kernel
def reduce{i}(a: qd.types.NDArray[qd.f32, 1]) -> qd.f32:
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s
'''


def generate(root, n):
    pkg = Path(root) / "gen"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "options.py").write_text(OPTIONS)
    for i in range(n):
        (pkg / f"kernels_{i:04d}.py").write_text(TEMPLATE.format(i=i, layers=1 + i % 3))
    return sorted(pkg.glob("*.py"))


def best_of(repeat, fn):
    """(best wall seconds, best CPU seconds) of `fn`; fn returns its CPU seconds."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        c = fn()
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, c)
    return wall, cpu


def run_qdbuild(qdbuild, args):
    """Runs qdbuild; returns its CPU time (user + system, from wait4)."""
    with open(os.devnull, "wb") as devnull, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([str(qdbuild), *args], stdout=devnull, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            print(f"qdbuild {' '.join(args)} failed (exit {p.returncode}): {err.read()[-2000:]!r}")
            sys.exit(1)
    return usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default=str(qdtest.ROOT / "build"))
    ap.add_argument("--files", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--keep", default=None, help="generate into DIR and keep it")
    args = ap.parse_args()
    qdtest.require_python312("the check benchmark (CPython ast.parse baseline)")
    qdbuild = qdtest.require_qdbuild(Path(args.build_dir) / "bin" / "qdbuild")

    tmp = args.keep or tempfile.mkdtemp(prefix="qd-check-bench-")
    if args.keep and Path(tmp).exists():
        shutil.rmtree(tmp)
    try:
        files = generate(tmp, args.files)
        tree = str(Path(tmp) / "gen")
        lines = sum(f.read_text().count("\n") for f in files)
        mb = sum(f.stat().st_size for f in files) / 1e6
        summary = subprocess.run([str(qdbuild), "check", tree], capture_output=True,
                                 text=True).stdout.strip().splitlines()[-1]
        print(f"{len(files)} files, {lines} lines, {mb:.2f} MB; {summary}")

        t_check = best_of(args.repeat, lambda: run_qdbuild(qdbuild, ["check", tree]))
        t_keys = best_of(args.repeat, lambda: run_qdbuild(qdbuild, ["check", "--keys", tree]))
        t_parse = best_of(args.repeat, lambda: run_qdbuild(qdbuild, ["check", "--parse-only", tree]))
        t_check1 = best_of(args.repeat, lambda: run_qdbuild(qdbuild, ["check", "-j", "1", tree]))
        t_parse1 = best_of(args.repeat,
                           lambda: run_qdbuild(qdbuild, ["check", "-j", "1", "--parse-only", tree]))

        def cpython():
            c0 = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for f in files:
                    ast.parse(f.read_bytes())
            return time.process_time() - c0
        t_cpython = best_of(args.repeat, cpython)

        def row(name, t):
            print(f"  {name:44} {t[0] * 1000:8.1f} ms wall {t[1] * 1000:8.1f} ms CPU"
                  f"  {lines / t[1] / 1e6:6.2f} Mlines/CPU-s")
        print(f"best of {args.repeat} (qdbuild: whole processes; CPython: in-process, no start-up):")
        row("qdbuild check (all cores)", t_check)
        row("qdbuild check --keys (all cores)", t_keys)
        row("qdbuild check --parse-only (all cores)", t_parse)
        row("qdbuild check -j 1", t_check1)
        row("qdbuild check -j 1 --parse-only", t_parse1)
        row("CPython 3.12 read + ast.parse (one process)", t_cpython)
        print("ratios (CPU time, which the load of a shared machine disturbs least; wall in brackets):")

        def ratio(name, a, b, target=""):
            print(f"  {name:34} {a[1] / b[1]:5.2f}x  [{a[0] / b[0]:5.2f}x]  {target}")
        ratio("check / parse-only, -j 1", t_check1, t_parse1, "(target <= 3x)")
        ratio("check / parse-only, all cores", t_check, t_parse, "(target <= 3x)")
        ratio("check --keys / parse-only", t_keys, t_parse)
        ratio("ast.parse / check, -j 1", t_cpython, t_check1, "(target >= 5x)")
        ratio("ast.parse / check, all cores", t_cpython, t_check, "(target >= 5x)")
        ratio("ast.parse / check --keys", t_cpython, t_keys)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
