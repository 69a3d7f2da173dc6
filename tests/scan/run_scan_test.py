#!/usr/bin/env python3
"""Scan tests: `qdbuild scan` over tests/scan/fixtures, compared with expected.json.

Usage: run_scan_test.py QDBUILD   (path to the qdbuild binary; stdlib only)
Set QD_UPDATE_SNAPSHOTS=1 to rewrite expected.json from the current output (review the diff).

Checks:
  * `scan --json fixtures` equals expected.json exactly (keys in order, defs in order), except
    that an error's end_line/end_col are not compared (they follow the parser's CPython end
    positions, which the parse fixtures pin); exit status 1 (bad_syntax.py has an error).
  * hidden directories are skipped, and non-.py files are ignored.
  * `--jobs 1` and the default give byte-identical output.
  * a file argument: its root is its directory (path "solver.py", module "solver").
  * the table form: exit 1, the summary line, the diagnostic with its code frame on stderr.
  * a missing path is an error (exit 1) and the other paths are still scanned.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "expected.json"
ERROR_FIELDS = ("file", "line", "col", "severity", "code", "kernel", "message")

sys.path.insert(0, str(HERE.parent / "lib"))
import qdtest  # noqa: E402

CHECKS = qdtest.Checks("scan tests")
check = CHECKS.check


def run(qdbuild, *args):
    p = subprocess.run([qdbuild, "scan", *args], cwd=HERE, capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def comparable(doc):
    """The document with each error reduced to ERROR_FIELDS."""
    doc = json.loads(json.dumps(doc))
    for f in doc.get("files", []):
        f["errors"] = [{k: e.get(k) for k in ERROR_FIELDS} for e in f.get("errors", [])]
    return doc


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    qdbuild = str(Path(sys.argv[1]).resolve())
    if not os.access(qdbuild, os.X_OK):
        print(f"FAIL: {qdbuild} is not an executable; build it first")
        return 1

    rc, out, err = run(qdbuild, "--json", "fixtures")
    check(rc == 1, f"scan --json fixtures: exit {rc}, expected 1 (stderr: {err!r})")
    try:
        got = json.loads(out, object_pairs_hook=lambda pairs: dict(pairs))
    except json.JSONDecodeError as e:
        check(False, f"scan --json printed invalid JSON: {e}")
        return 1
    if os.environ.get("QD_UPDATE_SNAPSHOTS") == "1":
        EXPECTED.write_text(out)
        print(f"updated {EXPECTED}")
    expected = json.loads(EXPECTED.read_text())
    a, b = comparable(got), comparable(expected)
    if a != b:
        # Point at the first differing file, then the whole mismatch.
        for fa, fb in zip(a["files"], b["files"]):
            if fa != fb:
                print("first difference, got:\n" + json.dumps(fa, indent=2))
                print("expected:\n" + json.dumps(fb, indent=2))
                break
        else:
            print(f"got {len(a['files'])} files, expected {len(b['files'])}")
    check(a == b, "scan --json fixtures differs from expected.json")
    # Key order is part of the schema.
    check(json.dumps(a) == json.dumps(b), "scan --json key order differs from expected.json")

    paths = [f["path"] for f in got["files"]]
    check(not any(p.startswith(".") or "/." in p for p in paths), f"hidden directories scanned: {paths}")
    check(paths == sorted(paths), f"files not sorted: {paths}")
    check("notes.txt" not in paths, "a non-.py file was scanned")

    rc1, out1, _ = run(qdbuild, "--json", "--jobs", "1", "fixtures")
    check(rc1 == rc and out1 == out, "--jobs 1 output differs from the parallel output")

    rc, out, err = run(qdbuild, "--json", "fixtures/pkg/solver.py")
    check(rc == 0, f"scan of one file: exit {rc} (stderr: {err!r})")
    one = json.loads(out)["files"]
    check(len(one) == 1 and one[0]["path"] == "solver.py" and one[0]["module"] == "solver",
          f"file argument: path/module {[(f['path'], f['module']) for f in one]}")
    solver = next(f for f in got["files"] if f["module"] == "pkg.solver")
    check(one and one[0]["defs"] == solver["defs"], "file argument: defs differ from the directory scan")

    rc, out, err = run(qdbuild, "fixtures")
    check(rc == 1, f"table form: exit {rc}, expected 1")
    check("pkg.solver:make_kernel.<locals>.apply" in out, "table form: kernel id missing")
    check(out.rstrip().endswith("16 kernels, 13 funcs in 8 files (1 with errors)"),
          f"table form: summary line: {out.strip().splitlines()[-1:]}")
    check(err.startswith("fixtures/bad_syntax.py:6:9: error: '(' was never closed [QD"),
          f"table form: diagnostic on stderr: {err!r}")
    check("    y = (x +\n        ^" in err, f"table form: code frame: {err!r}")

    rc, out, err = run(qdbuild, "--json", "no-such-dir", "fixtures/from_import.py")
    check(rc == 1, f"missing path: exit {rc}, expected 1")
    check("qdbuild: error: cannot access 'no-such-dir': No such file or directory" in err,
          f"missing path: stderr {err!r}")
    check(len(json.loads(out)["files"]) == 1, "missing path: the other path was not scanned")

    rc, _, err = run(qdbuild)
    check(rc == 2, f"scan without PATH: exit {rc}, expected 2")

    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
