#!/usr/bin/env python3
"""`qdbuild build` end to end (issue 5 items 5-6, docs/build.md): the incremental test (a kernel with
5 top-level loops: edit one loop body -> exactly 1 task compiled and 4 reused; comment-only edit ->
nothing compiled; no-op build -> "noop" and no file in the store modified), failure handling (one
bad kernel -> exit 1, the others built), the missing-instance warning, -d explain, exit codes, the
store afterwards (verify clean, gc keeps the task cache consistent). Counters come from --json,
never from timing. Reuse is checked against what it must not survive: a store built by a broken
compiler (a copy of qdbuild and its backend whose embedded prelude truncates integer //) is
rebuilt, every task, by the real qdbuild, whose kernels then compute Python's //; a copy of the
real qdbuild with another mtime is another compiler too; an index entry naming another module
than the build log recorded is not reused. Runs in a temp directory (kept on failure).
Usage: run_build.py [--qdbuild PATH] [--qdrt-lib PATH]      Exit: 0 all pass; 1 any failure.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import qdtest  # noqa: E402

# Every build here is local: the remote execution counts of --json (docs/remote-exec.md) stay 0.
NO_REMOTE_EXEC = {"remote_executed": 0, "remote_cached": 0, "audited": 0}

CHECKS = qdtest.Checks("build")
check = CHECKS.named

NDARRAY = qdtest.NDARRAY_F32
NDARRAY_I32 = "qd.types.ndarray(dtype=qd.i32, ndim=1)"
QDRT_LIB = None  # --qdrt-lib


SAXPY = f"""import quadrants as qd


@qd.kernel
def saxpy(a: qd.f32, x: {NDARRAY}, y: {NDARRAY}):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@qd.kernel
def scale(x: {NDARRAY}):
    for i in range(x.shape[0]):
        x[i] = x[i] * 3.0
"""

BAD = f"""import quadrants as qd


@qd.kernel
def broken(x: {NDARRAY}):
    for i in range(x.shape[0]):
        x[i] = not_defined_anywhere + 1.0


@qd.kernel
def fine(x: {NDARRAY}):
    for i in range(x.shape[0]):
        x[i] = x[i] + 2.0


@qd.kernel
def templated(x: qd.types.ndarray(), n: qd.template()):
    for i in range(x.shape[0]):
        x[i] = n
