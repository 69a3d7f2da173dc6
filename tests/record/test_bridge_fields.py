#!/usr/bin/env python3
"""qd.fields through the bridge, end to end, under the real Quadrants (build/venv, no torch):
tests/record/fields_app (a data_oriented solver over an AOS struct field, an SOA vector field, a
matrix field, 0-d fields; a field as a template argument; fill / to_numpy / from_numpy).

  test_bridge_fields.py --qdbuild build/bin/qdbuild [--python build/venv/bin/python]

  * recorded (`python -m qdrt.record`), built (Quadrants' _kernels.py included), then run on
    Quadrants and on the store (QDRT_STORE): every call served (QDRT_STORE_STATS: no fallback),
    the state bit-identical (the fields are passed in place; the same float operations);
  * the store built for --n 64 used with --n 96: the solver's kernels and the field template's
    fall back, the reason naming the field and both shapes; the state still Quadrants' exactly; that run recorded
    (--append) and built: served again, still bit-identical;
  * fields the bridge cannot pass, each refused with a reason naming the argument and why, the
    result still Quadrants': an offset, a sparse SNode, nested dense SNodes (whose description
    is a dense field's: the instance is selected, then its memory refused), and a reverse-mode
    autodiff call; the build reports the record's instances over the first two as errors;
  * libqdrt checks a field argument's shape and strides against the instance (the C API, through
    the Python binding).

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
APP = os.path.join(HERE, "fields_app")
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import qdtest  # noqa: E402
import skip_policy  # noqa: E402

CHECKS = qdtest.Checks("fields through the bridge")
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
        return None, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


def build(qdbuild, tree, record, store):
    p = subprocess.run([qdbuild, "build", "--root", tree, os.path.join(tree, "particles.py"),
                        os.path.join(tree, "quadrants", "_kernels.py"), "--instances", record,
                        "--store", store], capture_output=True, text=True)
    # The record's instances over the offset and sparse fields, and the autodiff kernel's, are
    # not built (QD207 / QD201: the build exits 1 naming them); every other one is.
    errors = [line for line in p.stderr.splitlines() if ": error: " in line]
    unexpected = [e for e in errors if not any(k in e for k in (
        "offset=(-2, 0)", "sparse SNode", "square_sum", ".grad"))]
    check(p.returncode in (0, 1) and not unexpected and "built " in p.stdout + p.stderr,
          f"qdbuild build: exit {p.returncode}, errors {unexpected}\n{p.stderr[-3000:]}")
    return p


def bridged(python, store, stats, *args):
    return run(python, ["main.py", *args], QDRT_STORE=store, QDRT_STORE_STATS=stats)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "venv", "bin", "python"))
    opts = ap.parse_args()
    site = glob.glob(os.path.join(os.path.dirname(os.path.dirname(opts.python)), "lib",
                                  "python3*", "site-packages", "quadrants"))
    if not os.path.exists(opts.python) or not site:
        skip_policy.skip("no-quadrants-venv", "the fields app runs on the real Quadrants")
    with tempfile.TemporaryDirectory(prefix="qd-bridge-fields-") as tmp:
        # The app's file and Quadrants' package under one root (module ids particles:...,
        # quadrants._kernels:...).
        tree = os.path.join(tmp, "tree")
        os.makedirs(tree)
        os.symlink(os.path.join(APP, "particles.py"), os.path.join(tree, "particles.py"))
        os.symlink(site[0], os.path.join(tree, "quadrants"))
        record, store, stats = (os.path.join(tmp, n) for n in ("r.json", "store", "stats.json"))

        # 1. Recorded, built, served in place: bit-identical.
        run(opts.python, ["-m", "qdrt.record", "-o", record, "--", "main.py", "--refusals"])
        kinds = {}
        if os.path.exists(record):
            doc = json.load(open(record))
            kinds = doc["kernels"]
            pos = doc["kernels"]["particles:Particles.step"][0]["params"]["self"]["template"][
                "fields"]["p"]["struct_field"]["pos"]
            check(pos == {"field": "f32", "shape": [64], "element": [3], "strides": [32, 4]},
                  f"the AOS member's description: {pos}")
        build(opts.qdbuild, tree, record, store)
        plain, _ = run(opts.python, ["main.py", "--refusals"])
        got, err = bridged(opts.python, store, stats, "--refusals")
        if plain is not None and got is not None:
            check(got == plain, "the state on the store differs from Quadrants' (bit for bit): " +
                  ", ".join(k for k in plain if plain[k] != got.get(k)))
            s = json.load(open(stats))
            want = {"particles:Particles.init", "particles:Particles.step", "particles:scale",
                    "quadrants._kernels:fill_field", "quadrants._kernels:tensor_to_ext_arr",
                    "quadrants._kernels:matrix_to_ext_arr", "quadrants._kernels:ext_arr_to_tensor"}
            check(want <= set(s["served"]), f"kernels not served: {want - set(s['served'])}")
            reasons = {k: v["reason"] for k, v in s["fallback"].items()}
            print(f"served {sum(s['served'].values())} calls of {len(s['served'])} kernels; "
                  f"fallback: {reasons}")
            # 4. The refusals, each naming the argument and why (Quadrants' own fill and
            # to_numpy of the offset and sparse fields fall back the same way).
            expect = {
                "particles:shifted_scale": "argument 'f': a qd.field with offset=(-2, 0) "
                                           "(qdbuild cannot take it)",
                "particles:sparse_scale": "argument 'f': a qd.field under a sparse SNode "
                                          "(pointer, bitmasked, dynamic) (qdbuild cannot take it)",
                "particles:nested_scale": "argument 'f': under nested SNodes (qd.root.dense(...)."
                                          "dense(...)); only one dense level is a strided array",
                "particles:square_sum": "autodiff (reverse)"}
            for kid, why in expect.items():
                check(reasons.pop(kid, None) == why,
                      f"{kid}: reason {s['fallback'].get(kid)!r}, expected {why!r}")
            check(s["served"].get("particles:nested_scale") == 1,
                  "nested_scale's call on a dense field was not served")
            for kid, why in reasons.items():
                check(kid.startswith("quadrants._kernels:") and "offset=(-2, 0)" in why,
                      f"{kid} fell back: {why}")
        print(f"recorded kernels: {sorted(kinds)}")

        # 2. Other shapes: fall back naming the field and both shapes; then recorded and served.
        plain96, _ = run(opts.python, ["main.py", "--n", "96"])
        stats96 = os.path.join(tmp, "stats96.json")
        got96, err = bridged(opts.python, store, stats96, "--n", "96")
        if plain96 is not None and got96 is not None:
            check(got96 == plain96, "--n 96 on the n=64 store: the state differs from Quadrants'")
            fb = json.load(open(stats96))["fallback"]
            init = fb.get("particles:Particles.init", {}).get("reason", "")
            check(init == "no built instance is this call: self.frame is {__field__=True, "
                          "dtype='matrix(2, 3, f64)', ndim=2, shape=(96, 2)} here, {__field__="
                          "True, dtype='matrix(2, 3, f64)', ndim=2, shape=(64, 2)} in the built "
                          "instance (record it and build again)", f"init's reason: {init!r}")
            step = fb.get("particles:Particles.step", {}).get("reason", "")
            check("self.energy" not in step and "shape=(96," in step and "shape=(64," in step,
                  f"step's reason: {step!r}")
            scale = fb.get("particles:scale", {}).get("reason", "")
            check(scale == "no built instance is this call: f.shape is (96,) here, (64,) in the "
                           "built instance (record it and build again)", f"scale's reason: {scale!r}")
            print(f"--n 96 on the n=64 store: {init}")
        run(opts.python, ["-m", "qdrt.record", "-o", record, "--append", "--", "main.py", "--n",
                          "96"])
        build(opts.qdbuild, tree, record, store)
        got96, _ = bridged(opts.python, store, stats96, "--n", "96")
        if got96 is not None and plain96 is not None:
            check(got96 == plain96, "--n 96 rebuilt: the state differs from Quadrants'")
            fb = json.load(open(stats96))["fallback"]
            check(not fb, f"--n 96 recorded and built: calls still fall back: {fb}")

        # 5. libqdrt's own check of a field argument's layout (the C API via the binding).
        check_libqdrt(opts.python, store)
    return CHECKS.finish()


LIBQDRT_CHECK = r'''
import ctypes, sys, qdrt
k = qdrt.open(sys.argv[1]).kernel("particles:scale")
a = bytearray(4 * 64 * 4)
addr = ctypes.addressof(ctypes.c_char.from_buffer(a))
out = []
for strides in ((4, 256), (12, 4)):
    try:
        k(qdrt.HostArray(addr, "f32", (64, 3), strides), 2.0)
        out.append("ok")
    except qdrt.Error as e:
        out.append(str(e))
try:
    k(qdrt.HostArray(addr, "f32", (32, 3), (4, 256)), 2.0)
except qdrt.Error as e:
    out.append(str(e))
print("\n---\n".join(out))
'''


def check_libqdrt(python, store):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "runtime", "python"),
               QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY",
                                           os.path.join(ROOT, "build", "lib", "libqdrt.so")))
    p = subprocess.run([python, "-c", LIBQDRT_CHECK, store], capture_output=True, text=True,
                       env=env)
    lines = p.stdout.split("\n---\n")
    if not check(p.returncode == 0 and len(lines) == 3, f"libqdrt check: {p.stdout}{p.stderr}"):
        return
    check(lines[0] == "ok", f"the instance's own layout refused: {lines[0]}")
    check("argument 'f': a field laid out with byte strides (4, 256) in this instance, got "
          "(12, 4)" in lines[1], f"C-order strides accepted or misreported: {lines[1]}")
    check("argument 'f': a field of shape (64, 3) in this instance, got (32, 3)" in lines[2],
          f"another shape accepted or misreported: {lines[2]}")


if __name__ == "__main__":
    sys.exit(main())
