#!/usr/bin/env python3
"""qdbuild on Genesis with a recorded run: `check` clean on the recorded kernels, purity verdicts
as real Quadrants decided them in the run, `build` of every recorded kernel (Quadrants' own
helper kernels included) exiting 0, every recorded instance built, and each instance's dataclass
arguments a subset of the members Quadrants used.

  check_genesis.py --qdbuild build/bin/qdbuild [--site SITE] [--record FILE] [--store DIR]

SITE is the site-packages of the Genesis venv (default: the one build/genesis-venv has); the
record defaults to tests/genesis/franka.qdrecord.json (the committed Franka scene record). Prints
the diagnostics over all of Genesis's kernels by code, then one line per recorded kernel:
its errors, qdbuild's fastcache verdict and Quadrants' (from the record). Exit 0 when no
recorded kernel has an error, every verdict agrees and no recorded kernel is skipped; 1
otherwise; 125 (skip policy "no-genesis-venv") without Genesis.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

import genesis_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import skip_policy  # noqa: E402


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check_arguments(store, recorded):
    """Every recorded instance is built, each recorded call selects exactly its own built
    instance (qdrt.instances), and the dataclass members each built instance takes (qdrt
    Kernel.arguments) are members Quadrants found the kernel uses (the record's `used`)."""
    os.environ.setdefault("QDRT_LIBRARY", os.path.join(ROOT, "build", "lib", "libqdrt.so"))
    sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
    import qdrt
    from qdrt import instances

    failures = []
    ours_total = theirs_total = 0
    with qdrt.open(store) as st:
        have = set(st.kernels())
        for kid, insts in sorted(recorded.items()):
            if kid not in have:
                failures.append(f"{kid}: not in the store")
                continue
            k = st.kernel(kid)
            if len(k.instances) != len(insts):
                failures.append(f"{kid}: {len(k.instances)} instances built, {len(insts)} recorded")
            theirs = set()
            for inst in insts:
                paths = [".".join(u[5:].split("__qd_")) for u in inst.get("used", [])]
                theirs |= {x for x in paths if not any(y.startswith(x + ".") for y in paths)}
            # The bridge's selection (qdrt.instances): each recorded call picks exactly its own
            # built instance.
            chosen = [instances.select(k.instances, inst["params"]) for inst in insts]
            if None in chosen or len(set(chosen)) != len(insts):
                failures.append(f"{kid}: recorded calls select instances {chosen}")
            # Its fast path (each segment compared where it starts, reading stopped at the first
            # that differs) agrees with splitting the whole instance string, and decides every
            # recorded match and every recorded mismatch by itself.
            for inst, pick in zip(insts, chosen):
                texts = instances._texts(inst["params"])
                for j, s in enumerate(k.instances):
                    fast = instances._confirms(s, inst["params"], texts)
                    split = instances.split_instance(s)
                    slow = instances._matches(split, inst["params"], texts)
                    if fast is instances._NO:
                        verdict, wrong = "no match", slow
                    elif fast is None:
                        verdict, wrong = "undecided", True
                    else:
                        verdict = "match"
                        wrong = not slow or fast != {n: split[n] for n in fast}
                    if wrong:
                        failures.append(f"{kid}: instance {j}: fast selection {verdict}"
                                        f", split {slow}")
            ours = {a for i in range(len(k.instances)) for a in k.arguments(i) if "." in a}
            ours_total += len(ours)
            theirs_total += len(theirs)
            # The fields of a data_oriented self are arguments here and global memory in
            # Quadrants, which passes no argument for them: its used set says nothing about
            # them (it misses those read through a method passed to a template parameter).
            extra = sorted(a for a in ours - theirs if not a.startswith("self."))
            if extra:
                failures.append(f"{kid}: takes members Quadrants does not use: {extra[:5]}")
    print(f"dataclass members passed: {ours_total} (Quadrants' used leaves, with template "
          f"members and shapes: {theirs_total})")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--site")
    ap.add_argument("--record", default=os.path.join(HERE, "franka.qdrecord.json"))
    ap.add_argument("--store")
    ap.add_argument("--expect-failure", action="append", default=[], metavar="KERNEL=CODE",
                    help="a recorded kernel known not to build, with the diagnostic code it "
                    "fails with (the test fails if it builds or fails otherwise)")
    opts = ap.parse_args()
    expected = dict(x.split("=", 1) for x in opts.expect_failure)
    site = opts.site or genesis_env.site_packages()
    if site is None or not os.path.isfile(os.path.join(site, "genesis", "__init__.py")):
        skip_policy.skip("no-genesis-venv", "qdbuild on Genesis needs its sources")

    with open(opts.record) as f:
        record = json.load(f)
    recorded = record["kernels"]
    tree = os.path.join(site, "genesis")
    common = ["--root", site, tree, "--instances", opts.record]

    failures = []
    rc, out, err = run([opts.qdbuild, "check", *common, "--format", "json"])
    if rc not in (0, 1):
        print(err, file=sys.stderr)
        return 1
    diags = json.loads(out)["diagnostics"]
    by_code = collections.Counter((d["severity"], d["code"]) for d in diags)
    print("qdbuild check over all of Genesis, by code:" + ("" if by_code else " none"))
    for (sev, code), n in sorted(by_code.items()):
        print(f"  {code} {sev}: {n}")
    errors_of = collections.defaultdict(list)
    for d in diags:
        if d["severity"] == "error":
            errors_of[d.get("kernel") or ""].append(d)

    with tempfile.TemporaryDirectory() as tmp:
        # Every kernel the scene called builds: Genesis's and Quadrants' own helper kernels.
        store = opts.store or os.path.join(tmp, "store")
        p = genesis_env.build_store(opts.qdbuild, site, opts.record, store, "--json")
        rc, out, err = p.returncode, p.stdout, p.stderr
        built = json.loads(out) if out.strip().startswith("{") else {}
        failed = set(built.get("failed") or [])
        codes = {d.get("kernel"): d["code"] for d in built.get("diagnostics", [])
                 if d["severity"] == "error"}
        for kid, code in expected.items():
            if kid not in failed:
                failures.append(f"{kid}: expected to fail with {code}, but it built")
            elif codes.get(kid) != code:
                failures.append(f"{kid}: failed with {codes.get(kid)}, expected {code}")
            else:
                print(f"known gap: {kid} fails with {code}")
        if rc != 0 and not (failed and failed <= set(expected)):
            print(err[-3000:], file=sys.stderr)
            failures.append(f"qdbuild build exited {rc} ({built.get('failed')} kernels failed)")
        if built.get("kernels") is not None:
            print(f"qdbuild build: {built['kernels']} kernels, {built['instances']} instances, "
                  f"{built['tasks']['compiled']} tasks compiled in {built['time_s']:.1f}s")
        failures += check_arguments(store, {k: v for k, v in recorded.items()
                                            if k not in expected})
    skipped = set(built.get("skipped", []))

    print(f"recorded kernels ({len(recorded)}):")
    in_tree = 0
    for kid, insts in sorted(recorded.items()):
        if not kid.startswith("genesis."):
            print(f"  {kid}: Quadrants' own kernel (not in the tree)")
            continue
        in_tree += 1
        rc, out, err = run([opts.qdbuild, "explain", kid, *common, "--json"])
        if not out.strip():
            failures.append(f"{kid}: explain printed nothing ({err.strip()})")
            continue
        e = json.loads(out)
        quadrants = any(i.get("fastcache") for i in insts)
        ours = bool(e["eligible"])
        errs = [d for d in errors_of.get(kid, []) if d["code"] != expected.get(kid)]
        line = (f"  {kid}: {len(errs)} errors, fastcache qdbuild={ours} quadrants={quadrants}"
                f", {len(e['instances'])} instance(s)")
        if kid in skipped:
            line += ", SKIPPED by build"
            failures.append(f"{kid}: qdbuild build skipped it (no buildable instance)")
        print(line)
        for d in errs:
            failures.append(f"{kid}: {d['file']}:{d['line']}: {d['message']} [{d['code']}]")
        if ours != quadrants:
            failures.append(f"{kid}: qdbuild says fastcache {'applies' if ours else 'does not apply'}"
                            f", real Quadrants {'used' if quadrants else 'did not use'} it; "
                            f"qdbuild: {e['verdict']}; {'; '.join(e['reasons'])}")
        missing = [i for i in e["instances"] if i["source"] is None]
        if missing:
            failures.append(f"{kid}: an instance that no record gave")
    for f in failures:
        print("FAIL " + f)
    print(f"genesis: {in_tree} recorded kernels of Genesis, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
