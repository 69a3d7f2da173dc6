#!/usr/bin/env python3
"""Corpus test: `qdbuild dump-ast` against CPython 3.12 over every .py file of the stdlib.

For each file under sysconfig.get_paths()["stdlib"] (recursively, site-packages included), the
output of `qdbuild dump-ast FILE` must equal `ast.dump(ast.parse(bytes), include_attributes=True)`
plus a newline, byte for byte; a file CPython rejects must be rejected by qdbuild (exit 1) with its
first `path:line:col: error:` at CPython's line (CPython's line 0 for encoding errors matches 1-2).

Usage: compare_stdlib.py [--qdbuild PATH] [--stdlib DIR] [--jobs N] [--only SUBSTR]...
                         [--show N] [--list-failures FILE]
Exit: 0 all match; 1 any difference; 125 not running under CPython 3.12 (skipped).
Must run under Python 3.12 (PYENV_VERSION=3.12.1 python3, or $QD_PYTHON312).
"""
import argparse
import multiprocessing
import os
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import qdtest  # noqa: E402


def corpus_files(root, only):
    files = []
    for d, dirs, names in os.walk(root):
        dirs.sort()
        for n in sorted(names):
            if n.endswith(".py"):
                p = os.path.join(d, n)
                if not only or any(s in p for s in only):
                    files.append(p)
    return files


def check_file(args):
    """(path, status, detail, cpython_parses); status: same | rejected | fail."""
    qdbuild, path = args
    with open(path, "rb") as f:
        data = f.read()
    ref = qdtest.cpython_dump(data)
    status, detail = compare_one(qdbuild, path, ref)
    return path, status, detail, ref[0] == "ok"


def compare_one(qdbuild, path, ref):
    rc, out, err = qdtest.run_dump_ast(qdbuild, path)
    if rc not in (0, 1):
        tail = err.decode("utf-8", "replace")[-400:]
        return "fail", f"qdbuild {qdtest.describe_rc(rc)}\n    stderr: {tail!r}"
    if ref[0] == "ok":
        if rc != 0:
            e = qdtest.first_error(err)
            where = f"line {e[0]}: {e[2]}" if e else err.decode("utf-8", "replace")[:300]
            return "fail", f"CPython parses it, qdbuild rejects it ({where})"
        expected = ref[1] + "\n"
        actual = out.decode("utf-8", "surrogateescape")
        if actual == expected:
            return "same", ""
        if actual == ref[1]:
            return "fail", "output lacks the trailing newline"
        return "fail", qdtest.diff_excerpt(expected, actual)
    # CPython rejects it.
    _, cline, cmsg = ref
    if rc == 0:
        return "fail", f"CPython rejects it at line {cline} ({cmsg}); qdbuild parses it"
    e = qdtest.first_error(err)
    if e is None:
        return "fail", (f"qdbuild exit 1 without a `path:line:col: error:` line; stderr: "
                           f"{err.decode('utf-8', 'replace')[:300]!r}")
    if not qdtest.same_error_line(cline, e[0]):
        return "fail", (f"rejected at different lines: CPython {cline} ({cmsg}), "
                           f"qdbuild {e[0]}:{e[1]} ({e[2]})")
    return "rejected", f"line {e[0]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qdbuild", default=str(qdtest.DEFAULT_QDBUILD))
    ap.add_argument("--stdlib", default=None, help="corpus root (default: this Python's stdlib)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", default=[],
                    help="only files whose path contains SUBSTR (repeatable)")
    ap.add_argument("--show", type=int, default=10, help="print details of the first N failures")
    ap.add_argument("--list-failures", metavar="FILE", help="write every failing path + reason")
    a = ap.parse_args()

    qdtest.require_python312("the stdlib corpus comparison")
    qdbuild = qdtest.require_qdbuild(a.qdbuild)
    root = a.stdlib or sysconfig.get_paths()["stdlib"]
    files = corpus_files(root, a.only)
    if not files:
        print(f"FAIL: no .py files under {root} matching {a.only}")
        return 1
    print(f"corpus: {len(files)} files under {root}; qdbuild: {qdbuild}; {a.jobs} workers")
    sys.stdout.flush()

    t0 = time.monotonic()
    results = []
    with multiprocessing.Pool(a.jobs) as pool:
        for r in pool.imap(check_file, [(str(qdbuild), f) for f in files], chunksize=4):
            results.append(r)
    elapsed = time.monotonic() - t0

    same = sum(1 for r in results if r[1] == "same")
    rejected = sum(1 for r in results if r[1] == "rejected")
    failures = [r for r in results if r[1] == "fail"]
    for path, _, detail, _ in failures[: a.show]:
        print(f"\nFAIL {os.path.relpath(path, root)}\n    {detail}")
    if len(failures) > a.show:
        print(f"\n... and {len(failures) - a.show} more failures (--show N, --list-failures FILE)")
    if a.list_failures:
        with open(a.list_failures, "w", encoding="utf-8") as f:
            for path, _, detail, _ in failures:
                f.write(f"{path}\t{detail.splitlines()[0]}\n")
    parsed = sum(1 for r in results if r[3])
    print(f"\nidentical: {same}/{parsed} files CPython parses; same error line: {rejected} "
          f"rejected files; failures: {len(failures)}/{len(results)} ({elapsed:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
