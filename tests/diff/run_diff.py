#!/usr/bin/env python3
"""Differential tests: compiled kernels (qdbuild + the qdrt binding) vs the reference stand-in
(tests/reference), and optionally the stand-in vs the real Quadrants (--oracle). See README.md.

  run_diff.py [--qdbuild build/bin/qdbuild] [--store DIR] [-k PATTERN]   compiled vs stand-in
  run_diff.py --via capi [--capi-runner build/bin/qd_diff_capi_runner]   ... through the C API
  run_diff.py --self-check                    stand-in vs the expected values in the case files
  run_diff.py --oracle build/venv/bin/python --no-compiled     stand-in vs real Quadrants
Exit status: 0 all passed, 1 a failure, 125 nothing could run (--oracle: no interpreter, or it
cannot import quadrants; tests/lib/skip_policy.py "no-quadrants-venv", a failure under CI=true).
An oracle interpreter that starts but dies before its first case is a failure, not a skip."""

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
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import harness  # noqa: E402
import skip_policy  # noqa: E402


REFERENCE_NUMPY = False  # --ref-numpy: the stand-in gets numpy arrays instead of array.array


def reference_run(case):
    """Runs the case under the stand-in; returns (snapshot, None) or (None, error)."""
    module, qualname = case["kernel"].split(":")
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        args = harness.make_args(case, use_numpy=REFERENCE_NUMPY,
                                 module=importlib.import_module(module))
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
        mismatch = harness.compare(case, snap, expected, tol=case.get("expected_tol"))
        if not mismatch and case["name"] in recorded:
            mismatch = harness.compare(case, snap, recorded[case["name"]])
            mismatch = mismatch and f"{mismatch} (expected = recorded real Quadrants)"
        rep.line(not mismatch, case["name"], mismatch or "")
    print(f"{checked} cases have explicit expected values; "
          f"{sum(1 for c in cases if c['name'] in recorded)} have recorded real-Quadrants results")
    return rep.summary("reference vs expected")


class OracleUnavailable(Exception):
    """The oracle cannot run here: no interpreter, or no importable quadrants (a skip reason)."""


class OracleBroken(Exception):
    """The oracle's interpreter started and died before its first case (a failure)."""


def run_oracle_worker(python, names):
    """Runs oracle_worker.py over `names`; a case that kills the process (real Quadrants can abort
    in LLVM) is recorded as an error and the worker restarts after it. Raises OracleUnavailable or
    OracleBroken when no case can run."""
    results, todo = {}, list(names)
    if not os.path.exists(python):
        raise OracleUnavailable(f"no interpreter at {python}")
    while todo:
        proc = subprocess.run([python, os.path.join(HERE, "oracle_worker.py"), ",".join(todo)],
                              capture_output=True, text=True, cwd=ROOT)
        started = None
        for line in proc.stdout.splitlines():
            if not line.startswith("{"):
                continue
            item = json.loads(line)
            if "unavailable" in item:
                raise OracleUnavailable(f"{python}: {item['unavailable']}")
            if "start" in item:
                started = item["start"]
            else:
                results[item["name"]] = item
        if proc.returncode == 0:
            break
        if started is None or started in results:
            raise OracleBroken(f"{python} died before its first case (exit {proc.returncode}): "
                               f"{proc.stderr[-1500:]}")
        tail = [l for l in proc.stderr.splitlines() if l.strip()][-1:]
        results[started] = {"name": started, "error": f"process died (exit {proc.returncode}): "
                            + " ".join(tail)[:300]}
        todo = todo[todo.index(started) + 1:]
    return results


def oracle(cases, python, record):
    for case in cases:
        if case.get("gpu_only"):
            print(f"GPU {case['name']}: {case['gpu_only']}")
    cases = [c for c in cases if not c.get("gpu_only")]
    try:
        results = run_oracle_worker(python, [c["name"] for c in cases])
    except OracleUnavailable as e:
        if skip_policy.may_skip_part("no-quadrants-venv", f"the oracle (real Quadrants): {e}"):
            return 125
        return 1
    except OracleBroken as e:
        print(f"FAIL oracle: {e}")
        return 1
    differs = {c["name"] for c in cases if c.get("oracle_differs")}
    if record:
        old = json.load(open(RECORDED)) if os.path.exists(RECORDED) else {}
        old.update({n: r["snapshot"] for n, r in results.items()
                    if "snapshot" in r and n not in differs})
        with open(RECORDED, "w") as f:
            json.dump(old, f, indent=0, sort_keys=True)
            f.write("\n")
    rep = Report()
    for case in cases:
        real = results.get(case["name"])
        snap, err = reference_run(case)
        if case.get("oracle_differs"):
            # A known defect of real Quadrants: the case pins the spec's values ("expected").
            same = real and "snapshot" in real and not err and not harness.compare(
                case, snap, real["snapshot"])
            print(f"KNOWN {case['name']}: {case['oracle_differs']}"
                  + (" (now agrees: drop oracle_differs)" if same else ""))
            continue
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


