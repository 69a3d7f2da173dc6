"""Runs cases under the REAL Quadrants (arch=cpu) and prints one JSON object per line:
{"start": name} before a case, then {"name": ..., "snapshot": {...}} or {"name": ..., "error": ...}.
argv[1]: comma-separated case names (default: all).
Run by run_diff.py --oracle with the interpreter of a venv that has the `quadrants` package."""

import importlib
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

sys.path.insert(0, harness.CASES_DIR)


def main():
    wanted = set(sys.argv[1].split(",")) if len(sys.argv) > 1 and sys.argv[1] else None
    try:
        import quadrants as qd
    except ImportError as e:
        print(json.dumps({"unavailable": str(e)}))
        return 125
    if getattr(qd, "IS_REFERENCE_STANDIN", False):
        print(json.dumps({"unavailable": "this `quadrants` is the reference stand-in"}))
        return 125
    qd.init(arch=qd.cpu, offline_cache=False)
    for case in harness.load_cases():
        if wanted is not None and case["name"] not in wanted:
            continue
        print(json.dumps({"start": case["name"]}), flush=True)
        module, qualname = case["kernel"].split(":")
        try:
            obj = importlib.import_module(module)
            for part in qualname.split("."):
                obj = getattr(obj, part)
            args = harness.make_args(case, use_numpy=True, module=importlib.import_module(module),
                                     layout_mode="quadrants")
            ret = obj(*args)
            out = {"name": case["name"], "snapshot": harness.snapshot(case, args, ret)}
        except Exception as e:  # noqa: BLE001 - reported per case
            msg = f"{type(e).__name__}: {e}".strip().splitlines()
            out = {"name": case["name"], "error": " | ".join(msg[:3]) or traceback.format_exc()}
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
