#!/usr/bin/env python3
"""print() in kernels: what compiled kernels print, compared with what real Quadrants prints for
the same kernels (tests/diff/print/print_k.py), and with the reference stand-in.

The diff harness compares arrays and returns, not stdout; this test runs every kernel of
print_k.py in a child process per executor and compares the bytes each kernel writes to stdout:

  compiled   qdbuild build tests/diff/print, launched through the qdrt binding (libqdrt prints
             through the task ABI's print callback and flushes stdout after the launch)
  quadrants  the real Quadrants in build/venv (qd.init(arch=qd.cpu), qd.sync() after each kernel)
  reference  the stand-in (tests/reference)

Normalized only as Quadrants' own output dictates: its "[Quadrants] ..." banner lines are dropped,
and a kernel that prints from a parallel loop (UNORDERED) is compared as a sorted list of lines.
print_expected.json holds real Quadrants' output as recorded by --record, so machines without
build/venv still compare the compiled and reference output with it.

  print_check.py [--qdbuild build/bin/qdbuild] [--oracle build/venv/bin/python] [--record]
Exit status: 0 all agree, 1 a difference or a failure."""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CASES_DIR = os.path.join(HERE, "print")
EXPECTED = os.path.join(HERE, "print_expected.json")
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import skip_policy  # noqa: E402


def arr(dtype, shape, init):
    return {"array": dtype, "shape": shape, "init": init}


# (kernel, arguments as in the diff harness's case format)
CASES = [
    ("scalars", [arr("f32", (2,), [2.25, -0.5]), 3]),
    ("vectors", [arr("i32", (2, 2, 2), list(range(8)))]),
    ("fstrings", [-42, 1.5]),
    ("formats", [7, 2.5]),
    ("in_loops", [arr("i32", (5,), [4, 7, -2, 0, 13])]),
    ("parallel", [arr("i32", (16,), list(range(-8, 8)))]),
]
UNORDERED = {"parallel"}
MARK = "\x1e@@ "  # a record separator no kernel prints

# The child: runs every case with `qd` (or the qdrt store) and writes MARK + name before each.
CHILD = r"""
import os, sys
sys.path[:0] = {paths!r}
import harness
mode, cases_dir, store = {mode!r}, {cases_dir!r}, {store!r}
def mark(name):
    sys.stdout.flush()
    os.write(1, ({mark!r} + name + "\n").encode())
if mode == "compiled":
    import qdrt
    st = qdrt.open(store)
    run = lambda name, args: st.kernel("print_k:" + name)(*args)
    sync = lambda: None
else:
    sys.path.insert(0, cases_dir)
    import quadrants as qd
    if mode == "quadrants":
        qd.init(arch=qd.cpu, offline_cache=False)
    import print_k
    run = lambda name, args: getattr(print_k, name)(*args)
    sync = (lambda: qd.sync()) if mode == "quadrants" else (lambda: None)
for name, args in {cases!r}:
    mark(name)
    try:
        run(name, harness.make_args({{"args": args}}, use_numpy=harness.numpy is not None))
        sync()
    except Exception as e:
        sync()
        lines = [l for l in str(e).splitlines() if l.strip()]
        mark("!error " + type(e).__name__ + ": " + (lines[-1] if lines else "")[:300])
mark("!end")
"""


def run_child(python, mode, store=None, env=None):
    """{kernel: printed text} or raises RuntimeError."""
    paths = [HERE]
    if mode == "reference":
        paths.append(os.path.join(ROOT, "tests", "reference"))
    if mode == "compiled":
        paths.append(os.path.join(ROOT, "runtime", "python"))
    code = CHILD.format(paths=paths, mode=mode, cases_dir=CASES_DIR, store=store,
                        mark=MARK, cases=[(n, a) for n, a in CASES])
    proc = subprocess.run([python, "-c", code], capture_output=True, cwd=ROOT, env=env,
                          timeout=600)
    text = proc.stdout.decode("utf-8", "replace")
    out, name = {}, None
    for chunk in text.split(MARK)[1:]:
        head, _, body = chunk.partition("\n")
        if head.startswith("!error "):
            out[name] = "ERROR " + head[len("!error "):]
            continue
        if head == "!end":
            name = None
            continue
        name = head
        out[name] = body
    if proc.returncode != 0 or not out:
        raise RuntimeError(f"{mode} run failed (exit {proc.returncode}): "
                           f"{proc.stderr.decode('utf-8', 'replace')[-1500:]}")
    return out


def normalized(name, text):
    lines = [l for l in text.split("\n") if not l.startswith("[Quadrants]")]
    text = "\n".join(lines)
    if name in UNORDERED:
        return "\n".join(sorted(text.split("\n")))
    return text


def compare(what, got, expected):
    failures = 0
    for name, _ in CASES:
        g, e = got.get(name), expected.get(name)
        if e is None:
            print(f"FAIL {what} {name}: no expected output (run --record)")
            failures += 1
        elif g is None or normalized(name, g) != normalized(name, e):
            print(f"FAIL {what} {name}:\n  got      {g!r}\n  expected {e!r}")
            failures += 1
        else:
            print(f"PASS {what} {name}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--oracle", default=os.path.join(ROOT, "build", "venv", "bin", "python"))
    ap.add_argument("--python", default=sys.executable, help="runs the compiled and reference side")
    ap.add_argument("--record", action="store_true", help="save real Quadrants' output")
    opts = ap.parse_args()

    expected = json.load(open(EXPECTED)) if os.path.exists(EXPECTED) else {}
    failures = 0
    if os.path.exists(opts.oracle):
        try:
            real = run_child(opts.oracle, "quadrants")
        except RuntimeError as e:
            print(f"FAIL real Quadrants: {e}")
            return 1
        real = {k: normalized("", v) for k, v in real.items()}
        if opts.record:
            with open(EXPECTED, "w") as f:
                json.dump(real, f, indent=1, sort_keys=True, ensure_ascii=False)
                f.write("\n")
            expected = real
        failures += compare("recorded vs real Quadrants", expected, real)
    elif not skip_policy.may_skip_part("no-quadrants-venv",
                                       "print_check: the live real-Quadrants comparison"):
        failures += 1
    ref = run_child(opts.python, "reference")
    failures += compare("reference", ref, expected)
    with tempfile.TemporaryDirectory(prefix="qd-print-") as tmp:
        store = os.path.join(tmp, "store")
        proc = subprocess.run([opts.qdbuild, "build", CASES_DIR, "--store", store],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"FAIL qdbuild build: exit {proc.returncode}\n{proc.stderr[-3000:]}")
            return 1
        env = dict(os.environ)
        env.setdefault("QDRT_LIBRARY", os.path.join(ROOT, "build", "lib", "libqdrt.so"))
        compiled = run_child(opts.python, "compiled", store, env)
    failures += compare("compiled", compiled, expected)
    print(f"print_check: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