def build_store(qdbuild, store):
    """Runs qdbuild; returns (status or None to go on, stderr lines)."""
    cmd = [qdbuild, "build", harness.CASES_DIR, "--store", store, "--json"]
    print("$ " + " ".join(cmd), flush=True)
    if not os.path.exists(qdbuild):
        print(f"FAIL no qdbuild at {qdbuild}")
        return 1, []
    proc = subprocess.run(cmd, capture_output=True, text=True)
    stderr = proc.stderr.splitlines()
    print(f"qdbuild exited {proc.returncode}" +
          (f"; {len([l for l in stderr if ': error' in l])} error lines" if stderr else ""))
    if proc.returncode not in (0, 1):
        print("\n".join(stderr[-20:]))
        return 1, stderr
    return None, stderr


def judge(cases, built, stderr, launch, what):
    """Compares launch(case) -> (snapshot, None) | (None, error) with the stand-in per case."""
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
        got, err = launch(case)
        if err:
            rep.line(False, case["name"], "launch failed: " + err)
            continue
        mismatch = harness.compare(case, got, snap)
        rep.line(not mismatch, case["name"], f"compiled {mismatch} (expected = reference)"
                 if mismatch else "")
    return rep.summary(what)


def compiled(cases, qdbuild, store):
    """The store launched through the qdrt Python binding (ctypes over the C API)."""
    status, stderr = build_store(qdbuild, store)
    if status is not None:
        return status
    os.environ.setdefault("QDRT_LIBRARY", os.path.join(ROOT, "build", "lib", "libqdrt.so"))
    sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
    import qdrt

    try:
        st = qdrt.open(store)
    except Exception as e:  # noqa: BLE001
        print(f"FAIL cannot open the store {store}: {e}")
        return 1

    def launch(case):
        try:
            args = harness.make_args(case, use_numpy=True, layout_mode="physical")
            k = st.kernel(case["kernel"])
            if "params" in case:
                # Dataclass arguments: the built instance takes their members by path.
                ret = k(*harness.flat_args(case, args, k.arguments(0), k.instances[0]))
            else:
                ret = k(*args)
            return json.loads(json.dumps(harness.snapshot(case, args, ret))), None
        except Exception as e:  # noqa: BLE001
            return None, f"{type(e).__name__}: {e}"

    return judge(cases, set(st.kernels()), stderr, launch, "compiled (Python binding) vs reference")


# --- the C API runner (capi_runner.cpp; formats in README.md, "The C API runner") ------------

def _scalar_line(value):
    if isinstance(value, bool):
        return f"bool {int(value)}"
    if isinstance(value, int):
        if not -(1 << 63) <= value < (1 << 64):
            raise ValueError(f"{value} does not fit in 64 bits")
        return f"uint {value}" if value >= (1 << 63) else f"int {value}"
    if isinstance(value, float):
        return f"float {value.hex()}"
    if isinstance(value, str):
        if "\n" in value:
            raise ValueError("a text value with a newline")
        return f"text {value}"
    raise ValueError(f"cannot pass a {type(value).__name__}")