"""


def run(qd, *args, cwd, env=None):
    p = subprocess.run([str(qd), *args], capture_output=True, timeout=300, cwd=cwd, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def build_json(qd, cwd, *paths, store="st", extra=()):
    rc, out, err = run(qd, "build", *paths, "--store", store, "--json", *extra, cwd=cwd)
    try:
        doc = json.loads(out)
    except ValueError:
        doc = None
    return rc, doc, out, err


def listing(root):
    """Every file under root with its size and mtime_ns (what 'no store writes' compares)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            out[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns)
    return out


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def incremental(qd, tmp):
    w = tmp / "inc"
    src = w / "src"
    write(src / "five.py", qdtest.FIVE_LOOPS)
    rc, doc, out, err = build_json(qd, w, "src")
    if not check("incremental: first build exits 0", rc == 0 and doc, f"exit {rc} {out} {err}"):
        return
    check("incremental: first build compiles 5 tasks",
          doc["tasks"] == {"total": 5, "compiled": 5, "reused": 0,
                           "fetched": 0, **NO_REMOTE_EXEC}, doc)
    check("incremental: first build counts", doc["kernels"] == 1 and doc["instances"] == 1 and
          doc["modules_linked"] == 1 and not doc["noop"] and doc["failed"] == [], doc)

    # Edit one loop body (same line count).
    write(src / "five.py", qdtest.FIVE_LOOPS.replace("y[i] * 2.0", "y[i] * 4.0"))
    rc, doc, out, err = build_json(qd, w, "src")
    check("incremental: edit one loop -> 1 compiled, 4 reused",
          rc == 0 and doc and doc["tasks"] == {"total": 5, "compiled": 1, "reused": 4,
                                               "fetched": 0, **NO_REMOTE_EXEC},
          f"exit {rc} {doc} {err}")
    check("incremental: edit relinks the module", doc and doc["modules_linked"] == 1, doc)

    # Comment-only edit: nothing is lowered or compiled.
    write(src / "five.py", qdtest.FIVE_LOOPS.replace("y[i] * 2.0", "y[i] * 4.0")
          .replace("y[i] = x[i] + 1.0", "y[i] = x[i] + 1.0  # plus one"))
    rc, doc, out, err = build_json(qd, w, "src")
    check("incremental: comment-only edit -> nothing compiled",
          rc == 0 and doc and doc["tasks"]["compiled"] == 0 and doc["modules_linked"] == 0 and
          not doc["noop"], f"exit {rc} {doc} {err}")

    # No-op: nothing compiled, and no file of the store is written.
    before = listing(w / "st")
    rc, doc, out, err = build_json(qd, w, "src")
    after = listing(w / "st")
    check("no-op: reported as noop", rc == 0 and doc and doc["noop"] and
          doc["tasks"]["compiled"] == 0, f"exit {rc} {doc} {err}")
    check("no-op: no file in the store modified", before == after,
          sorted(set(before.items()) ^ set(after.items()))[:10])
    rc, out, err = run(qd, "build", "src", "--store", "st", cwd=w)
    check("no-op: text summary", rc == 0 and out == "qdbuild: no work to do.\n", repr(out + err))
    check("no-op (text): no file in the store modified", listing(w / "st") == before)

    # Touching a file without changing it: a build that reuses everything, then a no-op again.
    time.sleep(0.06)
    os.utime(src / "five.py")
    rc, doc, out, err = build_json(qd, w, "src")
    check("touch: analysed again, nothing compiled",
          rc == 0 and doc and not doc["noop"] and doc["tasks"]["compiled"] == 0, doc)
    rc, doc, out, err = build_json(qd, w, "src")
    check("touch: then a no-op", rc == 0 and doc and doc["noop"], doc)

    # A new file: built; the unchanged module is not relinked.
    write(src / "saxpy.py", SAXPY)
    rc, doc, out, err = build_json(qd, w, "src")
    check("new file: its kernels compiled, five reused",
          rc == 0 and doc and doc["tasks"] == {"total": 7, "compiled": 2, "reused": 5,
                                               "fetched": 0, **NO_REMOTE_EXEC} and
          doc["modules_linked"] == 1 and doc["kernels"] == 3, doc)

    # -d explain names the reason; the same store still verifies.
    write(src / "five.py", qdtest.FIVE_LOOPS.replace("y[i] * 2.0", "y[i] * 5.0"))
    rc, out, err = run(qd, "build", "src", "--store", "st", "-d", "explain", cwd=w)
    check("explain: exits 0", rc == 0, f"exit {rc} {err}")
    check("explain: names the changed source",
          "kernel 'five:five' (instance x=ndarray(f32, 1), y=ndarray(f32, 1)): kernel key "
          "changed: source of 'five:five' changed" in out, out)
    check("explain: summary line", out.splitlines()[-1].startswith("qdbuild: built 3 kernels "
                                                                    "(3 instances): 1 task "
                                                                    "compiled, 6 reused"), out)
    rc, out, err = run(qd, "store", "verify", "--store", "st", cwd=w)
    check("store verify is clean after builds", rc == 0, f"exit {rc} {out} {err}")

    # A store whose index went away: every entry is missing, objects come from the task cache.
    os.remove(w / "st" / "index.qdi")
    rc, out, err = run(qd, "build", "src", "--store", "st", "-d", "explain", cwd=w)
    check("index removed: rebuilt from the task cache",
          rc == 0 and "entry missing from the store index" in out and
          "0 tasks compiled, 7 reused" in out, out + err)

    # gc with no grace removes the objects no entry references and their task records.
    rc, out, err = run(qd, "store", "gc", "--store", "st", "--grace", "0", cwd=w)
    check("gc exits 0", rc == 0, f"exit {rc} {out} {err}")
    rc, out, err = run(qd, "store", "verify", "--store", "st", cwd=w)
    check("store verify is clean after gc", rc == 0, f"exit {rc} {out} {err}")


