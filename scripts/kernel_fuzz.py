#!/usr/bin/env python3
"""Differential fuzzing of the kernel compiler with random kernels (tests/kernel_fuzz).

  scripts/kernel_fuzz.py --seed S --count N [--first K] [--keep DIR]   N kernels from seed S
                                                         (from its K-th)
  scripts/kernel_fuzz.py --soak [--time SECONDS]           new seeds until stopped; kernels/s
  scripts/kernel_fuzz.py --replay DIR/NAME/case.json       one saved reproducer, verbose

Each generated kernel (valid Quadrants with random inputs, tests/kernel_fuzz/generator.py) is
built by `qdbuild build`, launched through libqdrt, and compared with the reference interpreter
(tests/reference) and, when build/venv has it, with the real Quadrants on the CPU. A divergence
is shrunk to a small reproducer written under --keep (default build/kernel_fuzz) with the
command that replays it. Kernels qdbuild refuses with QD201 are the language gap, counted by
construct. The last line is `kernel-fuzz: N kernels, D divergences`; the exit status is 1 when
D > 0 (2 on a usage error). Run from the repository root after the build; stdlib only."""

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "kernel_fuzz"))
import campaign  # noqa: E402
import generator  # noqa: E402
import shrink  # noqa: E402

KERNELS_PER_MODULE = 10
MODULES_PER_BATCH = 5


def find_quadrants(choice):
    """The interpreter that runs the real Quadrants, or None. `auto` without build/venv compares
    with the reference only, through the suite's skip policy: a failure under CI=true."""
    if choice == "off":
        return None
    py = os.path.join(ROOT, "build", "venv", "bin", "python") if choice == "auto" else choice
    ok = os.path.exists(py) and subprocess.run([py, "-c", "import quadrants"],
                                               capture_output=True).returncode == 0
    if ok:
        return py
    if choice != "auto":
        sys.exit(f"kernel-fuzz: {py} cannot run the real Quadrants")
    sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
    import skip_policy  # noqa: E402 - only needed here

    if not skip_policy.may_skip_part("no-quadrants-venv", "the comparison with real Quadrants"):
        sys.exit(1)
    return None