def write_capi_request(cases, req_dir, names):
    """request.txt + one raw file per array argument; returns the request's path. `names`:
    per case with dataclass arguments, the built instance's argument names (flattened here)."""
    lines = ["qdrt-diff-request 1"]
    for index, case in enumerate(cases):
        args = harness.make_args(case, use_numpy=True, layout_mode="physical")
        descs = case["args"]
        if case["name"] in names:
            arg_names, instance = names[case["name"]]
            args = harness.flat_args(case, args, arg_names, instance)
            descs = harness.flat_descs(case, arg_names)
        lines.append(f"case {index} {case['kernel']} {len(args)}")
        for k, (desc, value) in enumerate(zip(descs, args)):
            if isinstance(desc, dict):
                fname = f"{index}_{k}.in"
                with open(os.path.join(req_dir, fname), "wb") as f:
                    f.write(harness.to_bytes(value))
                shape = harness.physical_shape(desc)
                lines.append(f"array {desc['array']} {len(shape)} "
                             + "".join(f"{d} " for d in shape) + fname)
            else:
                lines.append(_scalar_line(value))
    path = os.path.join(req_dir, "request.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def _parse_result(line):
    """'ok ...' -> (value, None); 'error STATUS MESSAGE' -> (None, message)."""
    words = line.split(" ", 3)
    if words[0] == "error":
        return None, " ".join(words[1:])
    if words[1] == "none":
        return None, None
    kind, value = words[1], words[3]
    if kind in ("int", "uint"):
        return int(value), None
    if kind == "float":
        return float.fromhex(value), None
    if kind == "bool":
        return value == "1", None
    return None, f"unknown result line: {line}"


def dataclass_argument_names(cases, store):
    """{case name: the built instance's argument names} for the cases with dataclass arguments
    (read with the qdrt binding; the runner itself takes flat arguments)."""
    wanted = [c for c in cases if "params" in c]
    if not wanted:
        return {}
    os.environ.setdefault("QDRT_LIBRARY", os.path.join(ROOT, "build", "lib", "libqdrt.so"))
    sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
    import qdrt

    out = {}
    with qdrt.open(store) as st:
        for c in wanted:
            if c["kernel"] in st.kernels():
                k = st.kernel(c["kernel"])
                out[c["name"]] = (k.arguments(0), k.instances[0])
    return out


def compiled_capi(cases, qdbuild, store, runner):
    """The store launched through the C API by capi_runner, all cases in one process (restarted
    after a case that kills it)."""
    status, stderr = build_store(qdbuild, store)
    if status is not None:
        return status
    if not os.path.exists(runner):
        print(f"FAIL no C API runner at {runner} (build the target qd_diff_capi_runner)")
        return 1
    with tempfile.TemporaryDirectory(prefix="qd-diff-capi-") as tmp:
        req_dir, out_dir = os.path.join(tmp, "request"), os.path.join(tmp, "response")
        os.makedirs(req_dir)
        os.makedirs(out_dir)
        names = dataclass_argument_names(cases, store)
        request = write_capi_request(cases, req_dir, names)
        died = {}
        start = 0
        while start < len(cases):
            cmd = [runner, store, request, out_dir] + (["--from", str(start)] if start else [])
            if not start:
                print("$ " + " ".join(cmd), flush=True)
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode == 0:
                break
            if proc.returncode == 2 or not os.path.exists(os.path.join(out_dir, "kernels.txt")):
                print(f"FAIL the C API runner failed (exit {proc.returncode}): "
                      f"{proc.stderr.strip()[-1500:]}")
                return 1
            # The first case without a result killed the process; go on after it.
            crashed = next(i for i in range(start, len(cases))
                           if not os.path.exists(os.path.join(out_dir, f"{i}.result")))
            died[crashed] = (f"the runner died (exit {proc.returncode}) "
                             + " ".join(proc.stderr.strip().splitlines()[-1:])[:300])
            start = crashed + 1
        with open(os.path.join(out_dir, "kernels.txt")) as f:
            built = set(f.read().split())
        index_of = {case["name"]: i for i, case in enumerate(cases)}

        def launch(case):
            index = index_of[case["name"]]
            if index in died:
                return None, died[index]
            try:
                with open(os.path.join(out_dir, f"{index}.result")) as f:
                    ret, err = _parse_result(f.read().rstrip("\n"))
            except OSError as e:
                return None, f"no result: {e}"
            if err:
                return None, err
            flat_names = names.get(case["name"], (None, None))[0]
            descs = harness.flat_descs(case, flat_names) if flat_names else case["args"]
            flat = []
            for k, desc in enumerate(descs):
                if isinstance(desc, dict):
                    with open(os.path.join(out_dir, f"{index}_{k}.out"), "rb") as f:
                        flat.append(harness.from_bytes(desc, f.read()))
                else:
                    flat.append(desc)
            args = flat
            if flat_names:
                args = harness.make_args(case, use_numpy=True)
                harness.set_flat(case, args, flat_names, flat)
            return json.loads(json.dumps(harness.snapshot(case, args, ret))), None

        return judge(cases, built, stderr, launch, "compiled (C API) vs reference")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--store", help="store directory (default: a temporary directory)")
    ap.add_argument("--via", choices=("python", "capi", "both"), default="python",
                    help="launch the compiled kernels through the qdrt Python binding (default), "
                    "the C API runner, or both")
    ap.add_argument("--capi-runner", default=os.path.join(ROOT, "build", "bin",
                                                          "qd_diff_capi_runner"),
                    help="the C API runner (target qd_diff_capi_runner) for --via capi")
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
        with tempfile.TemporaryDirectory(prefix="qd-diff-") as tmp:
            store = opts.store or os.path.join(tmp, "store")
            if opts.via in ("python", "both"):
                status.append(compiled(cases, opts.qdbuild, store))
            if opts.via in ("capi", "both"):
                status.append(compiled_capi(cases, opts.qdbuild, store, opts.capi_runner))
    if any(s == 1 for s in status):
        return 1
    return 125 if status and all(s == 125 for s in status) else 0


if __name__ == "__main__":
    sys.exit(main())
