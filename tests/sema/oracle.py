#!/usr/bin/env python3
"""Purity oracle: runs the kernels of tests/sema/fixtures/purity.py under the real Quadrants (CPU)
and compares each kernel's verdict (raises / warns [PURE.VIOLATION] / ok) with qdbuild check's.

Usage: build/venv/bin/python tests/sema/oracle.py build/bin/qdbuild
Needs `pip install quadrants numpy` in that interpreter (scripts/setup.sh makes build/venv);
exits 125 (skipped) without it, or fails under CI=true (tests/lib/skip_policy.py). ctest label
oracle: it runs a JIT per kernel (~1 minute).

Where qdbuild deliberately differs from Quadrants, the expected difference is listed in DIVERGENCES and checked as such.
"""
import importlib
import json
import subprocess
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
import skip_policy  # noqa: E402
FIXTURES = HERE / "fixtures"

# kernel -> (quadrants verdict, qdbuild verdict, why qdbuild differs)
DIVERGENCES = {
    "purity:k_enum_bare_upper": ("warning", "ok", "a name bound to an enum member is an enum value"),
    "purity:k_enum_bare_lower": ("error", "ok", "a name bound to an enum member is an enum value"),
    "purity:k_from_math": ("error", "ok", "`from math import pi` is a math constant like math.pi"),
    "purity:k_field_upper": ("warning", "error", "a captured field can never be fastcached"),
    "purity:k_tuple": ("ok", "error", "subscripts of captured tuples are captures too"),
}

ARGS = {
    "k_param_shadows": lambda qd: (7,),
    "k_template": lambda qd: (7,),
    "k_ok": lambda qd: (qd.ndarray(qd.i32, (4,)),),
}


def one_verdict(name):
    """Runs one kernel in this (fresh) process; prints its verdict as JSON."""
    import quadrants as qd

    qd.init(arch=qd.cpu, offline_cache=False)
    sys.path.insert(0, str(FIXTURES))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = importlib.import_module("purity")
    kernel = getattr(module, name)
    args = ARGS.get(name, lambda qd: ())(qd)
    detail = ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            kernel(*args)
            verdict = "ok"
        except Exception as e:  # QuadrantsCompilationError, QuadrantsNameError, ...
            verdict = "error"
            detail = f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:120]}"
    if verdict == "ok" and any("PURE.VIOLATION" in str(w.message) for w in caught):
        verdict = "warning"
        detail = next(str(w.message) for w in caught if "PURE.VIOLATION" in str(w.message))
    print("ORACLE " + json.dumps([verdict, detail[:160]]))


def quadrants_verdicts():
    # One process per kernel: a compile error can leave Quadrants' state (and the warnings it
    # emits for the next kernel) unreliable within one process.
    source = (FIXTURES / "purity.py").read_text()
    names = [line[4:line.index("(")] for line in source.splitlines() if line.startswith("def k_")]
    verdicts = {}
    for name in names:
        p = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True,
                           timeout=300)
        line = next((l for l in p.stdout.splitlines() if l.startswith("ORACLE ")), None)
        verdicts[f"purity:{name}"] = tuple(json.loads(line[7:])) if line else (
            "crash", p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}")
    return verdicts


def qdbuild_verdicts(qdbuild):
    p = subprocess.run([qdbuild, "check", "purity.py", "--format", "json"], cwd=FIXTURES,
                       capture_output=True, text=True)
    verdicts = {}
    for d in json.loads(p.stdout)["diagnostics"]:
        k = d["kernel"]
        if d["code"] in ("QD101", "QD105", "QD110") and d["severity"] == "error":
            verdicts[k] = "error"
        elif d["code"] in ("QD102", "QD103", "QD108") and verdicts.get(k) != "error":
            verdicts[k] = "warning"
    return verdicts


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        one_verdict(sys.argv[2])
        return 0
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    try:
        import quadrants  # noqa: F401
    except ImportError as e:
        skip_policy.skip("no-quadrants-venv", f"the purity oracle: {sys.executable} cannot import "
                         f"quadrants ({e})")
    theirs = quadrants_verdicts()
    ours = qdbuild_verdicts(str(Path(sys.argv[1]).resolve()))
    bad = 0
    for kernel, (verdict, detail) in sorted(theirs.items()):
        mine = ours.get(kernel, "ok")
        if kernel in DIVERGENCES:
            exp_q, exp_ours, why = DIVERGENCES[kernel]
            ok = verdict == exp_q and mine == exp_ours
            status = "diverges as intended" if ok else "UNEXPECTED"
            print(f"{status:22} {kernel:32} quadrants={verdict:8} qdbuild={mine:8} ({why})")
        else:
            ok = verdict == mine
            print(f"{'agrees' if ok else 'DISAGREES':22} {kernel:32} quadrants={verdict:8} "
                  f"qdbuild={mine:8} {detail}")
        bad += 0 if ok else 1
    print(f"{len(theirs)} kernels, {bad} unexpected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
