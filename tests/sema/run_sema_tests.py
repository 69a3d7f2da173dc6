#!/usr/bin/env python3
"""Sema tests: `qdbuild check` and `qdbuild explain` on fixture trees (stdlib only).

Usage: run_sema_tests.py QDBUILD [--only SUBSTR]
Set QD_UPDATE_SNAPSHOTS=1 to rewrite the snapshots from the current output (review the diff).

Checks:
  * snapshots/check.txt: `check fixtures --print-non-pure` (text diagnostics with code frames and
    the summary line) and its exit status (1: the fixtures contain errors on purpose);
  * snapshots/check.json: the same as --format json; --format sarif is a SARIF 2.1.0 document with
    one result per diagnostic; --format github prints one workflow command per diagnostic;
  * snapshots/explain@<module>@<qualname>.json: `explain --json` of every kernel of the fixtures
    (signature, funcs, verdict, constants, key components and key);
  * keys/cases.txt: pairs of source trees (keys/<case>/a, keys/<case>/b) whose kernel key must be
    the same or must change;
  * realworld/: a Genesis-style tree that must check with no errors (snapshots/realworld.txt);
  * fixtures/purity_prefix.py: exactly its three kernels reading mathutils.* / numpyx.* are
    QD101 errors (math and numpy themselves stay exempt), asserted apart from the snapshots;
  * `-j 1` and the default give identical output; an unknown kernel id fails with a suggestion.
"""
import json
import re
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
import qdtest  # noqa: E402
SNAP = HERE / "snapshots"
UPDATE = os.environ.get("QD_UPDATE_SNAPSHOTS") == "1"

CHECKS = qdtest.Checks("sema tests")
check = CHECKS.check


