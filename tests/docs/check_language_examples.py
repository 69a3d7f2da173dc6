#!/usr/bin/env python3
"""Every example of docs/language.md compiles (label docs): each ```python block that starts with
`import quadrants as qd` is written to its own file and built with `qdbuild build --json` into a
fresh store (with the ```toml block that follows it, if any, as its qdbuild.toml: the instances
it needs); a block whose first kernel line says `# rejected: QDnnn` must fail (exit 1) with an
error of exactly that code and no other error code, every other block must build with no error and
no skipped kernel.
Usage: check_language_examples.py --qdbuild PATH [--doc docs/language.md]   Exit: 0 pass; 1 fail.
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import qdtest  # noqa: E402

CHECKS = qdtest.Checks("docs")
check = CHECKS.check


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qdbuild", required=True)
    ap.add_argument("--doc", default=str(ROOT / "docs" / "language.md"))
    a = ap.parse_args()
    a.qdbuild = str(Path(a.qdbuild).resolve())
    text = Path(a.doc).read_text()
    # A ```toml block right after an example gives its instances (qdbuild.toml); the example's
    # file is then named after the module its instance keys name ("particles:Particles.step").
    found = re.findall(r"```python\n(.*?)```(?:\s*```toml\n(.*?)```)?", text, re.S)
    blocks = [(b, t) for b, t in found
              if b.startswith("import quadrants as qd") and "@qd.kernel" in b]
    print(f"docs: {len(blocks)} examples in {a.doc}")
    with CHECKS.workdir("qd-docs-") as tmp:
        for n, (block, toml) in enumerate(blocks):
            w = tmp / f"ex{n}"
            w.mkdir()
            module = f"ex{n}"
            if toml:
                named = re.search(r'instances\."(\w+):', toml)
                module = named.group(1) if named else module
                (w / "qdbuild.toml").write_text(toml)
            (w / f"{module}.py").write_text(block)
            m = re.search(r"# rejected: (QD\d+)", block)
            p = subprocess.run([a.qdbuild, "build", f"{module}.py", "--store", "st", "--json"],
                               cwd=w, capture_output=True, text=True, timeout=300)
            try:
                doc = json.loads(p.stdout)
            except ValueError:
                check(False, f"example {n}: no JSON (exit {p.returncode}): {p.stderr[-500:]}")
                continue
            errors = sorted({d["code"] for d in doc["diagnostics"] if d["severity"] == "error"})
            name = re.search(r"def (\w+)", block).group(1)
            if m:
                ok = p.returncode == 1 and errors == [m.group(1)]
                what = f"rejected with {m.group(1)}"
            else:
                ok = p.returncode == 0 and not errors and not doc["skipped"] and doc["kernels"] > 0
                what = "builds"
            if check(ok, f"example {n} ({name}) {what}: exit {p.returncode}, errors {errors}, "
                         f"skipped {doc['skipped']}: {p.stderr[-500:]}"):
                print(f"ok   example {n} ({name}) {what}")
        check(len(blocks) >= 10, f"only {len(blocks)} examples found in {a.doc}")
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
