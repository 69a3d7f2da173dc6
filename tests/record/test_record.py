#!/usr/bin/env python3
"""qdrt.record end to end, on tests/record/app (a small app under the real Quadrants, build/venv).

  test_record.py --qdbuild build/bin/qdbuild [--python build/venv/bin/python]

  * `python -m qdrt.record -o R -- app/main.py --variant 1`, then `QDRT_RECORD=R python
    app/main.py --variant 2` (an app started otherwise): R is exactly expected.qdrecord.json
    (every description kind: qd / numpy ndarrays, vector elements, a dataclass member by member,
    enums, a config object with fields and a property, funcs; `used`; Quadrants' fastcache
    decision; defines of the globals init() set: a float and a type);
  * merging is order-independent and idempotent (the other order and --append of a run already
    in it give the same bytes); -o without --append replaces;
  * 2,000 calls of a kernel record one instance (later calls are not recorded again), and the
    per-call time with and without recording is printed (not asserted);
  * `qdbuild record -o R' -- PYTHON app/main.py --variant 1` with no binding on PYTHONPATH (qdbuild
    adds its own): R' is what `python -m qdrt.record` writes for that run; --append merges; the
    command's failure is qdbuild's exit status; a command that records nothing is exit 1, one
    that cannot be found 127;
  * qdbuild check with R: no errors, the one warning Quadrants also gives (QD102 for the float
    global EPS, Quadrants' PURE.VIOLATION warning); every instance explain shows comes from R;
    qdbuild's fastcache verdicts are Quadrants'; build skips no recorded kernel.

QD_UPDATE_SNAPSHOTS=1 rewrites expected.qdrecord.json. Exit 0 / 1; 125 without build/venv (skip
policy "no-quadrants-venv").
"""
import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import qdtest  # noqa: E402
import skip_policy  # noqa: E402

EXPECTED = os.path.join(HERE, "expected.qdrecord.json")
CHECKS = qdtest.Checks("record tests")
check = CHECKS.check