def run(qdbuild, *args, cwd=HERE):
    p = subprocess.run([str(qdbuild), *args], cwd=cwd, capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def snapshot(name, text):
    """Compares `text` with snapshots/NAME byte for byte (UTF-8, LF line ends as produced)."""
    path = SNAP / name
    data = text.encode("utf-8")
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
            print(f"updated {path.relative_to(HERE)}")
        return
    if not path.exists():
        check(False, f"missing snapshot {path.relative_to(HERE)} (run with QD_UPDATE_SNAPSHOTS=1)")
        return
    mismatch = qdtest.snapshot_mismatch(path.read_bytes(), data)
    check(mismatch is None, f"{path.relative_to(HERE)} {mismatch}")


def kernel_ids(qdbuild, root):
    rc, out, err = run(qdbuild, "scan", "--json", root)
    ids = []
    for f in json.loads(out)["files"]:
        for d in f["defs"]:
            if d["kind"] == "kernel":
                ids.append(f["module"] + ":" + d["qualname"])
    return ids


def test_check(qdbuild):
    rc, out, err = run(qdbuild, "check", "fixtures", "--print-non-pure")
    check(rc == 1, f"check fixtures: exit {rc}, expected 1 (stderr: {err})")
    snapshot("check.txt", out + f"exit: {rc}\n")
    rc1, out1, _ = run(qdbuild, "check", "fixtures", "--print-non-pure", "-j", "1")
    check(out1 == out and rc1 == rc, "check -j 1 differs from the default")

    rc, out, err = run(qdbuild, "check", "fixtures", "--format", "json")
    check(rc == 1, f"check --format json: exit {rc}")
    doc = json.loads(out)
    snapshot("check.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    diags = doc["diagnostics"]
    keys = ["file", "line", "col", "end_line", "end_col", "severity", "code", "kernel", "message"]
    check(all(list(d.keys()) == keys for d in diags), "json diagnostics have the fields of `check --format json`")
    check(all(d["kernel"] for d in diags if d["code"].startswith("QD1")),
          "every sema diagnostic names its kernel")

    rc, out, err = run(qdbuild, "check", "fixtures", "--format", "sarif")
    sarif = json.loads(out)
    check(sarif.get("version") == "2.1.0" and "$schema" in sarif, "SARIF version and $schema")
    run0 = sarif["runs"][0]
    check(run0["tool"]["driver"]["name"] == "qdbuild", "SARIF tool name")
    results = run0["results"]
    check(len(results) == len(diags), f"SARIF has {len(results)} results for {len(diags)} diagnostics")
    rule_ids = [r["id"] for r in run0["tool"]["driver"]["rules"]]
    for r in results:
        ok = (r["ruleId"] in rule_ids and rule_ids[r["ruleIndex"]] == r["ruleId"]
              and r["level"] in ("error", "warning", "note") and r["message"]["text"]
              and r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1)
        if not check(ok, f"SARIF result malformed: {r}"):
            break

    rc, out, err = run(qdbuild, "check", "fixtures", "--format", "github")
    lines = out.splitlines()
    check(len(lines) == len(diags), "github: one line per diagnostic")
    check(all(l.startswith(("::error file=", "::warning file=", "::notice file=")) for l in lines),
          "github: workflow command syntax")

    rc, out, err = run(qdbuild, "check", "fixtures", "--format", "xml")
    check(rc == 2, f"unknown --format: exit {rc}, expected 2")


def without_task_keys(doc):
    """explain --json without the task keys and symbols: they hash the generated C++ and the
    toolchain (pinned by tests/codegen), not what these fixtures test."""
    for inst in doc.get("instances", []):
        for t in inst.get("tasks", []):
            t.pop("task_key", None)
            t.pop("symbol", None)
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def test_explain(qdbuild, only):
    ids = kernel_ids(qdbuild, "fixtures")
    check(len(ids) >= 40, f"found {len(ids)} fixture kernels")
    for kid in ids:
        if only and only not in kid:
            continue
        rc, out, err = run(qdbuild, "explain", kid, "--root", "fixtures", "--json")
        if not check(rc in (0, 1) and out, f"explain {kid}: exit {rc}, stderr {err}"):
            continue
        doc = json.loads(out)
        check(doc["id"] == kid and (doc["key"] is None or len(doc["key"]) == 64),
              f"explain {kid}: id and key")
        has_error = any(d["severity"] == "error" for d in doc["diagnostics"])
        check(rc == (1 if has_error else 0), f"explain {kid}: exit {rc} with errors={has_error}")
        snapshot(f"explain@{kid.replace(':', '@')}.json", without_task_keys(doc))
    rc, out, err = run(qdbuild, "explain", "compound:Solver.k_method", "--root", "fixtures")
    check(rc == 0, f"explain text: exit {rc}")
    snapshot("explain_text@compound@Solver.k_method.txt",
             re.sub(r"(  \d+ (?:range |serial)  )[0-9a-f]{16}", r"\1<task key>", out))
    rc, out, err = run(qdbuild, "explain", "purity:k_lower_in", "--root", "fixtures")
    check(rc == 1 and "did you mean 'purity:k_lower_int'?" in err,
          f"unknown kernel: exit {rc}, stderr {err!r}")


def test_keys(qdbuild, only):
    cases = []
    for line in (HERE / "keys" / "cases.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            cases.append(line.split())
    for case, kid, expected in cases:
        if only and only not in case:
            continue
        keys = []
        for side in ("a", "b"):
            rc, out, err = run(qdbuild, "explain", kid, "--root", f"keys/{case}/{side}", "--json")
            if not check(rc == 0, f"keys/{case}/{side}: explain exit {rc}: {err}{out[:300]}"):
                break
            keys.append(json.loads(out)["key"])
        if len(keys) == 2:
            got = "same" if keys[0] == keys[1] else "changed"
            check(got == expected, f"keys/{case}: key {got}, expected {expected}")
    print(f"{len(cases)} key cases")


def test_purity_prefix(qdbuild):
    """Not only the snapshot: the math/numpy exemption covers those modules, not their prefixes."""
    rc, out, err = run(qdbuild, "check", "fixtures/purity_prefix.py", "--format", "json")
    got = sorted((d["kernel"], d["code"], d["severity"]) for d in json.loads(out)["diagnostics"]
                 if (d["kernel"] or "").startswith("purity_prefix:"))
    want = [("purity_prefix:k_mathutils_attr", "QD101", "error"),
            ("purity_prefix:k_mathutils_name", "QD101", "error"),
            ("purity_prefix:k_numpyx", "QD101", "error")]
    check(rc == 1 and got == want, f"purity_prefix: mathutils.scale / numpyx.pi must be QD101 "
                                   f"captures and math.tau + np.e exempt; got exit {rc}, {got}")


def test_realworld(qdbuild):
    rc, out, err = run(qdbuild, "check", "realworld", "--print-non-pure")
    check(rc == 0, f"check realworld: exit {rc} (expected no errors)\n{out[-2000:]}{err}")
    check(" 0 errors" in out, "realworld: no errors")
    snapshot("realworld.txt", out)
    print(out.splitlines()[-1] if out else "(no output)")


def main():
    args = sys.argv[1:]
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__)
        return 2
    qdbuild = Path(args[0]).resolve()
    if not qdbuild.is_file():
        print(f"FAIL: {qdbuild} does not exist; build it first (scripts/build.sh)")
        return 1
    if not only:
        test_check(qdbuild)
        test_purity_prefix(qdbuild)
        test_realworld(qdbuild)
    test_explain(qdbuild, only)
    test_keys(qdbuild, only)
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
