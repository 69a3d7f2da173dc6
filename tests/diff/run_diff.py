#!/usr/bin/env python3
"""Differential tests: compiled kernels (qdbuild + the qdrt binding) vs the reference stand-in
(tests/reference), and optionally the stand-in vs the real Quadrants (--oracle). See README.md.

  run_diff.py [--qdbuild build/bin/qdbuild] [--store DIR] [-k PATTERN]   compiled vs stand-in
  run_diff.py --self-check                    stand-in vs the expected values in the case files
  run_diff.py --oracle build/venv/bin/python --no-compiled     stand-in vs real Quadrants
Exit status: 0 all passed, 1 a failure, 125 nothing could run (oracle without quadrants)."""

import argparse
import ast
import importlib
import json
import os
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import harness  # noqa: E402


REFERENCE_NUMPY = False  # --ref-numpy: the stand-in gets numpy arrays instead of array.array


def reference_run(case):
    """Runs the case under the stand-in; returns (snapshot, None) or (None, error)."""
    module, qualname = case["kernel"].split(":")
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        args = harness.make_args(case, use_numpy=REFERENCE_NUMPY)
        ret = obj(*args)
        return json.loads(json.dumps(harness.snapshot(case, args, ret))), None
    except Exception as e:  # noqa: BLE001
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return None, f"{type(e).__name__}: {e} ({os.path.basename(tb.filename)}:{tb.lineno})"


def setup_reference():
    sys.path.insert(0, harness.CASES_DIR)
    sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
    import quadrants

    assert getattr(quadrants, "IS_REFERENCE_STANDIN", False), quadrants.__file__


class Report:
    def __init__(self):
        self.failed = []
        self.passed = 0

    def line(self, ok, name, detail=""):
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed.append(name)

    def summary(self, what):
        total = self.passed + len(self.failed)
        print(f"{what}: {self.passed}/{total} cases agree" +
              (f"; failed: {', '.join(self.failed)}" if self.failed else ""))
        return 1 if self.failed else 0


RECORDED = os.path.join(HERE, "oracle_results.json")


def self_check(cases):
    """The stand-in vs the expected values in the case files and vs the real-Quadrants results
    recorded by the last `--oracle PY --record` run (oracle_results.json)."""
    recorded = json.load(open(RECORDED)) if os.path.exists(RECORDED) else {}
    rep = Report()
    checked = sum(1 for c in cases if c.get("expected"))
    for case in cases:
        snap, err = reference_run(case)
        if err:
            rep.line(False, case["name"], "reference error: " + err)
            continue
        expected = {str(k): v for k, v in case.get("expected", {}).items()}
        mismatch = harness.compare(case, snap, expected)
        if not mismatch and case["name"] in recorded:
            mismatch = harness.compare(case, snap, recorded[case["name"]])
            mismatch = mismatch and f"{mismatch} (expected = recorded real Quadrants)"
        rep.line(not mismatch, case["name"], mismatch or "")
    print(f"{checked} cases have explicit expected values; "
          f"{sum(1 for c in cases if c['name'] in recorded)} have recorded real-Quadrants results")
    return rep.summary("reference vs expected")


def run_oracle_worker(python, names):
    """Runs oracle_worker.py over `names`; a case that kills the process (real Quadrants can abort
    in LLVM) is recorded as an error and the worker restarts after it."""
    results, todo = {}, list(names)
    if not os.path.exists(python):
        return f"no interpreter at {python}"
    while todo:
        proc = subprocess.run([python, os.path.join(HERE, "oracle_worker.py"), ",".join(todo)],
                              capture_output=True, text=True, cwd=ROOT)
        started = None
        for line in proc.stdout.splitlines():
            if not line.startswith("{"):
                continue
            item = json.loads(line)
            if "unavailable" in item:
                return item["unavailable"]
            if "start" in item:
                started = item["start"]
            else:
                results[item["name"]] = item
        if proc.returncode == 0:
            break
        if started is None or started in results:
            return f"{python} cannot run quadrants (exit {proc.returncode}): {proc.stderr[-1500:]}"
        tail = [l for l in proc.stderr.splitlines() if l.strip()][-1:]
        results[started] = {"name": started, "error": f"process died (exit {proc.returncode}): "
                            + " ".join(tail)[:300]}
        todo = todo[todo.index(started) + 1:]
    return results


def oracle(cases, python, record):
    results = run_oracle_worker(python, [c["name"] for c in cases])
    if isinstance(results, str):
        print(f"SKIP oracle: {results}")
        return 125
    if record:
        old = json.load(open(RECORDED)) if os.path.exists(RECORDED) else {}
        old.update({n: r["snapshot"] for n, r in results.items() if "snapshot" in r})
        with open(RECORDED, "w") as f:
            json.dump(old, f, indent=0, sort_keys=True)
            f.write("\n")
    rep = Report()
    for case in cases:
        real = results.get(case["name"])
        snap, err = reference_run(case)
        if real is None:
            rep.line(False, case["name"], "no result from real Quadrants")
        elif "error" in real:
            rep.line(False, case["name"], "real Quadrants error: " + real["error"])
        elif err:
            rep.line(False, case["name"], "reference error: " + err)
        else:
            mismatch = harness.compare(case, snap, real["snapshot"])
            rep.line(not mismatch, case["name"],
                     f"reference {mismatch} (expected = real Quadrants)" if mismatch else "")
    return rep.summary("reference vs real Quadrants")