def failures_and_warnings(qd, tmp):
    w = tmp / "bad"
    write(w / "src" / "bad.py", BAD)
    write(w / "src" / "saxpy.py", SAXPY)
    rc, doc, out, err = build_json(qd, w, "src")
    check("bad kernel: exit 1", rc == 1, f"exit {rc} {err}")
    if not check("bad kernel: JSON", doc is not None, out + err):
        return
    check("bad kernel: failed list", doc["failed"] == ["bad:broken"], doc)
    check("bad kernel: others built", doc["kernels"] == 3 and doc["instances"] == 3, doc)
    check("missing instance: skipped", doc["skipped"] == ["bad:templated"], doc)
    codes = [(d["code"], d["kernel"], d["severity"]) for d in doc["diagnostics"]]
    check("bad kernel: QD105 error in diagnostics", ("QD105", "bad:broken", "error") in codes,
          codes)
    check("missing instance: QD301 warning", ("QD301", "bad:templated", "warning") in codes,
          codes)

    rc, out, err = run(qd, "build", "src", "--store", "st", cwd=w)
    check("bad kernel (text): exit 1", rc == 1, f"exit {rc}")
    check("bad kernel (text): FAILED line", "FAILED: bad:broken\n" in out, out)
    check("bad kernel (text): diagnostic with position",
          "src/bad.py:7:16: error: name 'not_defined_anywhere' is not defined" in out, out)
    check("missing instance (text): warning",
          "src/bad.py:17:1: warning: kernel 'bad:templated' has no buildable instance: x, n" in out,
          out)
    check("bad kernel (text): summary", out.endswith("qdbuild: build stopped: 1 kernel failed.\n"),
          out)
    # A failed build is never a no-op: the errors are shown again.
    rc, out, err = run(qd, "build", "src", "--store", "st", cwd=w)
    check("failed build is not a no-op", rc == 1 and "FAILED: bad:broken" in out, out)

    # A build driven by a recorded run: a kernel no record names and that has no other instance
    # is one summary line, not a warning (an app records what it calls; a library has hundreds
    # of kernels it never calls); -d explain lists it; a recorded kernel is built as recorded.
    r = w / "run.qdrecord.json"
    write(r, json.dumps({"format": "qdrt-record 1", "config": {}, "kernels": {"saxpy:scale": [
        {"params": {"x": "ndarray(f32, 1)"}}]}}))
    rc, out, err = run(qd, "build", "src/saxpy.py", "src/bad.py", "--root", "src",
                       "--instances", str(r), "--store", "st_rec", "-d", "explain", cwd=w)
    check("records: exit 1 (the broken kernel still fails)", rc == 1, f"exit {rc} {out} {err}")
    check("records: no QD301 for the unrecorded template kernel", "QD301" not in out + err, out)
    check("records: the summary line",
          "qdbuild: 1 kernel has no instance: not built (-d explain lists it)\n" in out, out)
    check("records: -d explain lists it",
          "qdbuild explain: kernel 'bad:templated': no instance (no record names it; x, n have "
          "no value)" in out, out)
    check("records: a failing kernel still fails in full", "FAILED: bad:broken\n" in out, out)

    # Instances from the config make the template kernel buildable.
    write(w / "qdbuild.toml", '[instances."bad:templated"]\nn = 4\nx = { dtype = "f32", ndim = 1 }\n')
    write(w / "src" / "bad.py", BAD.replace("not_defined_anywhere", "x[i]"))
    rc, doc, out, err = build_json(qd, w, "src")
    check("config instance: everything builds", rc == 0 and doc and doc["failed"] == [] and
          doc["skipped"] == [] and doc["kernels"] == 5, f"exit {rc} {doc} {err}")
    # Editing the config is seen by the no-op check.
    rc, doc, out, err = build_json(qd, w, "src")
    check("config: no-op when unchanged", rc == 0 and doc and doc["noop"], doc)
    time.sleep(0.06)
    write(w / "qdbuild.toml", '[instances."bad:templated"]\nn = 5\nx = { dtype = "f32", ndim = 1 }\n')
    rc, doc, out, err = build_json(qd, w, "src")
    check("config edit: the template instance is rebuilt",
          rc == 0 and doc and not doc["noop"] and doc["tasks"]["compiled"] == 1, doc)


