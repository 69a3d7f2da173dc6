"""Builds and runs generated kernels three ways and judges each case (scripts/kernel_fuzz.py).

A batch is a directory of generated modules with a pyproject.toml naming the template
instances. `qdbuild build` compiles it into a store; workers (worker.py) run every case under the
reference interpreter, through libqdrt, and under the real Quadrants when a venv has it. A case
is then one of:

  ok          every run agrees
  gap         qdbuild refuses a construct with QD201 (the language gap, counted by construct)
  invalid     the generator wrote something the reference or real Quadrants rejects (a
              generator bug: not a divergence of the compiler)
  divergence  a wrong result (compiled vs reference, or reference vs real Quadrants), a crash,
              an internal error, or a false error (qdbuild rejects what both references run)"""

import json
import math
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v)


def write_batch(path, modules, store):
    """modules: [(name, source, cases)]. Writes the files and BATCH.json; returns its cases."""
    os.makedirs(path, exist_ok=True)
    toml = ["[tool.qdbuild]", ""]
    cases = []
    for name, source, mcases in modules:
        with open(os.path.join(path, name + ".py"), "w") as f:
            f.write(source)
        for c in mcases:
            cases.append(c)
            if c.get("templates"):
                toml.append(f'[[tool.qdbuild.instances."{c["kernel"]}"]]')
                for k, v in c["templates"].items():
                    toml.append(f"{k} = {toml_value(v)}")
                toml.append("")
    with open(os.path.join(path, "pyproject.toml"), "w") as f:
        f.write("\n".join(toml) + "\n")
    with open(os.path.join(path, "BATCH.json"), "w") as f:
        json.dump({"dir": path, "store": store, "cases": cases}, f)
    return cases