def batch_modules(seed, first_kernel, count):
    """Modules holding kernels [first_kernel, first_kernel + count) of the seed's stream."""
    mods = []
    k = first_kernel
    while k < first_kernel + count:
        n = min(KERNELS_PER_MODULE, first_kernel + count - k)
        name = f"fz{seed}_{k // KERNELS_PER_MODULE}"
        src, cases = generator.generate_module(seed * 1000003 + k // KERNELS_PER_MODULE, name, n)
        for c in cases:
            c["seed"] = seed
        mods.append((name, src, cases))
        k += n
    return mods


def source_of(mods, case):
    module = case["kernel"].split(":")[0]
    return next(src for name, src, _ in mods if name == module)


class Fuzzer:
    def __init__(self, opts):
        self.opts = opts
        self.qdbuild = opts.qdbuild
        self.quadrants = find_quadrants(opts.quadrants)
        self.work = tempfile.mkdtemp(prefix="qd-kernel-fuzz-")
        self.qdbuild = self.private_copy(opts.qdbuild)
        self.runner = campaign.Runner(self.qdbuild, self.quadrants, self.work)
        self.verdicts = collections.Counter()
        self.gaps = collections.Counter()
        self.invalid = collections.Counter()
        self.divergences = []
        self.kernels = 0
        self.keep = opts.keep or os.path.join(ROOT, "build", "kernel_fuzz")
        self.times = collections.Counter()
        self.runs = 0

    def private_copy(self, qdbuild):
        """A copy of qdbuild, its backend plugin and libqdrt (bin/ and lib/ side by side, as
        qdbuild finds its plugin): a long run is not broken by a rebuild of the tree under it."""
        src_bin = os.path.dirname(os.path.abspath(qdbuild))
        src_lib = os.path.join(os.path.dirname(src_bin), "lib")
        dst = os.path.join(self.work, "tools")
        os.makedirs(os.path.join(dst, "bin"))
        os.makedirs(os.path.join(dst, "lib"))
        shutil.copy2(qdbuild, os.path.join(dst, "bin", "qdbuild"))
        for name in ("libqdbuild-backend.so", "libqdrt.so"):
            if os.path.exists(os.path.join(src_lib, name)):
                shutil.copy2(os.path.join(src_lib, name), os.path.join(dst, "lib", name))
        lib = os.path.join(dst, "lib", "libqdrt.so")
        if os.path.exists(lib) and "QDRT_LIBRARY" not in os.environ:
            os.environ["QDRT_LIBRARY"] = lib
        return os.path.join(dst, "bin", "qdbuild")

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def run_batch(self, seed, first, count):
        mods = batch_modules(seed, first, count)
        path = os.path.join(self.work, f"b{seed}_{first}")
        results, times = self.runner.run(path, mods)
        for k, v in times.items():
            self.times[k] += v
        for case, verdict, kind, detail in results:
            self.kernels += 1
            self.verdicts[verdict] += 1
            if verdict == "gap":
                self.gaps[kind] += 1
            elif verdict == "invalid":
                self.invalid[f"{kind}: {detail[:90]}"] += 1
                if self.opts.verbose:
                    print(f"invalid {case['name']}: {kind}: {detail[:300]}", flush=True)
                if self.opts.keep_invalid:
                    source = source_of(mods, case)
                    if not self.opts.no_shrink:
                        source, case = self.shrink(source, case, kind, "invalid", detail)
                    out = self.save(source, case, kind, detail,
                                    os.path.join(self.keep, "invalid"))
                    print(f"invalid {case['name']}: {kind}: {detail[:200]} ({out})", flush=True)
            elif verdict == "divergence":
                self.report(mods, case, kind, detail)
        shutil.rmtree(path, ignore_errors=True)

    def report(self, mods, case, kind, detail):
        print(f"DIVERGENCE {case['name']} (seed {case['seed']}): {kind}: {detail[:400]}",
              flush=True)
        source = source_of(mods, case)
        if not self.opts.no_shrink:
            small, small_case = self.shrink(source, case, kind)
            if self.quadrants and self.verdict(small, small_case)[1] != kind:
                # Shrunk with qdbuild and the reference only, it left real Quadrants' language
                # (or lost the divergence there): shrink again, with Quadrants judging too.
                small, small_case = self.shrink(source, case, kind, with_quadrants=True)
            source, case = small, small_case
            detail = self.verdict(source, case)[2] or detail
        out = self.save(source, case, kind, detail)
        print(f"  reproducer: {out}\n  replay: python3 scripts/kernel_fuzz.py --replay {out}",
              flush=True)
        self.divergences.append((case["name"], kind, detail, out))

    def verdict(self, src, c, with_quadrants=True):
        """(verdict, kind, detail) of one case run on its own."""
        self.runs += 1
        path = os.path.join(self.work, f"one{self.runs}")
        module = c["kernel"].split(":")[0]
        res, _ = self.runner.run(path, [(module, src, [c])], with_quadrants=with_quadrants)
        shutil.rmtree(path, ignore_errors=True)
        return res[0][1:]

    def shrink(self, source, case, kind, verdict="divergence", detail="", with_quadrants=False):
        needs_quadrants = with_quadrants or kind in ("reference vs Quadrants",
                                                     "reference rejects", "Quadrants rejects")

        def still(src, c):
            v, k, d = self.verdict(src, c, needs_quadrants)
            if verdict == "invalid":  # keep the same rejection, not just any
                return v == verdict and k == kind and d[:40] == detail[:40]
            return v == verdict and k == kind

        small_src, small_case = shrink.shrink(source, case, still,
                                              budget_s=self.opts.shrink_seconds,
                                              log=lambda m: print("  " + m, flush=True))
        return small_src, small_case

    def save(self, source, case, kind, detail, where=None):
        out = os.path.join(where or self.keep, case["name"])
        os.makedirs(out, exist_ok=True)
        module = case["kernel"].split(":")[0]
        with open(os.path.join(out, module + ".py"), "w") as f:
            f.write(source)
        with open(os.path.join(out, "case.json"), "w") as f:
            json.dump({"case": case, "kind": kind, "detail": detail}, f, indent=1)
        return os.path.join(out, "case.json")

    def summary(self, elapsed):
        print(f"kernels: {self.kernels} in {elapsed:.1f} s ({self.kernels / max(elapsed, 1e-9):.1f}"
              f" kernels/s); ok {self.verdicts['ok']}, language gap (QD201) "
              f"{self.verdicts['gap']}, invalid {self.verdicts['invalid']}, divergences "
              f"{len(self.divergences)}; real Quadrants: "
              f"{'compared' if self.quadrants else 'not available'}")
        if self.times:
            print("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(self.times.items())))
        if self.gaps:
            print("language gap (kernels refused with QD201, by construct):")
            for construct, n in self.gaps.most_common():
                print(f"  {n:5d}  {construct}")
        if self.invalid:
            print("invalid kernels (a reference rejected them: generator bugs):")
            for why, n in self.invalid.most_common(20):
                print(f"  {n:5d}  {why}")
        for name, kind, detail, out in self.divergences:
            print(f"divergence {name}: {kind}: {detail[:200]} ({out})")
        print(f"kernel-fuzz: {self.kernels} kernels, {len(self.divergences)} divergences")
        if self.divergences:
            return 1
        if self.opts.max_invalid is not None and self.verdicts["invalid"] > self.opts.max_invalid:
            print(f"kernel-fuzz: {self.verdicts['invalid']} invalid kernels (at most "
                  f"{self.opts.max_invalid} allowed): the generator wrote kernels a reference "
                  f"rejects", flush=True)
            return 1
        return 0


def replay(opts):
    info = json.load(open(opts.replay))
    case = info["case"]
    module = case["kernel"].split(":")[0]
    source = open(os.path.join(os.path.dirname(opts.replay), module + ".py")).read()
    fz = Fuzzer(opts)
    try:
        path = os.path.join(fz.work, "replay")
        results, _ = fz.runner.run(path, [(module, source, [case])])
        _, verdict, kind, detail = results[0]
        print(source)
        print(f"recorded: {info['kind']}: {info['detail']}")
        print(f"now: {verdict}{': ' + kind if kind else ''}{': ' + detail if detail else ''}")
        print(f"kernel-fuzz: 1 kernels, {1 if verdict == 'divergence' else 0} divergences")
        return 1 if verdict == "divergence" else 0
    finally:
        fz.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--keep", metavar="DIR", help="where reproducers go (default build/kernel_fuzz)")
    ap.add_argument("--first", type=int, default=0,
                    help="start at this kernel of the seed's stream (resume a run, or rerun the "
                         "module of a reproducer fzSEED_M: --first M*10 --count 10)")
    ap.add_argument("--soak", action="store_true", help="new seeds until --time or Ctrl-C")
    ap.add_argument("--time", type=float, default=0, help="with --soak: stop after SECONDS")
    ap.add_argument("--replay", metavar="CASE_JSON")
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--quadrants", default="auto",
                    help="auto (build/venv when it has quadrants), off, or an interpreter")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--keep-invalid", action="store_true",
                    help="also shrink and keep kernels a reference rejects (generator bugs)")
    ap.add_argument("--shrink-seconds", type=float, default=240)
    ap.add_argument("--max-invalid", type=int, default=None,
                    help="fail when more kernels than this are invalid (generator bugs)")
    ap.add_argument("-v", "--verbose", action="store_true")
    opts = ap.parse_args()
    if not os.path.exists(opts.qdbuild):
        print(f"kernel-fuzz: {opts.qdbuild} not found (build first: scripts/build.sh)",
              file=sys.stderr)
        return 2
    if opts.replay:
        return replay(opts)
    fz = Fuzzer(opts)
    start = time.monotonic()
    batch = KERNELS_PER_MODULE * MODULES_PER_BATCH
    try:
        if opts.soak:
            seed = opts.seed if opts.seed != 1 else int(time.time()) % 1000000
            while not opts.time or time.monotonic() - start < opts.time:
                fz.run_batch(seed, 0, batch)
                seed += 1
                el = time.monotonic() - start
                print(f"soak: {fz.kernels} kernels, {len(fz.divergences)} divergences, "
                      f"{fz.kernels / el:.1f} kernels/s (next seed {seed})", flush=True)
        else:
            end = opts.first + opts.count
            for first in range(opts.first, end, batch):
                fz.run_batch(opts.seed, first, min(batch, end - first))
    except KeyboardInterrupt:
        print("kernel-fuzz: interrupted", flush=True)
    finally:
        status = fz.summary(time.monotonic() - start)
        fz.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