def kernel_lines(case):
    """(file, first line, last line) of the case's kernel, for picking its diagnostics."""
    module, qualname = case["kernel"].split(":")
    path = os.path.join(harness.CASES_DIR, *module.split(".")) + ".py"
    try:
        tree = ast.parse(open(path).read())
    except OSError:
        return path, 0, 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == qualname.split(".")[-1]:
            return path, node.lineno - len(node.decorator_list), node.end_lineno
    return path, 0, 0


def diagnostics_for(case, stderr_lines):
    path, first, last = kernel_lines(case)
    name = os.path.basename(path)
    mine, same_file = [], []
    for line in stderr_lines:
        head = line.split(":")
        if len(head) > 2 and head[0].endswith(name) and ": error" in line:
            same_file.append(line)
            if head[1].isdigit() and first <= int(head[1]) <= last:
                mine.append(line)
    return (mine or same_file)[:2]


def compiled(cases, qdbuild, store):
    cmd = [qdbuild, "build", harness.CASES_DIR, "--store", store, "--json"]
    print("$ " + " ".join(cmd), flush=True)
    if not os.path.exists(qdbuild):
        print(f"FAIL no qdbuild at {qdbuild}")
        return 1
    proc = subprocess.run(cmd, capture_output=True, text=True)
    stderr = proc.stderr.splitlines()
    print(f"qdbuild exited {proc.returncode}" +
          (f"; {len([l for l in stderr if ': error' in l])} error lines" if stderr else ""))
    if proc.returncode not in (0, 1):
        print("\n".join(stderr[-20:]))
        if any("without the code generator" in line for line in stderr):
            print("SKIP compiled: this qdbuild cannot compile yet")
            return 125
        return 1
    os.environ.setdefault("QDRT_LIBRARY", os.path.join(ROOT, "build", "lib", "libqdrt.so"))
    sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
    import qdrt

    try:
        st = qdrt.open(store)
    except Exception as e:  # noqa: BLE001
        print(f"FAIL cannot open the store {store}: {e}")
        return 1
    built = set(st.kernels())
    rep = Report()
    for case in cases:
        snap, err = reference_run(case)
        if err:
            rep.line(False, case["name"], "reference error: " + err)
            continue
        if case["kernel"] not in built:
            diags = diagnostics_for(case, stderr)
            rep.line(False, case["name"], "not built" + ("".join("\n    " + d for d in diags)))
            continue
        try:
            args = harness.make_args(case, use_numpy=True)
            ret = st.kernel(case["kernel"])(*args)
            got = json.loads(json.dumps(harness.snapshot(case, args, ret)))
        except Exception as e:  # noqa: BLE001
            rep.line(False, case["name"], f"launch failed: {type(e).__name__}: {e}")
            continue
        mismatch = harness.compare(case, got, snap)
        rep.line(not mismatch, case["name"], f"compiled {mismatch} (expected = reference)"
                 if mismatch else "")
    return rep.summary("compiled vs reference")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--store", help="store directory (default: a temporary directory)")
    ap.add_argument("--oracle", metavar="PY", help="also compare the stand-in with real Quadrants "
                    "run by this interpreter")
    ap.add_argument("--record", action="store_true",
                    help="with --oracle: save real Quadrants' results to oracle_results.json")
    ap.add_argument("--no-compiled", action="store_true", help="skip qdbuild and the runtime")
    ap.add_argument("--self-check", action="store_true",
                    help="only the stand-in vs the expected values written in the case files")
    ap.add_argument("--ref-numpy", action="store_true",
                    help="pass numpy arrays (not array.array/memoryview) to the stand-in")
    ap.add_argument("-k", dest="pattern", help="only cases whose name or kernel id matches")
    opts = ap.parse_args()

    global REFERENCE_NUMPY
    REFERENCE_NUMPY = opts.ref_numpy
    setup_reference()
    cases = harness.load_cases(opts.pattern)
    if not cases:
        print("no cases match")
        return 1
    if opts.self_check:
        return self_check(cases)
    status = []
    if opts.oracle:
        status.append(oracle(cases, opts.oracle, opts.record))
    if not opts.no_compiled:
        if opts.store:
            status.append(compiled(cases, opts.qdbuild, opts.store))
        else:
            with tempfile.TemporaryDirectory(prefix="qd-diff-") as tmp:
                status.append(compiled(cases, opts.qdbuild, os.path.join(tmp, "store")))
    if any(s == 1 for s in status):
        return 1
    return 125 if status and all(s == 125 for s in status) else 0


if __name__ == "__main__":
    sys.exit(main())
