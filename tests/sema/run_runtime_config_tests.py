#!/usr/bin/env python3
"""Run-time configuration and recorded instances (docs/record.md; stdlib only).

  run_runtime_config_tests.py build/bin/qdbuild

On runtime_config/app (a package configured at run time, as Genesis is by gs.init()), with
--root runtime_config so the modules are app.*:
  * globals rebound at run time are QD116, never their placeholder: the `global` form
    (app.EPS), attribute assignment from another module (app.dtype), a computed globals()[...]
    key (app.LEVEL_A) and a constant one (app.consts.SCALE); a name bound once (UNTOUCHED) is not;
  * defines from a record and from [tool.qdbuild.defines] give the values (the config wins), enter
    the kernel key, and a conflicting define is QD116 naming the record;
  * records merge (--instances twice: instances of both, once each, each with its source);
  * a bad record is a clear error at the file and entry: a kernel missing from a module of the
    tree, a parameter that does not exist, a value of the wrong kind, a malformed description,
    not JSON, not a record; a record naming a kernel outside the tree is a warning;
  * a build stamps the record: changing it is not a no-op.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE / "runtime_config"
sys.path.insert(0, str(HERE.parent / "lib"))
import qdtest  # noqa: E402

CHECKS = qdtest.Checks("runtime configuration tests")
check = CHECKS.check


def run(qdbuild, *args, cwd=TREE):
    p = subprocess.run([str(qdbuild), *map(str, args)], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def record(path, kernels=None, defines=None):
    doc = {"format": "qdrt-record 1", "config": {"arch": "x64"}, "kernels": kernels or {},
           "defines": defines or {}}
    Path(path).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return path


def diagnostics(qdbuild, *extra, cwd=TREE):
    rc, out, err = run(qdbuild, "check", "--root", ".", "app", "--format", "json", *extra, cwd=cwd)
    doc = json.loads(out) if out.strip() else {"diagnostics": []}
    return rc, doc["diagnostics"], err


def errors_by_kernel(diags):
    return sorted((d["kernel"], d["code"]) for d in diags if d["severity"] == "error")


def explain(qdbuild, kid, *extra, cwd=TREE):
    rc, out, err = run(qdbuild, "explain", kid, "app", "--root", ".", "--json", *extra, cwd=cwd)
    return rc, (json.loads(out) if out.strip() else None), err


ALL_DEFINES = {"app.EPS": 1.2e-07, "app.dtype": {"dtype": "f64"}, "app.LEVEL_A": 1,
               "app.consts.SCALE": 3.0}
PLAIN_A = {"params": {"x": "ndarray(f32, 1)", "n": {"scalar": "i32"}}, "fastcache": False}
PLAIN_B = {"params": {"x": "ndarray(i32, 1)", "n": {"scalar": "i32"}},
           "fastcache": False}


def test_runtime_globals(qdbuild):
    rc, diags, err = diagnostics(qdbuild)
    want = [("app.kernels:k_dtype", "QD116"), ("app.kernels:k_eps", "QD116"),
            ("app.kernels:k_level", "QD116"), ("app.kernels:k_scale", "QD116")]
    check(rc == 1 and errors_by_kernel(diags) == want,
          f"without defines: the four run-time globals are QD116; got exit {rc}, "
          f"{errors_by_kernel(diags)}")
    msg = {d["kernel"]: d["message"] for d in diags}
    expect = {
        "app.kernels:k_eps": ["'app.EPS' is assigned at run time (global EPS in init() at "
                              "app/__init__.py:10)", "[tool.qdbuild.defines] \"app.EPS\""],
        "app.kernels:k_dtype": ["'app.dtype' is assigned at run time (app.dtype = ... at "
                                "app/configure.py:7)"],
        "app.kernels:k_level": ["'app.LEVEL_A' is not bound in app/__init__.py, whose globals "
                                "are set at run time (globals()[...] = ... with a computed name "
                                "at app/__init__.py:14)"],
        "app.kernels:k_scale": ["'app.consts.SCALE' is assigned at run time "
                                "(globals()['SCALE'] = ... at app/consts.py:6)",
                                "python -m qdrt.record"],
    }
    for kid, parts in expect.items():
        for part in parts:
            check(part in msg.get(kid, ""), f"{kid}: message has {part!r}: {msg.get(kid)!r}")
    pos = {(d["kernel"], d["line"], d["col"]) for d in diags}
    check(("app.kernels:k_eps", 11, 23) in pos, f"k_eps QD116 at the read of app.EPS: {pos}")
    # The placeholder never reaches the key: explain lists no constant for it.
    rc, doc, err = explain(qdbuild, "app.kernels:k_eps")
    check(rc == 1 and doc is not None and not any("1e-15" in c for c in doc["constants"]),
          f"k_eps without a define: exit 1 and no 1e-15 constant; {doc and doc['constants']}")


def test_defines(qdbuild, tmp):
    rec = record(tmp / "defines.json", defines=ALL_DEFINES)
    rc, diags, err = diagnostics(qdbuild, "--instances", rec)
    check(rc == 0 and errors_by_kernel(diags) == [],
          f"with the recorded defines: no errors; got exit {rc}, {errors_by_kernel(diags)} {err}")
    rc, doc, err = explain(qdbuild, "app.kernels:k_eps", "--instances", rec)
    consts = doc["constants"] if doc else []
    check(rc == 0 and consts == ["app.EPS (define) = 1.2e-07"],
          f"k_eps reads the recorded EPS: {consts} {err}")
    key_a = doc["key"] if doc else None
    rec2 = record(tmp / "defines2.json", defines={**ALL_DEFINES, "app.EPS": 1e-6})
    rc, doc, err = explain(qdbuild, "app.kernels:k_eps", "--instances", rec2)
    check(doc is not None and doc["key"] != key_a, "another recorded EPS changes k_eps's key")
    # A define of another name leaves this kernel's key alone.
    rec3 = record(tmp / "defines3.json", defines={**ALL_DEFINES, "app.LEVEL_B": 7})
    rc, doc, err = explain(qdbuild, "app.kernels:k_eps", "--instances", rec3)
    check(doc is not None and doc["key"] == key_a, "an unrelated define keeps k_eps's key")
    rc, doc, err = explain(qdbuild, "app.kernels:k_dtype", "--instances", rec)
    check(rc == 0 and doc is not None and doc["constants"] == ["app.dtype = quadrants.f64"],
          f"k_dtype compiles with the defined app.dtype: exit {rc}, "
          f"{doc and doc['constants']} {err}")

    # [tool.qdbuild.defines] in the project's config, and the config winning over a record.
    proj = tmp / "proj"
    shutil.copytree(TREE, proj)
    (proj / "pyproject.toml").write_text(
        "[tool.qdbuild.defines]\n"
        "\"app.EPS\" = 5e-07\n"
        "\"app.dtype\" = \"quadrants.f64\"\n"
        "\"app.LEVEL_A\" = 1\n"
        "\"app.consts.SCALE\" = 3.0\n")
    rc, diags, err = diagnostics(qdbuild, cwd=proj)
    check(rc == 0 and errors_by_kernel(diags) == [],
          f"[tool.qdbuild.defines]: no errors; got {errors_by_kernel(diags)} {err}")
    rc, doc, err = explain(qdbuild, "app.kernels:k_eps", "--instances", rec, cwd=proj)
    consts = doc["constants"] if doc else []
    check(any(c.endswith("= 5e-07") for c in consts) and
          not any(c.endswith("= 1.2e-07") for c in consts),
          f"the config's define wins over the record's: {consts}")
    # Defines that are not one expression, or not a module global's name, never reach the
    # synthetic module (a value "1; import os" would add a statement to it).
    (proj / "pyproject.toml").write_text(
        "[tool.qdbuild.defines]\n\"app.EPS\" = \"1 +\"\n\"app.LEVEL_A\" = \"1; import os\"\n"
        "\"app.consts.SCALE\" = \"x = 2\"\n\"app.X\\nimport os\" = 3\n\"EPS\" = 1\n")
    rc, out, err = run(qdbuild, "check", "--root", ".", "app", cwd=proj)
    for want in ["pyproject.toml:2:13: error: define 'app.EPS': '1 +' is not one Python expression",
                 "pyproject.toml:3:17: error: define 'app.LEVEL_A': '1; import os' is not one",
                 "pyproject.toml:4:22: error: define 'app.consts.SCALE': 'x = 2' is not one",
                 "pyproject.toml:5:22: error: define 'app.X\\nimport os' is not a dotted Python",
                 "pyproject.toml:6:9: error: define 'EPS' must name a module global"]:
        check(rc == 1 and want in out, f"bad define: want {want!r}; exit {rc}, stdout {out!r}")

    # Recorded runs that disagree: QD116 naming the record, not one of the values.
    conflict = record(tmp / "conflict.json",
                      defines={**ALL_DEFINES, "app.EPS": {"conflict": [1e-7, 2e-7]}})
    rc, diags, err = diagnostics(qdbuild, "--instances", conflict)
    msgs = [d["message"] for d in diags if d["code"] == "QD116"]
    check(rc == 1 and len(msgs) == 1 and "'app.EPS' had different values in the recorded runs ("
          in msgs[0] and "conflict.json" in msgs[0], f"conflicting define: {msgs}")


def test_merge(qdbuild, tmp):
    a = record(tmp / "a.json", kernels={"app.kernels:k_plain": [PLAIN_A]}, defines=ALL_DEFINES)
    b = record(tmp / "b.json", kernels={"app.kernels:k_plain": [PLAIN_A, PLAIN_B]})
    rc, doc, err = explain(qdbuild, "app.kernels:k_plain", "--instances", a, "--instances", b)
    if not check(doc is not None, f"explain k_plain with two records: {err}"):
        return
    got = [(i["instance"], i["source"]) for i in doc["instances"]]
    want = [("x=ndarray(f32, 1), n=i32", f"{a}: kernels['app.kernels:k_plain'][0]"),
            ("x=ndarray(i32, 1), n=i32", f"{b}: kernels['app.kernels:k_plain'][1]")]
    check(rc == 0 and got == want, f"merged instances, once each, with sources: {got}")
    check(all(not i["unbound"] for i in doc["instances"]), "recorded instances bind everything")
    rc, out, err = run(qdbuild, "explain", "app.kernels:k_plain", "app", "--root", ".",
                       "--instances", a)
    check(f"  from     {a}: kernels['app.kernels:k_plain'][0]" in out,
          f"explain text shows where an instance came from:\n{out}")


def test_bad_records(qdbuild, tmp):
    cases = [
        ("missing_kernel", {"app.kernels:k_gone": [PLAIN_A]}, "error",
         "kernels['app.kernels:k_gone'][0]: instances are given for 'app.kernels:k_gone', but "
         "module 'app.kernels' (app/kernels.py) has no kernel 'k_gone'"),
        ("outside_tree", {"other.mod:k": [PLAIN_A]}, "warning",
         "kernels['other.mod:k'][0]: instances are given for 'other.mod:k', which is not a kernel "
         "of the files checked"),
        ("unknown_param", {"app.kernels:k_plain": [
            {"params": {"x": "ndarray(f32, 1)", "m": "ndarray(f32, 1)"}}]}, "error",
         "kernels['app.kernels:k_plain'][0]: instance of 'app.kernels:k_plain' sets 'm', which "
         "is not a parameter"),
        ("scalar_for_array", {"app.kernels:k_plain": [{"params": {"x": {"template": 3}}}]},
         "error", "kernels['app.kernels:k_plain'][0]: instance of 'app.kernels:k_plain': 'x' is an "
         "array parameter (ndarray(?, ?)), but the instance gives 3"),
        ("wrong_dtype", {"app.kernels:k_eps": [{"params": {"x": "ndarray(i32, 1)"}}]}, "error",
         "kernels['app.kernels:k_eps'][0]: instance of 'app.kernels:k_eps': 'x' is annotated "
         "ndarray(f32, 1), but the instance gives dtype 'i32'"),
        ("malformed", {"app.kernels:k_plain": [{"params": {"x": {"enum": 5, "member": []}}}]},
         "error", "kernels['app.kernels:k_plain'][0]: parameter 'x': "),
        ("no_params", {"app.kernels:k_plain": [{"fastcache": True}]}, "error",
         "kernels['app.kernels:k_plain'][0]: not an instance (no \"params\")"),
    ]
    for name, kernels, severity, message in cases:
        rec = record(tmp / f"{name}.json", kernels=kernels, defines=ALL_DEFINES)
        rc, diags, err = diagnostics(qdbuild, "--instances", rec)
        hits = [d for d in diags if d["code"] == "QD112" and d["file"] == str(rec)]
        ok = (len(hits) == 1 and hits[0]["severity"] == severity and
              hits[0]["message"].startswith(message) and rc == (1 if severity == "error" else 0))
        check(ok, f"bad record {name}: want one {severity} QD112 at {rec} starting {message!r}; "
                  f"got exit {rc}, {[(d['severity'], d['file'], d['message']) for d in hits]} {err}")
    # Recorded defines whose names or descriptions would not be one Python expression.
    for name, defines, message in [
        ("bad_define_name", {"app.X\nimport os": 1},
         "defines: 'app.X\\nimport os' is not a dotted Python name"),
        ("bad_define_dtype", {"app.dtype": {"dtype": "f32\nimport os"}},
         "defines: 'app.dtype': 'quadrants.f32\\nimport os' is not one Python expression"),
        ("bad_define_enum", {"app.EPS": {"enum": "app.Mode", "member": "A; B", "value": 1}},
         "defines: 'app.EPS': 'app.Mode.A; B' is not one Python expression"),
    ]:
        rec = record(tmp / f"{name}.json", defines={**ALL_DEFINES, **defines})
        rc, diags, err = diagnostics(qdbuild, "--instances", rec)
        hits = [d["message"] for d in diags if d["code"] == "QD112" and d["file"] == str(rec)]
        check(rc == 1 and len(hits) == 1 and hits[0].startswith(message),
              f"{name}: want one starting {message!r}; exit {rc}, {hits} {err}")
    # Files that are not records at all: the command fails and says which file and why.
    (tmp / "not_json.json").write_text("{\"format\": ")
    (tmp / "not_record.json").write_text("{\"kernels\": {}}")
    (tmp / "bad_shape.json").write_text("{\"format\": \"qdrt-record 1\", \"kernels\": "
                                        "{\"app.kernels:k_plain\": 7}}")
    for name, part in [("not_json.json", "is not valid JSON"),
                       ("not_record.json", "not an instance record"),
                       ("missing.json", "cannot read the instance record")]:
        rc, out, err = run(qdbuild, "check", "--root", ".", "app", "--instances", tmp / name)
        check(rc != 0 and f"cannot use the instance file '{tmp / name}'" in err and part in err,
              f"{name}: exit {rc}, stderr {err!r}")
    rc, diags, err = diagnostics(qdbuild, "--instances", tmp / "bad_shape.json")
    check(any("kernels['app.kernels:k_plain']: not a list of instances" in d["message"]
              for d in diags), f"bad_shape: {[d['message'] for d in diags]}")


def test_build_stamps_record(qdbuild, tmp):
    rec = record(tmp / "build.json", kernels={"app.kernels:k_plain": [PLAIN_A]},
                 defines=ALL_DEFINES)
    store = tmp / "store"
    args = ["build", "--root", ".", "app", "--instances", rec, "--store", store, "--json"]
    rc, out, err = run(qdbuild, *args)
    first = json.loads(out) if out.strip() else {}
    check(rc == 0 and "app.kernels:k_plain" not in first.get("skipped", ["?"]),
          f"build with the record builds k_plain: exit {rc} {first} {err}")
    rc, out, err = run(qdbuild, *args)
    check(json.loads(out).get("noop") is True, f"an unchanged record is a no-op build: {out}")
    record(rec, kernels={"app.kernels:k_plain": [PLAIN_A, PLAIN_B]}, defines=ALL_DEFINES)
    rc, out, err = run(qdbuild, *args)
    again = json.loads(out) if out.strip() else {}
    check(again.get("noop") is False and again.get("instances") == first.get("instances", 0) + 1
          and again["tasks"]["compiled"] == 1,
          f"a changed record rebuilds, compiling the one new instance: {first} then {again}")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    qdbuild = Path(sys.argv[1]).resolve()
    if not qdbuild.is_file():
        print(f"FAIL: {qdbuild} does not exist; build it first (scripts/build.sh)")
        return 1
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        test_runtime_globals(qdbuild)
        test_defines(qdbuild, tmp)
        test_merge(qdbuild, tmp)
        test_bad_records(qdbuild, tmp)
        test_build_stamps_record(qdbuild, tmp)
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
