#!/usr/bin/env python3
"""Golden parser fixtures: tests/fixtures/parse/{valid,invalid}/*.py.

For every fixture, runs `qdbuild dump-ast` (from the repository root, with the relative path) and:
  valid/    CPython 3.12 must parse it; qdbuild must exit 0 with empty stderr and print exactly
            ast.dump(ast.parse(bytes), include_attributes=True) + newline; invariants are checked
            on qdbuild's tree (start <= end; each node inside its parent; siblings in order).
  invalid/  CPython 3.12 must reject it; qdbuild must exit 1 and print `path:line:col: error:`
            at CPython's line (CPython's line 0 for encoding errors matches 1-2).
  both      The snapshot tests/fixtures/parse/snapshots/<group>@<file>.snap (## AST = stdout,
            ## Errors = stderr) must match exactly. QD_UPDATE_SNAPSHOTS=1 rewrites snapshots
            (review them in the diff); snapshots without a fixture fail (and are removed on update).
            Snapshots are compared byte for byte.

Usage: run_fixtures.py [--qdbuild PATH] [--only SUBSTR] [-v]
Exit: 0 all pass; 1 any failure; 125 not running under CPython 3.12 (skipped).
"""
import argparse
import ast
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import qdtest  # noqa: E402

FIXTURES = qdtest.ROOT / "tests" / "fixtures" / "parse"
SNAPSHOTS = FIXTURES / "snapshots"
GROUPS = ("valid", "invalid")

# Where CPython's own positions break "parent encloses child" / "siblings in order" (checked on
# the whole 3.12 stdlib): decorators precede their def/class, and f-string parts may overlap.
ENCLOSE_EXEMPT = {("FunctionDef", "decorator_list"), ("AsyncFunctionDef", "decorator_list"),
                  ("ClassDef", "decorator_list")}
ORDER_EXEMPT = {("JoinedStr", "values")}


def render_snapshot(rel, out, err):
    ast_text = out.decode("utf-8", "surrogateescape").rstrip("\n") or "(none)"
    err_text = err.decode("utf-8", "surrogateescape").rstrip("\n") or "(none)"
    return f"# source: {rel}\n## AST\n{ast_text}\n\n## Errors\n{err_text}\n"


def eval_dump(text):
    """Rebuilds an ast tree from dump text (positions included); None if it cannot."""
    ns = {name: getattr(ast, name) for name in dir(ast) if not name.startswith("_")}
    ns.update({"__builtins__": {}, "Ellipsis": Ellipsis, "inf": math.inf, "nan": math.nan,
               "infj": complex(0, math.inf), "nanj": complex(0, math.nan)})
    try:
        return eval(text, ns)  # noqa: S307 - our own tool's output, in a test
    except Exception:  # noqa: BLE001
        return None


def positions(node):
    if getattr(node, "end_lineno", None) is None or not hasattr(node, "lineno"):
        return None
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


def check_invariants(tree):
    problems = []

    def visit(node, enclosing):
        p = positions(node)
        name = type(node).__name__
        if p and p[0] > p[1]:
            problems.append(f"{name} starts after it ends: {p}")
        outer = p or enclosing
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            prev_end = None
            for child in children:
                if not isinstance(child, ast.AST):
                    continue
                cp = positions(child)
                if cp and outer and (name, field) not in ENCLOSE_EXEMPT and (
                        cp[0] < outer[0] or cp[1] > outer[1]):
                    problems.append(f"{type(child).__name__} {cp} in {name}.{field} is outside "
                                    f"{outer}")
                if cp and prev_end and (name, field) not in ORDER_EXEMPT and cp[0] < prev_end:
                    problems.append(f"{type(child).__name__} {cp} in {name}.{field} starts before"
                                    f" its previous sibling ends {prev_end}")
                if cp:
                    prev_end = cp[1]
                visit(child, outer)

    visit(tree, None)
    return problems