def env(**extra):
    e = dict(os.environ)
    e.pop("QDRT_RECORD", None)
    e["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "runtime", "python"), HERE])
    e.update(extra)
    return e


def app(python, args, **extra):
    p = subprocess.run([python, *args], cwd=HERE, env=env(**extra), capture_output=True,
                       text=True)
    if not check(p.returncode == 0, f"{' '.join(args)}: exit {p.returncode}\n{p.stderr[-3000:]}"):
        return None
    return p.stdout


def record(python, out, variant, append=False, calls=1):
    args = ["-m", "qdrt.record", "-o", out] + (["--append"] if append else []) + \
        ["--", "app/main.py", "--variant", str(variant), "--calls", str(calls)]
    return app(python, args)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def machine_free(data):
    """A record's bytes without its "modules" table (absolute paths of this machine), as the
    committed expected.qdrecord.json holds it."""
    doc = json.loads(data)
    doc.pop("modules", None)
    return (json.dumps(doc, sort_keys=True, indent=1) + "\n").encode()


def expected_modules(python):
    site = subprocess.run([python, "-c", "import os, quadrants; "
                           "print(os.path.dirname(os.path.dirname(os.path.abspath(quadrants.__file__))))"],
                          capture_output=True, text=True).stdout.strip().splitlines()[-1]
    return {"app.kernels": {"file": os.path.join(HERE, "app", "kernels.py"), "root": HERE},
            "quadrants._kernels": {"file": os.path.join(site, "quadrants", "_kernels.py"),
                                   "root": site}}


def test_recording(python, tmp):
    r = os.path.join(tmp, "r.json")
    record(python, r, 1)
    app(python, ["app/main.py", "--variant", "2"], QDRT_RECORD=r)
    if not check(os.path.exists(r), "no record written"):
        return None
    got = read(r)
    if os.environ.get("QD_UPDATE_SNAPSHOTS") == "1":
        with open(EXPECTED, "wb") as f:
            f.write(machine_free(got))
        print(f"updated {EXPECTED}")
    want = read(EXPECTED)
    check(machine_free(got) == want,
          f"the record differs from {EXPECTED} (QD_UPDATE_SNAPSHOTS=1 rewrites it)"
          f":\n{got.decode()[:3000]}")
    doc = json.loads(got)
    check(doc.get("modules") == expected_modules(python),
          f"the record names each recorded module's file and import root: {doc.get('modules')}")
    check(got.decode() == json.dumps(doc, indent=1, sort_keys=True) + "\n",
          "the record is sorted, one-space-indented JSON with a final newline")

    # The other order: the same bytes.
    r2 = os.path.join(tmp, "r2.json")
    record(python, r2, 2)
    record(python, r2, 1, append=True)
    check(read(r2) == got, "merging in the other order gives the same record")
    # A run already in the record adds nothing.
    record(python, r, 1, append=True)
    check(read(r) == got, "--append of a run already recorded leaves the file unchanged")
    # -o without --append replaces.
    r3 = os.path.join(tmp, "r3.json")
    record(python, r3, 1)
    record(python, r3, 2)
    only2 = json.loads(read(r3))
    check(all(len(v) == 1 for v in only2["kernels"].values()) and
          only2["kernels"]["app.kernels:k_state"][0]["params"]["mode"]["template"]["member"] ==
          "EXACT", "-o without --append replaces the record with the new run")
    return r


def test_calls(python, tmp):
    many = os.path.join(tmp, "many.json")
    record(python, many, 1, calls=2000)
    one = os.path.join(tmp, "one.json")
    record(python, one, 1, calls=1)
    check(os.path.exists(many) and read(many) == read(one),
          "2,000 calls of a kernel record the same instances as one call")
    # Per-call cost (printed, never asserted): the same loop with and without the recorder.
    code = ("import sys, time; sys.argv = ['x']\n"
            "import quadrants as qd\nqd.init(arch=qd.cpu, offline_cache=False)\n"
            "from app import config, kernels\nconfig.init(1e-6)\n"
            "a = qd.ndarray(qd.f32, shape=(4,)); b = qd.ndarray(qd.math.vec3, shape=(3,))\n"
            "kernels.k_arrays(a, b, 2.0); qd.sync()\n"
            "t = time.perf_counter()\n"
            "for _ in range(20000): kernels.k_arrays(a, b, 2.0)\n"
            "qd.sync(); print((time.perf_counter() - t) / 20000 * 1e6)\n")
    times = {}
    for name, extra in [("plain", {}), ("recording", {"QDRT_RECORD": os.path.join(tmp, "t.json")})]:
        out = app(python, ["-c", code], **extra)
        times[name] = float(out.strip().splitlines()[-1]) if out else None
    if times["plain"] and times["recording"]:
        print(f"per call: {times['plain']:.2f} us plain, {times['recording']:.2f} us recording "
              f"(ratio {times['recording'] / times['plain']:.3f})")


def test_qdbuild(qdbuild, r, tmp):
    def run(*args):
        return subprocess.run([qdbuild, *args], cwd=HERE, capture_output=True, text=True)

    doc = json.loads(read(r))
    p = run("check", "app", "--root", ".", "--instances", r, "--format", "json")
    diags = json.loads(p.stdout)["diagnostics"] if p.stdout.strip() else []
    got = sorted((d["kernel"], d["code"], d["severity"]) for d in diags)
    check(p.returncode == 0 and got == [("app.kernels:k_eps", "QD102", "warning")],
          f"check with the record: exit {p.returncode}, {got} {p.stderr}")
    for kid, insts in sorted(doc["kernels"].items()):
        if kid.startswith("quadrants."):
            continue
        p = run("explain", kid, "app", "--root", ".", "--instances", r, "--json")
        e = json.loads(p.stdout) if p.stdout.strip() else None
        if not check(p.returncode == 0 and e is not None, f"explain {kid}: exit {p.returncode}"):
            continue
        check(len(e["instances"]) == len(insts) and
              all(i["source"].startswith(r + ": kernels[") and not i["unbound"]
                  for i in e["instances"]),
              f"{kid}: {len(insts)} recorded instances, each from the record and fully bound: "
              f"{[(i['instance'], i['source'], i['unbound']) for i in e['instances']]}")
        quadrants = any(i.get("fastcache") for i in insts)
        check(bool(e["eligible"]) == quadrants,
              f"{kid}: qdbuild fastcache {e['eligible']}, Quadrants {quadrants}: {e['verdict']}")
    p = run("build", "app", "--root", ".", "--instances", r, "--store",
            os.path.join(tmp, "store"), "--json")
    b = json.loads(p.stdout) if p.stdout.strip() else {}
    skipped = [k for k in b.get("skipped", ["?"]) if k in doc["kernels"]]
    check(b and not skipped, f"build skips no recorded kernel: {skipped} {p.stderr}")
    # No PATH: the record's own module files and roots (its imports loaded from the roots), from
    # another directory; every recorded kernel built, Quadrants' own included.
    elsewhere = os.path.join(tmp, "elsewhere")
    os.makedirs(elsewhere, exist_ok=True)
    p = subprocess.run([qdbuild, "build", "--instances", r, "--store", "st", "--json"],
                       cwd=elsewhere, capture_output=True, text=True)
    b = json.loads(p.stdout) if p.stdout.strip() else {}
    built = b.get("kernels", -1)
    skipped = [k for k in b.get("skipped", ["?"]) if k in doc["kernels"]]
    check(p.returncode == 0 and built == len(doc["kernels"]) and not skipped,
          f"build --instances R with no PATH builds every recorded kernel: exit {p.returncode}, "
          f"{built} of {len(doc['kernels'])}, skipped {skipped} {p.stderr[-2000:]}")
    p = subprocess.run([qdbuild, "check", "--instances", r, "--format", "json"], cwd=elsewhere,
                       capture_output=True, text=True)
    diags = json.loads(p.stdout)["diagnostics"] if p.stdout.strip() else []
    got = sorted((d["kernel"], d["code"], d["severity"]) for d in diags)
    check(p.returncode == 0 and got == [("app.kernels:k_eps", "QD102", "warning")],
          f"check --instances R with no PATH checks the record's sources: exit {p.returncode}, "
          f"{got} {p.stderr[-2000:]}")
    moved = dict(doc, modules=dict(doc["modules"], **{"app.kernels": {
        "file": os.path.join(tmp, "gone", "app", "kernels.py"), "root": os.path.join(tmp, "gone")}}))
    gone = os.path.join(tmp, "moved.json")
    with open(gone, "w") as f:
        json.dump(moved, f)
    p = subprocess.run([qdbuild, "build", "--instances", gone, "--store", "st"], cwd=elsewhere,
                       capture_output=True, text=True)
    check(p.returncode == 1 and os.path.join(tmp, "gone", "app", "kernels.py") in p.stderr and
          "does not exist" in p.stderr,
          f"a recorded file that no longer exists is an error naming it: exit {p.returncode} "
          f"{p.stderr!r}")
    test_watch_from_record(qdbuild, doc, tmp, elsewhere)


def test_watch_from_record(qdbuild, doc, tmp, cwd):
    """--watch on a build from the record's sources watches what the build follows: an edit of
    app/config.py (imported by the recorded app/kernels.py, never named by the record) rebuilds."""
    root = os.path.join(tmp, "watched")
    shutil.copytree(os.path.join(HERE, "app"), os.path.join(root, "app"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    moved = dict(doc, modules=dict(doc["modules"], **{"app.kernels": {
        "file": os.path.join(root, "app", "kernels.py"), "root": root}}))
    rec = os.path.join(tmp, "watched.json")
    with open(rec, "w") as f:
        json.dump(moved, f)
    p = subprocess.Popen([qdbuild, "build", "--watch", "--instances", rec, "--store", "wst",
                          "--json"], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        first = json.loads(p.stdout.readline() or "{}")
        check(first.get("event") == "build" and first.get("ok") and
              first.get("kernels") == len(doc["kernels"]),
              f"--watch from the record: the first build builds every recorded kernel: {first}")
        config = os.path.join(root, "app", "config.py")
        time.sleep(0.2)
        with open(config, "a") as f:
            f.write("# edited\n")
        ready, _, _ = select.select([p.stdout], [], [], 60)
        second = json.loads(p.stdout.readline() or "{}") if ready else {}
        check(second.get("event") == "rebuild" and second.get("ok") and
              any(c.endswith("app/config.py") for c in second.get("changed", [])),
              f"--watch from the record: an edit of an imported module rebuilds: {second}")
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
    # Every recorded call selects exactly its own built instance (qdrt.instances, the bridge's
    # selection): one match each, distinct instances for distinct recorded calls.
    os.environ.setdefault("QDRT_LIBRARY", os.path.join(ROOT, "build", "lib", "libqdrt.so"))
    sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
    import qdrt
    from qdrt import instances

    with qdrt.open(os.path.join(tmp, "store")) as st:
        for kid, insts in sorted(doc["kernels"].items()):
            if kid not in st.kernels():
                continue
            built = st.kernel(kid).instances
            chosen = [instances.select(built, i["params"]) for i in insts]
            check(None not in chosen and len(set(chosen)) == len(insts) == len(built),
                  f"{kid}: recorded calls select {chosen} of {built}")


def test_record_command(qdbuild, python, tmp):
    def qrecord(*args):
        e = env()
        e["PYTHONPATH"] = HERE  # the app's package only: qdbuild adds the binding itself
        return subprocess.run([qdbuild, "record", *args], cwd=HERE, env=e, capture_output=True,
                              text=True)

    want = os.path.join(tmp, "cmd_want.json")
    record(python, want, 1)
    got = os.path.join(tmp, "cmd_got.json")
    with open(got, "w") as f:
        f.write("stale")  # replaced without --append
    p = qrecord("-o", got, "--", python, "app/main.py", "--variant", "1", "--calls", "1")
    n = len(json.loads(read(want))["kernels"]) if os.path.exists(want) else -1
    check(p.returncode == 0 and f"holds {n} kernels" in p.stdout,
          f"qdbuild record: exit {p.returncode}, {p.stdout!r} {p.stderr[-2000:]}")
    check(os.path.exists(got) and os.path.exists(want) and read(got) == read(want),
          "qdbuild record writes what python -m qdrt.record writes")
    p = qrecord("-o", got, "--append", "--", python, "app/main.py", "--variant", "2")
    check(p.returncode == 0 and machine_free(read(got)) == read(EXPECTED),
          f"qdbuild record --append merges the run (the two variants are the expected record): "
          f"exit {p.returncode} {p.stderr[-2000:]}")
    p = qrecord("-o", os.path.join(tmp, "none.json"), "--", python, "-c", "import sys; sys.exit(7)")
    check(p.returncode == 7 and "exited with status 7" in p.stderr,
          f"a failing command: exit {p.returncode} {p.stderr!r}")
    p = qrecord("-o", os.path.join(tmp, "none.json"), "--", python, "-c", "pass")
    check(p.returncode == 1 and "recorded nothing" in p.stderr and
          not os.path.exists(os.path.join(tmp, "none.json")),
          f"a command that calls no kernel: exit {p.returncode} {p.stderr!r}")
    p = qrecord("-o", os.path.join(tmp, "none.json"), "--", "no-such-command-qd")
    check(p.returncode == 127 and "cannot run 'no-such-command-qd'" in p.stderr,
          f"a command that does not exist: exit {p.returncode} {p.stderr!r}")
    p = qrecord("-o", os.path.join(tmp, "none.json"))
    check(p.returncode == 2 and "give the command after --" in p.stderr,
          f"no command: exit {p.returncode} {p.stderr!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "venv", "bin", "python"))
    opts = ap.parse_args()
    probe = subprocess.run([opts.python, "-c", "import quadrants, numpy"], capture_output=True) \
        if os.path.exists(opts.python) else None
    if probe is None or probe.returncode != 0:
        skip_policy.skip("no-quadrants-venv", "recording runs an app under the real Quadrants")
    with tempfile.TemporaryDirectory() as tmp:
        r = test_recording(opts.python, tmp)
        test_calls(opts.python, tmp)
        test_record_command(os.path.abspath(opts.qdbuild), opts.python, tmp)
        if r is not None:
            test_qdbuild(os.path.abspath(opts.qdbuild), r, tmp)
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