def build(qdbuild, path, store, timeout=600):
    """{kernel id: None (built) | {"code", "message", "line"} (its first error)} and the
    process status; a crash or an internal error (exit 3) is reported for every kernel."""
    cmd = [qdbuild, "build", path, "--store", store, "--json"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "qdbuild build timed out"
    try:
        out = json.loads(proc.stdout)
    except ValueError:
        return None, (f"qdbuild build exited {proc.returncode} without a summary: "
                      f"{(proc.stderr or proc.stdout)[-800:]}")
    if proc.returncode not in (0, 1, 3):
        return None, f"qdbuild build exited {proc.returncode}: {proc.stderr[-800:]}"
    errors = {}
    for d in out.get("diagnostics", []):
        if d.get("severity") == "error" and d.get("kernel") and d["kernel"] not in errors:
            errors[d["kernel"]] = {"code": d.get("code"), "message": d.get("message"),
                                   "line": d.get("line")}
    for k in out.get("failed", []):
        # A kernel that failed without a diagnostic hit an internal error (exit 3): its
        # message is on stderr.
        lines = [ln for ln in proc.stderr.splitlines() if k in ln or ln.startswith("  ")]
        errors.setdefault(k, {"code": "internal", "message": " | ".join(lines)[:800] or
                              "failed without a diagnostic", "line": None})
    return errors, None


def run_worker(python, mode, batch_path, names, timeout=300, env=None):
    """{case name: {"snapshot": ...} | {"error": ...}}; a case that kills or hangs the worker
    gets an error and the worker is restarted after it. None: the mode is unavailable."""
    results = {}
    first = names[0] if names else None
    while first is not None:
        cmd = [python, os.path.join(HERE, "worker.py"), mode, batch_path, first]
        started = None
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
            out, status = proc.stdout, proc.returncode
            err = proc.stderr
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            status, err = "timeout", ""
        for line in out.splitlines():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if not isinstance(msg, dict):
                continue  # what a kernel printed
            if "unavailable" in msg:
                return None
            if "start" in msg:
                started = msg["start"]
            elif "name" in msg:
                results[msg["name"]] = msg
                started = None
        if started is not None:
            why = "timed out" if status == "timeout" else f"the worker died (status {status})"
            tail = err.strip().splitlines()[-1:] if err else []
            results[started] = {"name": started, "error": f"{why} {' '.join(tail)}".strip(),
                                "crash": True}
            rest = names[names.index(started) + 1:]
            first = next((n for n in rest if n not in results), None)
            continue
        missing = [n for n in names if n not in results]
        if missing and status not in (0,):
            for n in missing:
                results[n] = {"name": n, "error": f"the worker exited {status} before it ran",
                              "crash": True}
        first = None
    return results


# --- comparing ---------------------------------------------------------------------------------

def close(got, exp, tol):
    if isinstance(exp, bool) or isinstance(got, bool):
        return bool(got) == bool(exp)
    if isinstance(exp, int) and isinstance(got, int):
        return got == exp
    if got is None or exp is None:
        return got is exp
    got, exp = float(got), float(exp)
    if math.isnan(exp) or math.isnan(got):
        return math.isnan(exp) and math.isnan(got)
    if math.isinf(exp) or math.isinf(got):
        return got == exp
    if not tol:
        return got == exp
    return abs(got - exp) <= tol["atol"] + tol["rtol"] * abs(exp)


def flatten(v):
    if isinstance(v, (list, tuple)):
        return [x for e in v for x in flatten(e)]
    return [v]


def compare(case, got, exp):
    """None when equal (within each output's tolerance), else where they differ."""
    tols = case.get("tol", {})
    for key in ["return"] + [str(i) for i in case["outputs"]]:
        g, e = got.get(key), exp.get(key)
        where = "return" if key == "return" else f"arg {key}"
        gf, ef = flatten(g), flatten(e)
        if len(gf) != len(ef):
            return f"{where}: {len(gf)} values against {len(ef)}"
        for k, (x, y) in enumerate(zip(gf, ef)):
            if not close(x, y, tols.get(key)):
                return f"{where}[{k}]: {x!r} against {y!r}"
    return None


def gap_construct(message):
    """The construct a QD201 message names: '<construct> is not supported in kernels'."""
    m = re.match(r"(.*?) (is|are) not supported", message or "")
    text = m.group(1) if m else (message or "?")
    return re.sub(r"'[^']*'", "'…'", text)[:80]


def judge(case, built, ref, comp, quad):
    """(verdict, kind, detail) for one case (see the module docstring)."""
    name = case["name"]
    r = ref.get(name, {"error": "no result"})
    q = quad.get(name) if quad is not None else None
    if q is not None and "error" in q:
        # (qd_skip only keeps the values from being compared: a kernel Quadrants rejects is
        # not valid Quadrants whatever the reason.)
        return "invalid", "Quadrants rejects", q["error"]
    err = built.get(case["kernel"]) if built is not None else None
    if err is not None and err["code"] == "QD201" and ("error" not in r or q is not None):
        # Valid Quadrants (the real one ran it, or at least the reference did) that qdbuild
        # does not compile yet.
        return "gap", gap_construct(err["message"]), err["message"]
    if "error" in r:
        if q is not None and "snapshot" in q:
            return "divergence", "reference rejects", f"the reference: {r['error']}"
        return "invalid", "reference rejects", r["error"]
    if err is not None:
        if err["code"] == "QD201":
            return "gap", gap_construct(err["message"]), err["message"]
        if err["code"] in ("QD299", "internal") or err["code"] is None:
            return "divergence", "qdbuild internal error", f"{err['code']}: {err['message']}"
        return "divergence", "false error", f"line {err['line']}: {err['code']} {err['message']}"
    c = comp.get(name, {"error": "no result"})
    if "error" in c:
        return "divergence", "compiled run failed", c["error"]
    diff = compare(case, c["snapshot"], r["snapshot"])
    quadrants_ran = q is not None and "snapshot" in q and not case.get("qd_skip")
    if diff:
        if quadrants_ran and not compare(case, c["snapshot"], q["snapshot"]):
            # The compiled kernel computes what Quadrants computes: the stand-in is wrong.
            return "divergence", "reference vs Quadrants (compiled agrees with Quadrants)", diff
        return "divergence", "compiled vs reference", diff
    if quadrants_ran:
        diff = compare(case, r["snapshot"], q["snapshot"])
        if diff:
            return "divergence", "reference vs Quadrants", diff
    return "ok", "", ""


class Runner:
    """Builds and runs batches; `quadrants`: the venv interpreter or None."""

    def __init__(self, qdbuild, quadrants_python, work, timeout=300):
        self.qdbuild = qdbuild
        self.quadrants = quadrants_python
        self.work = work
        self.timeout = timeout
        self.env = dict(os.environ)
        lib = os.path.join(ROOT, "build", "lib", "libqdrt.so")
        self.env.setdefault("QDRT_LIBRARY", lib)

    def run(self, path, modules, store=None, with_quadrants=True):
        """Returns ([(case, verdict, kind, detail)], times)."""
        store = store or os.path.join(path, "store")
        cases = write_batch(path, modules, store)
        batch_path = os.path.join(path, "BATCH.json")
        names = [c["name"] for c in cases]
        times = {}
        t0 = time.perf_counter()
        built, failure = build(self.qdbuild, path, store)
        times["build"] = time.perf_counter() - t0
        if failure is not None:
            return [(c, "divergence", "qdbuild failed", failure) for c in cases], times
        procs = {}
        t0 = time.perf_counter()
        ref = run_worker(sys.executable, "reference", batch_path, names, self.timeout, self.env)
        times["reference"] = time.perf_counter() - t0
        runnable = [n for n, c in zip(names, cases) if c["kernel"] not in built]
        t0 = time.perf_counter()
        comp = run_worker(sys.executable, "compiled", batch_path, runnable, self.timeout,
                          self.env) if runnable else {}
        times["compiled"] = time.perf_counter() - t0
        quad = None
        if self.quadrants and with_quadrants:
            t0 = time.perf_counter()
            quad = run_worker(self.quadrants, "quadrants", batch_path, names, self.timeout * 4,
                              self.env)
            times["quadrants"] = time.perf_counter() - t0
        del procs
        out = []
        for c in cases:
            verdict, kind, detail = judge(c, built, ref or {}, comp or {}, quad)
            out.append((c, verdict, kind, detail))
        return out, times
