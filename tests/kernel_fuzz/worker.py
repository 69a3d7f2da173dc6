"""Runs the cases of a generated batch one way and prints one JSON object per line:
{"start": name} before a case, then {"name": ..., "snapshot": {...}} or {"name": ..., "error": ...}.

  worker.py reference BATCH.json [FIRST]   the stdlib reference interpreter (tests/reference)
  worker.py compiled BATCH.json [FIRST]    the store qdbuild built, through the qdrt binding
  worker.py quadrants BATCH.json [FIRST]   the real Quadrants (run by a venv's interpreter)

BATCH.json: {"dir": modules directory, "store": store (compiled), "cases": [case, ...]}; a case
is {"name", "kernel": "module:qualname", "args": [array descriptions or values], "outputs":
[arg indices]} (tests/diff/harness.py). FIRST: start at that case (after a crash)."""

import importlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "diff"))
import harness  # noqa: E402


def snapshot(case, args, ret):
    snap = {"return": harness._plain(ret)}  # noqa: SLF001 - the diff harness' own helper
    for i in case["outputs"]:
        snap[str(i)] = harness.flat_list(args[i])
    return snap


def load(kernel):
    module, qualname = kernel.split(":")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def describe(e):
    lines = f"{type(e).__name__}: {e}".strip().splitlines()
    # Quadrants puts the message last, after a traceback of its own.
    useful = [ln for ln in lines if ln.strip() and not ln.startswith(" ")]
    return " | ".join((useful or lines)[-3:])[:600]


def main():
    mode, batch_path = sys.argv[1], sys.argv[2]
    first = sys.argv[3] if len(sys.argv) > 3 else None
    batch = json.load(open(batch_path))
    cases = batch["cases"]
    if first is not None:
        names = [c["name"] for c in cases]
        cases = cases[names.index(first):]
    sys.path.insert(0, batch["dir"])
    if mode == "reference":
        sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
        import quadrants

        assert getattr(quadrants, "IS_REFERENCE_STANDIN", False), quadrants.__file__
        run = lambda case, args: load(case["kernel"])(*args)  # noqa: E731
        use_numpy = False
    elif mode == "quadrants":
        try:
            import quadrants as qd
        except ImportError as e:
            print(json.dumps({"unavailable": str(e)}), flush=True)
            return 125
        if getattr(qd, "IS_REFERENCE_STANDIN", False):
            print(json.dumps({"unavailable": "the reference stand-in, not Quadrants"}), flush=True)
            return 125
        qd.init(arch=qd.cpu, offline_cache=False, log_level="error")
        run = lambda case, args: load(case["kernel"])(*args)  # noqa: E731
        use_numpy = True
    elif mode == "compiled":
        sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
        import qdrt

        store = qdrt.open(batch["store"])
        run = lambda case, args: store.kernel(case["kernel"])(*args)  # noqa: E731
        use_numpy = False
    else:
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    for case in cases:
        print(json.dumps({"start": case["name"]}), flush=True)
        try:
            args = harness.make_args(case, use_numpy=use_numpy)
            ret = run(case, args)
            out = {"name": case["name"], "snapshot": snapshot(case, args, ret)}
        except Exception as e:  # noqa: BLE001 - reported per case
            out = {"name": case["name"], "error": describe(e)}
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