def usage(qd, tmp):
    w = tmp / "usage"
    write(w / "src" / "k.py", SAXPY)
    rc, out, err = run(qd, "build", cwd=w)
    check("no PATH (and no project): exit 2", rc == 2, f"exit {rc}")
    rc, out, err = run(qd, "build", "src", "--target", "cuda:sm_100", cwd=w)
    check("unsupported cuda arch: exit 2", rc == 2, f"exit {rc}")
    check("unsupported cuda arch: message", err.startswith("qdbuild: error: target 'cuda:sm_100'"), err)
    rc, out, err = run(qd, "build", "src", "--target", "tpu", cwd=w)
    check("unknown target: exit 2", rc == 2, f"exit {rc}")
    check("unknown target: message",
          err == "qdbuild: error: unknown target 'tpu' (cpu, cuda or cuda:sm_XX)\n", err)
    # cpu and cuda in one command: one entry per kernel instance and target; both build (the
    # CUDA side needs no GPU: PTX and cubins come from LLVM and nvJitLink), so exit 0.
    rc, out, err = run(qd, "build", "src", "--store", "st_multi", "--target", "cpu", "--target",
                       "cuda:sm_90", "--json", cwd=w)
    if check("cpu + cuda: exit 0", rc == 0, f"exit {rc}: {out} {err}"):
        doc = json.loads(out)
        check("cpu + cuda: two results", [t["target"] for t in doc["targets"]] == ["cpu", "cuda:sm_90"],
              out)
        check("cpu + cuda: same instances",
              doc["targets"][0]["instances"] == doc["targets"][1]["instances"], out)
    rc, out, err = run(qd, "build", "src", "-d", "nonsense", cwd=w)
    check("unknown -d: exit 2", rc == 2, f"exit {rc}")
    rc, out, err = run(qd, "build", "--help", cwd=w)
    check("--help: exit 0", rc == 0 and "--store" in out, f"exit {rc}")
    rc, out, err = run(qd, "build", "missing_dir", "--store", "st", cwd=w)
    check("missing path: exit 1", rc == 1, f"exit {rc}")
    check("missing path: message", "qdbuild: error: cannot access 'missing_dir'" in err, err)
    # QDBUILD_STORE is the default store.
    env = dict(os.environ, QDBUILD_STORE=str(w / "envstore"))
    rc, out, err = run(qd, "build", "src", cwd=w, env=env)
    check("QDBUILD_STORE: used", rc == 0 and (w / "envstore" / "index.qdi").exists(),
          f"exit {rc} {out} {err}")
    rc, out, err = run(qd, "build", "src", "--store", "st", "-d", "stats", cwd=w)
    check("-d stats: metrics printed", rc == 0 and "compile" in out and "analyze" in out, out)
    rc, out, err = run(qd, "build", "src", "--store", "st2", "--dump-ir", cwd=w)
    check("--dump-ir: exits 0 and prints", rc == 0 and len(out.splitlines()) > 3, out + err)


# Two tasks, both with integer // (qd::floordiv in the prelude).
DIVIDE = f"""import quadrants as qd


@qd.kernel
def divide(x: {NDARRAY_I32}, q: {NDARRAY_I32}):
    for i in range(x.shape[0]):
        q[i] = x[i] // 3
    for i in range(x.shape[0]):
        q[i] = q[i] * 100 + x[i] // 5
"""
DIVIDE_X = [-7, -6, -5, -1, 0, 1, 5, 7, 11, -11]
# The prelude line a "broken compiler" lacks: integer // rounds toward -inf by subtracting one
# when the remainder's sign differs from the divisor's. Without it // truncates like C's /.
PRELUDE_GOOD = b"q = static_cast<T>(q - 1);"
PRELUDE_BROKEN = b"q = static_cast<T>(q + 0);"