def check_fixture(qdbuild, group, path, update):
    rel = path.relative_to(qdtest.ROOT).as_posix()
    failures = []
    data = path.read_bytes()
    ref = qdtest.cpython_dump(data)
    rc, out, err = qdtest.run_dump_ast(qdbuild, rel, timeout=60, cwd=qdtest.ROOT)
    if rc not in (0, 1):
        failures.append(f"qdbuild {qdtest.describe_rc(rc)}: "
                        f"{err.decode('utf-8', 'replace')[-300:]!r}")
    elif group == "valid":
        if ref[0] != "ok":
            failures.append(f"fixture error: CPython rejects it at line {ref[1]} ({ref[2]})")
        if rc != 0 or err:
            failures.append(f"expected no errors; got {qdtest.describe_rc(rc)} and stderr "
                            f"{err.decode('utf-8', 'replace')[:300]!r}")
        if ref[0] == "ok" and rc == 0:
            actual = out.decode("utf-8", "surrogateescape")
            if actual != ref[1] + "\n":
                failures.append("AST differs from CPython 3.12: " +
                                qdtest.diff_excerpt(ref[1] + "\n", actual))
            tree = eval_dump(actual)
            if tree is None:
                failures.append("invariants: cannot rebuild a tree from the dump")
            else:
                failures.extend("invariant: " + p for p in check_invariants(tree)[:5])
    else:
        if ref[0] == "ok":
            failures.append("fixture error: CPython 3.12 parses it")
        if rc != 1:
            failures.append(f"expected exit 1, got {qdtest.describe_rc(rc)}")
        else:
            e = qdtest.first_error(err)
            if e is None:
                failures.append("no `path:line:col: error:` line on stderr")
            elif not e[0] or ref[0] == "ok":
                pass
            elif not qdtest.same_error_line(ref[1], e[0]):
                failures.append(f"error at line {e[0]} ({e[2]}); CPython: line {ref[1]} "
                                f"({ref[2]})")
            if out:
                failures.append("stdout must be empty for a rejected file")

    snap_path = SNAPSHOTS / f"{group}@{path.name}.snap"
    snapshot = render_snapshot(rel, out, err).encode("utf-8", "surrogateescape")
    if update:
        if not snap_path.exists() or snap_path.read_bytes() != snapshot:
            snap_path.write_bytes(snapshot)
            print(f"updated {snap_path.relative_to(qdtest.ROOT)}")
    elif not snap_path.exists():
        failures.append(f"missing snapshot {snap_path.relative_to(qdtest.ROOT)} "
                        "(run with QD_UPDATE_SNAPSHOTS=1 and review it)")
    else:
        # Byte for byte: CRLF line ends or an extra trailing blank line are differences too.
        mismatch = qdtest.snapshot_mismatch(snap_path.read_bytes(), snapshot)
        if mismatch:
            failures.append(f"snapshot {snap_path.name} {mismatch}"
                            "\n    (QD_UPDATE_SNAPSHOTS=1 rewrites it; review the diff)")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qdbuild", default=str(qdtest.DEFAULT_QDBUILD))
    ap.add_argument("--only", default="", help="only fixtures whose path contains SUBSTR")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    qdtest.require_python312("the parser fixtures (CPython 3.12 is the reference)")
    qdbuild = qdtest.require_qdbuild(Path(a.qdbuild).resolve())
    update = os.environ.get("QD_UPDATE_SNAPSHOTS") == "1"
    SNAPSHOTS.mkdir(parents=True, exist_ok=True)

    total = 0
    failed = 0
    wanted = set()
    for group in GROUPS:
        for path in sorted((FIXTURES / group).glob("*.py")):
            wanted.add(f"{group}@{path.name}.snap")
            if a.only not in str(path):
                continue
            total += 1
            failures = check_fixture(qdbuild, group, path, update)
            if failures:
                failed += 1
                print(f"FAIL {group}/{path.name}")
                for f in failures:
                    print("    " + f.replace("\n", "\n    "))
            elif a.verbose:
                print(f"ok   {group}/{path.name}")
    for snap in sorted(SNAPSHOTS.glob("*.snap")):
        if snap.name not in wanted:
            if update:
                snap.unlink()
                print(f"removed stale {snap.name}")
            else:
                failed += 1
                print(f"FAIL stale snapshot without a fixture: {snap.name}")
    print(f"parse fixtures: {total - failed}/{total} passed" + (" (snapshots updated)" if update
                                                               else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
