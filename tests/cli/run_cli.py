#!/usr/bin/env python3
"""CLI contract of build/bin/qdbuild (README "Commands"): exit statuses, usage errors,
`help`, `dump-ast` output shape and diagnostics, `scan --json` schema. Runs in a temp directory.
Usage: run_cli.py [--qdbuild PATH]      Exit: 0 all pass; 1 any failure.
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import qdtest  # noqa: E402

CHECKS = qdtest.Checks("cli")
check = CHECKS.named


def run(qdbuild, *args, cwd):
    p = subprocess.run([str(qdbuild), *args], capture_output=True, timeout=60, cwd=cwd)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qdbuild", default=str(qdtest.DEFAULT_QDBUILD))
    a = ap.parse_args()
    qd = qdtest.require_qdbuild(Path(a.qdbuild).resolve())
    with CHECKS.workdir("qd-cli-") as tmp:
        cases(qd, tmp)
    return CHECKS.finish()


def cases(qd, tmp):
    (tmp / "ok.py").write_text("x = 1\n")
    (tmp / "bad.py").write_text("x = 1\ny = (1,\nz = 2\n")
    pkg = tmp / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "k.py").write_text("import quadrants as qd\n\n\n@qd.kernel\ndef step(x: int):\n"
                              "    pass\n")

    rc, out, err = run(qd, cwd=tmp)
    check("no arguments exits 2", rc == 2, f"exit {rc}")
    check("no arguments prints usage", "usage" in (out + err).lower(), err)

    rc, out, err = run(qd, "help", cwd=tmp)
    check("help exits 0", rc == 0, f"exit {rc}")
    check("help lists dump-ast and scan", "dump-ast" in out and "scan" in out, out)

    rc, out, err = run(qd, "sacn", cwd=tmp)
    check("unknown command exits 2", rc == 2, f"exit {rc}")
    check("unknown command: qdbuild: error + suggestion",
          err.startswith("qdbuild: error: ") and "did you mean 'scan'" in err, err)

    rc, out, err = run(qd, "dump-ast", cwd=tmp)
    check("dump-ast without FILE exits 2", rc == 2, f"exit {rc}")
    rc, out, err = run(qd, "dump-ast", "--no-such-flag", "ok.py", cwd=tmp)
    check("dump-ast unknown flag exits 2", rc == 2, f"exit {rc}")
    rc, out, err = run(qd, "dump-ast", "--help", cwd=tmp)
    check("dump-ast --help exits 0", rc == 0, f"exit {rc}")

    rc, out, err = run(qd, "dump-ast", "ok.py", cwd=tmp)
    check("dump-ast valid exits 0", rc == 0, f"exit {rc} {err}")
    check("dump-ast prints one line", out.count("\n") == 1 and out.endswith("\n"), repr(out[:200]))
    check("dump-ast output", out.startswith("Module(body=[Assign(targets=[Name(id='x', ctx=Store()"
                                            ", lineno=1, col_offset=0"), repr(out[:200]))
    check("dump-ast valid: empty stderr", err == "", err)

    rc, out, err = run(qd, "dump-ast", "bad.py", cwd=tmp)
    check("dump-ast invalid exits 1", rc == 1, f"exit {rc}")
    check("dump-ast invalid: empty stdout", out == "", out[:200])
    m = re.match(r"bad\.py:(\d+):(\d+): error: .*\[QD\d{3}\]$", err.splitlines()[0] if err else "")
    check("dump-ast invalid: `path:line:col: error: message [QDnnn]`", m is not None, err)
    check("dump-ast invalid: CPython's line (2: '(' was never closed)", m and m.group(1) == "2",
          err)
    check("dump-ast invalid: code frame follows", len(err.splitlines()) >= 3 and "^" in err, err)

    rc, out, err = run(qd, "dump-ast", "missing.py", cwd=tmp)
    check("dump-ast missing file exits 1", rc == 1, f"exit {rc}")
    check("dump-ast missing file message", "missing.py" in err, err)

    rc, out, err = run(qd, "scan", "--json", "src", cwd=tmp)
    check("scan --json exits 0", rc == 0, f"exit {rc} {err}")
    try:
        doc = json.loads(out)
    except ValueError as e:
        check("scan --json prints JSON", False, f"{e}: {out[:200]!r}")
        return
    files = doc.get("files")
    check("scan --json: files[]", isinstance(files, list) and len(files) == 2, out[:300])
    by_path = {f.get("path"): f for f in files or []}
    k = by_path.get("pkg/k.py")
    if check("scan --json: path relative to the PATH argument", k is not None, list(by_path)):
        check("scan --json: module", k.get("module") == "pkg.k", k)
        defs = k.get("defs") or []
        check("scan --json: one kernel", len(defs) == 1 and defs[0].get("kind") == "kernel"
              and defs[0].get("qualname") == "step" and defs[0].get("line") == 5
              and defs[0].get("end_line") == 6 and defs[0].get("decorator") == {}, defs)
        check("scan --json: errors[]", k.get("errors") == [], k)

    rc, out, err = run(qd, "scan", "--json", ".", cwd=tmp)
    check("scan with a syntax error exits 1", rc == 1, f"exit {rc}")
    try:
        doc = json.loads(out)
        bad = [f for f in doc["files"] if f["path"] == "bad.py"]
        check("scan --json: the bad file has errors", bad and bad[0]["errors"], out[:300])
        e = bad[0]["errors"][0] if bad and bad[0]["errors"] else {}
        check("scan --json: diagnostic fields", all(key in e for key in (
            "file", "line", "col", "end_line", "end_col", "severity", "code", "message")), e)
        check("scan goes on after an error", any(f["path"] == "src/pkg/k.py" and f["defs"]
                                                for f in doc["files"]), out[:500])
    except (ValueError, KeyError, TypeError) as ex:
        check("scan --json with errors prints JSON", False, f"{ex}: {out[:200]!r}")


if __name__ == "__main__":
    sys.exit(main())