def divide_expected(floor):
    div = (lambda a, b: a // b) if floor else (lambda a, b: int(a / b))
    return [div(x, 3) * 100 + div(x, 5) for x in DIVIDE_X]


LAUNCH = """import array, json, sys
sys.path.insert(0, sys.argv[1])
import qdrt
x = array.array("i", json.loads(sys.argv[4]))
q = array.array("i", [0] * len(x))
qdrt.open(sys.argv[2]).kernel(sys.argv[3])(x, q)
print(json.dumps(list(q)))
"""


def launch_divide(store):
    """divide:divide run from `store` through the qdrt binding in a fresh process: q, or an error."""
    env = dict(os.environ, QDRT_LIBRARY=QDRT_LIB)
    p = subprocess.run([sys.executable, "-c", LAUNCH, str(qdtest.ROOT / "runtime" / "python"),
                        str(store), "divide:divide", json.dumps(DIVIDE_X)],
                       capture_output=True, text=True, env=env, timeout=120)
    if p.returncode != 0:
        return f"launch failed (exit {p.returncode}): {p.stderr[-800:]}"
    return json.loads(p.stdout)


def copy_compiler(qd, root, patch=None):
    """root/bin/qdbuild and root/lib/libqdbuild-backend.so (where that qdbuild loads its backend
    from): copies of qd and its plugin, each with `patch` = (old, new) bytes applied exactly once
    to its embedded prelude. A fresh copy has its own mtime, so it is another compiler identity."""
    plugin = Path(qd).parents[1] / "lib" / "libqdbuild-backend.so"
    out = root / "bin" / "qdbuild"
    for src, dst in ((Path(qd), out), (plugin, root / "lib" / plugin.name)):
        dst.parent.mkdir(parents=True, exist_ok=True)
        data = src.read_bytes()
        if patch:
            n = data.count(patch[0])
            if n != 1:
                check(f"compiler copy: {patch[0]!r} occurs once in {src}", False,
                      f"{n} times (src/codegen/prelude/qd_prelude.hpp changed? update "
                      "PRELUDE_GOOD in tests/build/run_build.py)")
                return None
            data = data.replace(*patch)
        dst.write_bytes(data)
        os.chmod(dst, 0o755)
    return out


def compiler_changed(qd, tmp):
    w = tmp / "compiler"
    write(w / "src" / "divide.py", DIVIDE)
    env = {k: v for k, v in os.environ.items() if k != "QDBUILD_BACKEND"}
    broken = copy_compiler(qd, w / "broken", (PRELUDE_GOOD, PRELUDE_BROKEN))
    if broken is None:
        return
    rc, out, err = run(broken, "build", "src", "--store", "st", "--json", cwd=w, env=env)
    doc = json.loads(out) if rc == 0 else None
    if not check("broken compiler: builds 2 tasks",
                 doc and doc["tasks"] == {"total": 2, "compiled": 2, "reused": 0,
                                          "fetched": 0, **NO_REMOTE_EXEC},
                 f"exit {rc} {out} {err}"):
        return
    check("broken compiler: its kernel truncates // (the premise of this test)",
          launch_divide(w / "st") == divide_expected(floor=False), launch_divide(w / "st"))

    # The real qdbuild on the same store: another compiler (binary and toolchain: the prelude
    # digest), so every instance is lowered again and every task compiled again (the task keys
    # hold the toolchain id); nothing the broken compiler published is reused.
    rc, out, err = run(qd, "build", "src", "--store", "st", "--json", "-d", "explain", cwd=w,
                       env=env)
    doc = json.loads(out) if rc == 0 else None
    check("fixed compiler: every task compiled again, none reused",
          doc and doc["tasks"] == {"total": 2, "compiled": 2, "reused": 0,
                                   "fetched": 0, **NO_REMOTE_EXEC} and
          doc["modules_linked"] == 1 and not doc["noop"], f"exit {rc} {out} {err}")
    check("fixed compiler: -d explain names the compiler change",
          "kernel 'divide:divide' (instance x=ndarray(i32, 1), q=ndarray(i32, 1)): the compiler "
          "changed (qdbuild or its toolchain)" in err, err)
    check("fixed compiler: the kernel computes Python's //",
          launch_divide(w / "st") == divide_expected(floor=True), launch_divide(w / "st"))
    rc, doc, out, err = build_json(qd, w, "src")
    check("fixed compiler: then a no-op", rc == 0 and doc and doc["noop"], f"{doc} {err}")

    # The same qdbuild rebuilt (here: a copy with its own mtime; same toolchain): lowered again,
    # its tasks come from the task cache (same keys), the results are unchanged.
    rebuilt = copy_compiler(qd, w / "rebuilt")
    os.utime(rebuilt, (time.time() - 3600, time.time() - 3600))
    rc, out, err = run(rebuilt, "build", "src", "--store", "st", "--json", "-d", "explain",
                       cwd=w, env=env)
    doc = json.loads(out) if rc == 0 else None
    check("rebuilt qdbuild: lowered again, tasks from the task cache",
          doc and not doc["noop"] and doc["tasks"] == {"total": 2, "compiled": 0, "reused": 2,
                                                       "fetched": 0, **NO_REMOTE_EXEC} and
          "the compiler changed (qdbuild or its toolchain)" in err, f"exit {rc} {out} {err}")
    check("rebuilt qdbuild: results unchanged",
          launch_divide(w / "st") == divide_expected(floor=True), launch_divide(w / "st"))


ONE_KERNEL = f"""import quadrants as qd


@qd.kernel
def k(x: {NDARRAY}):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0
"""


def entry_bytes(qd, store, kernel_id):
    """The bytes of the objects (tasks and module) the index entry of kernel_id references."""
    rc, out, err = run(qd, "store", "ls", "--json", "--store", str(store), cwd=store.parent)
    rows = [e for e in json.loads(out)["entries"] if e["kernel"] == kernel_id] if rc == 0 else []
    return rows[0]["bytes"] if len(rows) == 1 else f"exit {rc} {rows} {err}"


def index_names_other_module(qd, tmp):
    """Reuse without lowering needs the index to hold what the log says this build published:
    the same task objects and the same module object. Tree a has m.py with k; tree b has m.py
    with the same k and one more kernel, so b's module object for m:k is another .so. A build of
    a whose log predates b's publish (what a watcher holds in memory while another build writes
    into its store; here the log file as it was before b's build) must not reuse m:k."""
    w = tmp / "module"
    write(w / "a" / "src" / "m.py", ONE_KERNEL)
    write(w / "b" / "src" / "m.py", ONE_KERNEL + SAXPY.split("\n", 1)[1])
    store = w / "st"
    rc, doc, out, err = build_json(qd, w / "a", "src", store=str(store))
    if not check("module: tree a builds", rc == 0 and doc, f"exit {rc} {out} {err}"):
        return
    a_bytes = entry_bytes(qd, store, "m:k")
    a_log = (store / "build.log").read_bytes()
    rc, doc, out, err = build_json(qd, w / "b", "src", store=str(store))
    check("module: tree b builds", rc == 0 and doc and doc["kernels"] == 3, f"exit {rc} {out} {err}")
    b_bytes = entry_bytes(qd, store, "m:k")
    if not check("module: m:k's entry names b's module now (the premise of this test)",
                 isinstance(a_bytes, int) and isinstance(b_bytes, int) and a_bytes != b_bytes,
                 f"{a_bytes} {b_bytes}"):
        return
    (store / "build.log").write_bytes(a_log)
    rc, out, err = run(qd, "build", "src", "--store", str(store), "--json", "-d", "explain",
                       cwd=w / "a")
    doc = json.loads(out) if rc == 0 else None
    check("module: a's rebuild succeeds", doc and doc["failed"] == [], f"exit {rc} {out} {err}")
    check("module: m:k not reused: -d explain says the index holds another entry",
          "kernel 'm:k' (instance x=ndarray(f32, 1)): the store index holds a different entry" in err,
          err)
    check("module: m:k's entry names a's module again", entry_bytes(qd, store, "m:k") == a_bytes,
          f"{entry_bytes(qd, store, 'm:k')} (a: {a_bytes}, b: {b_bytes})")
    rc, out, err = run(qd, "store", "verify", "--store", str(store), cwd=w)
    check("module: store verify is clean", rc == 0, f"exit {rc} {out} {err}")


def project(qd, tmp):
    """A project directory works with no arguments (docs/build.md "Project configuration"):
    [tool.qdbuild] names paths, store and targets, relative to the config; the command line
    overrides each; the store and the build directory are never sources; bad keys are QD112
    errors at their line."""
    env = {k: v for k, v in os.environ.items() if k != "QDBUILD_STORE"}
    w = tmp / "proj"
    write(w / "pyproject.toml", "[project]\nname = \"demo\"\n\n[tool.qdbuild]\n")
    write(w / "kernels" / "k.py", SAXPY)
    # Copies of a kernel where no source belongs: the build directory (setuptools' build/lib),
    # a CACHEDIR.TAG directory, .gitignore'd files and directories (inside a git work tree).
    write(w / "build" / "lib" / "kernels" / "k.py", SAXPY.replace("def saxpy", "def stale"))
    write(w / "cache" / "CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n")
    write(w / "cache" / "c.py", ONE_KERNEL)
    write(w / "gen" / "g.py", ONE_KERNEL)
    write(w / "kernels" / "scratch_tmp.py", ONE_KERNEL)
    write(w / ".gitignore", "/gen/\n*_tmp.py\n")
    subprocess.run(["git", "init", "-q", str(w)], check=True)
    rc, out, err = run(qd, "build", "--json", cwd=w, env=env)
    doc = json.loads(out) if rc == 0 else None
    check("project: `qdbuild build` with no PATH builds the config's directory",
          doc and doc["kernels"] == 2 and doc["target"] == "cpu" and
          (w / "build" / "qdstore" / "index.qdi").exists(), f"exit {rc} {out} {err}")
    rc, out, err = run(qd, "store", "ls", "--json", cwd=w, env=env)
    ids = sorted(e["kernel"] for e in json.loads(out)["entries"]) if rc == 0 else out + err
    check("project: only the sources: not build/, a CACHEDIR.TAG dir, nor .gitignore'd files",
          ids == ["kernels.k:saxpy", "kernels.k:scale"], ids)
    check("project: the store is tagged", (w / "build" / "qdstore" / "CACHEDIR.TAG").read_text()
          .startswith("Signature: 8a477f597d28d172789f06886806bc55\n"))
    rc, out, err = run(qd, "build", "--json", cwd=w, env=env)
    check("project: then a no-op (the store inside the tree is no input)",
          rc == 0 and json.loads(out)["noop"], f"exit {rc} {out} {err}")
    rc, out, err = run(qd, "scan", ".", cwd=w)
    check("project: scan leaves out the same files", rc == 0 and "kernels/k.py" in out and
          "stale" not in out and "g.py" not in out and "c.py" not in out and
          "scratch_tmp" not in out, out)
    rc, out, err = run(qd, "scan", "gen/g.py", "kernels/scratch_tmp.py", cwd=w)
    check("project: a file named on the command line is scanned even if ignored",
          rc == 0 and "gen/g.py" in out and "scratch_tmp.py" in out, out + err)
    rc, out, err = run(qd, "build", "--json", cwd=w / "kernels", env=env)
    doc = json.loads(out) if rc == 0 else None
    check("project: from a subdirectory, the same project and store",
          doc and doc["kernels"] == 2 and doc["tasks"]["compiled"] == 0 and
          not (w / "kernels" / "build").exists(), f"exit {rc} {out} {err}")

    # qdbuild.toml: paths, store, targets relative to it; the command line overrides each.
    p = tmp / "proj2"
    write(p / "qdbuild.toml", 'paths = ["src"]\nstore = "out/st"\ntargets = ["cuda:sm_90"]\n')
    write(p / "src" / "k.py", SAXPY)
    write(p / "other" / "o.py", ONE_KERNEL)
    write(p / "sub" / "x.txt", "")
    rc, out, err = run(qd, "build", "--json", cwd=p / "sub", env=env)
    doc = json.loads(out) if rc == 0 else None
    check("config: paths, store and targets from qdbuild.toml",
          doc and doc["target"] == "cuda:sm_90" and doc["kernels"] == 2 and
          (p / "out" / "st" / "index.qdi").exists(), f"exit {rc} {out} {err}")
    rc, out, err = run(qd, "build", "--json", "--target", "cpu", cwd=p, env=env)
    doc = json.loads(out) if rc == 0 else None
    check("config: --target overrides targets", doc and doc["target"] == "cpu" and
          doc["tasks"]["compiled"] == 2, f"exit {rc} {out} {err}")
    rc, out, err = run(qd, "build", "other", "--json", "--target", "cpu", cwd=p, env=env)
    doc = json.loads(out) if rc == 0 else None
    rc2, ls, _ = run(qd, "store", "ls", "--json", cwd=p, env=env)
    ids = sorted(e["kernel"] for e in json.loads(ls)["entries"]) if rc2 == 0 else ls
    check("config: PATH overrides paths; the store is still the config's (store ls too)",
          doc and doc["kernels"] == 1 and "o:k" in ids, f"exit {rc} {out} {err} {ids}")
    rc, out, err = run(qd, "build", "--json", "--target", "cpu", "--store", "mine", cwd=p, env=env)
    check("config: --store overrides store", rc == 0 and (p / "mine" / "index.qdi").exists(),
          f"exit {rc} {err}")
    env_store = dict(env, QDBUILD_STORE=str(p / "envst"))
    rc, out, err = run(qd, "build", "--json", "--target", "cpu", cwd=p, env=env_store)
    check("config: $QDBUILD_STORE overrides store", rc == 0 and (p / "envst" / "index.qdi").exists(),
          f"exit {rc} {err}")
    rc, out, err = run(qd, "build", "--json", "--target", "cpu", "--store", "mine2", cwd=p,
                       env=env_store)
    check("config: --store overrides $QDBUILD_STORE", rc == 0 and
          (p / "mine2" / "index.qdi").exists(), f"exit {rc} {err}")

    # Errors at the config's line, exit 1; no config at all: usage, exit 2.
    b = tmp / "badproj"
    write(b / "src" / "k.py", SAXPY)
    cfg = b / "qdbuild.toml"
    write(cfg, 'opt_level = 3\npaths = 3\nstoree = "x"\n')
    rc, out, err = run(qd, "build", cwd=b, env=env)
    check("config error: exit 1, at the line, with the code",
          rc == 1 and err == f"{cfg}:2:9: error: 'paths' must be a path or a non-empty list of "
          f"paths [QD112]\n", f"exit {rc} {err!r}")
    write(cfg, 'paths = "src"\nstoree = "x"\n')
    rc, out, err = run(qd, "build", cwd=b, env=env)
    check("unknown key: exit 1 with a did-you-mean",
          rc == 1 and f"{cfg}:2:1: error: unknown key 'storee', did you mean 'store'? [QD112]" in
          out, f"exit {rc} {out!r} {err!r}")
    write(cfg, 'paths = "src"\ntargets = ["cpu", 3]\n')
    rc, out, err = run(qd, "build", cwd=b, env=env)
    check("targets of the wrong type: exit 1",
          rc == 1 and err == f"{cfg}:2:19: error: 'targets' must hold strings (cpu, cuda or "
          f"cuda:sm_XX) [QD112]\n", f"exit {rc} {err!r}")
    rc, out, err = run(qd, "build", "src", "--target", "cpu", cwd=b, env=env)
    check("config error in a key the command line overrides: still reported by the build",
          rc == 1 and "'targets' must hold strings" in out + err, f"exit {rc} {out!r} {err!r}")
    n = tmp / "noproj"
    write(n / "k.py", SAXPY)
    rc, out, err = run(qd, "build", cwd=n, env=env)
    check("no PATH and no project: exit 2",
          rc == 2 and err.startswith("qdbuild: error: no PATH given and no project found"),
          f"exit {rc} {err!r}")


def main():
    global QDRT_LIB
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qdbuild", default=str(qdtest.DEFAULT_QDBUILD))
    ap.add_argument("--qdrt-lib", default=str(qdtest.ROOT / "build" / "lib" / "libqdrt.so"))
    a = ap.parse_args()
    qd = qdtest.require_qdbuild(Path(a.qdbuild).resolve())
    QDRT_LIB = str(Path(a.qdrt_lib).resolve())
    with CHECKS.workdir("qd-build-") as tmp:
        incremental(qd, tmp)
        failures_and_warnings(qd, tmp)
        usage(qd, tmp)
        compiler_changed(qd, tmp)
        index_names_other_module(qd, tmp)
        project(qd, tmp)
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
